"""Tile face textures in many styles, loaded or drawn on first use and cached.

A *style* is one look of a whole set: the face images for the 42 codes and the ivory of the face
side (body size and back colour are chosen per scene, in :mod:`vision.synth.look`). Sources, so
the models do not learn one artist:

- ``crop:<set_id>``: the real photos of ``crops-labelled``, one style per physical set (from
  :mod:`vision.dataset.crops`); validation sets are only used when asked for (``split="val"``).
- ``art:uni`` / ``art:unib``: the public-domain Unicode art (all 42 faces).
- ``art:fluffy``: FluffyStuff's riichi glyphs on an ivory body (34 faces, no flowers).
- ``proc:<n>``: procedurally drawn sets (:mod:`vision.synth.procedural`): drawn dots and bamboo,
  font characters in random inks, optional corner indices, flowers with their numbers.

Faces are stored at :data:`FACE_SIZE` (width, height) BGR uint8; the renderer warps them. A face a
style lacks is borrowed from another style of the same pool (:func:`fill_missing`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from scoring.tiles import FACE_CODES
from vision.dataset.paths import shared_data_dir
from vision.imageio import read_bgr
from vision.synth.face_style import FACE_SIZE, FaceStyle
from vision.synth.procedural import procedural_style

BACK_COLOURS_BGR: tuple[tuple[int, int, int], ...] = (
    (60, 140, 40),  # green
    (170, 40, 170),  # magenta / purple
    (150, 90, 20),  # blue
    (40, 150, 220),  # yellow-orange
    (40, 40, 190),  # red
    (190, 140, 40),  # light blue
    (50, 110, 60),  # dark green
    (120, 60, 130),  # plum
    (215, 228, 232),  # ivory-white (a face-down tile then looks like a blank face: the body decides)
    (90, 50, 20),  # dark blue
)

_UNI_NAMES = {"E": "1z", "S": "2z", "W": "3z", "N": "4z", "P": "5z", "F": "6z", "C": "7z",
              **{f"f{i}": f"{i}f" for i in range(1, 5)}, **{f"s{i}": f"{i + 4}f" for i in range(1, 5)}}
_FLUFFY_HONOURS = {"Ton": "1z", "Nan": "2z", "Shaa": "3z", "Pei": "4z", "Haku": "5z", "Hatsu": "6z",
                   "Chun": "7z"}
_FLUFFY_SUITS = {"Man": "m", "Pin": "p", "Sou": "s"}


def _resize_face(image: np.ndarray) -> np.ndarray:
    return cv2.resize(image, FACE_SIZE, interpolation=cv2.INTER_AREA)


def _flatten_alpha(image: np.ndarray, background_bgr: tuple[int, int, int]) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 3:
        return image
    alpha = image[:, :, 3:4].astype(np.float32) / 255.0
    background = np.empty_like(image[:, :, :3], dtype=np.float32)
    background[:] = background_bgr
    return (image[:, :, :3] * alpha + background * (1.0 - alpha)).astype(np.uint8)


def _ivory_of(face: np.ndarray) -> tuple[int, int, int]:
    """The body colour of a face: the median of its border pixels."""
    border = np.concatenate([face[:6].reshape(-1, 3), face[-6:].reshape(-1, 3),
                             face[:, :5].reshape(-1, 3), face[:, -5:].reshape(-1, 3)])
    return tuple(int(v) for v in np.median(border, axis=0))  # type: ignore[return-value]


@functools.lru_cache(maxsize=1)
def load_crop_styles() -> tuple[FaceStyle, ...]:
    """One style per physical set of the real labelled crops (empty if the shared data is absent)."""
    try:
        from vision.dataset.crops import load_labelled_crops

        crops = load_labelled_crops()
    except Exception:  # noqa: BLE001 - no shared data: render from art and procedural sets only
        return ()
    by_set: dict[str, list] = {}
    for crop in crops:
        if crop.code != "back":
            by_set.setdefault(crop.set_id, []).append(crop)
    return tuple(FaceStyle(f"crop:{set_id}", members[0].split, frozenset(c.code for c in members),
                           loader=functools.partial(_load_crop_set, tuple(members)))
                 for set_id, members in by_set.items())


def _load_crop_set(members: tuple) -> tuple[dict[str, list[np.ndarray]], tuple[int, int, int]]:
    faces: dict[str, list[np.ndarray]] = {}
    for crop in members:
        faces.setdefault(crop.code, []).append(_resize_face(read_bgr(crop.path)))
    samples = [images[0] for images in faces.values()] or [np.full((8, 8, 3), 230, np.uint8)]
    ivory = tuple(int(v) for v in np.median([_ivory_of(f) for f in samples], axis=0))
    return faces, ivory  # type: ignore[return-value]


@functools.lru_cache(maxsize=1)
def load_art_styles() -> tuple[FaceStyle, ...]:
    """The two Unicode art styles and the FluffyStuff glyph style (empty if the shared data is absent)."""
    art = shared_data_dir() / "art"
    styles: list[FaceStyle] = []
    for name in ("uni", "unib"):
        folder = art / "unicode-set" / "png" / name
        found = sorted(folder.glob("*.png")) if folder.is_dir() else []
        paths = {code: p for p in found if (code := _UNI_NAMES.get(p.stem, p.stem)) in FACE_CODES}
        if paths:
            styles.append(FaceStyle(f"art:{name}", "train", frozenset(paths),
                                    loader=functools.partial(_load_unicode_art, tuple(paths.items()))))
    fluffy = art / "fluffystuff" / "png" / "Regular"
    paths = {}
    if fluffy.is_dir():
        paths = {code: p for p in sorted(fluffy.glob("*.png")) if (code := _fluffy_code(p.stem)) is not None}
    if paths:
        styles.append(FaceStyle("art:fluffy", "train", frozenset(paths),
                                loader=functools.partial(_load_fluffy_art, tuple(paths.items()))))
    return tuple(styles)


def _load_unicode_art(paths: tuple[tuple[str, Path], ...]) -> tuple[dict[str, list[np.ndarray]],
                                                                      tuple[int, int, int]]:
    faces: dict[str, list[np.ndarray]] = {}
    for code, path in paths:
        image = read_bgr(path, cv2.IMREAD_UNCHANGED)
        h, w = image.shape[:2]
        inner = image[int(h * 0.035): h - int(h * 0.035), int(w * 0.04): w - int(w * 0.04)]
        faces[code] = [_resize_face(_flatten_alpha(inner, (238, 248, 251)))]
    ivory = _ivory_of(faces["1m"][0]) if "1m" in faces else (238, 248, 251)
    return faces, ivory


def _load_fluffy_art(paths: tuple[tuple[str, Path], ...]) -> tuple[dict[str, list[np.ndarray]],
                                                                     tuple[int, int, int]]:
    ivory = (225, 240, 245)
    faces: dict[str, list[np.ndarray]] = {}
    for code, path in paths:
        faces[code] = [_glyph_on_body(read_bgr(path, cv2.IMREAD_UNCHANGED), ivory)]
    return faces, ivory


def _fluffy_code(stem: str) -> str | None:
    if stem in _FLUFFY_HONOURS:
        return _FLUFFY_HONOURS[stem]
    for prefix, suit in _FLUFFY_SUITS.items():
        if stem.startswith(prefix) and stem[len(prefix):].isdigit():
            return f"{stem[len(prefix):]}{suit}"
    return None


def _glyph_on_body(image: np.ndarray, ivory_bgr: tuple[int, int, int]) -> np.ndarray:
    """A transparent glyph centred on a plain ivory face with a margin."""
    w, h = FACE_SIZE
    face = np.empty((h, w, 3), np.uint8)
    face[:] = ivory_bgr
    gw, gh = int(w * 0.84), int(h * 0.86)
    glyph = cv2.resize(image, (gw, gh), interpolation=cv2.INTER_AREA)
    if glyph.ndim == 3 and glyph.shape[2] == 4:
        alpha = glyph[:, :, 3:4].astype(np.float32) / 255.0
        x0, y0 = (w - gw) // 2, (h - gh) // 2
        region = face[y0:y0 + gh, x0:x0 + gw].astype(np.float32)
        face[y0:y0 + gh, x0:x0 + gw] = (glyph[:, :, :3] * alpha + region * (1 - alpha)).astype(np.uint8)
    return face


@functools.lru_cache(maxsize=4)
def face_styles(split: str = "train", procedural: int = 12, seed: int = 1234) -> tuple[FaceStyle, ...]:
    """All styles usable for ``split``: real crop sets of that split, the art sets, procedural sets.

    ``split="val"`` gives only the held-out real sets (for validation scenes); art and procedural
    sets are training material. Procedural set ``i`` is drawn from ``default_rng([seed, i])``, so a
    scene's look depends only on the scene seed, whatever was rendered before.
    """
    crops = tuple(s for s in load_crop_styles() if s.split == split)
    if split != "train":
        return crops
    styles = list(crops) + list(load_art_styles())
    styles.extend(FaceStyle(f"proc:{i}", "train", frozenset(FACE_CODES),
                            loader=functools.partial(_draw_procedural, procedural_style, seed, i))
                  for i in range(procedural))
    return tuple(styles)


def _draw_procedural(draw: Callable, seed: int, index: int) -> tuple[dict[str, list[np.ndarray]],
                                                                     tuple[int, int, int]]:
    style = draw(np.random.default_rng([seed, index]), f"proc:{index}")
    return style.faces, style.ivory_bgr


def fill_missing(style: FaceStyle, code: str, pool: tuple[FaceStyle, ...],
                 rng: np.random.Generator) -> np.ndarray:
    """A face for ``code`` in ``style``, else from another style of the pool that has it."""
    faces = style.faces.get(code)
    if not faces:
        donors = [s for s in pool if s.has(code)]
        if not donors:
            raise LookupError(f"no face texture for {code}")
        faces = donors[int(rng.integers(0, len(donors)))].faces[code]
    return faces[int(rng.integers(0, len(faces)))]
