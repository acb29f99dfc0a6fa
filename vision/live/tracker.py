"""Tile tracks across frames: stable identities and class votes (the live mode's ``track`` stage).

A single frame's classifier output flickers (glare, blur, a finger at the edge of a tile). The
tracker matches each frame's detections to the tiles it already knows, by box overlap first and
centre distance second, and keeps for every tile a short window of classifier outputs. The tile's
code is the soft vote over that window (mean probability per code), with hysteresis so a near
tie does not flip back and forth.

:func:`update_tracks` is a pure function of (previous state, this frame's observations, time):
no hidden state, so it is tested alone with hand-made readings.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from vision.geometry import box_iou
from vision.types import Detection, TileReading

Candidates = tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class TrackerConfig:
    """Knobs of the tracker; defaults suit 5-30 processed frames per second.

    ``vote_window``: classifier outputs kept per tile. ``min_hits``: sightings before a tile counts
    (one-frame false detections never reach the reading). ``miss_tolerance``: seconds a tile may go
    unseen (a detection dropout) before it is forgotten. ``move_fraction``: a centre shift larger
    than this fraction of the tile's short side counts as the tile being moved. ``switch_margin``:
    how far another code's vote must exceed the current one before the tile changes its code.
    """

    iou_match: float = 0.3
    centre_match: float = 0.6
    vote_window: int = 6
    min_hits: int = 2
    miss_tolerance: float = 0.4
    move_fraction: float = 0.25
    switch_margin: float = 0.1
    top_k: int = 5


@dataclass(frozen=True)
class Observation:
    """One detection in one frame; ``candidates`` is None when the frame was not classified for it."""

    detection: Detection
    candidates: Candidates | None = None


@dataclass(frozen=True)
class Track:
    """One physical tile followed across frames."""

    track_id: int
    detection: Detection
    votes: tuple[Candidates, ...]
    code: str | None
    hits: int
    first_seen: float
    last_seen: float
    moved_at: float
    anchor: tuple[float, float]
    flag_votes: tuple[tuple[bool, bool], ...] = ()
    classified_at: float = float("-inf")
    #: When each of ``votes`` was cast (same order), so votes from a disturbed moment can be forgotten.
    vote_times: tuple[float, ...] = ()

    def voted_candidates(self, top_k: int = 5) -> Candidates:
        """Mean probability per code over the vote window, best first (the committed code leads)."""
        return _mean_votes(self.votes, top_k, lead=self.code)

    @property
    def confirmed(self) -> bool:
        return self.code is not None

    @property
    def rotated(self) -> bool:
        return _majority(self.flag_votes, 0, self.detection.rotated)

    @property
    def face_down(self) -> bool:
        return _majority(self.flag_votes, 1, self.detection.face_down)

    def reading(self, top_k: int = 5) -> TileReading:
        """The tile as the rest of the pipeline expects it: latest box, voted flags and codes."""
        detection = replace(self.detection, rotated=self.rotated, face_down=self.face_down)
        return TileReading(detection=detection, candidates=self.voted_candidates(top_k))


@dataclass(frozen=True)
class TrackerState:
    tracks: tuple[Track, ...] = ()
    next_id: int = 1
    timestamp: float = float("-inf")
    config: TrackerConfig = field(default_factory=TrackerConfig)

    def confirmed_tracks(self) -> tuple[Track, ...]:
        """Tiles seen often enough to be part of the reading, in a stable order (by id)."""
        return tuple(track for track in self.tracks if track.confirmed and track.hits >= self.config.min_hits)

    def readings(self) -> list[TileReading]:
        """Voted readings of the confirmed tiles, ordered by track id (what layout and decode get)."""
        return [track.reading(self.config.top_k) for track in self.confirmed_tracks()]


def match_detections(
    tracks: tuple[Track, ...], detections: list[Detection], config: TrackerConfig
) -> list[int | None]:
    """For each detection, the index into ``tracks`` it continues, or None for a new tile.

    Greedy one-to-one matching: pairs by IoU (largest first) above ``iou_match``, then the rest by
    centre distance below ``centre_match`` times the tile's short side (a tile nudged further than
    its boxes overlap). Hands hold at most ~30 tiles, so greedy is exact enough and cheap.
    """
    assignment: list[int | None] = [None] * len(detections)
    used_tracks: set[int] = set()
    pairs = [
        (box_iou(track.detection.box, detection.box), t, d)
        for t, track in enumerate(tracks)
        for d, detection in enumerate(detections)
    ]
    for iou, t, d in sorted(pairs, key=lambda pair: -pair[0]):
        if iou < config.iou_match:
            break
        if assignment[d] is None and t not in used_tracks:
            assignment[d] = t
            used_tracks.add(t)
    by_distance = []
    for d, detection in enumerate(detections):
        if assignment[d] is not None:
            continue
        for t, track in enumerate(tracks):
            if t in used_tracks:
                continue
            distance = _shift(detection, track.detection.center)
            if distance < config.centre_match:
                by_distance.append((distance, t, d))
    for _, t, d in sorted(by_distance):
        if assignment[d] is None and t not in used_tracks:
            assignment[d] = t
            used_tracks.add(t)
    return assignment


def _shift(detection: Detection, point: tuple[float, float]) -> float:
    """How far ``detection``'s centre lies from ``point``, in units of the tile's short side."""
    cx, cy = detection.center
    size = max(1.0, min(detection.width, detection.height))
    return ((cx - point[0]) ** 2 + (cy - point[1]) ** 2) ** 0.5 / size


def update_tracks(state: TrackerState, observations: list[Observation], timestamp: float) -> TrackerState:
    """The tracker after one more frame (pure: ``state`` is not modified).

    Matched tracks take the new box and, if the frame classified the tile, one more vote; new
    detections start tentative tracks; tracks unseen for longer than ``miss_tolerance`` are dropped.
    """
    config = state.config
    assignment = match_detections(state.tracks, [obs.detection for obs in observations], config)
    matched: dict[int, Observation] = {t: observations[d] for d, t in enumerate(assignment) if t is not None}
    tracks: list[Track] = []
    for t, track in enumerate(state.tracks):
        observation = matched.get(t)
        if observation is None:
            if timestamp - track.last_seen <= config.miss_tolerance:
                tracks.append(track)
            continue
        tracks.append(_continue_track(track, observation, timestamp, config))
    next_id = state.next_id
    for d, observation in enumerate(observations):
        if assignment[d] is None:
            tracks.append(_new_track(next_id, observation, timestamp, config))
            next_id += 1
    return TrackerState(tracks=tuple(tracks), next_id=next_id, timestamp=timestamp, config=config)


def update_with_readings(state: TrackerState, readings: list[TileReading], timestamp: float) -> TrackerState:
    """:func:`update_tracks` for a frame where every detection was classified."""
    return update_tracks(state, [Observation(r.detection, r.candidates) for r in readings], timestamp)


def needs_classification(
    track: Track | None,
    timestamp: float,
    refresh_seconds: float,
    config: TrackerConfig,
    quiet_since: float = float("-inf"),
) -> bool:
    """Whether a detection matched to ``track`` should be classified again this frame.

    New, unsettled, recently moved and stale tracks are classified; a settled tile that has not
    moved keeps its votes, which saves most of the classifier's time on a steady table. A tile not
    classified since ``quiet_since`` (the table went quiet after something disturbed it) is
    classified once more, so that :func:`forget_votes_before` leaves it a vote to be read by.
    """
    if track is None or len(track.votes) < config.vote_window or track.code is None:
        return True
    if track.moved_at >= track.classified_at or track.classified_at <= quiet_since:
        return True
    return timestamp - track.classified_at >= refresh_seconds


def forget_votes_before(state: TrackerState, since: float) -> TrackerState:
    """Each tile that has votes cast after ``since`` keeps only those, and its code is their vote.

    Called with the moment the table last went quiet: a hand passing over the tiles is classified
    too (a tile it half covers moves, or is refreshed), and with one vote per second on a settled
    tile, outputs like "1s 0.42" for a flower under a finger would stay in its window for seconds
    and reach the reading of the table. Tiles with no later vote keep theirs (better than none).
    """
    tracks = []
    changed = False
    for track in state.tracks:
        keep = [i for i, at in enumerate(track.vote_times) if at > since]
        if not keep or len(keep) == len(track.votes) or len(track.vote_times) != len(track.votes):
            tracks.append(track)
            continue
        changed = True
        kept = replace(
            track,
            votes=tuple(track.votes[i] for i in keep),
            vote_times=tuple(track.vote_times[i] for i in keep),
            code=None,
        )
        tracks.append(replace(kept, code=_commit_code(kept, state.config)))
    return replace(state, tracks=tuple(tracks)) if changed else state


def _new_track(track_id: int, observation: Observation, timestamp: float, config: TrackerConfig) -> Track:
    votes = (observation.candidates,) if observation.candidates else ()
    vote_times = (timestamp,) if observation.candidates else ()
    detection = observation.detection
    track = Track(
        track_id=track_id,
        detection=detection,
        votes=votes,
        code=None,
        hits=1,
        first_seen=timestamp,
        last_seen=timestamp,
        moved_at=timestamp,
        anchor=detection.center,
        flag_votes=((detection.rotated, detection.face_down),),
        classified_at=timestamp if observation.candidates else float("-inf"),
        vote_times=vote_times,
    )
    return replace(track, code=_commit_code(track, config))


def _continue_track(track: Track, observation: Observation, timestamp: float, config: TrackerConfig) -> Track:
    detection = observation.detection
    moved = _shift(detection, track.anchor) > config.move_fraction
    votes = track.votes
    vote_times = track.vote_times
    classified_at = track.classified_at
    if observation.candidates:
        votes = (votes + (observation.candidates,))[-config.vote_window :]
        vote_times = (vote_times + (timestamp,))[-config.vote_window :]
        classified_at = timestamp
    flags = (track.flag_votes + ((detection.rotated, detection.face_down),))[-config.vote_window :]
    updated = replace(
        track,
        detection=detection,
        votes=votes,
        hits=track.hits + 1,
        last_seen=timestamp,
        moved_at=timestamp if moved else track.moved_at,
        anchor=detection.center if moved else track.anchor,
        flag_votes=flags,
        classified_at=classified_at,
        vote_times=vote_times,
    )
    return replace(updated, code=_commit_code(updated, config))


def _commit_code(track: Track, config: TrackerConfig) -> str | None:
    """The tile's code after this vote: the top vote, unless it beats the current code by too little."""
    if not track.votes:
        return track.code
    voted = dict(_mean_votes(track.votes, top_k=None))
    best_code = max(voted, key=voted.__getitem__)
    if track.code is None or track.code not in voted:
        return best_code
    if voted[best_code] > voted[track.code] + config.switch_margin:
        return best_code
    return track.code


def _mean_votes(votes: tuple[Candidates, ...], top_k: int | None, lead: str | None = None) -> Candidates:
    """Mean probability per code over ``votes``, best first, the ``top_k`` best (None: every code)."""
    if not votes:
        return ()
    totals: Counter[str] = Counter()
    for candidates in votes:
        for code, probability in candidates:
            totals[code] += probability
    ranked = sorted(((code, total / len(votes)) for code, total in totals.items()), key=lambda item: -item[1])
    if lead is not None and ranked and ranked[0][0] != lead:
        # Hysteresis kept the previous code: it leads the list so the reading and the tile agree.
        ranked.sort(key=lambda item: (item[0] != lead, -item[1]))
    return tuple(ranked[:top_k])


def _majority(flags: tuple[tuple[bool, bool], ...], position: int, default: bool) -> bool:
    if not flags:
        return default
    yes = sum(1 for flag in flags if flag[position])
    return yes * 2 > len(flags)
