"""Counts that tell whether a dataset covers what the models must learn.

Per class (42 faces + back + unknown), per role, layout flags (sideways, face-down, standing),
hand composition (melds, concealed kongs, flowers, winning tile), tiles per image, box sizes and
label problems (boxes outside the image, face-down flag vs ``back``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.tiles import VISION_CODES
from vision.dataset.manifest import UNKNOWN_CODE, ManifestRecord, image_path, record_problems
from vision.imageio import load_image

MAX_PROBLEM_EXAMPLES = 10


@dataclass
class DatasetStats:
    images: int = 0
    tiles: int = 0
    classes: Counter[str] = field(default_factory=Counter)
    roles: Counter[str] = field(default_factory=Counter)
    layout: Counter[str] = field(default_factory=Counter)
    hands: Counter[str] = field(default_factory=Counter)
    splits: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    sets: Counter[str] = field(default_factory=Counter)
    image_sizes: Counter[str] = field(default_factory=Counter)
    tiles_per_image: dict[str, float] = field(default_factory=dict)
    box_size: dict[str, float] = field(default_factory=dict)
    box_fraction: dict[str, float] = field(default_factory=dict)
    image_look: dict[str, float] = field(default_factory=dict)
    problems: int = 0
    problem_examples: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "images": self.images, "tiles": self.tiles,
            "classes": {c: self.classes[c] for c in (*VISION_CODES, UNKNOWN_CODE) if self.classes[c]},
            "missing_classes": [code for code in VISION_CODES if not self.classes[code]],
            "roles": dict(self.roles), "layout": dict(self.layout), "hands": dict(self.hands),
            "splits": dict(self.splits), "sources": dict(self.sources), "sets": len(self.sets),
            "image_sizes": dict(self.image_sizes.most_common(10)),
            "tiles_per_image": self.tiles_per_image, "box_size": self.box_size,
            "box_fraction": self.box_fraction, "image_look": self.image_look,
            "problems": self.problems, "problem_examples": self.problem_examples,
        }


def dataset_stats(records: Iterable[ManifestRecord]) -> DatasetStats:
    """Counts over ``records``, read once (a streamed manifest of any size)."""
    stats = DatasetStats()
    per_image: list[int] = []
    short_sides: list[float] = []
    widths: list[float] = []
    heights: list[float] = []
    for record in records:
        stats.images += 1
        per_image.append(len(record.tiles))
        stats.splits[record.split or "-"] += 1
        stats.sources[record.source or "-"] += 1
        if record.set_id:
            stats.sets[record.set_id] += 1
        stats.image_sizes[f"{record.width}x{record.height}"] += 1
        for tile in record.tiles:
            stats.tiles += 1
            stats.classes[tile.code] += 1
            stats.roles[tile.role or "-"] += 1
            if tile.rotated:
                stats.layout["sideways"] += 1
            if tile.face_down:
                stats.layout["face_down"] += 1
            if tile.extra.get("standing"):
                stats.layout["standing"] += 1
            if tile.quad is not None:
                stats.layout["with_quad"] += 1
            if tile.group is not None:
                stats.layout["grouped"] += 1
            if float(tile.extra.get("visible", 1.0)) < 0.7:
                stats.layout["partly_hidden"] += 1
            short_sides.append(min(tile.box[2] - tile.box[0], tile.box[3] - tile.box[1]))
            if tile.role != "distractor":  # the hand's tiles: what both real and synthetic data label
                widths.append((tile.box[2] - tile.box[0]) / record.width)
                heights.append((tile.box[3] - tile.box[1]) / record.height)
        if record.hand:
            _count_hand(stats.hands, record.hand)
        problems = record_problems(record)
        stats.problems += len(problems)
        room = MAX_PROBLEM_EXAMPLES - len(stats.problem_examples)
        stats.problem_examples.extend(f"{record.image}: {problem}" for problem in problems[:max(room, 0)])
    if per_image:
        stats.tiles_per_image = {"mean": round(float(np.mean(per_image)), 1), "min": int(min(per_image)),
                                 "max": int(max(per_image))}
    if short_sides:
        stats.box_size = {"short_side_median_px": round(float(np.median(short_sides)), 1),
                          "short_side_p5_px": round(float(np.percentile(short_sides, 5)), 1),
                          "short_side_p95_px": round(float(np.percentile(short_sides, 95)), 1)}
    if widths:
        stats.box_fraction = {"hand_width_median": round(float(np.median(widths)), 3),
                              "hand_height_median": round(float(np.median(heights)), 3)}
    return stats


def image_look(records: list[ManifestRecord], anchor: Path, count: int) -> dict[str, float]:
    """Mean brightness and colourfulness (HSV V and S, 0-255) and sharpness (variance of the Laplacian
    on a 640-pixel-wide copy) of ``count`` images spread over the dataset: to compare renders with
    real photos."""
    if count <= 0 or not records:
        return {}
    picks = [records[int(i)] for i in np.linspace(0, len(records) - 1, min(count, len(records)))]
    values, saturations, sharpness = [], [], []
    for record in picks:
        image = load_image(image_path(record, anchor))
        image = cv2.resize(image, (640, max(1, round(image.shape[0] * 640 / image.shape[1]))))
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        values.append(float(hsv[:, :, 2].mean()))
        saturations.append(float(hsv[:, :, 1].mean()))
        sharpness.append(float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var()))
    if not values:
        return {}
    return {"images": len(values), "brightness_v": round(float(np.mean(values)), 1),
            "colourfulness_s": round(float(np.mean(saturations)), 1),
            "sharpness": round(float(np.median(sharpness)), 1)}


def _count_hand(counter: Counter[str], hand: dict[str, Any]) -> None:
    counter["hands"] += 1
    melds = hand.get("melds", [])
    counter["exposed_chows"] += sum(1 for m in melds if m.get("kind") == "chow")
    counter["exposed_pungs"] += sum(1 for m in melds if m.get("kind") == "pung")
    counter["exposed_kongs"] += sum(1 for m in melds if m.get("kind") == "kong" and not m.get("concealed"))
    counter["concealed_kongs"] += sum(1 for m in melds if m.get("kind") == "kong" and m.get("concealed"))
    counter["flowers"] += len(hand.get("flowers", []))
    counter["hands_with_flowers"] += 1 if hand.get("flowers") else 0
    counter["fully_concealed_hands"] += 1 if not melds else 0
    counter["self_drawn"] += 1 if hand.get("context", {}).get("self_drawn") else 0


def format_stats(stats: DatasetStats) -> str:
    """A readable report for the terminal."""
    data = stats.to_json()
    lines = [f"images {stats.images}   tiles {stats.tiles}   tiles/image {data['tiles_per_image']}",
             f"box short side (px) {data['box_size']}"]
    lines.append("classes:")
    row = []
    for index, code in enumerate((*VISION_CODES, UNKNOWN_CODE)):
        if code == UNKNOWN_CODE and not stats.classes[code]:
            continue
        row.append(f"{code:>7} {stats.classes[code]:>6}")
        if len(row) == 6 or index == len(VISION_CODES):
            lines.append("  " + "  ".join(row))
            row = []
    if row:
        lines.append("  " + "  ".join(row))
    if data["missing_classes"]:
        lines.append(f"missing classes: {' '.join(data['missing_classes'])}")
    for title in ("roles", "layout", "hands", "splits", "sources"):
        values = data[title]
        if values:
            lines.append(f"{title}: " + ", ".join(f"{k} {v}" for k, v in sorted(values.items())))
    if data["box_fraction"]:
        lines.append(f"hand tile box / image size (median): {data['box_fraction']}")
    if data["image_look"]:
        lines.append(f"image look: {data['image_look']}")
    lines.append(f"physical sets / styles: {data['sets']}")
    lines.append(f"label problems: {data['problems']}")
    lines.extend(f"  {example}" for example in data["problem_examples"])
    return "\n".join(lines)
