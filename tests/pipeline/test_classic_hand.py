"""A photo of a 13-tile game's winning hand (``--rules classic``: four sets and a pair, 14 tiles with
the winning one) is laid out, decoded and hinted at with that rule set's hand size, not the 16-tile
game's 17 ("a complete hand has 17" refused every classic hand)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from shared_data import needs_shared_data

from scoring.errors import InputError
from vision.cli import main
from vision.decode import expected_standing_tiles, hand_size_of
from vision.decode.unseen import unseen_tiles
from vision.evaluation.hands import OVERHEAD
from vision.models import models_dir
from vision.synth.scene import SceneConfig, render_scene
from vision.types import GroupRole, Layout, TileGroup

MODELS = ("detector.onnx", "classifier.onnx", "classifier.labels.json")
missing = [name for name in MODELS if not (models_dir() / name).is_file()]

#: Fully concealed: 123m 456p 333s 789s and a pair of white dragons, won on the second 5z.
CONCEALED = {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "3s", "3s", "3s",
                           "5z", "5z"], "winning_tile": "5z"}
#: Two sets laid down (a red-dragon pung, a chow), a flower, 234m 678p 44s standing, won on 3m.
WITH_SETS = {"concealed": ["2m", "3m", "4m", "6p", "7p", "8p", "4s", "4s"],
             "melds": [{"kind": "pung", "tiles": ["7z", "7z", "7z"], "concealed": False},
                       {"kind": "chow", "tiles": ["1s", "2s", "3s"], "concealed": False}],
             "flowers": ["2f"], "winning_tile": "3m"}


def test_the_classic_rule_set_holds_fourteen_tiles():
    assert hand_size_of("classic") == 14 and hand_size_of("taiwan") == 17


def test_the_tile_count_and_its_hint_follow_the_hand_size():
    layout = Layout(groups=[TileGroup(GroupRole.CONCEALED, tuple(range(8))),
                            TileGroup(GroupRole.MELD, (8, 9, 10)), TileGroup(GroupRole.MELD, (11, 12, 13))],
                    winning_index=None)
    assert expected_standing_tiles(layout, 14) == 8 and expected_standing_tiles(layout) == 11
    assert unseen_tiles(7, 8, hand_size=14) == 1
    with pytest.raises(InputError, match=r"a complete hand has 8 \(14 with no sets laid down"):
        unseen_tiles(5, 8, hand_size=14)
    with pytest.raises(InputError, match="a hand holds at most 4"):
        unseen_tiles(0, -1, hand_size=14)


@pytest.mark.skipif(bool(missing), reason=f"shipped models not present: {', '.join(missing)}")
@needs_shared_data()  # the validation renders draw the held-out tile sets
@pytest.mark.parametrize(("hand", "seed"), [(CONCEALED, 1000), (WITH_SETS, 1001)], ids=["concealed", "sets"])
def test_a_rendered_classic_hand_reads_and_scores_through_the_models(tmp_path, capsys, hand, seed):
    image, _ = render_scene(np.random.default_rng(seed), SceneConfig(split="val", **OVERHEAD), hand=hand)
    path = tmp_path / "classic.jpg"
    cv2.imwrite(str(path), image)
    status = main(["photo", str(path), "--rules", "classic", "--json", "--seat", "E", "--round", "E",
                   "--discard"])
    document = json.loads(capsys.readouterr().out)
    assert status == 0, document.get("error")
    read = document["hand"]
    assert sorted(read["concealed"]) == sorted(hand["concealed"])
    assert sorted(tuple(sorted(m["tiles"])) for m in read["melds"]) == \
        sorted(tuple(sorted(m["tiles"])) for m in hand.get("melds", []))
    assert read["flowers"] == hand.get("flowers", []) and read["winning_tile"] == hand["winning_tile"]
    assert document["score"]["rules"] == "classic" and document["score"]["valid"]
