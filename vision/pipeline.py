"""Photo -> scored hand: load, detect, classify, lay out, decode, score, report (DESIGN.md, Data flow).

Each stage is a separate module and a pure function of the previous stage's output;
:func:`read_readings` is everything after the models (the live mode reuses it on voted readings),
:class:`PhotoPipeline` adds the models and the resolution policy for big photos:

* the detector letterboxes to a small input anyway, so the photo is decoded reduced (JPEG DCT
  scaling) to :data:`DETECT_SIDE` for detection;
* crops are cut from that same reduced image when the tiles are big enough for the classifier
  (:data:`MIN_TILE_PIXELS` on the long side), else the photo is decoded once more at just the
  resolution that makes them so (never more than full size);
* each face is cut out along its outline: the detector's (``Detection.quad``), or, from a model
  that gives boxes only, a rectangle turned along the rows (``vision.layout.face_outline``), so a
  photo taken at an angle reads like a square one; a face whose outline is turned against its
  neighbours' is cut a second time along theirs, and read from both (``vision.outline_views``).

Boxes in the result are always pixels of the full-resolution, EXIF-upright photo.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import InputError
from vision.budget import (
    FRAME_BUDGET,
    LOOK_SEARCH_BUDGET,
    PHOTO_BUDGET,
    Budget,
    BudgetLimits,
    time_limit_reason,
)
from vision.closer_look import Look, closer_look, shifted
from vision.colour_cast import neutralised
from vision.confidence import (
    ConfidenceReport,
    build_report,
    implausible_groups,
    implausible_note,
    tile_alternatives,
)
from vision.decode import HandReading, decode_hand
from vision.duplicates import with_spares
from vision.faint_flowers import read_with_faint_flowers
from vision.imageio import ArraySource, PhotoSource, RegionSource
from vision.layout import face_outline, layout_candidates, row_angle
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.row_completion import overlaps_a_tile
from vision.scored_hand import score_decoded
from vision.second_looks import read_flowers_again, read_with_second_looks
from vision.sideways_cut import second_cuts
from vision.stray_flowers import ReadFlowers, maybe_flowers
from vision.tile_fixes import apply_fixes, forced
from vision.turned_faces import Classify
from vision.types import Detection, GroupRole, Layout, TileReading
from vision.upright_faces import with_false_turns_undone

#: Long side of the image the detector sees (it letterboxes further to its own input size).
DETECT_SIDE = 1024
#: A tile's long side in the image crops are cut from; below this the photo is decoded larger.
MIN_TILE_PIXELS = 72
#: Candidates kept per tile for the decoder.
TOP_K = 5
#: Detector input sizes of the finer looks at a photo whose hand does not read, in turn (the
#: detector's own is 512). Seen larger, small tiles get their own heat peak: mostly a winning tile
#: lying flat in front of a standing row, which at 512 merges into the row's peaks. Only for hands
#: that fail, as a finer look reads worse overall (``models/MODEL_CARD.md``, "Finer looks").
FINER_DETECTOR_SIZES = (640, 768)
#: How many times in a row tiles found small are read again closer (``vision.closer_look``): a photo
#: where the first look finds almost nothing is looked at whole at twice the size, and the tiles that
#: finds may still call for a window around them.
CLOSER_LOOKS = 2
#: Said of a hand only a finer look read; its score is never called sure: the first look found
#: another set of tiles, so a tile may still be missing or extra.
FINER_LOOK_WARNING = ("the score is not certain: the hand read only when the photo was looked at again, "
                      "finer; check that every tile was found")

#: Context keys the photo cannot show; the output says which of these were not given.
_ASSUMABLE = {
    "self_drawn": "won on a discard (not self-drawn)",
    "seat_wind": "seat wind unknown (no seat-wind or seat-flower items)",
    "round_wind": "round wind unknown (no round-wind items)",
    "dealer": "not the dealer",
}


def _rescale(detection: Detection, factor: float) -> Detection:
    x1, y1, x2, y2 = detection.box
    quad = None if detection.quad is None else tuple((x * factor, y * factor) for x, y in detection.quad)
    return replace(detection, box=(x1 * factor, y1 * factor, x2 * factor, y2 * factor), quad=quad)


@dataclass
class PhotoResult:
    """Everything taicam knows about one photo; ``to_json`` is DESIGN.md's ``photo --json`` document.

    ``error`` is set (and ``score`` may be None) when the photo could not be read into a legal hand;
    the tiles found so far are still reported.
    """

    image: str
    readings: list[TileReading] = field(default_factory=list)
    layout: Layout | None = None
    decoded: HandReading | None = None
    hand: dict[str, Any] | None = None
    score: Any = None
    report: ConfidenceReport | None = None
    warnings: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    error: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    named: NamedTiles = NOTHING_NAMED  # what the player named that no photo shows
    suggested_fixes: tuple[tuple[str, str], ...] = ()  # for a refused photo: the --fix pairs that read it

    def tile_group(self) -> dict[int, int]:
        """Reading index -> group number (position in the decoded groups)."""
        if self.decoded is None:
            return {}
        groups = self.decoded.best.groups
        return {i: number for number, group in enumerate(groups) for i in group.tile_indices}

    def code_of(self, index: int) -> str:
        if self.decoded is not None and index in self.decoded.codes:
            return self.decoded.codes[index]
        return self.readings[index].code

    def to_json(self) -> dict[str, Any]:
        groups = self.tile_group()
        winning = self.decoded.winning_index if self.decoded is not None else None
        roles = {}
        if self.decoded is not None:
            roles = {i: g.role.value for g in self.decoded.best.groups for i in g.tile_indices}
        tiles = []
        for index, reading in enumerate(self.readings):
            code = self.code_of(index)
            tiles.append({
                "code": code,
                "confidence": round(reading.probability_of(code, 0.0), 4),
                "box": [round(v, 1) for v in reading.detection.box],
                "rotated": reading.detection.rotated,
                "face_down": reading.detection.face_down,
                "alternatives": tile_alternatives(reading, code),
                "group": groups.get(index),
                "role": "winning" if index == winning else roles.get(index, "ignored"),
            })
        document: dict[str, Any] = {
            "image": self.image,
            "tiles": tiles,
            "hand": self.hand,
            "confidence": None if self.decoded is None else round(self.decoded.confidence, 4),
            # How far to trust the total: the same words as the text and the picture.
            "statement": None if self.report is None else self.report.statement,
            "warnings": list(self.warnings),
            "score": None if self.score is None else self.score.to_json(),
        }
        if self.report is not None:
            document["confidence_report"] = self.report.to_json()
        if self.decoded is not None:
            document["changes"] = [c.to_json() for c in self.decoded.changes]
        document["assumed"] = list(self.assumed)
        if self.error is not None:
            document["error"] = self.error
        if self.suggested_fixes:
            document["suggested_fixes"] = [f"{read}={true}" for read, true in self.suggested_fixes]
        return document


class PhotoReadError(InputError):
    """A photo whose tiles were found but do not make a hand; carries the readings for batch output."""

    def __init__(self, message: str, readings: list[TileReading],
                 suggested_fixes: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.readings = readings
        #: The ``--fix`` pairs that would read the photo as the nearest winning hand, where the
        #: decoder named them (``vision.decode.UnbelievedReadingError``).
        self.suggested_fixes = suggested_fixes
        #: The stages' seconds up to the refusal (the photo benchmark times refusals too).
        self.timings: dict[str, float] = {}


def _context_dict(context: Any) -> dict[str, Any]:
    if context is None:
        return {}
    if isinstance(context, dict):
        return {k: v for k, v in context.items() if v is not None}
    return context.to_json()


def assumed_context(context: dict[str, Any], table: Any) -> list[str]:
    """What the photo cannot show and neither flags nor the table file said."""
    given = set(context)
    if table is not None and getattr(table, "context", None) is not None:
        given |= {f.name for f in fields(table.context) if getattr(table.context, f.name) is not None}
    if "seat_wind" in given:
        given.add("dealer")  # East is the dealer
    return [text for key, text in _ASSUMABLE.items() if key not in given]


def resolve_ruleset(rules: Any, table: Any) -> Any:
    """The rule set to score with: ``rules`` (an id, a path or a RuleSet), else the table's, else taiwan."""
    from scoring import load_ruleset

    return load_ruleset(rules if rules is not None else getattr(table, "rules", None) or "taiwan")


