"""One live frame through the pipeline: detect -> classify -> track -> (when steady) layout, decode, score.

The engine owns the state that lives across frames (tracker, stability clock, the announced hand)
and turns each frame into a :class:`LiveUpdate`: what to draw now, and whether the announced hand
changed. The expensive end of the pipeline (layout, decode, score) runs once per steady table,
not per frame, and settled tiles that have not moved are not re-classified every frame: that is
what lets a 2-core laptop keep up with a camera.

A hand is announced when the table has been steady for the hold time *and* its reading decodes to
a complete hand. Once a hand is announced, a different reading replaces it (or, if it is not a
complete hand, withdraws it with a ``cleared`` event) only after that reading has itself held for
the hold time: a tile whose vote flickers between two faces cannot make the announcement flicker.
While the table shows the very tiles the announced hand was read from (same places, same faces,
:mod:`vision.live.same_table`), it is not read again: a hand passing over the table renews track
identities and pollutes votes, and the decoder must not get a chance to turn that into a second,
different total (or a "cleared") for a hand nobody touched. And when the table turns steady,
each tile is read from the votes cast since it went quiet: what the classifier said while
fingers went over the tiles is forgotten (:meth:`LiveEngine._forget_disturbed_votes`).
An empty table withdraws the hand once it has stayed empty for the hold time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import numpy as np

from vision.live.motion import ChangeGate, GateConfig
from vision.live.same_table import TileSeen, same_tiles, table_tiles
from vision.live.stability import (
    ReadingKey,
    StabilityConfig,
    StabilityState,
    TableKey,
    TableStatus,
    reading_key,
    update_stability,
)
from vision.live.tracker import (
    Observation,
    TrackerConfig,
    TrackerState,
    forget_votes_before,
    match_detections,
    needs_classification,
    update_tracks,
)
from vision.pipeline.perception import Perception
from vision.repairs.colour_cast import neutralised
from vision.repairs.farther_look import detect_whole_tiles
from vision.repairs.sideways_cut import second_cuts
from vision.repairs.stray_flowers import ReadFlowers
from vision.repairs.turned_faces import Classify
from vision.types import Classifier, Detector, TileReading


@dataclass(frozen=True)
class HandOutcome:
    """What the steady tiles amount to.

    ``complete``: they decode to a legal, complete hand. ``document``: the ``photo --json``-shaped
    dict (tiles, hand, confidence, warnings, score) for that reading. ``signature``: equal for two
    outcomes that a player would call the same result (same hand, same score).
    """

    complete: bool
    document: dict[str, Any]
    signature: str
    reason: str = ""
    #: The photo pipeline's full result (a ``vision.pipeline.PhotoResult``), for drawing it.
    result: Any = field(default=None, compare=False, repr=False)


#: Reads a list of (voted) tile readings into an outcome; the rule set is bound inside it. The
#: second and third arguments, when given, read more detections on the latest frame: with the
#: classifier (``vision.repairs.turned_faces``: a sideways winning tile the detector did not flag) and with
#: the flower model (``vision.repairs.stray_flowers``: flowers the layout left out).
HandReader = Callable[[list[TileReading], Classify | None, ReadFlowers | None], HandOutcome]


class LiveEvent(StrEnum):
    HAND = "hand"  # a new or different hand (or a new score after a rule switch) is announced
    CLEARED = "cleared"  # the announced hand is no longer on the table


@dataclass(frozen=True)
class EngineConfig:
    tracker: TrackerConfig = field(default_factory=TrackerConfig)
    stability: StabilityConfig = field(default_factory=StabilityConfig)
    #: A settled, unmoved tile is re-classified at least this often (seconds); 0 = every frame.
    classify_refresh: float = 1.0
    #: When to skip the detector on a frame that shows the same scene as the last detected one.
    gate: GateConfig = field(default_factory=GateConfig)


@dataclass(frozen=True)
class StageTimes:
    """Seconds spent in each stage for one frame."""

    detect: float = 0.0
    classify: float = 0.0
    track: float = 0.0
    read: float = 0.0

    @property
    def total(self) -> float:
        return self.detect + self.classify + self.track + self.read


@dataclass(frozen=True)
class LiveUpdate:
    """The engine's answer for one frame: everything the display and the JSON output need."""

    frame_index: int
    timestamp: float
    tracker: TrackerState
    stability: StabilityState
    announced: HandOutcome | None
    evaluated: HandOutcome | None
    event: LiveEvent | None
    times: StageTimes
    classified: int = 0
    #: The detector ran on this frame (False: the picture had not changed, detections reused).
    detected: bool = True
    #: This frame read the table (layout, decode, score): the panel's reading changed.
    read_now: bool = False

    @property
    def status(self) -> TableStatus:
        return self.stability.status


