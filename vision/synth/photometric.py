"""Camera and light effects applied to a rendered scene: colour cast, uneven light, vignetting,
defocus and motion blur, sensor noise, JPEG compression.

All randomness comes from the scene's numpy generator (noise is a random window of a fixed field),
so a scene is reproducible from its seed.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

_BANK_SIGMA = 16.0
_BANK_MARGIN = 64


def light_gain_map(rng: np.random.Generator, width: int, height: int, strength: float) -> np.ndarray:
    """A smooth per-pixel, per-channel gain (uint8, 128 = 1.0): colour temperature, a light gradient
    across the table, a soft hot spot and lens vignetting."""
    small_w, small_h = 40, 30
    ys, xs = np.mgrid[0:small_h, 0:small_w].astype(np.float32)
    xs = xs / (small_w - 1) - 0.5
    ys = ys / (small_h - 1) - 0.5
    angle = rng.uniform(0, 2 * np.pi)
    gradient = 1.0 + strength * rng.uniform(0.1, 0.5) * (np.cos(angle) * xs + np.sin(angle) * ys) * 2
    spot_x, spot_y = rng.uniform(-0.5, 0.5, 2)
    spot = 1.0 + strength * rng.uniform(0.0, 0.35) * np.exp(-((xs - spot_x) ** 2 + (ys - spot_y) ** 2) / 0.08)
    vignette = 1.0 - rng.uniform(0.0, 0.35) * (xs**2 + ys**2) * 2
    temperature = rng.uniform(-1, 1)  # negative: cool daylight, positive: warm tungsten
    cast = np.array([1.0 - 0.12 * temperature, 1.0, 1.0 + 0.1 * temperature]) * rng.uniform(0.75, 1.2)
    cast *= 1.0 + rng.normal(0, 0.03, 3)
    gain = (gradient * spot * vignette)[:, :, None] * cast[None, None, :]
    gain = np.clip(gain * 128.0, 0, 255).astype(np.uint8)
    return cv2.resize(gain, (width, height), interpolation=cv2.INTER_LINEAR)


def apply_gain(image: np.ndarray, gain: np.ndarray) -> np.ndarray:
    return cv2.multiply(image, gain, scale=1.0 / 128.0)


def saturation(image: np.ndarray, factor: float) -> np.ndarray:
    """Scale colourfulness: 1 keeps the image, 0 makes it grey (phone photos of felt are muted)."""
    if factor >= 0.999:
        return image
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return cv2.addWeighted(image, factor, grey, 1.0 - factor, 0.0)


def blur(image: np.ndarray, rng: np.random.Generator, defocus: float, motion: float) -> np.ndarray:
    """Defocus (Gaussian, sigma up to ``defocus`` px) and, sometimes, a short motion streak."""
    if defocus > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), defocus)
    if motion >= 2:
        length = int(motion)
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rotation = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rotation, (length, length))
        kernel /= max(kernel.sum(), 1e-6)
        image = cv2.filter2D(image, -1, kernel)
    return image


@functools.lru_cache(maxsize=2)
def _noise_bank(width: int, height: int) -> np.ndarray:
    """A fixed field of Gaussian noise (uint8, mean 128, sigma 16), a little larger than the image.

    Drawing fresh noise for 1280x960x3 pixels costs more than the rest of the finishing; a random
    window of a fixed field, scaled, looks the same to a model and keeps scenes reproducible.
    """
    rng = np.random.default_rng(4242)
    field = rng.normal(128.0, _BANK_SIGMA, (height + _BANK_MARGIN, width + _BANK_MARGIN, 3))
    return np.clip(field, 0, 255).astype(np.uint8)


def sensor_noise(image: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Additive Gaussian noise of standard deviation ``sigma`` (per channel, so partly chroma noise)."""
    if sigma < 0.5:
        return image
    height, width = image.shape[:2]
    bank = _noise_bank(width, height)
    x, y = (int(v) for v in rng.integers(0, _BANK_MARGIN, 2))
    window = bank[y:y + height, x:x + width]
    scale = sigma / _BANK_SIGMA
    return cv2.addWeighted(image, 1.0, window, scale, -128.0 * scale)


def jpeg_round_trip(image: np.ndarray, quality: int) -> np.ndarray:
    """The image as a JPEG of ``quality`` would show it (block artefacts, chroma subsampling)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        return image
    return cv2.imdecode(data, cv2.IMREAD_COLOR)
