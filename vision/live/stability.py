"""When is the table steady enough to read, and when has a reading settled?

Two clocks, because two different things can change:

* the **table** clock restarts on physical activity: a tile appearing or vanishing, a tile moving,
  or a hand covering several tiles at once (they go unseen in the same frame). A single tile
  missing one frame is a detector dropout, not activity. After ``hold_seconds`` without activity
  the table is *steady* and its reading can be announced.
* the **reading** clock also restarts when a tile's voted code or flags change. A tile that
  nobody touched but whose vote flips between two faces is classifier noise, not activity: it
  must not hold back the first announcement forever, but it must not flip an announced hand
  back and forth either, so replacing an announced hand needs the reading clock to have run
  ``hold_seconds`` as well (see :mod:`vision.live.engine`).

:func:`update_stability` is a pure function of (previous state, tracker state, time).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from vision.live.tracker import TrackerState

#: The physical table: each confirmed tile's identity.
TableKey = tuple[int, ...]
#: What the tiles read: (code, rotated, face_down) per tile of the :data:`TableKey`, in order.
ReadingKey = tuple[tuple[str, bool, bool], ...]


class TableStatus(StrEnum):
    EMPTY = "empty"  # no tiles on the table (or none confirmed yet)
    SETTLING = "settling"  # tiles are being added, moved, removed or covered: wait
    STEADY = "steady"  # no activity for the hold time: the reading can be announced


#: Seconds without activity before the table is read: long enough for a hand reaching in to count
#: as activity, short enough to keep the change-to-score latency under 1.5 s.
DEFAULT_HOLD_SECONDS = 0.7


@dataclass(frozen=True)
class StabilityConfig:
    """``hold_seconds``: how long the table must stay unchanged. ``occluded_tiles`` and
    ``occluded_fraction``: this many tiles (or this share of them) unseen in one frame means
    something is in the way."""

    hold_seconds: float = DEFAULT_HOLD_SECONDS
    occluded_tiles: int = 2
    occluded_fraction: float = 0.15


@dataclass(frozen=True)
class StabilityState:
    key: TableKey = ()
    reading: ReadingKey = ()
    since: float = float("-inf")  # the table clock: no activity since
    reading_since: float = float("-inf")  # the reading clock: same codes and flags since
    status: TableStatus = TableStatus.EMPTY
    disturbed: str = ""  # why the table clock last restarted, for the display
    timestamp: float = float("-inf")

    def held_for(self) -> float:
        """Seconds without activity on the table as of the last update."""
        return max(0.0, self.timestamp - self.since) if self.key else 0.0

    def reading_held_for(self) -> float:
        """Seconds the tiles' reading has stayed the same as of the last update."""
        return max(0.0, self.timestamp - self.reading_since)


def table_key(tracker: TrackerState) -> TableKey:
    """What must stay on the table: the confirmed tiles' identities."""
    return tuple(track.track_id for track in tracker.confirmed_tracks())


def reading_key(tracker: TrackerState) -> ReadingKey:
    """What the confirmed tiles read: voted code and flags of each."""
    return tuple((track.code or "", track.rotated, track.face_down) for track in tracker.confirmed_tracks())


def disturbance(
    previous: StabilityState, tracker: TrackerState, key: TableKey, config: StabilityConfig
) -> str:
    """Why this frame counts as activity on the table ("" if it does not)."""
    if key != previous.key:
        if set(key) - set(previous.key):
            return "tiles added"
        return "tiles removed"
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
    reading = reading_key(tracker)
    if not key:
        since = state.since if state.status is TableStatus.EMPTY else timestamp
        return StabilityState(since=since, reading_since=since, status=TableStatus.EMPTY, timestamp=timestamp)
    reason = disturbance(state, tracker, key, config)
    reading_since = state.reading_since if (reading == state.reading and not reason) else timestamp
    if reason:
        return StabilityState(
            key=key,
            reading=reading,
            since=timestamp,
            reading_since=reading_since,
            status=TableStatus.SETTLING,
            disturbed=reason,
            timestamp=timestamp,
        )
    status = TableStatus.STEADY if timestamp - state.since >= config.hold_seconds else TableStatus.SETTLING
    return StabilityState(
        key=key,
        reading=reading,
        since=state.since,
        reading_since=reading_since,
        status=status,
        disturbed=state.disturbed,
        timestamp=timestamp,
    )
