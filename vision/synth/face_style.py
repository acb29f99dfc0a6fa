"""One look of a tile set (:class:`FaceStyle`) and the face texture size, apart from where styles
come from (:mod:`vision.synth.faces` loads them, :mod:`vision.synth.procedural` draws them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

FACE_SIZE = (96, 128)  # width, height of a face texture


@dataclass
class FaceStyle:
    """One look of a tile set. ``codes`` is known up front; the images load on first use (``loader``),
    so a process that renders a few scenes only reads the sets it draws."""

    name: str
    split: str
    codes: frozenset[str] = frozenset()
    loader: Callable[[], tuple[dict[str, list[np.ndarray]], tuple[int, int, int]]] | None = None
    _faces: dict[str, list[np.ndarray]] | None = None
    _ivory_bgr: tuple[int, int, int] = (215, 235, 240)

    def _load(self) -> None:
        if self._faces is None:
            if self.loader is None:
                self._faces = {}
            else:
                self._faces, self._ivory_bgr = self.loader()

    @property
    def faces(self) -> dict[str, list[np.ndarray]]:
        self._load()
        return self._faces  # type: ignore[return-value]

    @property
    def ivory_bgr(self) -> tuple[int, int, int]:
        self._load()
        return self._ivory_bgr

    def has(self, code: str) -> bool:
        return code in self.codes


def loaded_style(name: str, split: str, faces: dict[str, list[np.ndarray]],
                 ivory_bgr: tuple[int, int, int]) -> FaceStyle:
    """A style whose images are already in memory."""
    return FaceStyle(name, split, frozenset(faces), _faces=faces, _ivory_bgr=ivory_bgr)
