"""Is a whole reading a legal winning hand? Its face counts, packed (``vision.decode.packed_tallies``),
screened structurally first, then the scorer on the few that pass."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from scoring.shapes import is_standard_complete
from scoring.tiles import FLOWER_CODES, SET_TILE_CODES
from vision.decode.options import CODE_INDEX, Option
from vision.decode.packed_tallies import Limit, pack, unpack
from vision.decode.unseen import unseen_codes
from vision.types import GroupRole, LegalReading

if TYPE_CHECKING:
    from scoring import RuleSet, TableSettings, WinContext

#: A reading's face counts over the whole hand, over the standing tiles, and its flowers, packed
#: (``vision.decode.packed_tallies``).
Tally = tuple[int, int, int]
OVER_FOUR = Limit(4, len(SET_TILE_CODES))
TWICE = Limit(1, len(FLOWER_CODES))


def option_tally(role: GroupRole, option: Option) -> Tally:
    """What one option adds to a reading's tallies."""
    if role is GroupRole.CONCEALED:
        face = pack([CODE_INDEX[option.codes[0][1]]])
        return face, face, 0
    if role is GroupRole.FLOWERS:
        return 0, 0, pack([FLOWER_CODES.index(option.codes[0][1])])
    if role is GroupRole.CONCEALED_KONG:
        return pack([CODE_INDEX[option.face or option.codes[0][1]]], weight=4), 0, 0
    return pack(CODE_INDEX[code] for _, code in option.codes), 0, 0


def special_shape_possible(counts: list[int] | tuple[int, ...]) -> bool:
    """A cheap, loose screen before the scorer is asked about a special hand (7 pairs + a pung, 13 or 16
    orphans): counts that fail it cannot be one; those that pass go to the scorer, which decides. Loose:
    any 13 distinct faces pass."""
    odd = [c for c in counts if c % 2]
    if sum(1 for c in counts if c >= 3) and len(odd) <= 1:
        return True
    distinct = sum(1 for c in counts if c)
    return distinct >= 13


class Judge:
    """Is a whole reading a legal winning hand? A fast structural check on the raw choice first
    (most readings fail it), then the scorer on the few that pass."""

    def __init__(self, rules: RuleSet | str, table: TableSettings | None, melds_count: int,
                 context: WinContext) -> None:
        self.rules = rules
        self.table = table
        self.context = context
        self.melds_count = melds_count
        self._scored: dict[tuple[object, ...], bool] = {}
        self._legal: dict[tuple[int, int], list[str | None]] = {}

    def legal_unseen_codes(self, tally: Tally, unseen: bool) -> list[str | None]:
        """The codes of the unseen tile with which a reading is legal: one reading to build per code.
        Without an ``unseen`` tile, ``[None]`` if the reading is legal as it is; ``[]``: not legal.

        Structure only, from the reading's packed tallies (building a reading costs more): at most 4
        of a face, each flower once, and standing tiles that split into sets and a pair (or a special
        shape). Readings that differ only in their exposed sets share their standing tiles, so the
        answer is kept per tally.
        """
        counts, standing, flowers = tally
        if TWICE.exceeded(flowers) or OVER_FOUR.exceeded(counts):
            return []
        key = (standing, counts) if unseen else (standing, 0)
        known = self._legal.get(key)
        if known is None:
            standing_counts = unpack(standing, len(SET_TILE_CODES))
            if not unseen:
                special = self.melds_count == 0 and special_shape_possible(standing_counts)
                known = [None] if special or is_standard_complete(standing_counts) else []
            else:
                known = unseen_codes(standing_counts, unpack(counts, len(SET_TILE_CODES)),
                                     special_shapes=self.melds_count == 0)
            self._legal[key] = known
        return known

    def scores(self, reading: LegalReading) -> bool:
        """The scorer's word: is this a valid win under the rules and table? (asked once per hand)"""
        key = reading.key()
        if key not in self._scored:
            from scoring import score_hand

            report = score_hand(replace(reading.hand, context=self.context), rules=self.rules,
                                table=self.table)
            self._scored[key] = bool(report.valid)
        return self._scored[key]
