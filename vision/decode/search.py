"""Best-first search over whole-hand readings: every combination of the variables' options in
decreasing probability, the legal ones kept (the best, its runners-up and the legal mass)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from scoring.hand import Hand, Meld
from scoring.tiles import BACK, sorted_codes
from vision.decode.budget import Budget
from vision.decode.judge import Judge, Tally, option_tally
from vision.decode.options import FLOOR, Variable, log_of
from vision.decode.unseen import UNSEEN_LOG_PRIOR
from vision.layout import back_mass
from vision.types import DecodedGroup, GroupRole, Layout, LegalReading, TileReading

#: Legal runners-up kept for the confidence report when at least this probable relative to the best.
ALTERNATIVE_RATIO = 1e-3
MAX_ALTERNATIVES = 8
#: Readings examined after the best one to find runners-up and measure the legal mass.
ALTERNATIVE_BUDGET = 2_000
#: How often (in readings examined) a search looks at the clock for its budget's deadline.
CLOCK_EVERY = 256


def build_reading(readings: list[TileReading], layout: Layout, variables: list[Variable],
                  choice: tuple[int, ...], log_p: float, unseen: str | None = None) -> LegalReading:
    """The reading for one choice; an ``unseen`` code joins the standing tiles (and is the winning tile
    when the layout found none)."""
    codes: dict[int, str] = {}
    groups: list[DecodedGroup] = []
    concealed: list[str] = []
    flowers: list[str] = []
    melds: list[Meld] = []
    concealed_indices: list[int] = []
    flower_indices: list[int] = []
    concealed_p = flower_p = 1.0
    for variable, option_index in zip(variables, choice, strict=True):
        option = variable.options[option_index]
        p = math.exp(option.log_p)
        for i, code in option.codes:
            codes[i] = code
        if variable.role is GroupRole.CONCEALED:
            concealed.append(option.codes[0][1])
            concealed_indices.append(variable.tile_indices[0])
            concealed_p *= p
        elif variable.role is GroupRole.FLOWERS:
            flowers.append(option.codes[0][1])
            flower_indices.append(variable.tile_indices[0])
            flower_p *= p
        elif variable.role is GroupRole.CONCEALED_KONG:
            face = option.face or option.codes[0][1]
            melds.append(Meld("kong", (face,) * 4, concealed=True))
            shown = tuple(BACK if back_mass(readings[i]) > 0.5 else face for i in variable.tile_indices)
            codes.update(zip(variable.tile_indices, shown, strict=True))
            groups.append(DecodedGroup(GroupRole.CONCEALED_KONG, variable.tile_indices, shown, "kong", p))
        else:
            kinds = (option.kind or "").split(",")
            by_index = dict(option.codes)
            for kind, part in zip(kinds, option.split, strict=True):
                part_codes = tuple(by_index[i] for i in part)
                melds.append(Meld(kind, tuple(sorted_codes(list(part_codes)))))
                part_p = math.exp(sum(log_of(readings[i].probability_of(by_index[i], FLOOR)) for i in part))
                groups.append(DecodedGroup(GroupRole.MELD, part, part_codes, kind, part_p))
    groups.insert(0, DecodedGroup(GroupRole.CONCEALED, tuple(concealed_indices),
                                  tuple(codes[i] for i in concealed_indices), None, concealed_p))
    if flower_indices:
        groups.append(DecodedGroup(GroupRole.FLOWERS, tuple(flower_indices),
                                   tuple(codes[i] for i in flower_indices), None, flower_p))
    for i in layout.ignored:
        codes.setdefault(i, readings[i].code)
    if layout.winning_index is not None:
        winning_tile = codes[layout.winning_index]
    else:
        winning_tile = unseen if unseen is not None else codes[concealed_indices[-1]]
    if unseen is not None:
        concealed.append(unseen)
    hand = Hand(concealed=tuple(sorted_codes(concealed)), melds=tuple(melds),
                flowers=tuple(sorted_codes(flowers)), winning_tile=winning_tile)
    return LegalReading(codes=codes, groups=tuple(groups), hand=hand, probability=math.exp(log_p),
                        unseen=unseen)


def best_first(variables: list[Variable]) -> Iterator[tuple[float, tuple[int, ...], Tally]]:
    """Yield (log_p, choice, tally) over all combinations of variable options, most probable first.
    Each combination is pushed by one whose option at ``last`` is one lower, with that one's tally:
    its own is made when it is popped (most pushed combinations never are), by swapping that
    variable's share."""
    n = len(variables)
    shares = [[option_tally(v.role, o) for o in v.options] for v in variables]
    start = (0,) * n
    first = tuple(sum(share[0][part] for share in shares) for part in range(3))
    heap = [(-sum(v.options[0].log_p for v in variables), start, -1, first)]
    while heap:
        negative, choice, last, tally = heapq.heappop(heap)
        if last >= 0:
            k = choice[last]
            (c0, s0, f0), (c1, s1, f1) = shares[last][k - 1], shares[last][k]
            tally = (tally[0] - c0 + c1, tally[1] - s0 + s1, tally[2] - f0 + f1)
        yield -negative, choice, tally
        for j in range(max(last, 0), n):
            options = variables[j].options
            k = choice[j]
            if k + 1 < len(options):
                step = options[k].log_p - options[k + 1].log_p
                heapq.heappush(heap, (negative + step, choice[:j] + (k + 1,) + choice[j + 1:], j, tally))


