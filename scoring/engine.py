"""``score_hand``: check the hand, score every reading under a rule set, report the best one.

Steps: merge the win context (table defaults < hand < flags), check the hand is a legal win
(tile counts, melds, context consistency), build every reading (decompositions x winning-tile
places, special shapes, the flower instant win), apply each rule-set row to each reading,
drop superseded rows, apply exclusive rows, the chicken post-pass and the base point, and keep
the best total. An illegal but well-formed hand is never an exception: it is ``valid=False``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from scoring.hand import Hand, WinContext
from scoring.params import resolve_params
from scoring.patterns import DETECTORS
from scoring.payments import active_side_rows, build_payments, build_side_payments
from scoring.readings import SHAPE_NAMES, HandFacts, Reading, enumerate_readings, flower_reading
from scoring.report import ScoreItem, ScoreReport
from scoring.rules import RULESET_IDS, PatternRow, RuleSet, checked_options, load_ruleset
from scoring.shapes import INDEX, SPECIAL_SHAPES, counts_of
from scoring.table import TableSettings
from scoring.tiles import FLOWER_CODES, SET_TILE_CODES, is_flower, sorted_codes

_DEFAULT_TABLE = TableSettings()
_SET_TILES = frozenset(SET_TILE_CODES)
_FLOWER_TILES = frozenset(FLOWER_CODES)


def score_hand(hand: Hand, rules: str | RuleSet = "taiwan",
               table: TableSettings | None = None) -> ScoreReport:
    """Score ``hand`` under ``rules`` (an id, a path to a rule file, or a loaded :class:`RuleSet`).

    Never raises for an illegal but well-formed hand: the report says ``valid=False`` and why.
    A broken rule file is an :class:`InputError` (it is the caller's input, not the hand's).
    """
    ruleset = load_ruleset(rules)
    table = table or _DEFAULT_TABLE
    options, option_warnings, plan = _prepare(ruleset, table)
    warnings = list(option_warnings)
    context = _implied(table.context.merged(hand.context))
    report = ScoreReport(rules=ruleset.id, unit=ruleset.unit, valid=False, warnings=warnings)

    reason = check_hand(hand, ruleset, context)
    if reason:
        report.reason = reason
        return report

    shapes = ruleset.special_shapes
    facts = HandFacts(hand, context, options, shapes)
    readings = enumerate_readings(hand, facts, shapes, ruleset.sets_needed)
    if len(facts.flowers) >= 7 and ruleset.has_flower_wins:
        readings.append(flower_reading(hand))
    if not readings:
        report.reason = _not_a_win_reason(hand, ruleset, facts)
        return report

    hand_fired = []
    for row, function, params in plan.hand_rows:
        hits = function(facts, params)
        if hits:
            hand_fired.append((row, hits))
    best: tuple[int, list, Reading] | None = None
    for reading in readings:
        total, fired = _score_reading(reading, facts, plan, hand_fired)
        if not fired and reading.shape == "flowers":
            continue
        if best is None or total > best[0]:
            best = (total, fired, reading)
    if best is None:
        report.reason = _flower_reason(hand, ruleset, facts)
        return report

    total, fired, reading = best
    items = _items(fired, ruleset.row_order)
    if table.limit is not None and total > table.limit:
        items.append(ScoreItem("limit", f"Table limit {table.limit}", "封頂", table.limit - total, []))
        warnings.append(f"total {total} capped at the table limit of {table.limit}")
        total = table.limit
    report.valid = True
    report.total = total
    report.items = items
    report.reading = reading
    report.readings_scored = len(readings)
    report.waits = list(facts.waits)
    report.payments = build_payments(ruleset, table, context, total, reading)
    report.side_payments = build_side_payments(ruleset, facts, reading, context, options, plan.side_rows)
    minimum = table.minimum_for(context.round_wind)
    if minimum is not None and total < minimum:
        warnings.append(f"total {total} is below the table minimum of {minimum} {ruleset.unit} (still a win)")
    warnings.extend(_context_warnings(facts, ruleset, table))
    return report


_PREPARED: dict = {}


def _prepare(ruleset: RuleSet, table: TableSettings) -> tuple[dict, list[str], _Plan]:
    """The effective options (rule set < table), warnings about unknown house options, and the
    plan; cached per rule set and table options because every hand scored under them shares them."""
    key = (id(ruleset), table.ting, tuple(sorted((k, repr(v)) for k, v in table.options.items())))
    prepared = _PREPARED.get(key)
    if prepared is not None and prepared[3] is ruleset:
        return prepared[0], prepared[1], prepared[2]
    options = dict(ruleset.options)
    options["ting_in_play"] = table.ting
    warnings = []
    for name, value in checked_options(ruleset, table.options, "house options").items():
        if name in ruleset.options:
            options[name] = value
        else:
            warnings.append(f"house option {name!r} is not an option of rule set {ruleset.id!r}; ignored")
    plan = _plan(ruleset, options)
    if len(_PREPARED) > 256:
        _PREPARED.clear()
    _PREPARED[key] = (options, warnings, plan, ruleset)
    return options, warnings, plan


def _implied(context: WinContext) -> WinContext:
    """Facts that follow from what was given (not guesses): a win on a replacement draw and the
    dealer's first-turn win (the dealt hand) are self-drawn, unless self_drawn was said."""
    dealt_hand = context.first_turn and context.is_dealer
    if context.self_drawn is None and (context.replacement_draw or dealt_hand):
        return replace(context, self_drawn=True)
    return context


