"""The hands evaluation itself: label matching, hand comparison, and the oracle run on the samples."""

from __future__ import annotations

from pathlib import Path

from shared_data import require_shared_data

from vision.dataset.manifest import read_manifest
from vision.evaluation.hand_failures import judged_tiles
from vision.evaluation.hand_outcome import (
    HandOutcome,
    is_readable,
    match_labels,
    oracle_readings,
    player_fixes,
    player_names,
    same_hand,
    with_true_codes,
)
from vision.evaluation.hands import evaluate_manifest, render_heldout
from vision.evaluation.hands_report import HandsReport
from vision.named_tiles import NamedTiles
from vision.types import Detection, TileReading

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"


def test_labels_match_detections_one_to_one_at_iou_half():
    labels = [(0, 0, 10, 10), (20, 0, 30, 10)]
    detections = [(21, 0, 31, 10), (1, 0, 11, 10), (100, 100, 110, 110)]
    assert match_labels(labels, detections) == {0: 1, 1: 0}
    assert match_labels(labels, [(0, 0, 10, 30)]) == {}  # IoU 1/3


def test_same_hand_can_ignore_hidden_kong_faces():
    truth = {"concealed": ["1m", "1m"], "melds": [{"kind": "kong", "tiles": ["5z"] * 4, "concealed": True}],
             "flowers": [], "winning_tile": "1m"}
    read = {**truth, "melds": [{"kind": "kong", "tiles": ["2p"] * 4, "concealed": True}]}
    assert not same_hand(read, truth)
    assert same_hand(read, truth, hide_concealed_faces=True)
    assert not same_hand({**read, "winning_tile": "2p"}, truth, hide_concealed_faces=True)


def test_oracle_evaluation_of_the_samples():
    document = evaluate_manifest(SAMPLES / "manifest.jsonl", oracle=True).to_json()
    assert document["images"] == document["hands"] == len(read_manifest(SAMPLES / "manifest.jsonl"))
    assert document["exact_hand_rate_visible"] == 1.0 and document["tile_accuracy"] == 1.0
    assert document["failed_images"] == 0
    assert document["answered_rate"] == 1.0 and document["score_right_when_answered"] == 1.0


def test_honesty_counts_what_the_player_is_told():
    """Right scores are counted among the scores given, and among those the report called sure."""
    def outcome(right: bool, answered: bool, sure: bool) -> HandOutcome:
        return HandOutcome(image="x.jpg", exact=right, exact_visible=right, score_agrees=right, tiles=17,
                           tiles_correct=17, answered=answered, called_sure=sure)
    report = HandsReport("told", [outcome(True, True, True), outcome(False, True, True),
                                  outcome(True, True, False), outcome(False, False, False)])
    document = report.to_json()
    assert document["answered_rate"] == 0.75
    assert document["score_right_when_answered"] == round(2 / 3, 4)
    assert document["called_sure_rate"] == 0.5
    assert document["score_right_when_called_sure"] == 0.5
    unanswered = HandsReport("none", [outcome(False, False, False)]).to_json()
    assert unanswered["score_right_when_called_sure"] is None


def test_the_slow_tail_is_reported_beside_the_median():
    """A photo that reads only after the second looks keeps the player waiting: p90 and max show it."""
    outcomes = [HandOutcome(image=f"{i}.jpg", exact=True, exact_visible=True, score_agrees=True, tiles=17,
                            tiles_correct=17, seconds=seconds)
                for i, seconds in enumerate([0.1] * 9 + [5.0])]
    document = HandsReport("tail", outcomes).to_json()
    assert document["median_seconds"] == 0.1
    assert document["p90_seconds"] == 0.59  # a tenth of the way from the ninth photo to the tenth
    assert document["max_seconds"] == 5.0
    assert HandsReport("empty", []).to_json()["max_seconds"] is None


def test_boxes_only_oracle_readings_leave_out_the_labelled_outlines():
    records = read_manifest(SAMPLES / "manifest.jsonl")
    outlined = [r for r in records if any(t.quad is not None for t in r.tiles)]
    assert outlined, "the samples should carry labelled tile outlines"
    assert any(reading.detection.quad is not None for reading in oracle_readings(outlined[0]))
    assert all(reading.detection.quad is None for reading in oracle_readings(outlined[0], boxes_only=True))


