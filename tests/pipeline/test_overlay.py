"""The annotated photo: drawn at phone size, labels big enough to read, written atomically."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.errors import InputError
from vision.dataset.manifest import read_manifest
from vision.evaluation.hand_outcome import oracle_readings
from vision.geometry import tile_outline
from vision.pipeline import read_readings
from vision.report.overlay import MIN_LABEL, OUTPUT_SIDE, annotate, banner, wrapped_lines, write_image
from vision.types import TileReading

SAMPLES = Path(__file__).resolve().parents[2] / "datasets" / "samples"


@pytest.fixture(scope="module")
def sample():
    record = read_manifest(SAMPLES / "manifest.jsonl")[0]
    image = cv2.imread(str(SAMPLES / record.image))
    return image, read_readings(oracle_readings(record), context=record.hand["context"])


def test_annotation_marks_every_tile_and_the_total(sample):
    image, result = sample
    drawn = annotate(image, result)
    assert drawn.shape == image.shape  # 1280x960 is already phone size
    changed = np.any(drawn != image, axis=2)
    for reading in result.readings:  # every tile gets its outline drawn
        outline = np.zeros(changed.shape, np.uint8)
        cv2.polylines(outline, [tile_outline(reading.detection).astype(np.int32)], True, 1, 1)
        assert changed[outline > 0].mean() > 0.9, "every tile gets an outline"
    # The banner with the total sits top-left and is at least MIN_LABEL of the picture tall.
    banner_rows = np.flatnonzero(changed[:, :200].any(axis=1))
    assert banner_rows[0] < 20 and (banner_rows < 200).sum() >= MIN_LABEL * max(image.shape[:2])


def test_the_banner_says_how_far_to_trust_the_total_in_the_reports_words(sample):
    """A hand forced against the classifier can be the only legal reading: "reading 100%" beside an
    uncertain total read as "the tiles are right" (real table photo 421037392 said so)."""
    _, result = sample
    total = f"{result.score.rules}: {result.score.total} tai"
    assert result.report.score_stable
    assert banner(result) == f"{total} (score sure)" == f"{total} ({result.report.statement})"
    doubtful = replace(result, report=replace(result.report, score_stable=False))
    assert banner(doubtful) == f"{total} (score NOT sure: check the tiles)"


REASON = ("not a winning hand: 11 standing tiles with 1 set(s) on the table; a complete hand has 14 "
          "(17 with no sets laid down, 3 fewer per set); 3 tiles are missing (hidden or outside the "
          "picture?) and only one can be inferred; sets laid behind a standing row are often hidden by "
          "it: take the photo from higher up")


def test_a_long_reason_is_wrapped_to_the_picture_not_cut():
    lines = wrapped_lines(REASON, 1200, 36)
    assert 1 < len(lines) <= 6 and " ".join(lines) == REASON
    widths = [cv2.getTextSize(line, cv2.FONT_HERSHEY_SIMPLEX,
                              cv2.getFontScaleFromHeight(cv2.FONT_HERSHEY_SIMPLEX, 36, 2), 3)[0][0]
              for line in lines]
    assert max(widths) + 6 <= 1200
    short = wrapped_lines(REASON, 1200, 36, max_lines=2)
    assert len(short) == 2 and short[1].endswith(" ...") and short[0] == lines[0]


def test_a_refused_photo_gets_its_whole_reason_above_the_picture_not_over_its_tiles(sample):
    image, result = sample
    refused = replace(result, decoded=None, score=None, report=None, error=REASON)
    drawn = annotate(image, refused)
    strip = drawn.shape[0] - image.shape[0]
    assert drawn.shape[1] == image.shape[1] and strip > 0
    assert banner(refused) == f"not scored: {REASON}"
    # Below the strip is the photo with its tiles' labels, and nothing drawn over its top left.
    photo = drawn[strip:]
    assert np.array_equal(photo[:10, :10], image[:10, :10])
    # The live window keeps its frame size: one line there.
    assert annotate(image, refused, max_side=None).shape == image.shape


def _scaled(result, factor: float):
    """``result`` with every tile's box (and outline) in the pixels of the photo scaled by ``factor``."""
    readings = [TileReading(replace(r.detection, box=tuple(v * factor for v in r.detection.box),
                                    quad=None if r.detection.quad is None
                                    else tuple((x * factor, y * factor) for x, y in r.detection.quad)),
                            r.candidates) for r in result.readings]
    return replace(result, readings=readings)


def test_big_photos_are_drawn_at_phone_size(sample):
    image, result = sample
    big = cv2.resize(image, (4032, 3024))
    drawn = annotate(big, _scaled(result, 4032 / image.shape[1]))
    assert max(drawn.shape[:2]) == OUTPUT_SIDE


def test_without_a_size_limit_the_drawing_keeps_the_frame_size(sample):
    """The live window draws on the camera's frame as it is, whatever its size."""
    image, result = sample
    big = cv2.resize(image, (4032, 3024))
    assert annotate(big, _scaled(result, 4032 / image.shape[1]), max_side=None).shape == big.shape


def test_write_is_atomic_and_checks_the_name(tmp_path, sample):
    image, result = sample
    target = tmp_path / "out.png"
    write_image(target, annotate(image, result))
    assert cv2.imread(str(target)).shape == image.shape
    assert [p.name for p in tmp_path.iterdir()] == ["out.png"]
    with pytest.raises(InputError, match="png"):
        write_image(tmp_path / "out.txt", image)
    with pytest.raises(InputError, match="does not exist"):
        write_image(tmp_path / "missing" / "out.png", image)