Entry = tuple[PatternRow, Callable, dict]


@dataclass
class _Plan:
    """A rule set under one set of option values, ready to apply (cached: building it is slow)."""

    hand_rows: list[tuple[PatternRow, Callable, dict]]
    reading_rows: list[tuple[PatternRow, Callable, dict]]
    chicken: PatternRow | None
    closure: dict[str, frozenset[str]]
    keep_last_on_exclusive: bool
    bounds: list[tuple] = field(default_factory=list)
    side_rows: list = field(default_factory=list)
    has_exclusive: bool = True
    _by_profile: dict = field(default_factory=dict)

    def rows_for(self, reading: Reading) -> list[Entry]:
        """The reading rows whose requirement this reading meets (cached per reading profile)."""
        chows, pungs = len(reading.chows), len(reading.pungs)
        key = (reading.shape, chows, pungs, reading.honour_pungs)
        rows = self._by_profile.get(key)
        if rows is None:
            rows = [entry for entry, (c, p, h, max_c, max_p, shapes) in zip(self.reading_rows, self.bounds,
                                                                              strict=True)
                    if chows >= c and pungs >= p and reading.honour_pungs >= h and chows <= max_c
                    and pungs <= max_p and (shapes is None or reading.shape in shapes)]
            self._by_profile[key] = rows
        return rows


_PLANS: dict = {}


def _plan(ruleset: RuleSet, options: dict) -> _Plan:
    key = (id(ruleset), tuple(sorted((k, repr(v)) for k, v in options.items())))
    plan = _PLANS.get(key)
    if plan is not None and plan.closure is ruleset.supersession_closure(options):
        return plan
    hand_rows, reading_rows, chicken = [], [], None
    for row in ruleset.patterns:
        if (row.when is not None and not options.get(row.when)) or (
                row.unless is not None and options.get(row.unless)):
            continue
        if row.detector == "chicken_hand":
            chicken = row
            continue
        detector = DETECTORS[row.detector]
        params = resolve_params(row.params, options)
        (hand_rows if detector.scope == "hand" else reading_rows).append((row, detector.function, params))
    bounds = [DETECTORS[row.detector].requirement.bounds(params) for row, _, params in reading_rows]
    plan = _Plan(hand_rows, reading_rows, chicken, ruleset.supersession_closure(options),
                 bool(options.get("flower_win_takes_base", False)), bounds,
                 active_side_rows(ruleset, options),
                 any(row.exclusive for row, _, _ in hand_rows + reading_rows))
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[key] = plan
    return plan


Fired = list[tuple[PatternRow, list[tuple[str, ...]]]]


def _score_reading(reading: Reading, facts: HandFacts, plan: _Plan, hand_fired: Fired) -> tuple[int, Fired]:
    """The rows this reading earns after supersession, exclusivity and the chicken post-pass."""
    fired = list(hand_fired)
    for row, function, params in plan.rows_for(reading):
        hits = function(reading, facts, params)
        if hits:
            fired.append((row, hits))
    if reading.shape == "flowers":
        fired = [(row, hits) for row, hits in fired if row.exclusive]
        if not fired:
            return 0, []
    closure = plan.closure
    removed: frozenset[str] | None = None
    for row, _ in fired:
        replaced = closure[row.id]
        if replaced:
            removed = replaced if removed is None else removed | replaced
    if removed:
        fired = [(row, hits) for row, hits in fired if row.id not in removed]
    exclusive = [(row, hits) for row, hits in fired if row.exclusive] if plan.has_exclusive else []
    if exclusive:
        fired = exclusive + [(row, hits) for row, hits in fired if row.last and plan.keep_last_on_exclusive]
    chicken = plan.chicken
    if chicken is not None and not exclusive:
        before_base = sum(row.value * len(hits) for row, hits in fired if not row.last and not row.double)
        if before_base == chicken.params.get("points_before_base", 1):
            fired = [(chicken, [()])] + [(row, hits) for row, hits in fired if row.last]
    points = 0
    doubles = 0
    for row, hits in fired:
        if row.double:
            doubles += row.value * len(hits)
        else:
            points += row.value * len(hits)
    return points * (2 ** doubles), fired


