"""When is the table steady enough to announce a hand?

A hand is announced only after its tiles have stayed put, with unchanged voted codes, for
``hold_seconds``. Anything that looks like activity restarts that clock: a tile appearing,
vanishing or changing code, a tile moving, or a hand covering several tiles at once (they go
unseen in the same frame). A single tile missing one frame is a detector dropout, not activity.

:func:`update_stability` is a pure function of (previous state, tracker state, time).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from vision.live.tracker import TrackerState

TableKey = tuple[tuple[int, str, bool, bool], ...]


class TableStatus(StrEnum):
    EMPTY = "empty"  # no tiles on the table (or none confirmed yet)
    SETTLING = "settling"  # tiles are changing, moving or covered: wait
    STEADY = "steady"  # unchanged for the hold time: the reading can be evaluated


@dataclass(frozen=True)
class StabilityConfig:
    """``hold_seconds``: how long the table must stay unchanged. ``occluded_tiles`` and
    ``occluded_fraction``: this many tiles (or this share of them) unseen in one frame means
    something is in the way."""

    hold_seconds: float = 0.8
    occluded_tiles: int = 2
    occluded_fraction: float = 0.15


@dataclass(frozen=True)
class StabilityState:
    key: TableKey = ()
    since: float = float("-inf")
    status: TableStatus = TableStatus.EMPTY
    disturbed: str = ""  # why the clock last restarted, for the display
    timestamp: float = float("-inf")

    def held_for(self) -> float:
        """Seconds the table has been unchanged as of the last update."""
        return max(0.0, self.timestamp - self.since) if self.key else 0.0


def table_key(tracker: TrackerState) -> TableKey:
    """What must stay the same: each confirmed tile's identity, voted code and flags."""
    return tuple(
        (track.track_id, track.code or "", track.rotated, track.face_down)
        for track in tracker.confirmed_tracks()
    )


def disturbance(
    previous: StabilityState, tracker: TrackerState, key: TableKey, config: StabilityConfig
) -> str:
    """Why this frame counts as activity on the table ("" if it does not)."""
    if key != previous.key:
        before = {entry[0]: entry for entry in previous.key}
        now = {entry[0]: entry for entry in key}
        if set(now) - set(before):
            return "tiles added"
        if set(before) - set(now):
            return "tiles removed"
        return "a tile's reading changed"
    confirmed = tracker.confirmed_tracks()
    if any(track.moved_at > previous.timestamp for track in confirmed):
        return "tiles moving"
    unseen = sum(1 for track in confirmed if track.last_seen < tracker.timestamp)
    if unseen and unseen >= max(config.occluded_tiles, config.occluded_fraction * len(confirmed)):
        return "tiles covered"
    return ""


def update_stability(
    state: StabilityState, tracker: TrackerState, timestamp: float, config: StabilityConfig
) -> StabilityState:
    """The stability state after one more frame."""
    key = table_key(tracker)
    if not key:
        since = state.since if state.status is TableStatus.EMPTY else timestamp
        return StabilityState(key=(), since=since, status=TableStatus.EMPTY, timestamp=timestamp)
    reason = disturbance(state, tracker, key, config)
    if reason:
        return StabilityState(
            key=key, since=timestamp, status=TableStatus.SETTLING, disturbed=reason, timestamp=timestamp
        )
    status = TableStatus.STEADY if timestamp - state.since >= config.hold_seconds else TableStatus.SETTLING
    return StabilityState(
        key=key, since=state.since, status=status, disturbed=state.disturbed, timestamp=timestamp
    )
