"""Image loading: EXIF orientation, reduced decoding, and a clear InputError for every bad file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bad_images import write_huge_png
from PIL import Image

from scoring.errors import InputError
from vision.evaluation.hand_outcome import same_hand
from vision.imageio import PhotoSource, load_image, read_header
from vision.pipeline import read_photo


def _photo(path, width=400, height=300, orientation=1):
    """A JPEG whose left half is red and top half bright, stored with an EXIF orientation tag."""
    array = np.zeros((height, width, 3), np.uint8)
    array[:, : width // 2, 0] = 255
    array[: height // 2, :, 1] = 200
    image = Image.fromarray(array)
    exif = image.getexif()
    exif[0x0112] = orientation
    image.save(path, quality=95, exif=exif)
    return array


def test_exif_rotation_is_applied(tmp_path):
    path = tmp_path / "rotated.jpg"
    _photo(path, orientation=6)  # stored landscape, displayed turned 90 degrees clockwise
    image = load_image(path)
    assert image.shape == (400, 300, 3)
    # Clockwise turn: the stored left (red) half becomes the top half; BGR so red is channel 2.
    assert image[50, 150, 2] > 200 and image[350, 150, 2] < 50
    assert read_header(path).upright_size == (300, 400)


def test_reduced_decoding_keeps_the_long_side_bounded(tmp_path):
    path = tmp_path / "big.jpg"
    _photo(path, width=2400, height=1800)
    small = load_image(path, max_side=640)
    assert 0.85 * 640 <= max(small.shape[:2]) <= 640
    assert abs(small.shape[1] / small.shape[0] - 4 / 3) < 0.01
    source = PhotoSource(path)
    image, scale = source.image(800)
    assert image.shape[1] == 800 and abs(scale - 800 / 2400) < 1e-9
    full, scale = source.image()
    assert full.shape[:2] == (1800, 2400) and scale == 1.0


def test_png_and_grey_images_load_as_bgr(tmp_path):
    path = tmp_path / "grey.png"
    Image.fromarray(np.full((20, 30), 128, np.uint8)).save(path)
    image = load_image(path)
    assert image.shape == (20, 30, 3) and image.dtype == np.uint8


def test_sixteen_bit_grey_is_scaled_to_eight_bits_not_clipped(tmp_path):
    """A 16-bit greyscale PNG (a scan, a machine-vision camera) was clipped at 255: all white."""
    ramp = np.tile(np.linspace(0, 65535, 30).astype(np.uint16), (20, 1))
    path = tmp_path / "grey16.png"
    Image.fromarray(ramp).save(path)
    assert Image.open(path).mode.startswith("I")
    image = load_image(path)
    assert image.dtype == np.uint8 and image.shape == (20, 30, 3)
    assert np.allclose(image[0, :, 0], ramp[0] / 257.0, atol=1.0)


def test_sixteen_bit_grey_photo_reads_like_the_photo(tmp_path):
    """The bundled photo from above, stored as 16-bit greyscale, reads the same hand."""
    photo = Path(__file__).resolve().parents[2] / "datasets" / "samples" / "hand-overhead.jpg"
    grey = np.asarray(Image.open(photo).convert("L"), np.uint16) * 257
    path = tmp_path / "grey16.png"
    Image.fromarray(grey).save(path)
    assert same_hand(read_photo(path).hand, read_photo(photo).hand)


def test_not_an_image(tmp_path):
    path = tmp_path / "notes.jpg"
    path.write_text("this is a shopping list, not a photo")
    with pytest.raises(InputError, match="not an image"):
        load_image(path)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        load_image(path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_image(tmp_path / "nope.jpg")


def test_truncated_jpeg(tmp_path):
    path = tmp_path / "cut.jpg"
    _photo(path, width=800, height=600)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(InputError, match="truncated or corrupt"):
        load_image(path)


def test_huge_image_is_refused_before_decoding(tmp_path):
    """A 30000x30000 PNG: refused from the header alone (its cost: test_image_bombs.py)."""
    path = tmp_path / "huge.png"
    write_huge_png(path)
    with pytest.raises(InputError, match="huge.png: the image is over 179 MP; the limit is 100 MP"):
        load_image(path)


def test_an_image_over_the_limit_but_under_pillows_own_is_refused_with_its_size(tmp_path):
    """10500x10500 (110 MP) passes Pillow's decompression-bomb guard (179 MP) but not ours."""
    path = tmp_path / "panorama.png"
    write_huge_png(path, side=10500)
    with pytest.raises(InputError, match="10500x10500 pixels \\(110 MP\\); the limit is 100 MP"):
        read_header(path)
