"""Classifier metrics: top-1 (overall, per tile family), top-3, calibration, confusions, worst crops.

The issue's targets are top-1 over all faces and top-1 on flowers and seasons, on held-out real
crops (whole physical sets) and on the table-photo validation photos; ``back`` is reported
separately because the real data barely shows it. Calibration is summarised by the expected
calibration error (15 equal-width confidence bins) and the mean negative log-likelihood.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scoring.tiles import FLOWER_CODES, HONOUR_CODES, SUIT_CODES

FAMILIES: dict[str, frozenset[str]] = {
    "suits": frozenset(SUIT_CODES),
    "honours": frozenset(HONOUR_CODES),
    "flowers_seasons": frozenset(FLOWER_CODES),
    "back": frozenset({"back"}),
}
ECE_BINS = 15


@dataclass
class ClassificationReport:
    """Per-crop truth and calibrated probabilities, and the numbers derived from them."""

    labels: list[str]
    truth: list[str]
    probabilities: np.ndarray  # (n, len(labels))

    @property
    def predicted(self) -> list[str]:
        return [self.labels[i] for i in self.probabilities.argmax(axis=1)]

    def top1(self, family: str | None = None) -> tuple[float, int]:
        """(accuracy, count) over all crops or one family; accuracy is nan when count is 0."""
        rows = self._rows(family)
        if not rows:
            return float("nan"), 0
        predicted = self.predicted
        return sum(predicted[i] == self.truth[i] for i in rows) / len(rows), len(rows)

    def top_k(self, k: int) -> float:
        index = {code: i for i, code in enumerate(self.labels)}
        ranks = np.argsort(-self.probabilities, axis=1)[:, :k]
        hits = [index[code] in ranks[row] for row, code in enumerate(self.truth)]
        return float(np.mean(hits)) if hits else float("nan")

    def truth_probability(self) -> np.ndarray:
        index = {code: i for i, code in enumerate(self.labels)}
        return self.probabilities[np.arange(len(self.truth)), [index[c] for c in self.truth]]

    def nll(self) -> float:
        if not self.truth:
            return float("nan")
        return float(-np.log(np.clip(self.truth_probability(), 1e-12, 1)).mean())

    def ece(self, bins: int = ECE_BINS) -> float:
        """Expected calibration error: |accuracy - confidence| averaged over confidence bins."""
        if not self.truth:
            return float("nan")
        confidence = self.probabilities.max(axis=1)
        correct = np.array([p == t for p, t in zip(self.predicted, self.truth, strict=True)], float)
        edges = np.linspace(0, 1, bins + 1)
        total = 0.0
        for low, high in zip(edges[:-1], edges[1:], strict=True):
            inside = (confidence > low) & (confidence <= high)
            if inside.any():
                total += inside.mean() * abs(correct[inside].mean() - confidence[inside].mean())
        return float(total)

    def confusion(self) -> np.ndarray:
        """Counts, rows = truth, columns = prediction, in ``labels`` order."""
        index = {code: i for i, code in enumerate(self.labels)}
        matrix = np.zeros((len(self.labels), len(self.labels)), np.int64)
        for truth, predicted in zip(self.truth, self.predicted, strict=True):
            matrix[index[truth], index[predicted]] += 1
        return matrix

    def top_confusions(self, limit: int = 10) -> list[tuple[str, str, int]]:
        matrix = self.confusion()
        np.fill_diagonal(matrix, 0)
        pairs = [(self.labels[i], self.labels[j], int(matrix[i, j]))
                 for i, j in zip(*np.nonzero(matrix), strict=True)]
        return sorted(pairs, key=lambda row: -row[2])[:limit]

    def worst(self, limit: int) -> list[int]:
        """Indices of the crops the model got most wrong (lowest probability on the truth)."""
        return [int(i) for i in np.argsort(self.truth_probability())[:limit]]

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"crops": len(self.truth)}
        accuracy, _ = self.top1()
        out["top1"] = _round(accuracy)
        for family in FAMILIES:
            value, count = self.top1(family)
            out[f"top1_{family}"] = _round(value)
            out[f"count_{family}"] = count
        out["top3"] = _round(self.top_k(3))
        out["ece"] = _round(self.ece())
        out["nll"] = _round(self.nll())
        out["top_confusions"] = [{"truth": t, "predicted": p, "count": n}
                                 for t, p, n in self.top_confusions()]
        return out

    def _rows(self, family: str | None) -> list[int]:
        if family is None:
            return list(range(len(self.truth)))
        codes = FAMILIES[family]
        return [i for i, code in enumerate(self.truth) if code in codes]


def _round(value: float) -> float | None:
    return None if value != value else round(float(value), 4)  # nan -> null in JSON


def draw_confusion_matrix(matrix: np.ndarray, labels: Sequence[str], path: Path, title: str = "") -> None:
    """Write the confusion matrix as a PNG: row-normalised shading, counts off the diagonal in red."""
    n = len(labels)
    cell, margin = 18, 40
    size = margin + n * cell
    canvas = np.full((size + 24, size, 3), 255, np.uint8)
    rows = matrix.sum(axis=1, keepdims=True).clip(min=1)
    share = matrix / rows
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i in range(n):
        cv2.putText(canvas, labels[i], (2, margin + i * cell + 13), font, 0.33, (0, 0, 0), 1)
        cv2.putText(canvas, labels[i], (margin + i * cell + 1, margin - 6), font, 0.3, (0, 0, 0), 1)
        for j in range(n):
            x, y = margin + j * cell, margin + i * cell
            shade = int(255 - 200 * share[i, j])
            colour = (shade, shade, 255) if i != j else (255, shade, shade)
            cv2.rectangle(canvas, (x, y), (x + cell - 1, y + cell - 1), colour, -1)
            if matrix[i, j] and i != j:
                cv2.putText(canvas, str(int(matrix[i, j])), (x + 3, y + 13), font, 0.33, (0, 0, 160), 1)
    caption = title + "  (rows: truth, columns: predicted)"
    cv2.putText(canvas, caption, (4, size + 17), font, 0.4, (0, 0, 0), 1)
    _write_png(path, canvas)


def draw_contact_sheet(crops: Sequence[np.ndarray], captions: Sequence[str], path: Path,
                       columns: int = 10, cell: tuple[int, int] = (72, 96)) -> None:
    """Write crops side by side with a caption under each (e.g. ``truth>predicted p=0.41``)."""
    width, height = cell
    caption_height = 26
    rows = max(1, (len(crops) + columns - 1) // columns)
    canvas = np.full((rows * (height + caption_height), columns * width, 3), 255, np.uint8)
    for index, (crop, caption) in enumerate(zip(crops, captions, strict=True)):
        row, column = divmod(index, columns)
        x, y = column * width, row * (height + caption_height)
        tile = crop if crop.ndim == 3 else cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
        canvas[y:y + height, x:x + width] = _fit(tile[:, :, :3], width - 2, height)
        for line_number, text in enumerate(caption.split("\n")[:2]):
            origin = (x + 2, y + height + 11 + 12 * line_number)
            cv2.putText(canvas, text, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.33, (0, 0, 200), 1)
    _write_png(path, canvas)


def _fit(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """Resize into a (height, width + 2) cell, leaving a 2-pixel white gutter on the right."""
    cell = np.full((height, width + 2, 3), 255, np.uint8)
    cell[:, :width] = cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)
    return cell


def _write_png(path: Path, image: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.png")
    if not cv2.imwrite(str(tmp), image):
        raise OSError(f"cannot write {path}")
    tmp.replace(path)
