"""Class-balanced, augmented training batches for the tile classifier, and the crops drawn for them
on the fly: procedural backs and flowers, and real flowers under another face's picture. The stored
sources hold one piece of back art and few flowers per set, whose pictures tell the faces apart."""

from __future__ import annotations

import cv2
import numpy as np

from scoring.tiles import VISION_CODES
from vision.models.crops import DEFAULT_INPUT_SIZE, InputSize, preprocess_crops
from vision.synth.procedural import random_face
from vision.training.classifier_augment import augment
from vision.training.classifier_data import CLASS_INDEX, Sample, store_crop, store_size

#: Share of a face class's draws that come from rendered-scene crops (the rest: real photos and art).
SYNTH_SHARE = 0.2

#: Sources whose flower crops lend their picture to procedural flowers (real tiles, not art).
REAL_PICTURE_SOURCES = ("real-crop", "pseudo-crop", "table-photo", "set-photo", "roboflow")
#: The picture part of a stored flower crop (left, top, right, bottom as fractions): below the
#: name and number in the top third, inside the crop's margin.
PICTURE_CROP = (0.08, 0.38, 0.92, 0.94)
#: Sources whose flower crops show the tile upright and square to the crop, so that the picture
#: part sits where :data:`PICTURE_CROP` says (the table-photo cuts lie askew in their boxes).
UPRIGHT_FLOWER_SOURCES = ("real-crop", "pseudo-crop", "set-photo")


