"""Everything after the models: layout, legal decoding, scoring and the confidence report for a
list of tile readings (``read_readings``), with the spare and faint detections tried as the
hand needs them. The live mode reads voted readings through it, the tests hand-made ones."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Collection
from dataclasses import replace
from typing import Any

from scoring.errors import InputError
from vision.decode.budget import Budget, time_limit_reason
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.pipeline.layouts import Decoded, decode_best_layout
from vision.pipeline.result import PhotoResult, assumed_context, context_dict, resolve_ruleset
from vision.pipeline.scoring import score_decoded
from vision.repairs.faint_flowers import read_with_faint_flowers
from vision.repairs.row_completion import overlaps_a_tile
from vision.repairs.stray_flowers import maybe_flowers
from vision.report.confidence import build_report, implausible_groups, implausible_note
from vision.tile_fixes import apply_fixes, forced
from vision.types import TileReading

#: At most this many pairs of spare detections are tried when no single spare completes the hand.
MAX_SPARE_PAIRS = 10


def read_readings(readings: list[TileReading], *, image: str = "", rules: Any = None, table: Any = None,
                  context: Any = None, infer_unseen: bool = False, optional: Collection[int] = (),
                  named: NamedTiles = NOTHING_NAMED, last_resort: bool = False,
                  budget: Budget | None = None) -> PhotoResult:
    """Layout, legal decoding, scoring and the confidence report for tile readings (no models).

    ``infer_unseen`` reads a hand one tile short with that tile inferred (``decode_hand``): right for a
    photo, which is all there is (:class:`PhotoPipeline` sets it). It is off by default because the
    live mode reads the table as the player lays it out: there a hand one tile short is one whose last
    tile is not down yet, and announcing it would be premature.
    ``optional`` are the indices of tiles the detector was unsure of (weak peaks kept because they
    extend a row): when no winning hand reads with them, the hand is read again without them, and
    the result's readings are then the others. Readings whose detection is a ``spare`` are left out
    unless the hand is a tile short without them (:func:`_read_with_spares`); ``last_resort`` also
    takes spares that read only with a tile inferred, for a photo that reads no other way. ``named``
    holds what the player names that no photo shows (``--kong-face``, ``--winning-tile``;
    ``vision.pipeline.scoring.score_decoded``). ``budget``: what every decoding of the hand spends
    (``vision.decode.budget``; None: each search its own ``vision.decode.SEARCH_BUDGET`` readings and no
    deadline).
    Raises InputError for photos that cannot be a hand (no tiles, two hands, not a winning hand).
    """
    if budget is not None and budget.expired():  # no layout is worth making past the deadline
        raise InputError(f"{time_limit_reason(budget)}; the layouts and looks left were not tried")
    spares = [i for i, reading in enumerate(readings) if reading.detection.spare]
    if spares:
        return _read_with_spares(readings, spares, image=image, rules=rules, table=table,
                                 context=context, infer_unseen=infer_unseen, optional=optional,
                                 named=named, last_resort=last_resort, budget=budget)
    try:
        return _read_hand(readings, image, rules, table, context, infer_unseen, named, budget)
    except InputError as error:
        if not optional:
            raise
        first_error = error
    faint = set(optional)
    sure = [reading for index, reading in enumerate(readings) if index not in faint]
    try:
        result = _read_hand(sure, image, rules, table, context, infer_unseen, named, budget)
    except InputError:
        raise first_error from None
    dropped = len(readings) - len(sure)
    result.warnings.append(f"left out {dropped} faint detection(s) the detector was unsure of: "
                           "the hand does not read with them")
    return result


def _overlapping_spares_win(result: PhotoResult, added: list[TileReading], base: list[TileReading]) -> bool:
    """Whether each added spare that overlaps a tile already read (outline IoU above
    ``vision.repairs.row_completion.WINNER_ONLY_OVERLAP_IOU``) is the hand's winning tile. Such a spare is
    offered for a winning tile lying across in front of a row, half over a row tile, often with a
    faint peak; anywhere else it is likelier that tile found twice."""
    found = [tile.detection for tile in base]
    overlapping = [a for a in added if overlaps_a_tile(a.detection, found)]
    if not overlapping:
        return True
    decoded = result.decoded
    if decoded is None or decoded.winning_index is None:
        return False
    winner = result.readings[decoded.winning_index]
    return all(winner is a for a in overlapping)


def _read_with_spares(readings: list[TileReading], spares: list[int], *, image: str, rules: Any,
                      table: Any, context: Any, infer_unseen: bool, optional: Collection[int],
                      named: NamedTiles = NOTHING_NAMED, last_resort: bool = False,
                      budget: Budget | None = None) -> PhotoResult:
    """Read the hand without the spare detections; if it is then short (it fails, or needs a tile
    inferred unseen), read it again with each spare in turn, strongest first, then with two of them
    (a winning tile lying flat in front of a row and a set's tile behind it are often both weak),
    and take the first that makes a whole hand with every tile seen (see
    ``vision.repairs.row_completion.spare_tiles``). As a ``last_resort``, when the hand does not read
    without spares, the first try that reads with a tile inferred: two weak backs of a concealed
    kong beside a row whose tile is hidden (``datasets/samples/hand-concealed-kong.jpg``)."""
    left_out = set(spares)
    base = [reading for index, reading in enumerate(readings) if index not in left_out]
    position = {index: n for n, index in enumerate(i for i in range(len(readings)) if i not in left_out)}
    base_optional = [position[i] for i in optional if i in position]

    def read_base(tiles: list[TileReading]) -> PhotoResult:
        """``tiles``: ``base``, perhaps with spares added after it (the faint indices stay valid)."""
        return read_readings(tiles, image=image, rules=rules, table=table, context=context,
                             infer_unseen=infer_unseen, optional=base_optional, named=named, budget=budget)

    first: PhotoResult | None = None
    first_error: InputError | None = None
    try:
        first = read_base(base)
    except InputError as error:
        first_error = error
    if first is not None and (first.decoded is None or first.decoded.unseen is None):
        return read_with_faint_flowers(first, readings, spares, base, read_base)
    strongest = sorted(spares, key=lambda i: -readings[i].detection.score)
    tries = [(index,) for index in strongest]
    tries += list(itertools.islice(itertools.combinations(strongest, 2), MAX_SPARE_PAIRS))
    short: PhotoResult | None = None
    for chosen in tries:
        added = [TileReading(replace(readings[i].detection, spare=False), readings[i].candidates)
                 for i in chosen]
        try:
            result = read_base([*base, *added])
        except InputError:
            continue
        if not _overlapping_spares_win(result, added, base):
            continue
        short = short or result
        if result.decoded is not None and result.decoded.unseen is None:
            # The result may have left faint tiles out, so the added tiles are found by identity.
            at = [k for k, reading in enumerate(result.readings) if any(reading is a for a in added)]
            codes = ", ".join(result.code_of(k) for k in at)
            if len(chosen) == 1:
                warning = (f"kept a faint tile beside the hand (read {codes}): without it the hand is a "
                           "tile short")
            else:
                warning = (f"kept {len(chosen)} faint tiles beside the hand (read {codes}): without them "
                           "the hand is short")
            result.warnings.append(warning)
            return result
    if first is not None:
        return first
    if short is not None and last_resort:
        short.warnings.append("kept faint tiles beside the hand: without them it does not read")
        return short
    assert first_error is not None
    raise first_error


def _winning_tile_read_as_named(readings: list[TileReading], decoded: Decoded, winning: str,
                                decode: Callable[[list[TileReading]], Decoded]
                                ) -> tuple[list[TileReading], Decoded, list[str]]:
    """The hand decoded again (``decode``) with the tile the photo shows as the winning one (lying
    across or set apart) read as the winning tile the player named, when the hand as first decoded
    holds no such tile: the shown tile is then a misread of it (a winning 3m lying across read 5s,
    the decoder making some other legal hand of the rest). If the hand does hold the named tile,
    the layout may have taken the wrong tile for the winner (a flower lying apart, read 2z), and the
    named tile is made the winner where it stands (``vision.pipeline.scoring.with_named_winner``). A
    hand that does not read at all is left to the second looks, which may read it. If the hand
    makes no legal reading with the shown tile as its named winner, the first decoding stays."""
    shown = decoded[1].winning_index if decoded[1].winning_known else None
    if shown is None or winning in decoded[1].hand["concealed"]:
        return readings, decoded, []
    named_readings = [forced(reading, winning) if index == shown else reading
                      for index, reading in enumerate(readings)]
    try:
        again = decode(named_readings)
    except InputError:
        return readings, decoded, []
    if again[1].winning_index != shown:
        return readings, decoded, []
    was = decoded[1].codes.get(shown, readings[shown].code)
    return named_readings, again, [f"the winning tile the photo shows was read {was}; read as {winning}, "
                                   "as --winning-tile says"]


def _read_hand(readings: list[TileReading], image: str, rules: Any, table: Any, context: Any,
               infer_unseen: bool, named: NamedTiles = NOTHING_NAMED,
               budget: Budget | None = None) -> PhotoResult:
    rules = resolve_ruleset(rules, table)
    ctx = context_dict(context)
    started = time.perf_counter()

    def decode(tiles: list[TileReading]) -> Decoded:
        return decode_best_layout(tiles, rules, table, ctx, infer_unseen, named, budget)

    named_warnings: list[str] = []
    if named.fixes:
        readings, named_warnings = apply_fixes(readings, named.fixes, decode)
    first = decode(readings)
    if named.winning_tile is not None:
        readings, first, winner_warnings = _winning_tile_read_as_named(readings, first, named.winning_tile,
                                                                       decode)
        named_warnings += winner_warnings
    layout, decoded = first
    result = PhotoResult(image=image, readings=readings, assumed=assumed_context(ctx, table), named=named)
    result.layout = layout
    result.decoded = decoded
    result.timings["decode"] = time.perf_counter() - started
    scored = score_decoded(decoded, ctx, rules, table, named)
    result.hand = {**scored.hand, "context": ctx}
    result.score = scored.report
    flowers_left_out = maybe_flowers(readings, layout)
    result.report = build_report(readings, decoded, scored.report.total, ctx, rules, table,
                                 scored.winning_alternatives, scored.unseen_alternatives, scored.reported,
                                 set_aside=len(layout.set_aside), maybe_flowers=len(flowers_left_out),
                                 kong_alternatives=scored.kong_alternatives, winning_tile=named.winning_tile)
    result.timings["score"] = time.perf_counter() - started - result.timings["decode"]
    result.warnings = [*decoded.warnings, *named_warnings, *scored.warnings]
    implausible = implausible_groups(decoded.best)
    if not result.report.score_stable:
        totals = sorted({a.total for a in result.report.alternatives
                         if a.total is not None and a.total != scored.report.total})
        if totals:
            result.warnings.append("the score is not certain: other plausible readings total "
                                   + ", ".join(str(t) for t in totals))
        elif layout.set_aside:
            result.warnings.append("the score is not certain: tiles among the sets were left out")
        elif flowers_left_out:
            result.warnings.append("the score is not certain: a tile left out beside the hand may be a "
                                   "flower")
        elif decoded.unseen is not None:
            result.warnings.append("the score is not certain: a tile of the hand is not in the photo, so "
                                   "a flower may be hidden too")
        elif not implausible:
            result.warnings.append(f"the score is not certain: this reading holds only "
                                   f"{result.report.hand_confidence:.0%} of the plausible ones, and the "
                                   "many others, each unlikely, were not all scored")
    result.warnings.extend(f"the score is not certain: {implausible_note(group)}" for group in implausible)
    return result