def _items(fired: Fired, row_order: dict[str, int]) -> list[ScoreItem]:
    """Report items in rule-file order (base points last, doubles after the points they double)."""
    order = sorted(fired, key=lambda pair: (pair[0].double, pair[0].last, row_order[pair[0].id]))
    items = []
    points = 0
    for row, hits in order:
        tiles = sorted_codes([t for hit in hits for t in hit]) if len(hits) > 1 else list(hits[0])
        if row.double:
            n = row.value * len(hits)
            added = points * (2 ** n) - points
            points += added
            items.append(ScoreItem(row.id, row.name, row.name_zh, added, tiles, len(hits), doubles=n))
        else:
            value = row.value * len(hits)
            points += value
            items.append(ScoreItem(row.id, row.name, row.name_zh, value, tiles, len(hits)))
    return items


def check_hand(hand: Hand, ruleset: RuleSet, context: WinContext) -> str | None:
    """Why ``hand`` cannot be a win under ``ruleset`` (tile counts, melds, context), or None."""
    for code in hand.all_set_tiles():
        if code not in _SET_TILES:
            return f"{code!r} cannot stand in a hand (a face-down or unknown tile, or a flower in a set)"
    for code in hand.flowers:
        if code not in _FLOWER_TILES:
            return f"{code!r} in the flowers is not a flower or season"
    if hand.winning_tile not in _SET_TILES and hand.winning_tile not in _FLOWER_TILES:
        return f"winning tile {hand.winning_tile!r} is not a tile code"
    for meld in hand.melds:
        problem = _meld_problem(meld)
        if problem:
            return problem
    if len(set(hand.flowers)) != len(hand.flowers):
        dup = next(c for c, n in Counter(hand.flowers).items() if n > 1)
        return f"flower {dup} appears twice (each flower exists once)"
    tiles = hand.all_set_tiles()
    copies = counts_of(tiles)
    if max(copies) > 4:
        code = next(code for code in tiles if copies[INDEX[code]] > 4)
        return f"{code} appears {copies[INDEX[code]]} times (a set has only 4 of each tile)"
    sets = ruleset.sets_needed
    size = len(hand.concealed) + 3 * len(hand.melds)
    if is_flower(hand.winning_tile):
        if size not in (ruleset.hand_tiles, ruleset.hand_tiles + 1):
            return (f"wrong tile count: {size} tile(s) (kongs counted as 3) with a flower win; expected "
                    f"{ruleset.hand_tiles} or {ruleset.hand_tiles + 1}")
        if hand.winning_tile not in hand.flowers and not context.robbed_eighth_flower:
            return f"winning flower {hand.winning_tile} is not among the hand's flowers"
    else:
        if size != ruleset.hand_tiles + 1:
            hint = _kong_hint(hand, ruleset, size)
            return (f"wrong tile count: {size} tile(s) (kongs counted as 3); a win under {ruleset.id} "
                    f"needs {ruleset.hand_tiles + 1} ({sets} sets + a pair){hint}")
        if hand.winning_tile not in hand.concealed:
            return f"winning tile {hand.winning_tile} is not among the standing (concealed) tiles"
    if len(hand.melds) > sets:
        return f"{len(hand.melds)} melds: a hand has only {sets} sets"
    if context.robbing_kong and context.self_drawn:
        return "context: robbing a kong wins on another player's tile, so it cannot be self-drawn"
    if context.replacement_draw and context.self_drawn is False:
        return "context: a win on a replacement draw is self-drawn"
    if context.discarder and context.seat_wind and context.discarder == context.seat_wind:
        return "context: the discarder cannot be the winner's own seat"
    if context.dealer is not None and context.seat_wind and context.dealer != (context.seat_wind == "1z"):
        return "context: the dealer sits East (give --seat E with --dealer, or another seat without it)"
    if context.discarder and context.self_drawn:
        return "context: a self-drawn win has no discarder"
    if context.first_turn and context.second_turn:
        return "context: a win is on the first turn or the second, not both"
    return None


def _kong_hint(hand: Hand, ruleset: RuleSet, size: int) -> str:
    """A kong laid down one tile short of seven pairs + a pung was meant as two of its pairs."""
    kongs = [m for m in hand.melds if m.kind == "kong"]
    if size != ruleset.hand_tiles or not kongs or "seven_pairs_pung" not in ruleset.special_shapes:
        return ""
    tile = kongs[0].tiles[0]
    return (f"; four of a kind counts as two pairs of seven pairs + a pung only while it stands in the "
            f"hand: write {tile[0] * 4}{tile[1]}, not ({tile[0] * 4}{tile[1]})")