def procedural_back(rng: np.random.Generator, size: InputSize = DEFAULT_INPUT_SIZE) -> np.ndarray:
    """A face-down tile: a plain coloured body with shading, maybe showing its white face layer.

    Drawn at the store size of ``size``; edge widths and the mark scale with it (pixel figures
    below are for the 128x96 store of a 64x48 model, whose draws they reproduce exactly).
    """
    stored = store_size(size)
    height, width = stored.height, stored.width
    scale = height / 128
    hue = int(rng.integers(0, 180))
    saturation = int(rng.integers(90, 255))
    value = int(rng.integers(90, 240))
    hsv = np.zeros((height, width, 3), np.uint8)
    hsv[:] = (hue, saturation, value)
    body = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
    gradient = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(1.0, 1.2), height)[:, None, None]
    body = np.clip(body * gradient, 0, 255)
    if rng.random() < 0.5:  # the ivory face layer seen along one edge of a tilted tile
        thickness = max(1, round(int(rng.integers(3, 14)) * scale))
        ivory = np.array([rng.uniform(200, 250)] * 3, np.float32)
        edge = int(rng.integers(4))
        if edge == 0:
            body[:thickness] = ivory
        elif edge == 1:
            body[-thickness:] = ivory
        elif edge == 2:
            body[:, :thickness] = ivory
        else:
            body[:, -thickness:] = ivory
    if rng.random() < 0.5:  # a moulded pattern or logo on the back
        centre = (width // 2 + round(int(rng.integers(-6, 7)) * scale),
                  height // 2 + round(int(rng.integers(-6, 7)) * scale))
        centre_colour = body[height // 2, width // 2] * rng.uniform(0.7, 1.3)
        shade = tuple(float(v) for v in np.clip(centre_colour, 0, 255))
        radius = round(int(rng.integers(6, 30)) * scale)
        line = int(rng.integers(-1, 4))
        cv2.circle(body, centre, radius, shade, line if line < 1 else max(1, round(line * scale)))
    return body.astype(np.uint8)


def picture_part(image: np.ndarray) -> np.ndarray:
    """The :data:`PICTURE_CROP` part of a stored flower crop (a view, not a copy)."""
    h, w = image.shape[:2]
    left, top, right, bottom = PICTURE_CROP
    return image[int(top * h):int(bottom * h), int(left * w):int(right * w)]


def crossed_flower(face: np.ndarray, donor: np.ndarray) -> np.ndarray:
    """``face`` with its picture part replaced by ``donor``'s (both stored upright flower crops).

    The name and number stay ``face``'s, so the label does too: a view in which the picture
    points at another face and only the printed name and number are right. Held-out sets paint
    their pictures otherwise (set-297's 菊 3 looks like other sets' plum) and the flower model
    reads them by the picture.
    """
    h, w = face.shape[:2]
    left, top, right, bottom = PICTURE_CROP
    x0, y0, x1, y1 = int(left * w), int(top * h), int(right * w), int(bottom * h)
    picture = cv2.resize(picture_part(donor), (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    picture = picture.astype(np.float32)
    region = face[y0:y1, x0:x1].astype(np.float32)
    # The donor's paper takes the face's colour (both pictures are mostly paper), and the patch
    # fades in at its edges: a sharp-edged square of other paper would tell the model it is pasted.
    picture *= _paper(region) / np.maximum(_paper(picture), 1)
    alpha = np.outer(_edge_ramp(y1 - y0), _edge_ramp(x1 - x0))[:, :, None]
    out = face.copy()
    out[y0:y1, x0:x1] = np.clip(alpha * picture + (1 - alpha) * region, 0, 255).astype(np.uint8)
    return out


def _paper(region: np.ndarray) -> np.ndarray:
    """The paper colour of a picture part: its median pixel (a tile face is mostly paper)."""
    return np.median(region.reshape(-1, 3), axis=0)


def _edge_ramp(length: int, share: float = 0.12) -> np.ndarray:
    """Weights along one side of a pasted patch: 0 at its ends, rising to 1 over ``share`` of it."""
    steps = np.arange(length)
    return np.clip(np.minimum(steps, steps[::-1]) / (share * length), 0, 1)


class AugmentedCrops:
    """Draws class-balanced, augmented batches from the source samples (and procedural backs)."""

    def __init__(self, samples: list[Sample], seed: int, synth_share: float = SYNTH_SHARE,
                 size: InputSize = DEFAULT_INPUT_SIZE, procedural_flower_share: float = 0.0,
                 outline_turn_degrees: float = 0.0, occlusion_share: float = 0.0,
                 varied_flower_numbers: bool = False, askew_box_share: float = 0.0,
                 crossed_flower_share: float = 0.0) -> None:
        self.samples = samples
        self.crossed_flower_share = crossed_flower_share
        self.varied_flower_numbers = varied_flower_numbers
        self.outline_turn_degrees = outline_turn_degrees
        self.occlusion_share = occlusion_share
        self.askew_box_share = askew_box_share
        self.size = size
        self.rng = np.random.default_rng(seed)
        self.by_class: dict[int, list[int]] = {}
        self.synth_by_class: dict[int, list[int]] = {}
        for index, sample in enumerate(samples):
            pool = self.synth_by_class if sample.source == "synth" else self.by_class
            pool.setdefault(sample.label, []).append(index)
        self.back_label = CLASS_INDEX["back"]
        self.classes = sorted(set(self.by_class) | set(self.synth_by_class) | {self.back_label})
        self.synth_share = synth_share
        self.procedural_flower_share = procedural_flower_share
        self.flower_labels = {CLASS_INDEX[code] for code in VISION_CODES if code.endswith("f")}
        self.real_flowers = [i for i, sample in enumerate(samples) if sample.label in self.flower_labels
                             and sample.source in REAL_PICTURE_SOURCES]
        self.upright_flowers: dict[int, list[int]] = {}
        for index, sample in enumerate(samples):
            if sample.label in self.flower_labels and sample.source in UPRIGHT_FLOWER_SOURCES:
                self.upright_flowers.setdefault(sample.label, []).append(index)

    def batch(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """``size`` augmented crops (preprocessed NCHW float32) and their labels."""
        labels = self.rng.choice(self.classes, size=size)
        views = []
        for label in labels:
            views.append(augment(self._source(int(label)), self.rng, self.size, self.outline_turn_degrees,
                                 self.occlusion_share, self.askew_box_share))
        return preprocess_crops(views, size=self.size), labels.astype(np.int64)

    def _flower_picture(self) -> np.ndarray | None:
        """The picture part of a random real flower or season crop, of any face (None: there are none).

        Procedural flowers carry it instead of a painted plant: a picture as real sets paint them,
        which then says nothing about the face, so only the drawn name and number do. What it
        did to the held-out sets is in the model card (runs c3 and c4).
        """
        if not self.real_flowers:
            return None
        chosen = self.real_flowers[int(self.rng.integers(len(self.real_flowers)))]
        return picture_part(self.samples[chosen].image)

    def _crossed_flower(self, label: int) -> np.ndarray | None:
        """An upright real ``label`` flower under the picture of another face's (None: none to cross)."""
        own = self.upright_flowers.get(label, [])
        others = [i for other, indices in self.upright_flowers.items() if other != label for i in indices]
        if not own or not others:
            return None
        face = self.samples[own[int(self.rng.integers(len(own)))]].image
        donor = self.samples[others[int(self.rng.integers(len(others)))]].image
        return crossed_flower(face, donor)

    def _source(self, label: int) -> np.ndarray:
        stored = self.by_class.get(label, [])
        synth = self.synth_by_class.get(label, [])
        if label == self.back_label and synth and self.rng.random() < 0.5:
            return self.samples[synth[int(self.rng.integers(len(synth)))]].image
        if label == self.back_label and (not stored or self.rng.random() < 0.8):
            return procedural_back(self.rng, self.size)
        if label in self.flower_labels and self.rng.random() < self.procedural_flower_share:
            face = random_face(VISION_CODES[label], self.rng, self._flower_picture(),
                               varied_numbers=self.varied_flower_numbers)
            return store_crop(face, self.size)
        if label in self.flower_labels and self.crossed_flower_share > 0 \
                and self.rng.random() < self.crossed_flower_share:
            crossed = self._crossed_flower(label)
            if crossed is not None:
                return crossed
        if synth and (not stored or self.rng.random() < self.synth_share):
            return self.samples[synth[int(self.rng.integers(len(synth)))]].image
        # Real photos first: art is a minority so the model learns real sets, not clean drawings.
        real = [i for i in stored if not self.samples[i].source.startswith("art")]
        pool = real if real and self.rng.random() < 0.75 else stored
        return self.samples[pool[int(self.rng.integers(len(pool)))]].image
