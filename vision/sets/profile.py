"""A player's tile set as taicam learned it: small views of its tiles and their embeddings.

A profile keeps each view it learned from (an upright face crop of :data:`VIEW_SIZE`) with its code,
and the classifier embeddings of each view upright and turned a half (tiles lie either way up in a
photo), computed by one classifier file, whose hash it records. Embeddings of one model are never
compared with another's: when the shipped classifier changes, :func:`embedded` computes them again
from the views (``vision.sets.reading`` does it on load). At most :data:`MAX_VIEWS_PER_FACE` views
of a face are kept (the newest), so a profile stays near a megabyte however often it learns.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import InputError
from vision.models.classifier import TileClassifier

#: The stored views' size (height, width): twice the shipped model's input, so a later model at a
#: larger input still has detail to read.
VIEW_SIZE = (128, 96)
VIEW_JPEG_QUALITY = 95
MAX_VIEWS_PER_FACE = 6
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class View:
    """One learned tile: its upright face (BGR uint8, :data:`VIEW_SIZE`) and that face as stored
    (``jpeg``, whose pixels ``image`` is), its code, where it came from."""

    code: str
    image: np.ndarray
    source: str
    jpeg: bytes


@dataclass(frozen=True)
class SetProfile:
    """A named set: its views, and (n_views, 2, D) unit embeddings by ``model_sha256``'s classifier
    (index 1 of the middle axis: the view turned a half)."""

    name: str
    views: tuple[View, ...]
    model_sha256: str
    embeddings: np.ndarray

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(view.code for view in self.views)

    def faces(self) -> dict[str, int]:
        """Views per face, in code order."""
        counts: dict[str, int] = {}
        for code in sorted(self.codes, key=_code_key):
            counts[code] = counts.get(code, 0) + 1
        return counts


def _code_key(code: str) -> tuple[int, str]:
    return ("mpszf".find(code[-1]), code)


def check_name(name: str) -> str:
    """A set name usable as a file name: letters, digits, ``_ . -``, at most 64 characters."""
    if not NAME_PATTERN.fullmatch(name):
        raise InputError(f"set name {name!r}: use letters, digits, '_', '.' or '-' (at most 64, "
                         "starting with a letter or digit)")
    return name


def model_digest(path: Path) -> str:
    """The SHA-256 of a model file: which classifier a profile's embeddings belong to."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def as_view(crop_bgr: np.ndarray, code: str, source: str) -> View:
    """A face crop scaled to :data:`VIEW_SIZE`."""
    height, width = VIEW_SIZE
    if crop_bgr.ndim == 2:
        crop_bgr = cv2.cvtColor(crop_bgr, cv2.COLOR_GRAY2BGR)
    interpolation = cv2.INTER_AREA if crop_bgr.shape[0] > height else cv2.INTER_LINEAR
    image = cv2.resize(crop_bgr[:, :, :3], (width, height), interpolation=interpolation)
    # Kept as stored (JPEG), so embeddings computed again from the stored view equal these.
    data = encode_view(image)
    return View(code, decode_view(data), source, data)


def encode_view(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, VIEW_JPEG_QUALITY])
    if not ok:
        raise InputError("cannot encode a tile view")
    return data.tobytes()


def decode_view(data: bytes) -> np.ndarray:
    """A stored view's pixels; anything but a JPEG of :data:`VIEW_SIZE` is an InputError."""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.shape[:2] != VIEW_SIZE:
        raise InputError(f"a tile view is not a {VIEW_SIZE[1]}x{VIEW_SIZE[0]} image")
    return image


def view_embeddings(classifier: TileClassifier, images: Sequence[np.ndarray]) -> np.ndarray:
    """(n, 2, D): each image's embedding upright and turned a half, one view each (no test-time
    averaging, so each orientation stays its own prototype)."""
    if not classifier.has_embeddings:
        raise InputError(f"{classifier.model_path} has no embedding output to learn a tile set with "
                         "(run scripts/add_embedding_output.py on it)")
    single = copy.copy(classifier)
    single.turned_view = False
    turned = [cv2.rotate(image, cv2.ROTATE_180) for image in images]
    _, embeddings = single.features(list(images) + turned)
    if embeddings is None:
        raise InputError(f"{classifier.model_path} gave no embeddings")
    count = len(images)
    return np.stack([embeddings[:count], embeddings[count:]], axis=1).astype(np.float32)


def empty_profile(name: str, model_sha256: str) -> SetProfile:
    return SetProfile(check_name(name), (), model_sha256, np.zeros((0, 2, 0), np.float32))


def with_views(profile: SetProfile, views: Sequence[View], classifier: TileClassifier,
               model_sha256: str) -> SetProfile:
    """``profile`` with ``views`` added (embedded by ``classifier``, whose file hash is
    ``model_sha256``), the oldest views of a face beyond :data:`MAX_VIEWS_PER_FACE` dropped."""
    if not views:
        return profile
    profile = embedded(profile, classifier, model_sha256)
    added = view_embeddings(classifier, [view.image for view in views])
    all_views = profile.views + tuple(views)
    all_embeddings = added if not len(profile.views) else np.concatenate([profile.embeddings, added])
    keep = _newest_per_face([view.code for view in all_views])
    return replace(profile, views=tuple(all_views[i] for i in keep), embeddings=all_embeddings[keep],
                   model_sha256=model_sha256)


def _newest_per_face(codes: Sequence[str]) -> list[int]:
    """Indices to keep, in order: the last :data:`MAX_VIEWS_PER_FACE` of each code."""
    seen: dict[str, int] = {}
    kept = []
    for index in range(len(codes) - 1, -1, -1):
        seen[codes[index]] = seen.get(codes[index], 0) + 1
        if seen[codes[index]] <= MAX_VIEWS_PER_FACE:
            kept.append(index)
    return kept[::-1]


def embedded(profile: SetProfile, classifier: TileClassifier, model_sha256: str) -> SetProfile:
    """``profile`` with embeddings by the classifier whose file hash is ``model_sha256``: as it is
    when they already are, else computed again from its views."""
    if profile.model_sha256 == model_sha256 and len(profile.embeddings) == len(profile.views):
        return profile
    if not profile.views:
        return replace(profile, model_sha256=model_sha256)
    embeddings = view_embeddings(classifier, [view.image for view in profile.views])
    return replace(profile, embeddings=embeddings, model_sha256=model_sha256)