class LiveEngine:
    """Per-frame processing with state across frames; not thread-safe (one inference thread)."""

    def __init__(
        self,
        detector: Detector,
        classifier: Classifier,
        read_hand: HandReader,
        config: EngineConfig | None = None,
    ) -> None:
        self.detector = detector
        self.classifier = classifier
        self.read_hand = read_hand
        self.config = config or EngineConfig()
        self.reset()

    def reset(self) -> None:
        """Forget every tile and the announced hand (the "reset" key)."""
        self.tracker = TrackerState(config=self.config.tracker)
        self.stability = StabilityState()
        self.gate = ChangeGate(self.config.gate)
        self.announced: HandOutcome | None = None
        #: The tiles the announced hand was read from (see :mod:`vision.live.same_table`).
        self._announced_tiles: tuple[TileSeen, ...] = ()
        self._evaluated_key: tuple[TableKey, ReadingKey] | None = None
        self._evaluated: HandOutcome | None = None
        self._evaluated_tiles: tuple[TileSeen, ...] = ()
        #: Read detections on the latest frame processed (None before any, or for :meth:`step` alone).
        self._frame_classify: Classify | None = None
        self._frame_flowers: ReadFlowers | None = None

    def set_hand_reader(self, read_hand: HandReader) -> LiveEvent | None:
        """Switch rule set (or table settings): re-read the current steady table and announce at once."""
        self.read_hand = read_hand
        self._evaluated_key = None
        if self.stability.status is TableStatus.STEADY:
            return self._announce(force=True)
        return None

    # -- frames ----------------------------------------------------------------------------------
    def process(self, image_bgr: np.ndarray, timestamp: float, frame_index: int = 0) -> LiveUpdate:
        """Detect and classify ``image_bgr`` (only tiles that need it), then :meth:`step`."""
        started = time.perf_counter()
        reused = self.gate.reusable(image_bgr, timestamp)
        if reused is None:
            detections = detect_whole_tiles(self.detector, image_bgr)
            self.gate.remember(image_bgr, timestamp, detections)
        else:
            detections = reused
        detected = time.perf_counter()
        assignment = match_detections(self.tracker.tracks, detections, self.config.tracker)
        quiet_since = self._quiet_since()
        to_classify = [
            d
            for d, t in enumerate(assignment)
            if needs_classification(
                None if t is None else self.tracker.tracks[t],
                timestamp,
                self.config.classify_refresh,
                self.config.tracker,
                quiet_since,
            )
        ]
        # Second cuts (squared onto the neighbours, or a sideways tile's box across the row) need
        # every tile's neighbours, so they are found before the subset (and only on frames that
        # classify anything: once the table is steady, most do not).
        seconds = second_cuts(detections) if to_classify else []
        # Under a strongly coloured lamp the faces are read in grey balanced on their paper.
        balanced = neutralised(image_bgr, [d.quad for d in detections if d.quad is not None])
        image_bgr = image_bgr if balanced is None else balanced
        readings = self.classifier.classify(
            image_bgr, [detections[d] for d in to_classify], top_k=self.config.tracker.top_k,
            second_outlines=[seconds[d] for d in to_classify],
        )
        candidates: dict[int, tuple[tuple[str, float], ...]] = {
            d: reading.candidates for d, reading in zip(to_classify, readings, strict=True)
        }
        observations = [Observation(detection, candidates.get(d)) for d, detection in enumerate(detections)]
        frame = Perception(self.classifier, image_bgr, top_k=self.config.tracker.top_k)
        self._frame_classify = frame.classify
        self._frame_flowers = frame.read_flowers
        classified = time.perf_counter()
        update = self.step(observations, timestamp, frame_index)
        times = replace(update.times, detect=detected - started, classify=classified - detected)
        return replace(update, times=times, classified=len(to_classify), detected=reused is None)

    def step(self, observations: list[Observation], timestamp: float, frame_index: int = 0) -> LiveUpdate:
        """Track, update the stability clock, and read the hand when the table is newly steady."""
        started = time.perf_counter()
        self.tracker = update_tracks(self.tracker, observations, timestamp)
        self.stability = update_stability(self.stability, self.tracker, timestamp, self.config.stability)
        if self.stability.status is TableStatus.STEADY:
            self._forget_disturbed_votes()
        tracked = time.perf_counter()
        before = self._evaluated_key
        event = self._announce() if self._table_settled() else None
        read = time.perf_counter()
        return LiveUpdate(
            frame_index=frame_index,
            timestamp=timestamp,
            tracker=self.tracker,
            stability=self.stability,
            announced=self.announced,
            evaluated=self._evaluated if self._evaluated_key == self._current_key() else None,
            event=event,
            times=StageTimes(track=tracked - started, read=read - tracked),
            read_now=self._evaluated_key != before and self._evaluated is not None,
        )

    # -- votes of a disturbed table -------------------------------------------------------------
    def _quiet_since(self) -> float:
        """When the table went quiet, if the last frame was quiet (else -inf: nothing to catch up).

        Every tile is classified once after a disturbance ends, so that when the table turns
        steady each has a vote from the quiet table (:meth:`_forget_disturbed_votes`). Not during
        the disturbance itself: a hand sweeping over 20 tiles would cost a full classification per
        frame.
        """
        state = self.stability
        return state.since if state.key and state.timestamp > state.since else float("-inf")

    def _forget_disturbed_votes(self) -> None:
        """On a steady table, the tiles' codes come from votes cast since it went quiet.

        Votes cast while something moved over the table show fingers as often as tiles (seen:
        a flower voted "1s 0.42", "2p 0.31" under a passing hand); they would stay in a settled
        tile's window for seconds and be read with the table. The reading key follows the
        corrected codes, so the correction itself does not count as the reading changing.
        """
        tracker = forget_votes_before(self.tracker, self.stability.since)
        if tracker is not self.tracker:
            self.tracker = tracker
            self.stability = replace(self.stability, reading=reading_key(tracker))

    # -- announcing ------------------------------------------------------------------------------
    def _table_settled(self) -> bool:
        if self.stability.status is TableStatus.STEADY:
            return True
        # An empty table counts as steady once it has stayed empty for the hold time.
        return self.stability.status is TableStatus.EMPTY and (
            self.stability.timestamp - self.stability.since >= self.config.stability.hold_seconds
        )

    def _current_key(self) -> tuple[TableKey, ReadingKey]:
        return (self.stability.key, self.stability.reading)

    def _announce(self, force: bool = False) -> LiveEvent | None:
        """Read the settled table if its reading is new, then decide what to announce.

        A table that still shows the announced hand's tiles is that hand: it is not read again
        (``force``, a rule switch, re-reads it: the same tiles score differently under other rules).
        """
        key = self._current_key()
        if key != self._evaluated_key:
            self._evaluated_key = key
            readings = self.tracker.readings()
            tiles = table_tiles(readings)
            if self.announced is not None and not force and same_tiles(self._announced_tiles, tiles):
                self._evaluated = self.announced
            else:
                self._evaluated = (self.read_hand(readings, self._frame_classify, self._frame_flowers)
                                   if readings else None)
                self._evaluated_tiles = tiles
        outcome = self._evaluated
        if self.announced is None:
            if outcome is not None and outcome.complete:
                self._set_announced(outcome)
                return LiveEvent.HAND
            return None
        if outcome is not None and outcome.signature == self.announced.signature:
            return None
        reading_settled = self.stability.reading_held_for() >= self.config.stability.hold_seconds
        if not (force or reading_settled):
            return None
        if outcome is not None and outcome.complete:
            self._set_announced(outcome)
            return LiveEvent.HAND
        self.announced = None
        self._announced_tiles = ()
        return LiveEvent.CLEARED

    def _set_announced(self, outcome: HandOutcome) -> None:
        """Announce ``outcome`` (the table's current reading) and remember the tiles it was read from."""
        self.announced = outcome
        self._announced_tiles = self._evaluated_tiles
