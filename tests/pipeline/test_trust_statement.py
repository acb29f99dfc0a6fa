"""How far to trust a photo's score is said once, in the same words, in the text, the JSON and the
picture: a misread hand must not say "100%" in one place and "score uncertain" in another."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.decode.budget import NO_DEADLINE
from vision.models import models_dir
from vision.photo_cli import format_result
from vision.report.confidence import SCORE_NOT_SURE, SCORE_SURE
from vision.report.overlay import banner

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"
MODELS = ("detector.onnx", "classifier.onnx", "classifier.labels.json")
missing = [name for name in MODELS if not (models_dir() / name).is_file()]
pytestmark = pytest.mark.skipif(bool(missing), reason=f"shipped models not present: {', '.join(missing)}")
CONTEXT = {"seat_wind": "1z", "round_wind": "2z", "dealer": True, "dealer_streak": 1, "self_drawn": False}


@pytest.fixture(scope="module")
def pipeline():
    from vision.pipeline import PhotoPipeline

    return PhotoPipeline(photo_budget=NO_DEADLINE)


def _statements(result) -> tuple[str, str, str]:
    first_line = format_result(result).splitlines()[0]
    return first_line, result.to_json()["statement"], banner(result)


def test_a_misread_hand_says_not_sure_everywhere(pipeline):
    """The shipped models read this photo's 44z + 666z as 444z + 66z (a tile inferred, one forced
    against the classifier): the text said "confidence 100% among the legal readings" beside a
    picture saying "score uncertain"."""
    result = pipeline.read_photo(SAMPLES / "hand-fully-concealed.jpg", context=CONTEXT)
    assert not result.report.score_stable
    text, statement, picture = _statements(result)
    assert statement == result.to_json()["confidence_report"]["statement"] == SCORE_NOT_SURE
    assert text.endswith(f"; {SCORE_NOT_SURE}") and picture.endswith(f"({SCORE_NOT_SURE})")
    assert "%" not in text and "%" not in picture


def test_a_sure_score_says_sure_everywhere(pipeline):
    result = pipeline.read_photo(SAMPLES / "hand-overhead.jpg", context=CONTEXT)
    assert result.report.score_stable
    text, statement, picture = _statements(result)
    assert statement == SCORE_SURE
    assert text.endswith(f"; {SCORE_SURE}") and picture.endswith(f"({SCORE_SURE})")
