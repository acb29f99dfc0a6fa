"""The look at a photo turned level, kept over the upright look where it reads surer
(``vision.repairs.turned_look``: why, and how the choice was made)."""

from __future__ import annotations

from collections.abc import Callable

from vision.imageio import ImageSource
from vision.pipeline.perception import Perception, TilesRead
from vision.repairs.turned_look import TurnedSource, reads_surer
from vision.types import Classifier, Refusal, TileReading

#: A look at a source: its tiles read, or why it shows none (``PhotoPipeline._read_tiles``).
ReadLook = Callable[[ImageSource, dict[str, float]], TilesRead | Refusal]


def surer_turned(upright: TilesRead | Refusal, source: ImageSource, slant: float, read: ReadLook,
                 classifier: Classifier, timings: dict[str, float]) -> TilesRead | Refusal:
    """``upright``, or ``source`` turned by ``slant`` degrees and read with ``read`` where that reads
    surer: its readings turned back into the photo's pixels, and what reads more detections later
    (the repairs) ``classifier`` on the photo itself, at the turned look's scale, without the turned
    look's colour balance. The turned look's timings join ``timings`` as ``turned_*``."""
    turned_source = TurnedSource(source, slant)
    turned_timings: dict[str, float] = {}
    turned = read(turned_source, turned_timings)
    timings.update({f"turned_{key}": value for key, value in turned_timings.items()})
    upright_readings = [] if isinstance(upright, Refusal) else upright.readings
    if isinstance(turned, Refusal) or not reads_surer(turned.readings, upright_readings):
        return upright
    image, scale = source.image(round(max(source.full_size) * turned.perception.scale))
    readings = [TileReading(turned_source.back(r.detection), r.candidates) for r in turned.readings]
    return TilesRead(readings, Perception(classifier, image, scale))
