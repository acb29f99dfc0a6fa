"""The live engine on constructed tile readings, with the real layout, decoder and scoring.

Frames arrive at 10 per second; each test lays tiles out, disturbs them, and checks which
events the engine announces and when.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import scoring
from scoring import hand_from_json, score_hand
from vision.live.engine import EngineConfig, LiveEngine, LiveEvent, LiveUpdate
from vision.live.output import describe_event, event_document
from vision.live.reading import PipelineHandReader
from vision.live.stability import StabilityConfig
from vision.live.tracker import Observation, TrackerConfig
from vision.types import Detection

HAND = ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "4p", "5p", "6p", "7p", "7p")
OTHER_HAND = (
    "1m",
    "2m",
    "3m",
    "4m",
    "5m",
    "6m",
    "7m",
    "8m",
    "9m",
    "1p",
    "2p",
    "3p",
    "4p",
    "5p",
    "6p",
    "9s",
    "9s",
)
HOLD = 0.8
FPS = 10.0


def observation(i: int, code: str, p: float = 0.93, dy: float = 0.0) -> Observation:
    """Tile ``i`` of a touching row, read as ``code`` with probability ``p``."""
    x = 20 + 41 * i
    runner_up = "9p" if code != "9p" else "8p"
    return Observation(Detection((x, 100 + dy, x + 40, 156 + dy), 0.95), ((code, p), (runner_up, 1 - p)))


class Table:
    def __init__(self, rules: str = "taiwan") -> None:
        config = EngineConfig(tracker=TrackerConfig(), stability=StabilityConfig(hold_seconds=HOLD))
        self.engine = LiveEngine(None, None, PipelineHandReader(rules=rules), config)  # type: ignore[arg-type]
        self.t = 0.0
        self.frame = 0
        self.events: list[tuple[float, LiveEvent, dict]] = []
        self.last: LiveUpdate | None = None

    def show(self, observations: list[Observation], seconds: float = 0.1) -> None:
        for _ in range(max(1, round(seconds * FPS))):
            update = self.engine.step(observations, self.t, self.frame)
            self.last = update
            if update.event is not None:
                self.events.append((self.t, update.event, event_document(update, "test")))
            self.t += 1 / FPS
            self.frame += 1

    def row(self, codes: list[str], skip: set[int] | frozenset[int] = frozenset()) -> list[Observation]:
        return [observation(i, code) for i, code in enumerate(codes) if i not in skip]


def expected_total(codes: list[str], rules: str = "taiwan") -> int:
    hand = {"concealed": codes, "melds": [], "flowers": [], "winning_tile": codes[-1], "context": {}}
    return score_hand(hand_from_json(hand), rules=rules).total


def lay_out(table: Table, codes: list[str], interval: float = 0.3) -> float:
    for n in range(1, len(codes) + 1):
        table.show(table.row(codes[:n]), interval)
    return table.t - interval  # when the last tile went down


def test_nothing_is_announced_while_tiles_are_being_laid_out():
    table = Table()
    last_tile = lay_out(table, HAND)
    assert table.events == []
    table.show(table.row(HAND), 2.0)
    assert [event for _, event, _ in table.events] == [LiveEvent.HAND]
    announced_at, _, document = table.events[0]
    assert HOLD <= announced_at - last_tile <= HOLD + 0.5
    assert sorted(document["hand"]["concealed"]) == sorted(HAND)
    assert document["score"]["valid"] is True
    assert document["score"]["total"] == document["score"]["total"]  # a number, not None
    assert isinstance(document["score"]["total"], int)
    json.dumps(document)  # one JSON line


def test_the_announced_score_is_the_scoring_engines_score():
    table = Table()
    lay_out(table, HAND, interval=0.2)
    table.show(table.row(HAND), 2.0)
    document = table.events[0][2]
    hand = document["hand"]
    direct = score_hand(hand_from_json(hand), rules="taiwan")
    assert document["score"]["total"] == direct.total
    assert document["score"]["rules"] == direct.to_json()["rules"]


def test_a_steady_incomplete_hand_is_not_announced():
    table = Table()
    table.show(table.row(HAND[:16]), 3.0)
    assert table.events == []
    update = table.engine.step(table.row(HAND[:16]), table.t)
    assert update.evaluated is not None and not update.evaluated.complete
    assert "not a winning hand" in update.evaluated.reason


def test_a_hand_passing_over_announces_nothing_new():
    table = Table()
    table.show(table.row(HAND), 2.5)
    assert len(table.events) == 1
    for start in range(0, 17, 2):  # fingers sweep along the row, covering three tiles at a time
        table.show(table.row(HAND, skip={start, start + 1, start + 2}), 0.1)
    table.show(table.row(HAND), 2.5)
    assert [event for _, event, _ in table.events] == [LiveEvent.HAND]


def test_flickering_readings_still_give_one_correct_hand():
    table = Table()
    for frame in range(40):
        observations = table.row(HAND)
        wrong = frame % 17
        observations[wrong] = observation(wrong, "3s", p=0.6)  # one tile misread in each frame
        table.show(observations, 0.1)
    assert [event for _, event, _ in table.events] == [LiveEvent.HAND]
    assert sorted(table.events[0][2]["hand"]["concealed"]) == sorted(HAND)


def test_a_changed_hand_is_announced_again_and_a_cleared_table_clears_it():
    table = Table()
    table.show(table.row(HAND), 2.0)
    table.show(table.row(HAND[:15]), 0.6)  # the pair is picked up ...
    table.show(table.row(OTHER_HAND), 2.0)  # ... and another pair put down
    table.show([], 2.0)
    events = [event for _, event, _ in table.events]
    assert events == [LiveEvent.HAND, LiveEvent.HAND, LiveEvent.CLEARED]
    assert sorted(table.events[1][2]["hand"]["concealed"]) == sorted(OTHER_HAND)
    assert table.events[2][2] == {
        "event": "cleared",
        "source": "test",
        "frame": table.events[2][2]["frame"],
        "time": table.events[2][2]["time"],
    }


def house_rules(tmp_path: Path) -> Path:
    """A house rule set: the taiwan table with every item worth double (a user's own rule file)."""
    text = (Path(scoring.__file__).parent / "rulesets" / "taiwan.toml").read_text(encoding="utf-8")
    text = re.sub(r'^id = "taiwan"', 'id = "house"', text, flags=re.M)
    text = re.sub(r"^value = (\d+)", lambda m: f"value = {2 * int(m.group(1))}", text, flags=re.M)
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_switching_rules_rescores_the_steady_hand(tmp_path: Path):
    table = Table("taiwan")
    table.show(table.row(HAND), 2.0)
    taiwan = table.events[0][2]["score"]
    assert taiwan["total"] > 0
    event = table.engine.set_hand_reader(PipelineHandReader(rules=str(house_rules(tmp_path))))
    assert event is LiveEvent.HAND
    house = table.engine.announced.document["score"]
    assert house["rules"] == "house"
    assert house["total"] == 2 * taiwan["total"]
    table.show(table.row(HAND), 1.0)  # the same table under the same rules: nothing new
    assert len(table.events) == 1


def test_describe_event_is_one_readable_line():
    rules = "taiwan"
    table = Table(rules)
    table.show(table.row(HAND), 2.0)
    line = describe_event(table.events[0][2])
    assert "\n" not in line and str(expected_total(HAND, rules)) in line


def test_a_steady_table_is_read_once_not_every_frame():
    table = Table()
    reads = 0
    for _ in range(30):
        update = table.engine.step(table.row(HAND), table.t)
        table.t += 1 / FPS
        reads += update.read_now
    assert reads == 1


def test_a_flickering_tile_cannot_flip_the_announced_hand_but_a_lasting_change_can():
    table = Table()
    table.show(table.row(HAND), 2.0)
    assert [event for _, event, _ in table.events] == [LiveEvent.HAND]
    for frame in range(30):  # one pair tile's vote keeps changing its mind
        codes = list(HAND)
        codes[16] = "9s" if (frame // 4) % 2 else "7p"
        table.show(table.row(codes), 0.1)
    assert [event for _, event, _ in table.events] == [LiveEvent.HAND]
    table.show(table.row(OTHER_HAND), 3.0)  # the pair really reads 9s 9s now, for good
    assert [event for _, event, _ in table.events] == [LiveEvent.HAND, LiveEvent.HAND]
    assert sorted(table.events[1][2]["hand"]["concealed"]) == sorted(OTHER_HAND)


def test_a_faint_tile_that_spoils_the_hand_is_left_out_as_the_photo_mode_does():
    """A tile kept under the detector's threshold (row completion) that makes 18 tiles: the reader
    that knows the threshold reads the hand without it; one that does not, finds no hand."""
    from vision.types import TileReading

    row = [TileReading(o.detection, o.candidates) for o in (observation(i, c) for i, c in enumerate(HAND))]
    x = 20 + 41 * len(HAND)
    faint = TileReading(Detection((x, 100, x + 40, 156), 0.3), (("back", 0.9), ("5z", 0.1)))
    readings = [*row, faint]
    assert not PipelineHandReader(rules="taiwan")(readings).complete
    outcome = PipelineHandReader(rules="taiwan", faint_below=0.5)(readings)
    assert outcome.complete
    assert sorted(outcome.document["hand"]["concealed"]) == sorted(HAND)
    assert any("faint" in warning for warning in outcome.document["warnings"])


def test_a_tile_the_player_fixes_is_read_as_the_photo_mode_reads_it():
    """``taicam live --fix 9s=7p``: the pair's second 7p read 9s for certain makes no hand; fixed, it does."""
    from vision.named_tiles import named_tiles
    from vision.types import TileReading

    readings = [TileReading(o.detection, o.candidates) for o in map(observation, range(len(HAND)), HAND)]
    readings[16] = TileReading(readings[16].detection, (("9s", 0.99999), ("7p", 0.000005), ("8s", 0.000005)))
    assert not PipelineHandReader(rules="taiwan")(readings).complete
    outcome = PipelineHandReader(rules="taiwan", named=named_tiles(fixes=["9s=7p"]))(readings)
    assert outcome.complete
    assert sorted(outcome.document["hand"]["concealed"]) == sorted(HAND)
    assert "a tile read 9s is taken as 7p, as --fix says" in outcome.document["warnings"]
