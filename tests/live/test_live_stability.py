"""The stability clock: a hand is steady only after hold_seconds without activity."""

from __future__ import annotations

from vision.live.stability import StabilityConfig, StabilityState, TableStatus, update_stability
from vision.live.tracker import TrackerConfig, TrackerState, update_with_readings
from vision.types import Detection, TileReading

CONFIG = StabilityConfig(hold_seconds=0.5)


def row(n: int, dx: float = 0.0, skip: tuple[int, ...] = ()) -> list[TileReading]:
    codes = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z"]
    return [
        TileReading(Detection((50 * i + dx, 100, 50 * i + 40 + dx, 156), 0.9), ((codes[i % 10], 0.9),))
        for i in range(n)
        if i not in skip
    ]


class Table:
    """Feeds frames at 10 fps through tracker and stability and records the status."""

    def __init__(self) -> None:
        self.tracker = TrackerState(config=TrackerConfig(min_hits=2, miss_tolerance=0.35))
        self.stability = StabilityState()
        self.t = 0.0
        self.statuses: list[TableStatus] = []

    def show(self, readings: list[TileReading], frames: int = 1) -> TableStatus:
        for _ in range(frames):
            self.tracker = update_with_readings(self.tracker, readings, self.t)
            self.stability = update_stability(self.stability, self.tracker, self.t, CONFIG)
            self.statuses.append(self.stability.status)
            self.t += 0.1
        return self.stability.status


def test_an_empty_table_is_empty():
    table = Table()
    assert table.show([], 10) is TableStatus.EMPTY


def test_steady_only_after_the_hold_time():
    table = Table()
    table.show(row(5), 3)
    assert table.stability.status is TableStatus.SETTLING
    assert table.show(row(5), 5) is TableStatus.STEADY
    first_steady = table.statuses.index(TableStatus.STEADY)
    # confirmed at frame 1 (min_hits=2), steady 0.5 s later
    assert first_steady == 6


def test_tiles_laid_one_by_one_never_become_steady():
    table = Table()
    for n in range(1, 11):
        table.show(row(n), 4)  # a new tile every 0.4 s < hold 0.5 s
    assert TableStatus.STEADY not in table.statuses
    assert table.show(row(10), 6) is TableStatus.STEADY


def test_a_hand_covering_tiles_restarts_the_clock():
    table = Table()
    table.show(row(8), 10)
    assert table.stability.status is TableStatus.STEADY
    assert table.show(row(8, skip=(2, 3, 4)), 1) is TableStatus.SETTLING
    assert table.stability.disturbed == "tiles covered"
    table.show(row(8), 4)
    assert table.stability.status is TableStatus.SETTLING
    assert table.show(row(8), 2) is TableStatus.STEADY


def test_a_single_dropout_is_not_activity():
    table = Table()
    table.show(row(8), 10)
    assert table.show(row(8, skip=(3,)), 1) is TableStatus.STEADY


def test_moving_tiles_restart_the_clock():
    table = Table()
    table.show(row(6), 10)
    assert table.show(row(6, dx=20), 1) is TableStatus.SETTLING
    assert table.stability.disturbed == "tiles moving"


def test_a_removed_tile_restarts_the_clock_once_it_is_forgotten():
    table = Table()
    table.show(row(6), 10)
    table.show(row(5), 5)
    assert table.stability.disturbed == "tiles removed"
    assert table.stability.status is TableStatus.SETTLING


def test_a_code_flip_is_not_activity_but_restarts_the_reading_clock():
    table = Table()
    table.show(row(5), 10)
    assert table.stability.status is TableStatus.STEADY
    flipped = row(5)
    flipped[2] = TileReading(flipped[2].detection, (("9s", 0.99),))
    table.show(flipped, 4)  # the vote needs a few frames to change its mind
    assert table.stability.status is TableStatus.STEADY
    assert table.stability.reading[2][0] == "9s"
    assert table.stability.reading_held_for() < 0.3 < table.stability.held_for()