@dataclass
class Found:
    """What the best-first search found: the best legal reading, its equally probable completions
    (other codes for the unseen tile), the other legal runners-up, and the probability mass seen."""

    best: LegalReading | None = None
    best_log_p: float = 0.0
    completions: list[LegalReading] = field(default_factory=list)
    alternatives: list[LegalReading] = field(default_factory=list)
    legal_mass: float = 0.0
    examined_mass: float = 0.0
    searched: int = 0  # readings of the seen tiles taken from the best-first order
    best_at: int = 0  # ``searched`` when the best was found
    complete: bool = True  # every reading within ALTERNATIVE_RATIO of the best was examined
    timed_out: bool = False  # the search stopped at its budget's deadline

    def add(self, reading: LegalReading, log_p: float) -> None:
        self.legal_mass += reading.probability
        if self.best is None:
            self.best, self.best_log_p, self.best_at = reading, log_p, self.searched
        elif self.is_completion(reading):
            self.completions.append(reading)
        elif len(self.alternatives) < MAX_ALTERNATIVES:
            self.alternatives.append(reading)

    def is_completion(self, reading: LegalReading) -> bool:
        """Same seen tiles as the best reading, another code for the unseen tile."""
        if self.best is None or reading.unseen is None or reading.codes != self.best.codes:
            return False
        return reading.unseen not in {self.best.unseen, *(c.unseen for c in self.completions)}


def search(readings: list[TileReading], layout: Layout, variables: list[Variable], judge: Judge,
           unseen: bool, limit: int, budget: Budget | None) -> Found:
    """Best-first over the seen tiles' options; each choice yields its legal readings (one per code of
    the unseen tile that completes it, at the uniform prior), kept until ALTERNATIVE_RATIO, ``limit``
    readings, or the ``budget``'s deadline (its clock read every CLOCK_EVERY readings)."""
    found = Found()
    prior = UNSEEN_LOG_PRIOR if unseen else 0.0
    keys: set[str] = set()
    for log_p, choice, tally in best_first(variables):
        found.searched += 1
        reading_log_p = log_p + prior
        if found.best is not None and reading_log_p < found.best_log_p + math.log(ALTERNATIVE_RATIO):
            break
        stale = found.best is not None and found.searched - found.best_at > ALTERNATIVE_BUDGET
        if found.searched > limit or stale:
            found.complete = False
            break
        if budget is not None and found.searched % CLOCK_EVERY == 0 and budget.expired():
            found.complete, found.timed_out = False, True
            break
        found.examined_mass += math.exp(log_p)
        for code in judge.legal_unseen_codes(tally, unseen):
            reading = build_reading(readings, layout, variables, choice, reading_log_p, code)
            key = reading.key()
            if key in keys or not judge.scores(reading):
                continue
            keys.add(key)
            found.add(reading, reading_log_p)
    return found
