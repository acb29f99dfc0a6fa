"""The detector's training loss over a batch of network maps and encoded targets, and the batch
itself as tensors. CenterNet-style: a focal loss on the centre heatmap, L1 on offsets, sizes,
outlines and corners, cross-entropy on the flags, each only where the labels know it."""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F  # noqa: N812

from vision.training.detector_targets import DetectorTargets, to_tensor_image

#: Sideways tiles are ~1 in 15 of the hand tiles, face-down ones ~1 in 40: without weighting the
#: flags learn to say "no" (measured: 1 of 9 sideways and 0 of 4 face-down tiles found on the samples).
FLAG_POSITIVE_WEIGHT = {"sideways": 5.0, "face_down": 10.0}
#: Scale of the corner-refinement loss against the outline's (its targets are about 5x smaller).
#: Checked for r13 rather than raised: on 20 training batches with r11's weights, at 3.0 the corner
#: loss pulls the shared stride-4 features (gradient norm 0.040) as hard as the heatmap (0.047), twice
#: the box regression (0.024) and 40% of the outline (0.095); its own branch trains under Adam,
#: whose steps do not depend on the loss scale. Raising it would trade detection for outlines.
CORNER_LOSS_WEIGHT = 3.0


def focal_heat_loss(logits: torch.Tensor, target: torch.Tensor, weight: torch.Tensor,
                    positive_weight: torch.Tensor | None = None) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss; ``weight`` zeroes ignore regions, ``positive_weight``
    (same shape, 1 for most) makes some tile centres count more; still normalised by the centres."""
    prob = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    positive = target.ge(0.999).float()
    pos_loss = -torch.log(prob) * (1 - prob) ** 2 * positive
    if positive_weight is not None:
        pos_loss = pos_loss * positive_weight
    neg_loss = -torch.log(1 - prob) * prob**2 * (1 - target) ** 4 * (1 - positive) * weight
    count = positive.sum().clamp(min=1.0)
    return (pos_loss.sum() + neg_loss.sum()) / count


def detector_loss(raw: torch.Tensor, batch: dict[str, torch.Tensor], sideways_outline_weight: float = 1.0,
                  sideways_heat_weight: float = 1.0) -> tuple[torch.Tensor, dict[str, float]]:
    """Total loss and its parts for raw network maps (N,21,h,w) and encoded targets.

    The face outline (channels 7-10) and its corner refinement (11-20) are learned only where the
    outline is labelled: synthetic scenes. ``sideways_heat_weight`` makes a sideways tile's centre
    count that much more in the heatmap loss.
    """
    idx = batch["index"]
    positive_weight = None
    if sideways_heat_weight != 1.0 and idx.numel():
        positive_weight = torch.ones_like(batch["heat"]).reshape(-1)
        positive_weight[idx[batch["sideways"] > 0]] = sideways_heat_weight
        positive_weight = positive_weight.reshape(batch["heat"].shape)
    heat = focal_heat_loss(raw[:, 0], batch["heat"], batch["heat_weight"], positive_weight)
    n, c, h, w = raw.shape
    flat = raw.permute(0, 2, 3, 1).reshape(n * h * w, c)
    if idx.numel() == 0:
        zero = raw.sum() * 0.0
        return heat + zero, {"heat": float(heat.detach()), "reg": 0.0, "flags": 0.0, "outline": 0.0,
                             "corners": 0.0}
    at = flat[idx]
    # Offsets are learned at every centre, sizes only where the box is tight (``size_known``).
    error = (at[:, 1:5] - batch["regression"]).abs()
    known_size = batch["size_known"]
    sizes = (error[:, 2:] * known_size[:, None]).sum()
    reg = (error[:, :2].sum() + sizes) / (2 * len(idx) + 2 * known_size.sum())
    flag_loss = raw.sum() * 0.0
    for channel, key in ((5, "sideways"), (6, "face_down")):
        target = batch[key]
        known = target >= 0
        if known.any():
            weight = torch.tensor(FLAG_POSITIVE_WEIGHT[key])
            flag_loss = flag_loss + F.binary_cross_entropy_with_logits(at[known, channel], target[known],
                                                                       pos_weight=weight)
    known = batch["outline_known"] > 0
    outline = corners = raw.sum() * 0.0
    if known.any():
        # Sideways tiles are few, and their axis is the one that matters most (the layout finds the
        # winning tile by it): their outline error can be weighted up.
        weight = 1.0 + (sideways_outline_weight - 1.0) * (batch["sideways"][known] > 0).float()
        error = (at[known, 7:11] - batch["outline"][known]).abs().mean(dim=1)
        outline = (weight * error).sum() / weight.sum()
        # The corner refinement is a fraction of the face height (a few hundredths to a tenth);
        # CORNER_LOSS_WEIGHT brings its L1 to the scale of the outline's.
        corner_error = (at[known, 11:21] - batch["corners"][known]).abs().mean(dim=1)
        corners = CORNER_LOSS_WEIGHT * (weight * corner_error).sum() / weight.sum()
    total = heat + reg + 0.5 * flag_loss + outline + corners
    parts = {"heat": float(heat.detach()), "reg": float(reg.detach()), "flags": float(flag_loss.detach()),
             "outline": float(outline.detach()), "corners": float(corners.detach())}
    return total, parts


def collate(targets: list[DetectorTargets], images: list[np.ndarray]) -> dict[str, torch.Tensor]:
    """Stack a batch; centre indices become indices into the flattened (N*h*w) map."""
    cells = targets[0].heat.shape[0] * targets[0].heat.shape[1]
    index = np.concatenate([t.index + i * cells for i, t in enumerate(targets)])
    return {
        "image": torch.from_numpy(np.stack([to_tensor_image(im) for im in images])),
        "heat": torch.from_numpy(np.stack([t.heat for t in targets])),
        "heat_weight": torch.from_numpy(np.stack([t.heat_weight for t in targets])),
        "index": torch.from_numpy(index.astype(np.int64)),
        "regression": torch.from_numpy(np.concatenate([t.regression for t in targets])),
        "sideways": torch.from_numpy(np.concatenate([t.sideways for t in targets])),
        "face_down": torch.from_numpy(np.concatenate([t.face_down for t in targets])),
        "outline": torch.from_numpy(np.concatenate([t.outline for t in targets])),
        "outline_known": torch.from_numpy(np.concatenate([t.outline_known for t in targets])),
        "corners": torch.from_numpy(np.concatenate([t.corners for t in targets])),
        "size_known": torch.from_numpy(np.concatenate([
            t.size_known if t.size_known is not None else np.ones(len(t.index), np.float32)
            for t in targets])),
    }
