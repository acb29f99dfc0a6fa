"""Training the flower-text model: the eight flowers from the top strip of a face (number and name).

Data: the flower and season crops of the classifier's sources (real training crop sets, our
table-photo labels, pseudo-labelled crops, art), each drawn and augmented as the classifier's
(``vision.training.classifier_data``), a share of them procedurally drawn faces of fresh random
sets (:data:`FlowerTextConfig.procedural_flower_share`, as the flower model), then cut to the top
strip the runtime reads (``vision.models.flower_text.top_strip``). Half the views are upside down,
as the classifier's; their strip shows the picture's foot and no text, so the model learns to say
little there, which is what the runtime's product of both ends needs. Network: the classifier's
``TileNet`` with narrower stages, eight outputs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from scoring.tiles import FLOWER_CODES
from vision.models.classifier import InputSize, preprocess_crops
from vision.models.flower_text import STRIP_FRACTION, STRIP_SIZE, top_strip
from vision.training.classifier_data import CLASS_INDEX, AugmentedCrops, Sample, augment, load_sources
from vision.training.classifier_model import TileNet


@dataclass
class FlowerTextConfig:
    """Everything that changes the trained flower-text model (saved beside it)."""

    steps: int = 3000
    batch_size: int = 64
    learning_rate: float = 3e-3
    weight_decay: float = 5e-4
    label_smoothing: float = 0.1
    seed: int = 20261123
    threads: int = 1
    procedural_flower_share: float = 0.35
    strip_fraction: float = STRIP_FRACTION
    strip_height: int = STRIP_SIZE.height  # the input is twice as wide as high
    widths: tuple[int, ...] = (24, 48, 96, 128)

    @property
    def input_size(self) -> InputSize:
        return InputSize(self.strip_height, 2 * self.strip_height)


@dataclass
class FlowerTextResult:
    model: nn.Module
    seconds: float
    samples: int


def flower_samples(samples: list[Sample]) -> list[Sample]:
    """The flower and season crops among the classifier's sources."""
    flowers = {CLASS_INDEX[code] for code in FLOWER_CODES}
    return [sample for sample in samples if sample.label in flowers]


class StripBatches:
    """Class-balanced augmented top strips of flower faces (NCHW float32) and their flower index."""

    def __init__(self, samples: list[Sample], config: FlowerTextConfig) -> None:
        self.config = config
        self.crops = AugmentedCrops(samples, seed=config.seed,
                                    procedural_flower_share=config.procedural_flower_share)
        self.rng = np.random.default_rng(config.seed + 1)
        # The flowers with crops to draw (all eight in the recipe's data).
        self.classes = np.array([k for k, code in enumerate(FLOWER_CODES)
                                 if CLASS_INDEX[code] in self.crops.by_class])

    def batch(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        labels = self.rng.choice(self.classes, size=size)
        strips = [top_strip(augment(self.crops._source(CLASS_INDEX[FLOWER_CODES[k]]), self.rng),
                            self.config.strip_fraction) for k in labels]
        return preprocess_crops(strips, size=self.config.input_size), labels.astype(np.int64)


def train_flower_text(config: FlowerTextConfig, log: Callable[[str], None] = print,
                      samples: list[Sample] | None = None) -> FlowerTextResult:
    """Train the flower-text network (``samples``: all the classifier's sources, or the recipe's)."""
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    start = time.time()
    flowers = flower_samples(samples if samples is not None else load_sources())
    log(f"{len(flowers)} flower crops; strips {config.input_size.height}x{config.input_size.width}")
    stream = StripBatches(flowers, config)
    model = TileNet(len(FLOWER_CODES), widths=config.widths)
    optimiser = torch.optim.AdamW(model.parameters(), lr=config.learning_rate,
                                  weight_decay=config.weight_decay)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=config.learning_rate,
                                                   total_steps=max(1, config.steps), pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=config.label_smoothing)
    model.train()
    running = 0.0
    for step in range(1, config.steps + 1):
        inputs, labels = stream.batch(config.batch_size)
        loss = loss_fn(model(torch.from_numpy(inputs)), torch.from_numpy(labels))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        running = loss.item() if step == 1 else 0.95 * running + 0.05 * loss.item()
        if step % 200 == 0 or step == config.steps:
            log(f"step {step}/{config.steps} loss {running:.3f} {time.time() - start:.0f}s")
    model.eval()
    return FlowerTextResult(model=model, seconds=time.time() - start, samples=len(flowers))


def write_flower_text_labels(path: Path, config: FlowerTextConfig, seconds: float, samples: int) -> None:
    """The runtime's label file: codes in output order, input, strip share, recipe."""
    import json
    from dataclasses import asdict

    from vision.models.classifier import PIXEL_MEAN, PIXEL_STD

    document = {
        "labels": list(FLOWER_CODES),
        "temperature": 1.0,
        "strip_fraction": config.strip_fraction,
        "input": {"height": config.input_size.height, "width": config.input_size.width, "channels": "RGB",
                  "mean": PIXEL_MEAN, "std": PIXEL_STD, "layout": "NCHW"},
        "config": asdict(config),
        "training": {"seconds": round(seconds), "flower_crops": samples},
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
