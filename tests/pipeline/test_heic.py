"""iPhone photos (HEIC) are read like any other photo, upright, by ``taicam photo`` and ``taicam data``
(the labelling tool: tests/label/test_label_heic.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from heic_photos import SAMPLES, write_heic

from scoring.errors import InputError
from vision.cli import main
from vision.dataset.manifest import read_manifest, write_manifest
from vision.evaluation.hand_outcome import same_hand
from vision.imageio import load_image, read_header
from vision.pipeline import read_photo

SAMPLE = "hand-overhead.jpg"


@pytest.fixture(scope="module")
def heic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray]:
    """The sample photo from above as an iPhone HEIC, and its upright picture (BGR)."""
    path = tmp_path_factory.mktemp("heic") / "IMG_0001.HEIC"
    upright = write_heic(path, SAMPLE)
    return path, np.asarray(upright)[:, :, ::-1]


def test_a_heic_photo_loads_upright(heic) -> None:
    path, upright = heic
    image = load_image(path)
    assert image.shape == upright.shape  # stored 960 wide and 1280 high, shown 1280 wide
    assert float(np.abs(image.astype(float) - upright).mean()) < 2.0
    assert read_header(path).upright_size == (upright.shape[1], upright.shape[0])


def test_taicam_photo_reads_the_heic_as_it_reads_the_jpeg(heic, capsys) -> None:
    path, _ = heic
    assert main(["photo", "--json", str(path)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["image"] == str(path) and document["score"]["valid"]
    assert same_hand(document["hand"], read_photo(SAMPLES / SAMPLE).hand)


def test_taicam_data_previews_and_measures_a_heic_dataset(heic, tmp_path: Path, capsys) -> None:
    path, _ = heic
    record = next(r for r in read_manifest(SAMPLES / "overhead.jsonl") if r.image == SAMPLE)
    record.image = str(path)
    manifest = tmp_path / "manifest.jsonl"
    write_manifest(manifest, [record])
    assert main(["data", "preview", str(manifest), "--out", str(tmp_path / "sheet.png")]) == 0
    assert load_image(tmp_path / "sheet.png").shape[1] > 400
    capsys.readouterr()
    assert main(["data", "stats", "--json", "--look", "1", str(manifest)]) == 0
    look = json.loads(capsys.readouterr().out)["image_look"]
    record.image = str(SAMPLES / SAMPLE)
    write_manifest(manifest, [record])
    assert main(["data", "stats", "--json", "--look", "1", str(manifest)]) == 0
    jpeg_look = json.loads(capsys.readouterr().out)["image_look"]
    assert look.keys() == jpeg_look.keys() and all(abs(look[k] - jpeg_look[k]) < 0.05 * max(1, jpeg_look[k])
                                                   for k in look)


def test_a_broken_heic_is_named_as_one(tmp_path: Path) -> None:
    path = tmp_path / "IMG_0002.HEIC"
    path.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64))
    with pytest.raises(InputError, match="IMG_0002.HEIC: a HEIC/HEIF photo that cannot be read"):
        load_image(path)