def _meld_problem(meld) -> str | None:
    tiles = meld.tiles
    if any(is_flower(t) for t in tiles):
        return f"illegal {meld.kind} {' '.join(tiles)}: flowers never form sets"
    if meld.concealed and meld.kind != "kong":
        return f"illegal meld {' '.join(tiles)}: only a kong can be laid down concealed"
    if meld.kind == "chow":
        ok = len(tiles) == 3 and tiles[0][1] != "z" and len({t[1] for t in tiles}) == 1 and \
            [INDEX[t] for t in tiles] == list(range(INDEX[tiles[0]], INDEX[tiles[0]] + 3))
    else:
        ok = len(tiles) == (3 if meld.kind == "pung" else 4) and len(set(tiles)) == 1
    return None if ok else f"illegal {meld.kind} {' '.join(tiles)}"


def _not_a_win_reason(hand: Hand, ruleset: RuleSet, facts: HandFacts) -> str:
    """Why the tiles are not a win, with what the tiles before the win were waiting for (a misread
    tile in a photo usually shows up here), and a special shape that only other rule sets score."""
    if facts.flower_win:
        return _flower_reason(hand, ruleset, facts)
    shapes = f"{ruleset.sets_needed} sets + a pair"
    if ruleset.special_shapes:
        shapes += " or " + ", ".join(SHAPE_NAMES[s] for s in ruleset.special_shapes)
    reason = f"not a winning hand: the tiles do not form {shapes} with winning tile {hand.winning_tile}"
    waits = facts.waits
    reason += f" (the other tiles wait on {' '.join(waits)})" if waits else " (the other tiles are not ready)"
    return reason + _shape_elsewhere(hand, ruleset)


def _shape_elsewhere(hand: Hand, ruleset: RuleSet) -> str:
    """"; 13 orphans is not a hand under taiwan (it is under lrc, dxb)" when the tiles form a special
    shape this rule set does not score: the player may have picked the wrong rule set."""
    if hand.melds:
        return ""
    counts = counts_of(hand.concealed)
    for shape, check in SPECIAL_SHAPES.items():
        if shape in ruleset.special_shapes or not check(counts):
            continue
        others = [rid for rid in RULESET_IDS if shape in load_ruleset(rid).special_shapes]
        where = f" (it is under {', '.join(others)})" if others else ""
        return f"; {SHAPE_NAMES[shape]} is not a hand under {ruleset.id}{where}"
    return ""


def _flower_reason(hand: Hand, ruleset: RuleSet, facts: HandFacts) -> str:
    """Why a flower as the winning tile is not a win here: how many flowers the hand holds and
    what the rule set's instant flower wins need."""
    held = len(facts.flowers)
    robbed = bool(facts.context.robbed_eighth_flower)
    prefix = f"not a winning hand: flower {hand.winning_tile} as the winning tile"
    if not ruleset.has_flower_wins:
        return f"{prefix}, but {ruleset.id} has no seven- or eight-flower instant win"
    if robbed and held != 7:
        return f"{prefix}: robbing the eighth flower needs seven flowers held; this hand holds {held} flowers"
    needs_robbing = any(row.detector == "seven_flowers" and row.params.get("needs_robbed", True)
                        for row in ruleset.patterns)
    if held == 7 and not robbed and needs_robbing:
        return (f"{prefix}: under {ruleset.id} seven flowers win only by robbing the eighth (七搶一); "
                f"give --robbed-eighth-flower (@rob8) if it was robbed")
    return f"{prefix}: a flower wins only as the seventh or eighth flower; this hand holds {held} flowers"


def _context_warnings(facts: HandFacts, ruleset: RuleSet, table: TableSettings) -> list[str]:
    out = []
    uses = ruleset.detectors_used
    wind_pungs = any(facts.counts[i] >= 3 for i in range(27, 31))
    if facts.context.seat_wind is None and (
            ("seat_flowers" in uses and facts.flowers) or ("wind_pung" in uses and wind_pungs)):
        out.append("seat wind not given: seat flower / seat wind items were not scored")
    if facts.context.round_wind is None and wind_pungs and _scores_round_wind(ruleset, facts.options):
        out.append("round wind not given: round wind items were not scored")
    if facts.context.ting and not table.ting:
        out.append("Ting was declared but the table does not play Ting: no Ting item")
    return out


def _scores_round_wind(ruleset: RuleSet, options: dict) -> bool:
    """Whether a row switched on under ``options`` scores a pung of the round wind."""
    for row in ruleset.patterns:
        if (row.when is not None and not options.get(row.when)) or (
                row.unless is not None and options.get(row.unless)):
            continue
        params = resolve_params(row.params, options)
        if (row.detector == "wind_pung" and params.get("which") == "round") or (
                row.detector == "own_wind_pung" and params.get("round_wind")):
            return True
    return False
