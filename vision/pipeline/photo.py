"""A photo read with the models: :class:`PhotoPipeline` adds to ``vision.pipeline.readings`` (everything
after the models) the detector, the classifier, the looks at a photo and the resolution policy:

* the detector letterboxes to a small input anyway, so the photo is decoded reduced (JPEG DCT
  scaling) to :data:`DETECT_SIDE` for detection;
* crops are cut from that same reduced image when the tiles are big enough for the classifier
  (:data:`MIN_TILE_PIXELS` on the long side), else the photo is decoded once more at just the
  resolution that makes them so (never more than full size);
* each face is cut out along its outline: the detector's (``Detection.quad``), or, from a model
  that gives boxes only, a rectangle turned along the rows (``vision.layout.face_outline``), so a
  photo taken at an angle reads like a square one; a face whose outline is turned against its
  neighbours' is cut a second time along theirs, and read from both
  (``vision.repairs.outline_views``).

Boxes in the result are always pixels of the full-resolution, EXIF-upright photo.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from scoring.errors import InputError
from scoring.table import TableSettings
from vision.decode.budget import (
    FRAME_BUDGET,
    LOOK_SEARCH_BUDGET,
    PHOTO_BUDGET,
    Budget,
    BudgetLimits,
    time_limit_reason,
)
from vision.decode.refusals import refusal_error
from vision.imageio import ArraySource, ImageSource, PhotoSource, RegionSource
from vision.layout import face_outline, row_angle
from vision.named_tiles import NOTHING_NAMED, NamedTiles
from vision.pipeline.looks import read_flowers_again, read_with_second_looks, stop_at
from vision.pipeline.perception import TOP_K, Perception, TilesRead, rescaled
from vision.pipeline.readings import read_outcome
from vision.pipeline.result import PhotoReadError, PhotoResult
from vision.pipeline.setup import Context, HandSetup, Rules
from vision.pipeline.turned import surer_turned
from vision.repairs.blank_faces import with_blank_faces
from vision.repairs.closer_look import ENLARGE, Look, closer_look, shifted
from vision.repairs.colour_cast import neutralised
from vision.repairs.duplicates import with_spares
from vision.repairs.farther_look import detect_whole_tiles, network_side
from vision.repairs.sideways_cut import second_cuts
from vision.repairs.stray_flowers import ReadFlowers
from vision.repairs.turned_faces import Classify
from vision.repairs.turned_look import TURN_FROM, row_slant
from vision.repairs.upright_faces import with_false_turns_undone
from vision.types import Classifier, Detector, Refusal, TileReading

#: Long side of the image the detector sees (it letterboxes further to its own input size).
DETECT_SIDE = 1024
#: A tile's long side in the image crops are cut from; below this the photo is decoded larger.
MIN_TILE_PIXELS = 72
#: Detector input sizes of the finer looks at a photo whose hand does not read, in turn (the
#: detector's own is 512). Seen larger, small tiles get their own heat peak: mostly a winning tile
#: lying flat in front of a standing row, which at 512 merges into the row's peaks. Only for hands
#: that fail, as a finer look reads worse overall (``models/MODEL_CARD.md``, "Finer looks").
FINER_DETECTOR_SIZES = (640, 768)
#: How many times in a row tiles found small are read again closer (``vision.repairs.closer_look``): a photo
#: where the first look finds almost nothing is looked at whole at twice the size, and the tiles that
#: finds may still call for a window around them.
CLOSER_LOOKS = 2
#: Said of a hand only a finer look read; its score is never called sure: the first look found
#: another set of tiles, so a tile may still be missing or extra.
FINER_LOOK_WARNING = ("the score is not certain: the hand read only when the photo was looked at again, "
                      "finer; check that every tile was found")


class PhotoPipeline:
    """The models plus the resolution policy. Models load on first use (the CLI may fail earlier)."""

    def __init__(self, detector: Detector | None = None, classifier: Classifier | None = None,
                 photo_budget: BudgetLimits = PHOTO_BUDGET, turned_look: bool = True) -> None:
        self._detector = detector
        self._classifier = classifier
        self.photo_budget = photo_budget  # each photo's readings and seconds (``vision.decode.budget``)
        self.turned_look = turned_look  # read a slanted photo turned level too (``_first_look``)

    @property
    def detector(self) -> Detector:
        if self._detector is None:
            from vision.models.detector import TileDetector

            self._detector = TileDetector()
        return self._detector

    @property
    def classifier(self) -> Classifier:
        if self._classifier is None:
            from vision.models.classifier import TileClassifier

            self._classifier = TileClassifier()
        return self._classifier

    def _load_models(self) -> None:
        """Load both models now, if not yet (each loads on first use)."""
        _ = (self.detector, self.classifier)

    def read_tiles(self, source: PhotoSource | ArraySource | np.ndarray,
                   timings: dict[str, float] | None = None) -> list[TileReading]:
        """Detect and classify every tile; boxes in full-resolution upright pixels (InputError when
        the photo shows none)."""
        looked = self._first_look(ArraySource(source) if isinstance(source, np.ndarray) else source,
                                  timings if timings is not None else {})
        if isinstance(looked, Refusal):
            raise InputError(looked.reason)
        return looked.readings

    def _first_look(self, source: ImageSource, timings: dict[str, float]) -> TilesRead | Refusal:
        """:meth:`_read_tiles` of the photo, or of it turned level where that reads surer
        (``vision.pipeline.turned``; not with ``turned_look`` off)."""
        looked = self._read_tiles(source, timings)
        slant = row_slant(source.image(DETECT_SIDE)[0]) if self.turned_look else 0.0
        if abs(slant) < TURN_FROM:
            return looked
        return surer_turned(looked, source, slant, self._read_tiles, self.classifier, timings)

    def _read_tiles(self, source: ImageSource | np.ndarray,
                    timings: dict[str, float] | None = None, detector_size: int | None = None,
                    closer_looks: int | None = None, finer: float = 1.0,
                    enlarge: bool = False) -> TilesRead | Refusal:
        """The tiles read (:class:`TilesRead`), or the refusal of a photo that shows none.
        ``detector_size``: the detector's input size (default its own). ``closer_looks``: how many
        times tiles found small may be read again from a closer look (``vision.repairs.closer_look``;
        default :data:`CLOSER_LOOKS` at the detector's own size, none at another); ``finer``: how
        much larger that look sees them (a finer look's); ``enlarge``: only that look, which may come
        closer than the photo's pixels (``closer_look``'s, for a photo whose hand no other look read)."""
        timings = timings if timings is not None else {}
        started = time.perf_counter()
        if isinstance(source, np.ndarray):
            source = ArraySource(source)
        small, scale = source.image(DETECT_SIDE)
        timings["load"] = time.perf_counter() - started
        if detector_size is None:  # the first look: a close-up's large tiles are seen from farther off
            found = detect_whole_tiles(self.detector, small, spares=True)
        else:
            found = self.detector.detect(small, spares=True, input_size=detector_size)
        detections = with_spares(found)
        timings["detect"] = time.perf_counter() - started - timings["load"]
        if closer_looks is None:
            closer_looks = CLOSER_LOOKS if detector_size is None else 0
        side = detector_size or getattr(self.detector, "input_size", None)
        if closer_looks > 0 and side:
            look = closer_look(detections, (small.shape[1], small.shape[0]), side,
                               most_zoom=1.0 / scale, finer=finer, enlarge=enlarge)
            if look is not None:
                return self._read_closer(source, look, scale, timings, closer_looks - 1, finer)
        if enlarge:  # asked for the closer look only: without one this is the first look again
            return Refusal("no closer look is due")
        if not detections:
            return Refusal("no tiles found in the photo")
        tile_pixels = float(np.median([max(d.width, d.height) for d in detections]))
        crop_image, crop_scale = small, scale
        if tile_pixels < MIN_TILE_PIXELS and scale < 1.0:
            longest = max(small.shape[:2]) / scale
            side = min(longest, max(small.shape[:2]) * MIN_TILE_PIXELS / tile_pixels)
            crop_image, crop_scale = source.image(None if side >= longest else int(math.ceil(side)))
        factor = crop_scale / scale
        in_crop = [rescaled(d, factor) for d in detections]
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
        readings = with_blank_faces(crop_image, self.classifier.classify(crop_image, faces, top_k=TOP_K,
                                                                          second_outlines=seconds))
        timings["classify"] = time.perf_counter() - started - timings["load"] - timings["detect"]

        perception = Perception(self.classifier, crop_image, crop_scale)
        found = [TileReading(rescaled(d, 1.0 / crop_scale), r.candidates)
                 for d, r in zip(in_crop, readings, strict=True)]
        return TilesRead(with_false_turns_undone(found, perception.classify), perception)

    def _network_side(self) -> int:
        """The detector's own input size (512 when a stand-in detector does not say)."""
        return network_side(self.detector)

    def _read_closer(self, source: ImageSource, look: Look, scale: float,
                     timings: dict[str, float], closer_looks: int, finer: float) -> TilesRead | Refusal:
        """:meth:`_read_tiles` of the window ``look`` names (in the pixels of the image seen at
        ``scale``), its readings and perception in the photo's full-resolution pixels."""
        x1, y1, x2, y2 = (value / scale for value in look.region)
        width, height = source.full_size
        region = (max(0, math.floor(x1)), max(0, math.floor(y1)), min(width, math.ceil(x2)),
                  min(height, math.ceil(y2)))
        window = RegionSource(source, region)
        first = dict(timings)
        looked = self._read_tiles(window, timings, detector_size=look.input_size, closer_looks=closer_looks,
                                  finer=finer)
        if isinstance(looked, Refusal):
            return looked
        timings.update({f"first_{key}": value for key, value in first.items()})
        dx, dy = window.offset
        found = [TileReading(shifted(r.detection, dx, dy), r.candidates) for r in looked.readings]
        return TilesRead(found, looked.perception.within(dx, dy))

    def faint_tiles(self, readings: list[TileReading]) -> list[int]:
        """Indices of the tiles found below the detector's own threshold (kept because they extend a
        row, ``vision.repairs.row_completion``): the hand may be read without them."""
        threshold = getattr(self.detector, "score_threshold", None)
        if threshold is None:
            return []
        return [i for i, reading in enumerate(readings)
                if reading.detection.score < threshold and not reading.detection.spare]

    def read_photo(self, path: str | Path, setup: HandSetup | None = None, *, rules: Rules = None,
                   table: TableSettings | None = None, context: Context = None,
                   named: NamedTiles = NOTHING_NAMED) -> PhotoResult:
        """Read one photo file into a scored hand (InputError for anything the user must fix). A
        photo whose hand does not read is looked at again, finer (:meth:`_read_finer`), and if no look
        reads, the first look is read once more taking weak detections that make the hand only with a
        tile inferred (``last_resort`` of :func:`read_outcome`), its score called unsure.
        ``setup``: the rule set, table, context and what the player named (``vision.named_tiles``),
        resolved once (:class:`~vision.pipeline.setup.HandSetup`); without it, made from ``rules``,
        ``table``, ``context`` and ``named``.

        The whole photo has one budget (``photo_budget``, ``vision.decode.budget.PHOTO_BUDGET``): readings
        over all its searches, and a deadline; its first look alone gets part of the readings, which
        leaves the rest for the finer looks. Past the deadline the looks left are skipped and the photo is
        refused, saying so. The clock starts once the models are loaded (the first photo of a run
        loads them)."""
        self._load_models()  # before the clock starts
        budget = Budget(self.photo_budget)
        started = time.perf_counter()
        source = PhotoSource(path)
        timings: dict[str, float] = {}
        looked = self._first_look(source, timings)
        if isinstance(looked, Refusal):
            raise InputError(looked.reason)
        look_seconds = time.perf_counter() - started  # what one look's models take on this machine
        setup = setup or HandSetup.of(rules, table, context, named)
        image = str(path)
        result = self._read_hand(*looked.readers(), setup, image, budget=budget.part(LOOK_SEARCH_BUDGET))
        if isinstance(result, Refusal):
            refusal = result
            result = self._read_finer(source, setup, image, budget=budget, look_seconds=look_seconds)
            if result is None:
                result = self._read_enlarged(source, setup, image, budget=budget, look_seconds=look_seconds)
            if result is None:
                result = self._read_last_resort(looked, setup, image, budget=budget)
            if result is None:
                reason = refusal.reason
                if budget.expired() and not reason.startswith(time_limit_reason(budget)):
                    reason = (f"{time_limit_reason(budget)}; the looks left were skipped; the first look: "
                              f"{reason}")
                failure = PhotoReadError(reason, looked.readings, refusal.fixes)
                failure.timings = {**timings, "total": time.perf_counter() - started}
                raise failure
        return replace(result, timings={**timings, **result.timings, "total": time.perf_counter() - started})

    def _read_finer(self, source: PhotoSource, setup: HandSetup, image: str, *, budget: Budget,
                    look_seconds: float = 0.0) -> PhotoResult | None:
        """The hand read from the detector's finer looks (:data:`FINER_DETECTOR_SIZES`), the first
        that reads, its score called unsure; None if none does. A look is not begun once less of
        ``budget``'s time is left than it would take: the first look's models (``look_seconds``)
        scaled by the detector's pixels at the finer size, at least; begun, it would end past the
        deadline, its hand unread. The photo's own failure stays the one reported."""
        for size in FINER_DETECTOR_SIZES:
            left = budget.seconds_left()
            if left is not None and left < look_seconds * (size / self._network_side()) ** 2:
                return None
            timings: dict[str, float] = {}
            # A hand far off in a big photo is seen finer from its closer look (on a photo that
            # holds no more detail than the first look used, as the renders, nothing changes).
            looked = self._read_tiles(source, timings, detector_size=size, closer_looks=CLOSER_LOOKS,
                                      finer=size / self._network_side())
            if isinstance(looked, Refusal):
                continue
            result = self._read_hand(*looked.readers(), setup, image, cut_merged=False, budget=budget)
            if isinstance(result, Refusal):
                continue
            note = (f"read from a second look with the detector at {size} pixels; the first look found no "
                    "legal hand")
            return _from_another_look(result, note, "finer", {**timings, "detector_size": float(size)})
        return None

    def _read_enlarged(self, source: PhotoSource, setup: HandSetup, image: str, *, budget: Budget,
                       look_seconds: float) -> PhotoResult | None:
        """The hand read from a closer look that enlarges the photo's pixels (:data:`ENLARGE`), its
        score called unsure; None if the tiles need no closer look or the hand still does not read.
        Tried after the finer looks: enlarging loses hands that read without it (``closer_look``)."""
        left = budget.seconds_left()
        if left is not None and left < look_seconds * ENLARGE ** 2:
            return None
        timings: dict[str, float] = {}
        looked = self._read_tiles(source, timings, enlarge=True)
        if isinstance(looked, Refusal):  # no closer look was due, or it found no tiles
            return None
        result = self._read_hand(*looked.readers(), setup, image, cut_merged=False, budget=budget)
        if isinstance(result, Refusal):
            return None
        note = "read from a closer look that enlarges the photo; the first look found no legal hand"
        return _from_another_look(result, note, "enlarged", timings)

    def _read_last_resort(self, looked: TilesRead, setup: HandSetup, image: str, *,
                          budget: Budget) -> PhotoResult | None:
        """The first look read with weak detections kept even where the hand then needs a tile
        inferred, its score called unsure; None if it still does not read, or ``budget``'s deadline
        has passed. Tried only after every look failed: taken earlier, such a guess would stand in
        for a finer look's whole reading."""
        if budget.expired():
            return None
        result = self._read_hand(*looked.readers(), setup, image, last_resort=True, cut_merged=False,
                                 budget=budget)
        if isinstance(result, Refusal):
            return None
        report = None if result.report is None else replace(result.report, score_stable=False)
        return replace(result, report=report)

    def read_image(self, image_bgr: np.ndarray, *, name: str = "<image>", rules: Rules = None,
                   table: TableSettings | None = None, context: Context = None) -> PhotoResult:
        """Read an in-memory upright BGR image (a camera frame) into a scored hand, within a frame's
        budget (``vision.decode.budget.FRAME_BUDGET``: a frame that holds no hand must not stall the
        camera); InputError when it holds none."""
        self._load_models()  # before the clock starts
        budget = Budget(FRAME_BUDGET)
        looked = self._read_tiles(image_bgr)
        result = looked if isinstance(looked, Refusal) else self._read_hand(
            *looked.readers(), HandSetup.of(rules, table, context), name, budget=budget)
        if isinstance(result, Refusal):
            raise refusal_error(result)
        return result

    def _read_hand(self, readings: list[TileReading], classify: Classify, read_flowers: ReadFlowers | None,
                   setup: HandSetup, image: str, *, last_resort: bool = False, cut_merged: bool = True,
                   budget: Budget | None = None) -> PhotoResult | Refusal:
        """``readings`` (``classify`` and ``read_flowers`` reading more detections on their image) read
        into a hand with the second looks (``vision.pipeline.looks.read_with_second_looks``),
        then, when it reads, once more with the flower model's looks at tiles left out beside it and
        at two flowers found as one outline (``read_flowers_again``). ``last_resort``: see
        :func:`read_outcome`; ``cut_merged``: see ``read_with_second_looks``; ``budget``: what every
        reading of the hand spends."""
        def read(tiles: list[TileReading]) -> PhotoResult | Refusal:
            return read_outcome(tiles, setup, image=image, infer_unseen=True,
                                optional=self.faint_tiles(tiles), last_resort=last_resort, budget=budget)

        stop = stop_at(budget)
        result = read_with_second_looks(readings, classify, read, cut_merged=cut_merged, stop=stop)
        if isinstance(result, Refusal) or read_flowers is None:
            return result
        return read_flowers_again(result, classify, read_flowers, read, stop)

    def read_hand(self, readings: list[TileReading], classify: Classify, *, image: str = "",
                  rules: Rules = None, table: TableSettings | None = None, context: Context = None,
                  read_flowers: ReadFlowers | None = None) -> PhotoResult:
        """Tiles already read (``classify`` reading more on the same image) into a scored hand, as
        a photo's first look reads them, with no budget; InputError (of the refusal's kind) when
        they make none."""
        result = self._read_hand(readings, classify, read_flowers, HandSetup.of(rules, table, context), image)
        if isinstance(result, Refusal):
            raise refusal_error(result)
        return result


def _from_another_look(result: PhotoResult, note: str, look: str, timings: dict[str, float]) -> PhotoResult:
    """``result``, read from a look after the first failed, marked so: its score not called sure, the
    report noting which look read it, the finer-look warning, and that look's ``timings`` under its
    name (``look``)."""
    report = (None if result.report is None
              else replace(result.report, score_stable=False, notes=[*result.report.notes, note]))
    return replace(result, report=report, warnings=[*result.warnings, FINER_LOOK_WARNING],
                   timings={**{f"{look}_{key}": value for key, value in timings.items()}, **result.timings})


def read_photo(path: str | Path, rules: Rules = None, table: TableSettings | None = None,
               context: Context = None, pipeline: PhotoPipeline | None = None,
               named: NamedTiles = NOTHING_NAMED) -> PhotoResult:
    """Read and score one photo with the shipped models (see :class:`PhotoPipeline`)."""
    return (pipeline or PhotoPipeline()).read_photo(path, rules=rules, table=table, context=context,
                                                    named=named)
