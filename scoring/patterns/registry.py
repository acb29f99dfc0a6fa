"""The detector registry: what a detector returns, what a reading needs for it, and the by-name table.

Each family module registers its detectors here with :func:`hand_level` or :func:`reading_level`
when :mod:`scoring.patterns` imports it; rule-set rows then name them through :data:`DETECTORS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from scoring.readings import Group, HandFacts

Hits = list[tuple[str, ...]] | None
ONCE: list[tuple[str, ...]] = [()]
STANDARD = ("standard",)


@dataclass(frozen=True)
class Requirement:
    """What a reading must have for a reading-scope detector to possibly fire.

    The engine skips a row whose requirement the reading fails, without calling the detector:
    most rows fail on counts alone, and skipping them is what keeps scoring fast. A value that is
    a string names a row parameter (``"count"``: at least ``params.count`` chows or pungs).
    """

    chows: int | str = 0
    pungs: int | str = 0
    honour_pungs: int | str = 0
    max_chows: int | None = None
    max_pungs: int | None = None
    shapes: tuple[str, ...] | None = None

    def bounds(self, params: dict) -> tuple[int, int, int, int, int, tuple[str, ...] | None]:
        def value(v: int | str) -> int:
            return int(params[v]) if isinstance(v, str) else v

        return (value(self.chows), value(self.pungs), value(self.honour_pungs),
                99 if self.max_chows is None else self.max_chows,
                99 if self.max_pungs is None else self.max_pungs, self.shapes)


@dataclass(frozen=True)
class Detector:
    function: Callable
    scope: str  # "hand" or "reading"
    requirement: Requirement = Requirement()


DETECTORS: dict[str, Detector] = {}


def hand_level(fn: Callable) -> Callable:
    """Register a hand-scope detector: it needs the hand's facts only, not a reading of its sets."""
    DETECTORS[fn.__name__] = Detector(fn, "hand")
    return fn


def reading_level(fn: Callable | None = None, **needs) -> Callable:
    """Register a reading-scope detector; ``needs`` are its :class:`Requirement` fields."""

    def register(function: Callable) -> Callable:
        DETECTORS[function.__name__] = Detector(function, "reading", Requirement(**needs))
        return function

    return register(fn) if fn is not None else register


def whole_hand(f: HandFacts) -> list[tuple[str, ...]]:
    """Every tile of the hand, as one hit."""
    return [tuple(f.tiles)]


def tiles_of(groups: Iterable[Group]) -> tuple[str, ...]:
    """The tiles of ``groups`` in order, as one hit."""
    return tuple(t for g in groups for t in g.tiles)