def test_hands_with_a_hidden_tile_are_counted_apart_as_unreadable():
    """A rendered hand with a tile less than half visible counts in the overall rate, not the readable one."""
    records = read_manifest(SAMPLES / "manifest.jsonl")
    seen = records[0]
    hand_tiles = [t for t in seen.tiles if t.role != "distractor"]
    for tile in hand_tiles:
        tile.extra["visible"] = 1.0
    assert is_readable(seen)
    hand_tiles[0].extra["visible"] = 0.2
    assert not is_readable(seen)
    hand_tiles[0].extra["visible"] = 0.5
    assert is_readable(seen)
    document = evaluate_manifest(SAMPLES / "manifest.jsonl", oracle=True).to_json()
    on_disk = read_manifest(SAMPLES / "manifest.jsonl")
    assert 0 < document["readable_hands"] == sum(is_readable(r) for r in on_disk) < len(on_disk)
    assert document["exact_hand_rate_readable"] == 1.0


def test_true_codes_replace_the_classifier_only_on_labelled_tiles():
    """The detector's tiles keep their boxes; those matching a label read as its code, others stay."""
    record = read_manifest(SAMPLES / "manifest.jsonl")[0]
    first = record.tiles[0]
    on_label = TileReading(Detection(tuple(first.box), 0.9), (("9z", 0.7), ("1m", 0.3)))
    stray = TileReading(Detection((-50.0, -50.0, -40.0, -40.0), 0.6), (("3p", 0.8), ("4p", 0.2)))
    relabelled = with_true_codes(record, [on_label, stray])
    assert relabelled[0].detection == on_label.detection
    assert relabelled[0].code == first.code and relabelled[0].confidence == 0.9
    assert relabelled[1] == stray


def test_a_missing_manifest_is_a_one_line_error(tmp_path, capsys):
    from vision.evaluation.hands import main

    assert main(["--synth", str(tmp_path / "missing.jsonl"), "--real", str(tmp_path / "none")]) == 2
    error = capsys.readouterr().err
    assert "missing.jsonl" in error and len(error.strip().splitlines()) == 1


def test_the_real_photo_split_keeps_only_that_splits_photos():
    """``--split val`` reads the table photos the models never trained on, and only those."""
    from vision.evaluation.detection import table_photo_split

    manifest = Path(__file__).resolve().parents[2] / "datasets" / "real-labels" / "table-photos.jsonl"
    names = [Path(r.image).name for r in read_manifest(manifest)]
    wanted = [n for n in names if table_photo_split(n) == "val"]
    assert 0 < len(wanted) < len(names)
    report = evaluate_manifest(manifest, oracle=True, split="val", limit=3)
    assert [Path(o.image).name for o in report.outcomes] == wanted[:3]
    assert "(val split)" in report.name