#: A hand decoded from one layout of the tiles.
Decoded = tuple[Layout, HandReading]


def _decode_best_layout(readings: list[TileReading], rules: Any, table: Any, context: dict[str, Any],
                        infer_unseen: bool, named: NamedTiles = NOTHING_NAMED,
                        budget: Budget | None = None) -> Decoded:
    """Decode the most plausible layout; if no legal hand reads from it, the next ones (another row
    may be the concealed one). A layout read with every tile seen beats one that needs an unseen tile
    (a wrong choice of row can be one tile short too), so a photo that read before unseen tiles were
    inferred reads the same. The first layout's error is the one reported if none reads."""
    first_error: InputError | None = None
    with_unseen: Decoded | None = None
    size = rules.hand_tiles + 1
    layouts = layout_candidates(readings, complete_kongs=infer_unseen, hand_size=size)
    for layout in layouts:
        try:
            decoded = decode_hand(readings, layout, rules=rules, table=table, context=context,
                                  infer_unseen=infer_unseen, kong_faces=named.kong_faces, budget=budget)
        except InputError as error:
            first_error = first_error or error
            continue
        if decoded.unseen is None:
            return layout, decoded
        with_unseen = with_unseen or (layout, decoded)
    if infer_unseen and any(_one_short(layout, size) for layout in layouts):
        in_front = _winning_tile_in_front(readings, layouts[0], rules, table, context, named, budget)
        if in_front is not None:
            return in_front
    if with_unseen is not None:
        return with_unseen
    raise first_error or InputError("no tiles found in the photo")


