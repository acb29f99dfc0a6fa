"""Everything after the models: layout, legal decoding, scoring and the confidence report for a
list of tile readings (:func:`read_outcome`, a result or a :class:`~vision.types.Refusal`), with
the spare and faint detections tried as the hand needs them. The live mode reads voted readings
through it, the tests hand-made ones; :func:`read_readings` raises the refusal instead.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Collection
from dataclasses import replace

from scoring.table import TableSettings
from vision.decode import HandReading
from vision.decode.budget import Budget, time_limit_reason
from vision.decode.refusals import refusal_error
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.pipeline.layouts import Decoded, decode_best_layout
from vision.pipeline.looks import first_kept, stop_at
from vision.pipeline.result import PhotoResult
from vision.pipeline.scoring import score_decoded
from vision.pipeline.setup import Context, HandSetup, Rules
from vision.repairs.faint_flowers import faint_flower_attempts
from vision.repairs.row_completion import overlaps_a_tile
from vision.repairs.stray_flowers import maybe_flowers
from vision.report.confidence import ConfidenceReport, build_report, implausible_groups, implausible_note
from vision.tile_fixes import apply_fixes, forced
from vision.types import Layout, Refusal, TileReading, hand_json

#: At most this many pairs of spare detections are tried when no single spare completes the hand.
MAX_SPARE_PAIRS = 10

#: One whole reading of a list of tiles, as the search calls it.
Read = Callable[[list[TileReading]], "PhotoResult | Refusal"]


def read_readings(readings: list[TileReading], *, image: str = "", rules: Rules = None,
                  table: TableSettings | None = None, context: Context = None, infer_unseen: bool = False,
                  optional: Collection[int] = (), named: NamedTiles = NOTHING_NAMED,
                  last_resort: bool = False, budget: Budget | None = None) -> PhotoResult:
    """:func:`read_outcome` with the setup made from ``rules``, ``table``, ``context`` and ``named``
    (:meth:`HandSetup.of`), raising its refusal as InputError (of the kind the layout or the
    decoder gave it: a tile count, a hand only unlikely corrections make legal)."""
    outcome = read_outcome(readings, HandSetup.of(rules, table, context, named), image=image,
                           infer_unseen=infer_unseen, optional=optional, last_resort=last_resort,
                           budget=budget)
    if isinstance(outcome, Refusal):
        raise refusal_error(outcome)
    return outcome


def read_outcome(readings: list[TileReading], setup: HandSetup, *, image: str = "",
                 infer_unseen: bool = False, optional: Collection[int] = (), last_resort: bool = False,
                 budget: Budget | None = None) -> PhotoResult | Refusal:
    """Layout, legal decoding, scoring and the confidence report for tile readings (no models); a
    :class:`~vision.types.Refusal` for readings that cannot be a hand (no tiles, two hands, not a
    winning hand).

    ``infer_unseen`` reads a hand one tile short with that tile inferred (``decode_hand``): right for a
    photo, which is all there is (:class:`PhotoPipeline` sets it). It is off by default because the
    live mode reads the table as the player lays it out: there a hand one tile short is one whose last
    tile is not down yet, and announcing it would be premature.
    ``optional`` are the indices of tiles the detector was unsure of (weak peaks kept because they
    extend a row): when no winning hand reads with them, the hand is read again without them, and
    the result's readings are then the others. Readings whose detection is a ``spare`` are left out
    unless the hand is a tile short without them (:func:`_read_with_spares`); ``last_resort`` also
    takes spares that read only with a tile inferred, for a photo that reads no other way.
    ``setup``: the rule set, table, context and what the player named (``--kong-face``,
    ``--winning-tile``, ``--fix``; ``vision.pipeline.scoring.score_decoded``). ``budget``: what every
    decoding of the hand spends (``vision.decode.budget``; None: each search its own
    ``vision.decode.SEARCH_BUDGET`` readings and no deadline).
    """
    spares = [i for i, reading in enumerate(readings) if reading.detection.spare]
    if spares:
        return _read_with_spares(readings, spares, setup, image=image, infer_unseen=infer_unseen,
                                 optional=optional, last_resort=last_resort, budget=budget)
    return _read_without_spares(readings, setup, image, infer_unseen, optional, budget)


def _read_without_spares(readings: list[TileReading], setup: HandSetup, image: str, infer_unseen: bool,
                         optional: Collection[int], budget: Budget | None) -> PhotoResult | Refusal:
    """The hand read from ``readings`` (no spares among them), or without the ``optional`` ones when
    it does not read with them; the first refusal when neither reads."""
    if budget is not None and budget.expired():  # no layout is worth making past the deadline
        return Refusal(f"{time_limit_reason(budget)}; the layouts and looks left were not tried")
    first = _read_hand(readings, setup, image, infer_unseen, budget)
    if not isinstance(first, Refusal) or not optional:
        return first
    faint = set(optional)
    sure = [reading for index, reading in enumerate(readings) if index not in faint]
    result = _read_hand(sure, setup, image, infer_unseen, budget)
    if isinstance(result, Refusal):
        return first
    dropped = len(readings) - len(sure)
    return replace(result, warnings=[*result.warnings, f"left out {dropped} faint detection(s) the detector "
                                                       "was unsure of: the hand does not read with them"])


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


def _read_with_spares(readings: list[TileReading], spares: list[int], setup: HandSetup, *, image: str,
                      infer_unseen: bool, optional: Collection[int], last_resort: bool = False,
                      budget: Budget | None = None) -> PhotoResult | Refusal:
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

    def read_base(tiles: list[TileReading]) -> PhotoResult | Refusal:
        """``tiles``: ``base``, perhaps with spares added after it (the faint indices stay valid)."""
        return _read_without_spares(tiles, setup, image, infer_unseen, base_optional, budget)

    first = read_base(base)
    if not isinstance(first, Refusal) and (first.decoded is None or first.decoded.unseen is None):
        stop = stop_at(budget)
        flowers = first_kept(faint_flower_attempts(first, readings, spares, base), read_base, stop)
        return first if flowers is None else flowers
    strongest = sorted(spares, key=lambda i: -readings[i].detection.score)
    tries = [(index,) for index in strongest]
    tries += list(itertools.islice(itertools.combinations(strongest, 2), MAX_SPARE_PAIRS))
    short: PhotoResult | None = None
    for chosen in tries:
        added = [TileReading(replace(readings[i].detection, spare=False), readings[i].candidates)
                 for i in chosen]
        result = read_base([*base, *added])
        if isinstance(result, Refusal) or not _overlapping_spares_win(result, added, base):
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
            return replace(result, warnings=[*result.warnings, warning])
    if not isinstance(first, Refusal):
        return first
    if short is not None and last_resort:
        warning = "kept faint tiles beside the hand: without them it does not read"
        return replace(short, warnings=[*short.warnings, warning])
    return first


def _winning_tile_read_as_named(readings: list[TileReading], decoded: Decoded, winning: str,
                                decode: Callable[[list[TileReading]], Decoded | Refusal]
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
    if shown is None or winning in decoded[1].hand.concealed:
        return readings, decoded, []
    named_readings = [forced(reading, winning) if index == shown else reading
                      for index, reading in enumerate(readings)]
    again = decode(named_readings)
    if isinstance(again, Refusal) or again[1].winning_index != shown:
        return readings, decoded, []
    was = decoded[1].codes.get(shown, readings[shown].code)
    return named_readings, again, [f"the winning tile the photo shows was read {was}; read as {winning}, "
                                   "as --winning-tile says"]


def _read_hand(readings: list[TileReading], setup: HandSetup, image: str, infer_unseen: bool,
               budget: Budget | None = None) -> PhotoResult | Refusal:
    ruleset, table, ctx, named = setup.ruleset, setup.table, setup.win_context, setup.named
    started = time.perf_counter()

    def decode(tiles: list[TileReading]) -> Decoded | Refusal:
        return decode_best_layout(tiles, ruleset, table, ctx, infer_unseen, named, budget)

    named_warnings: list[str] = []
    if named.fixes:
        readings, named_warnings = apply_fixes(readings, named.fixes, decode)
    first = decode(readings)
    if isinstance(first, Refusal):
        return first
    if named.winning_tile is not None:
        readings, first, winner_warnings = _winning_tile_read_as_named(readings, first, named.winning_tile,
                                                                       decode)
        named_warnings += winner_warnings
    layout, decoded = first
    decode_seconds = time.perf_counter() - started
    scored = score_decoded(decoded, ctx, ruleset, table, named)
    flowers_left_out = maybe_flowers(readings, layout)
    report = build_report(readings, decoded, scored.report.total, ctx, ruleset, table,
                          scored.winning_alternatives, scored.unseen_alternatives, scored.reported,
                          set_aside=len(layout.set_aside), maybe_flowers=len(flowers_left_out),
                          kong_alternatives=scored.kong_alternatives, winning_tile=named.winning_tile)
    score_seconds = time.perf_counter() - started - decode_seconds
    implausible = implausible_groups(decoded.best)
    unsure = [] if report.score_stable else _why_not_sure(report, scored.report.total, layout, decoded,
                                                          bool(flowers_left_out), bool(implausible))
    warnings = [*decoded.warnings, *named_warnings, *scored.warnings, *unsure,
                *(f"the score is not certain: {implausible_note(group)}" for group in implausible)]
    return PhotoResult(image=image, readings=readings, layout=layout, decoded=decoded,
                       hand={**hand_json(scored.hand), "context": setup.context}, score=scored.report,
                       report=report, warnings=warnings, assumed=setup.assumed, named=named,
                       timings={"decode": decode_seconds, "score": score_seconds})


def _why_not_sure(report: ConfidenceReport, total: float | int | None, layout: Layout, decoded: HandReading,
                  flowers_left_out: bool, implausible: bool) -> list[str]:
    """The warning that says why a score is not sure, when no implausible group says it."""
    totals = sorted({a.total for a in report.alternatives if a.total is not None and a.total != total})
    if totals:
        return ["the score is not certain: other plausible readings total "
                + ", ".join(str(t) for t in totals)]
    if layout.set_aside:
        return ["the score is not certain: tiles among the sets were left out"]
    if flowers_left_out:
        return ["the score is not certain: a tile left out beside the hand may be a flower"]
    if decoded.unseen is not None:
        return ["the score is not certain: a tile of the hand is not in the photo, so a flower may be "
                "hidden too"]
    if not implausible:
        return [f"the score is not certain: this reading holds only {report.hand_confidence:.0%} of the "
                "plausible ones, and the many others, each unlikely, were not all scored"]
    return []