def test_per_hand_outcomes_are_written_and_compared_with_an_earlier_run(tmp_path, capsys):
    """``--per-hand`` keeps each image's outcome; ``--compare`` names the hands gained and lost."""
    import json

    from vision.evaluation.hands import main

    manifest = SAMPLES / "manifest.jsonl"
    first = tmp_path / "first.json"
    assert main(["--synth", str(manifest), "--real", str(tmp_path / "none"), "--oracle",
                 "--per-hand", str(first), "--json"]) == 0
    capsys.readouterr()
    outcomes = json.loads(first.read_text(encoding="utf-8"))
    (name, images), = outcomes.items()
    assert sorted(images) == sorted(Path(r.image).name for r in read_manifest(manifest))
    exact = sorted(i for i, o in images.items() if o["exact"])
    assert exact, "the oracle reads the samples"
    # The earlier run read every hand but the first exact one of this run.
    earlier = {name: {i: {**o, "exact": i != exact[0]} for i, o in images.items()}}
    before = tmp_path / "before.json"
    before.write_text(json.dumps(earlier), encoding="utf-8")
    assert main(["--synth", str(manifest), "--real", str(tmp_path / "none"), "--oracle",
                 "--compare", str(before), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)[0]
    assert document["compared"]["gained"] == [exact[0]]
    assert document["compared"]["lost"] == [i for i in sorted(images) if not images[i]["exact"]]
    assert document["compared"]["totals_gained"] == document["compared"]["totals_lost"] == []
    assert all({"exact_visible", "answered", "called_sure"} <= set(o) for o in images.values())
    # What the player was told goes with each hand: the warnings and the decoder's corrections.
    assert any("four backs" in w for w in images["hand-concealed-kong.jpg"]["warnings"])
    assert all(o["corrections"] == 0 for o in images.values())  # the labels' own codes need none


def test_right_totals_gained_and_lost_are_listed_too():
    from vision.evaluation.hands_report import compare_hands

    def run(exact: list[bool], totals: list[bool]) -> dict:
        pairs = enumerate(zip(exact, totals, strict=True))
        return {"m": {f"{k}.jpg": {"exact": e, "score_agrees": t} for k, (e, t) in pairs}}

    changes = compare_hands(run([True, False, False], [True, False, True]),
                            run([False, False, True], [True, True, False]))["m"]
    assert changes == {"gained": ["2.jpg"], "lost": ["0.jpg"],
                       "totals_gained": ["1.jpg"], "totals_lost": ["2.jpg"]}
    old_file = {"m": {"0.jpg": {"exact": True}}}
    assert compare_hands(old_file, old_file)["m"] == {"gained": [], "lost": []}


def test_a_malformed_comparison_file_is_a_one_line_error(tmp_path, capsys):
    from vision.evaluation.hands import main

    broken = tmp_path / "before.json"
    broken.write_text('{"m": [1, 2]}', encoding="utf-8")
    assert main(["--synth", str(SAMPLES / "manifest.jsonl"), "--oracle", "--compare", str(broken)]) == 2
    error = capsys.readouterr().err
    assert "not a per-hand file" in error and len(error.strip().splitlines()) == 1


def test_tiles_of_unknown_face_are_not_judged():
    """A tile the labeller could not read has no right answer; distractors are not the hand's."""
    record = read_manifest(SAMPLES / "manifest.jsonl")[0]
    hand = [i for i, t in enumerate(record.tiles) if t.role != "distractor"]
    assert judged_tiles(record) == hand
    record.tiles[hand[0]].code = "unknown"
    assert judged_tiles(record) == hand[1:]


def test_a_player_names_the_winning_tile_and_only_the_faces_of_kongs_lying_as_four_backs():
    records = read_manifest(SAMPLES / "manifest.jsonl")
    record = next(r for r in records if r.image == "hand-concealed-kong.jpg")
    assert player_names(record) == NamedTiles(kong_faces=("3p",), winning_tile="4s")
    backs = [t for t in record.tiles if t.code == "back"]
    for tile in backs[1:3]:  # the two middle tiles turned up, as players reveal a kong: its face shows
        tile.code, tile.face_down = "3p", False
    assert player_names(record) == NamedTiles(kong_faces=(), winning_tile="4s")


def test_a_player_fixes_every_hand_tile_shown_wrong_but_cannot_fix_one_not_found():
    record = read_manifest(SAMPLES / "manifest.jsonl")[0]
    hand = judged_tiles(record)
    codes = [tile.code for tile in record.tiles]
    matches = {index: index for index in hand}
    assert player_fixes(record, codes, matches) == ()
    first, second = hand[0], hand[1]
    wrong = "7z" if record.tiles[first].code != "7z" else "6z"
    codes[first] = wrong
    codes[second] = "9p" if record.tiles[second].code != "9p" else "8p"
    del matches[second]
    assert player_fixes(record, codes, matches) == ((wrong, record.tiles[first].code),)


def test_far_renders_put_a_small_hand_in_a_big_photo(tmp_path):
    """``--far``: phone-sized photos of the whole table, the hand across a quarter to a half of them
    (the default renders: 1280x960, across 55-97%), so its tiles are small; ``--far-small``: that
    framing in 1280x960."""
    require_shared_data("crops-labelled")  # held-out renders draw the validation tile sets
    far = next(iter(read_manifest(render_heldout(tmp_path / "far", 1, 970000, far=True))))
    near = next(iter(read_manifest(render_heldout(tmp_path / "near", 1, 970000))))
    assert (far.width, far.height) == (2560, 1920) and (near.width, near.height) == (1280, 960)

    def hand_share(record) -> float:
        hand = [t.box for t in record.tiles if t.role not in ("distractor", "other")]
        return (max(b[2] for b in hand) - min(b[0] for b in hand)) / record.width

    assert hand_share(far) < 0.55 <= hand_share(near)
    small = next(iter(read_manifest(render_heldout(tmp_path / "small", 1, 970000, far_small=True))))
    assert (small.width, small.height) == (1280, 960) and hand_share(small) < 0.55