def _one_short(layout: Layout, hand_size: int) -> bool:
    """Whether the layout's hand of ``hand_size`` tiles is one short: 16 tiles in its row and sets
    for a hand of 17 (more with kongs among its sets), 13 for one of 14. A tile in front of the row
    can make the hand whole only then (:func:`_winning_tile_in_front`); the row and the sets may be
    grouped anew once it is taken, so their tiles are counted together. A photo of no hand, a rack
    of 15 or 18, would otherwise be laid out and decoded again for every tile near it, for nothing
    (29 s for one real table photo)."""
    sets = [g for g in layout.groups if g.role is not GroupRole.FLOWERS]
    tiles = sum(len(g.tile_indices) for g in sets)
    kongs = sum(len(g.tile_indices) // 4 for g in sets if g.role is not GroupRole.CONCEALED)
    return hand_size - 1 <= tiles <= hand_size - 1 + kongs


#: Ignored tiles at most this many tile sizes (centre to centre) from a concealed tile are tried as
#: the winning tile, the nearest first, at most :data:`IN_FRONT_TRIES` of them.
IN_FRONT_REACH = 4.5
IN_FRONT_TRIES = 3
#: At most this many pairs of spare detections are tried when no single spare completes the hand.
MAX_SPARE_PAIRS = 10


def _winning_tile_in_front(readings: list[TileReading], layout: Layout, rules: Any, table: Any,
                           context: dict[str, Any], named: NamedTiles = NOTHING_NAMED,
                           budget: Budget | None = None) -> Decoded | None:
    """The hand read with an ignored tile lying close to the concealed row taken as the winning tile,
    when that makes it whole with every tile seen; else None.

    Why: players push the winning tile out in front of a standing row. The layout takes a lone tile
    there for the winning tile only when the detector saw it turned (``vision.layout``); but a tile
    lying flat seen from above looks nearly square, and its turn is often missed. It is then
    ignored as a discard, and the hand is read a tile short. Here each such tile near the row is
    read again as turned; the layout's own rules still decide whether it lies where a winning tile
    lies.
    """
    concealed = next((g.tile_indices for g in layout.groups if g.role is GroupRole.CONCEALED), ())
    candidates = [i for i in layout.ignored if i not in layout.set_aside
                  and not readings[i].detection.rotated and not readings[i].detection.face_down]
    if not concealed or not candidates:
        return None
    centres = np.array([readings[i].detection.center for i in concealed])
    size = float(np.median([max(readings[i].detection.width, readings[i].detection.height)
                            for i in concealed]))
    distance = {i: float(np.min(np.hypot(*(centres - np.array(readings[i].detection.center)).T))) / size
                for i in candidates}
    nearest = sorted((i for i in candidates if distance[i] <= IN_FRONT_REACH), key=distance.get)
    for index in nearest[:IN_FRONT_TRIES]:
        turned = list(readings)
        turned[index] = replace(readings[index], detection=replace(readings[index].detection, rotated=True))
        for layout_turned in layout_candidates(turned, complete_kongs=True, hand_size=rules.hand_tiles + 1):
            if layout_turned.winning_index != index:
                continue
            try:
                decoded = decode_hand(turned, layout_turned, rules=rules, table=table, context=context,
                                      infer_unseen=True, kong_faces=named.kong_faces, budget=budget)
            except InputError:
                continue
            if decoded.unseen is None:
                decoded.warnings.append("a tile lying alone beside the concealed row was taken for the "
                                        "winning tile (the detector did not see it turned)")
                return layout_turned, decoded
    return None


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
    ``vision.scored_hand.score_decoded``). ``budget``: what every decoding of the hand spends
    (``vision.budget``; None: each search its own ``vision.decode.SEARCH_BUDGET`` readings and no
    deadline).
    Raises InputError for photos that cannot be a hand (no tiles, two hands, not a winning hand).
    """
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
    ``vision.row_completion.WINNER_ONLY_OVERLAP_IOU``) is the hand's winning tile. Such a spare is
    offered for a winning tile lying across in front of a row, half over a row tile (held-out render
    950085: 4p over 4p, peak 0.39); anywhere else it is likelier that tile found twice."""
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
    ``vision.row_completion.spare_tiles``). As a ``last_resort``, when the hand does not read
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
    named tile is made the winner where it stands (``vision.scored_hand.with_named_winner``). A
    hand that does not read at all is left to the second looks (render 900120 reads right only
    through them). If the hand makes no legal reading with the shown tile as its named winner, the
    first decoding stays."""
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
    ctx = _context_dict(context)
    started = time.perf_counter()

    def decode(tiles: list[TileReading]) -> Decoded:
        return _decode_best_layout(tiles, rules, table, ctx, infer_unseen, named, budget)

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


class PhotoPipeline:
    """The models plus the resolution policy. Models load on first use (the CLI may fail earlier)."""

    def __init__(self, detector: Any = None, classifier: Any = None,
                 photo_budget: BudgetLimits = PHOTO_BUDGET) -> None:
        self._detector = detector
        self._classifier = classifier
        self.photo_budget = photo_budget  # each photo's readings and seconds (``vision.budget``)

    @property
    def detector(self) -> Any:
        if self._detector is None:
            from vision.models.detector import TileDetector

            self._detector = TileDetector()
        return self._detector

    @property
    def classifier(self) -> Any:
        if self._classifier is None:
            from vision.models.classifier import TileClassifier

            self._classifier = TileClassifier()
        return self._classifier

    def read_tiles(self, source: PhotoSource | ArraySource | np.ndarray,
                   timings: dict[str, float] | None = None) -> list[TileReading]:
        """Detect and classify every tile; boxes in full-resolution upright pixels."""
        return self._read_tiles(source, timings)[0]

    def _read_tiles(self, source: PhotoSource | ArraySource | RegionSource | np.ndarray,
                    timings: dict[str, float] | None = None, detector_size: int | None = None,
                    closer_looks: int | None = None, finer: float = 1.0
                    ) -> tuple[list[TileReading], Classify, ReadFlowers]:
        """The readings, and two functions that read more detections (full-resolution pixels) from
        the same image the crops were cut from: with the classifier, and with the flower model alone.
        ``detector_size``: the detector's input size (default its own). ``closer_looks``: how many
        times tiles found small may be read again from a closer look (``vision.closer_look``;
        default :data:`CLOSER_LOOKS` at the detector's own size, none at another); ``finer``: how
        much larger that look sees them (a finer look's)."""
        timings = timings if timings is not None else {}
        started = time.perf_counter()
        if isinstance(source, np.ndarray):
            source = ArraySource(source)
        small, scale = source.image(DETECT_SIDE)
        timings["load"] = time.perf_counter() - started
        detections = with_spares(self.detector.detect(small, spares=True, input_size=detector_size))
        timings["detect"] = time.perf_counter() - started - timings["load"]
        if closer_looks is None:
            closer_looks = CLOSER_LOOKS if detector_size is None else 0
        network_side = detector_size or getattr(self.detector, "input_size", None)
        if closer_looks > 0 and network_side:
            look = closer_look(detections, (small.shape[1], small.shape[0]), network_side,
                               most_zoom=1.0 / scale, finer=finer)
            if look is not None:
                return self._read_closer(source, look, scale, timings, closer_looks - 1, finer)
        if not detections:
            raise InputError("no tiles found in the photo")
        tile_pixels = float(np.median([max(d.width, d.height) for d in detections]))
        crop_image, crop_scale = small, scale
        if tile_pixels < MIN_TILE_PIXELS and scale < 1.0:
            longest = max(small.shape[:2]) / scale
            side = min(longest, max(small.shape[:2]) * MIN_TILE_PIXELS / tile_pixels)
            crop_image, crop_scale = source.image(None if side >= longest else int(math.ceil(side)))
        factor = crop_scale / scale
        in_crop = [_rescale(d, factor) for d in detections]
        # Cut each face out along its outline, not the whole axis-aligned box; a boxes-only model's
        # faces are turned along the rows. A tile whose outline is at a slant against its
        # neighbours' is read a second time, squared onto them (none for a boxes-only model), and a
        # sideways tile a second time as the face its box holds across the row.
        faces, seconds = in_crop, second_cuts(in_crop)
        if any(d.quad is None for d in in_crop):
            angle = row_angle(in_crop)
            faces = [replace(d, quad=face_outline(d, angle)) for d in in_crop]
        balanced = neutralised(crop_image, [d.quad for d in faces])  # a strongly coloured lamp
        if balanced is not None:
            crop_image = balanced
        readings = self.classifier.classify(crop_image, faces, top_k=TOP_K, second_outlines=seconds)
        timings["classify"] = time.perf_counter() - started - timings["load"] - timings["detect"]

        def classify(detections: list[Detection]) -> list[TileReading]:
            in_crop = [_rescale(d, crop_scale) for d in detections]
            read = self.classifier.classify(crop_image, in_crop, top_k=TOP_K)
            return [TileReading(d, r.candidates) for d, r in zip(detections, read, strict=True)]

        def read_flowers(detections: list[Detection]) -> np.ndarray | None:
            in_crop = [_rescale(d, crop_scale) for d in detections]
            return self.classifier.flower_probabilities(crop_image, in_crop)

        found = [TileReading(_rescale(d, 1.0 / crop_scale), r.candidates)
                 for d, r in zip(in_crop, readings, strict=True)]
        return with_false_turns_undone(found, classify), classify, read_flowers

    def _network_side(self) -> int:
        """The detector's own input size (512 when a stand-in detector does not say)."""
        return int(getattr(self.detector, "input_size", None) or 512)

    def _read_closer(self, source: PhotoSource | ArraySource | RegionSource, look: Look, scale: float,
                     timings: dict[str, float], closer_looks: int, finer: float
                     ) -> tuple[list[TileReading], Classify, ReadFlowers]:
        """:meth:`_read_tiles` of the window ``look`` names (in the pixels of the image seen at
        ``scale``), its readings and reading functions in the photo's full-resolution pixels."""
        x1, y1, x2, y2 = (value / scale for value in look.region)
        width, height = source.full_size
        region = (max(0, math.floor(x1)), max(0, math.floor(y1)), min(width, math.ceil(x2)),
                  min(height, math.ceil(y2)))
        window = RegionSource(source, region)
        first = dict(timings)
        readings, classify, read_flowers = self._read_tiles(window, timings, detector_size=look.input_size,
                                                            closer_looks=closer_looks, finer=finer)
        timings.update({f"first_{key}": value for key, value in first.items()})
        dx, dy = window.offset

        def classify_in_photo(detections: list[Detection]) -> list[TileReading]:
            read = classify([shifted(d, -dx, -dy) for d in detections])
            return [TileReading(d, r.candidates) for d, r in zip(detections, read, strict=True)]

        def read_flowers_in_photo(detections: list[Detection]) -> np.ndarray | None:
            return read_flowers([shifted(d, -dx, -dy) for d in detections])

        found = [TileReading(shifted(r.detection, dx, dy), r.candidates) for r in readings]
        return found, classify_in_photo, read_flowers_in_photo

    def faint_tiles(self, readings: list[TileReading]) -> list[int]:
        """Indices of the tiles found below the detector's own threshold (kept because they extend a
        row, ``vision.row_completion``): the hand may be read without them."""
        threshold = getattr(self.detector, "score_threshold", None)
        if threshold is None:
            return []
        return [i for i, reading in enumerate(readings)
                if reading.detection.score < threshold and not reading.detection.spare]

    def read_photo(self, path: str | Path, *, rules: Any = None, table: Any = None, context: Any = None,
                   named: NamedTiles = NOTHING_NAMED) -> PhotoResult:
        """Read one photo file into a scored hand (InputError for anything the user must fix). A
        photo whose hand does not read is looked at again, finer (:meth:`_read_finer`), and if no look
        reads, the first look is read once more taking weak detections that make the hand only with a
        tile inferred (``last_resort`` of :func:`read_readings`), its score called unsure.
        ``named``: what the player names that no photo shows (``vision.named_tiles``).

        The whole photo has one budget (``photo_budget``, ``vision.budget.PHOTO_BUDGET``): readings
        over all its searches, and a deadline; its first look alone gets part of the readings, which
        leaves the rest for the finer looks. Past the deadline the looks left are skipped and the photo is
        refused, saying so."""
        budget = Budget(self.photo_budget)
        started = time.perf_counter()
        source = PhotoSource(path)
        timings: dict[str, float] = {}
        readings, classify, read_flowers = self._read_tiles(source, timings)
        try:
            result = self._read_hand(readings, classify, image=str(path), rules=rules, table=table,
                                     context=context, read_flowers=read_flowers, named=named,
                                     budget=budget.part(LOOK_SEARCH_BUDGET))
        except InputError as error:
            result = self._read_finer(source, image=str(path), rules=rules, table=table, context=context,
                                      named=named, budget=budget)
            if result is None:
                result = self._read_last_resort(readings, classify, image=str(path), rules=rules, table=table,
                                                context=context, read_flowers=read_flowers, named=named,
                                                budget=budget)
            if result is None:
                reason = str(error)
                if budget.expired() and not reason.startswith(time_limit_reason(budget)):
                    reason = (f"{time_limit_reason(budget)}; the looks left were skipped; the first look: "
                              f"{reason}")
                failure = PhotoReadError(reason, readings, getattr(error, "fixes", ()))
                failure.timings = {**timings, "total": time.perf_counter() - started}
                raise failure from None
        result.timings = {**timings, **result.timings, "total": time.perf_counter() - started}
        return result

    def _read_finer(self, source: PhotoSource, *, image: str, rules: Any, table: Any, context: Any,
                    named: NamedTiles, budget: Budget) -> PhotoResult | None:
        """The hand read from the detector's finer looks (:data:`FINER_DETECTOR_SIZES`), the first
        that reads, its score called unsure; None if none does, or once ``budget``'s deadline has
        passed. The photo's own failure stays the one reported."""
        for size in FINER_DETECTOR_SIZES:
            if budget.expired():
                return None
            timings: dict[str, float] = {}
            try:
                # A hand far off in a big photo is seen finer from its closer look (on a photo that
                # holds no more detail than the first look used, as the renders, nothing changes).
                readings, classify, read_flowers = self._read_tiles(
                    source, timings, detector_size=size, closer_looks=CLOSER_LOOKS,
                    finer=size / self._network_side())
                result = self._read_hand(readings, classify, image=image, rules=rules, table=table,
                                         context=context, read_flowers=read_flowers, named=named,
                                         cut_merged=False, budget=budget)
            except InputError:
                continue
            result.timings = {**{f"finer_{key}": value for key, value in timings.items()},
                              **result.timings, "finer_detector_size": float(size)}
            if result.report is not None:
                result.report.score_stable = False
                result.report.notes.append(f"read from a second look with the detector at {size} pixels; "
                                           "the first look found no legal hand")
            result.warnings.append(FINER_LOOK_WARNING)
            return result
        return None

    def _read_last_resort(self, readings: list[TileReading], classify: Classify, *, image: str, rules: Any,
                          table: Any, context: Any, read_flowers: ReadFlowers | None,
                          named: NamedTiles, budget: Budget) -> PhotoResult | None:
        """The first look read with weak detections kept even where the hand then needs a tile
        inferred, its score called unsure; None if it still does not read, or ``budget``'s deadline
        has passed. Tried only after every look failed: taken earlier, such a guess would stand in
        for a finer look's whole reading."""
        if budget.expired():
            return None
        try:
            result = self._read_hand(readings, classify, image=image, rules=rules, table=table,
                                     context=context, read_flowers=read_flowers, named=named,
                                     last_resort=True, cut_merged=False, budget=budget)
        except InputError:
            return None
        if result.report is not None:
            result.report.score_stable = False
        return result

    def read_image(self, image_bgr: np.ndarray, *, name: str = "<image>", rules: Any = None,
                   table: Any = None, context: Any = None) -> PhotoResult:
        """Read an in-memory upright BGR image (a camera frame) into a scored hand, within a frame's
        budget (``vision.budget.FRAME_BUDGET``: a frame that holds no hand must not stall the camera)."""
        budget = Budget(FRAME_BUDGET)
        readings, classify, read_flowers = self._read_tiles(image_bgr)
        return self._read_hand(readings, classify, image=name, rules=rules, table=table, context=context,
                               read_flowers=read_flowers, budget=budget)

    def _read_hand(self, readings: list[TileReading], classify: Classify, *, image: str, rules: Any,
                   table: Any, context: Any, read_flowers: ReadFlowers | None = None,
                   named: NamedTiles = NOTHING_NAMED, last_resort: bool = False,
                   cut_merged: bool = True, budget: Budget | None = None) -> PhotoResult:
        """The hand read with the second looks (``vision.second_looks.read_with_second_looks``), then,
        when it reads, once more with the flower model's (``read_flowers``) looks at tiles left out
        beside it and at two flowers found as one outline (``read_flowers_again``). ``last_resort``:
        see :func:`read_readings`; ``cut_merged``: see ``read_with_second_looks``; ``budget``: what
        every reading of the hand spends."""
        def read(tiles: list[TileReading]) -> PhotoResult:
            return read_readings(tiles, image=image, rules=rules, table=table, context=context,
                                 infer_unseen=True, optional=self.faint_tiles(tiles), named=named,
                                 last_resort=last_resort, budget=budget)

        result = read_with_second_looks(readings, classify, read, cut_merged=cut_merged)
        if read_flowers is None:
            return result
        return read_flowers_again(result, classify, read_flowers, read)



def read_photo(path: str | Path, rules: Any = None, table: Any = None, context: Any = None,
               pipeline: PhotoPipeline | None = None, named: NamedTiles = NOTHING_NAMED) -> PhotoResult:
    """Read and score one photo with the shipped models (see :class:`PhotoPipeline`)."""
    return (pipeline or PhotoPipeline()).read_photo(path, rules=rules, table=table, context=context,
                                                    named=named)


def failed_result(image: str, error: InputError, readings: list[TileReading] | None = None) -> PhotoResult:
    """The JSON-mode answer for a photo that could not be read: the error, as a warning too, and the
    fixes that would read it where the decoder named them."""
    fixes = getattr(error, "suggested_fixes", None) or getattr(error, "fixes", ())
    return PhotoResult(image=image, readings=readings or [], error=str(error), warnings=[str(error)],
                       suggested_fixes=tuple(fixes))


__all__ = ["GroupRole", "PhotoPipeline", "PhotoReadError", "PhotoResult", "read_photo", "read_readings"]
