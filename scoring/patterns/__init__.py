"""Pattern detectors: small pure functions a rule set's rows point at by name.

A detector answers "does this hand (or this reading of it) earn the row, and with which tiles?".
It returns ``None`` when the row does not apply, else a list with one tuple of tiles per
instance (a row worth 1 *each* that fires for two wind pungs returns two tuples). Values,
names and supersessions live in the rule-set TOML files, never here, so a house rule set can
reuse these detectors with other numbers. ``params`` come from the row (``[pattern.params]``).

Hand-scope detectors look only at :class:`HandFacts` (flowers, suits, how the hand was won)
and run once per hand; reading-scope detectors run once per reading, and declare a
:class:`Requirement` (at least n chows / pungs / honour pungs, a shape) so the engine can skip
them on readings that cannot earn them. Each docstring names the item it scores. The
detectors live in one module per family (flowers, honours,
kongs, winning, waits, chows, pungs, suits, special, classic); importing this package registers
them all in :data:`DETECTORS`. To add a pattern: write a detector in its family's module, then a
row in a rule file that names it; ``tests/scoring/test_scoring_patterns.py`` then asks for an
example hand.
"""

from scoring.patterns import (  # noqa: F401  imported for the detectors they register
    chows,
    classic,
    flowers,
    honours,
    kongs,
    pungs,
    special,
    suits,
    waits,
    winning,
)
from scoring.patterns.registry import DETECTORS, ONCE, Detector, Hits, Requirement, hand_level, reading_level

__all__ = ["DETECTORS", "ONCE", "Detector", "Hits", "Requirement", "hand_level", "reading_level"]
