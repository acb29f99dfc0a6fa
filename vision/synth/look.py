"""The physical tile set of one scene: which face style, body size, back colour and layer split."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.paths import shared_data_dir
from vision.synth.bodies import bevelled
from vision.synth.config import SceneConfig
from vision.synth.faces import BACK_COLOURS_BGR, FaceStyle, face_styles, fill_missing


@dataclass
class TileLook:
    """The physical set used in one scene: face textures, body size and colours."""

    style: FaceStyle
    pool: tuple[FaceStyle, ...]
    width: float
    height: float
    depth: float
    back_bgr: tuple[int, int, int]
    back_texture: np.ndarray
    layer: float
    textures: dict[str, np.ndarray] = field(default_factory=dict)

    def face(self, code: str, rng: np.random.Generator) -> np.ndarray:
        if code not in self.textures:  # one texture per face per scene, as in a real set
            self.textures[code] = bevelled(fill_missing(self.style, code, self.pool, rng))
        return self.textures[code]


def pick_look(rng: np.random.Generator, config: SceneConfig) -> TileLook:
    """One set for the scene: a real crop set 45% of the time (of the config's split), else art or a
    procedural set; a tile size, a back colour and how much of the thickness is ivory."""
    pool = face_styles(config.split)
    if not pool:  # only the held-out real sets may draw validation scenes: never fall back silently
        raise InputError(f"no real tile sets for split {config.split!r}: is the shared data "
                         f"({shared_data_dir()}) there? (set TAICAM_SHARED_DATA)")
    real = [s for s in pool if s.name.startswith("crop:")]
    drawn = [s for s in pool if not s.name.startswith("crop:")]
    family = real if real and (not drawn or rng.random() < 0.45) else drawn
    style = family[int(rng.integers(0, len(family)))]
    width = float(rng.uniform(25.0, 30.0))
    back = np.array(BACK_COLOURS_BGR[int(rng.integers(0, len(BACK_COLOURS_BGR)))], np.float32)
    back = np.clip(back * rng.uniform(0.8, 1.15) + rng.normal(0, 8, 3), 0, 255)
    back_bgr = tuple(int(v) for v in back)
    back_texture = bevelled(_back_texture(rng, back_bgr))
    return TileLook(style=style, pool=pool, width=width, height=width * float(rng.uniform(1.28, 1.4)),
                    depth=width * float(rng.uniform(0.66, 0.8)), back_bgr=back_bgr,
                    back_texture=back_texture, layer=float(rng.uniform(0.45, 0.7)))


def _back_texture(rng: np.random.Generator, colour: tuple[int, int, int]) -> np.ndarray:
    """A tile back: plain (most sets), with a moulded emblem, or with a faint marbled grain."""
    width, height = 96, 128
    texture = np.empty((height, width, 3), np.uint8)
    texture[:] = colour
    draw = rng.random()
    if draw < 0.2:
        shade = tuple(int(c * 0.85) for c in colour)
        cv2.circle(texture, (width // 2, height // 2), int(width * 0.28), shade, 2, cv2.LINE_AA)
        cv2.circle(texture, (width // 2, height // 2), int(width * 0.12), shade, -1, cv2.LINE_AA)
    elif draw < 0.4:
        grain = cv2.resize(rng.normal(0, 1, (8, 6)).astype(np.float32), (width, height),
                           interpolation=cv2.INTER_CUBIC)
        marbled = texture.astype(np.float32) * (1 + 0.06 * grain[:, :, None])
        texture = np.clip(marbled, 0, 255).astype(np.uint8)
    return texture
