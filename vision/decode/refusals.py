"""The layout's and the decoder's refusals as :class:`~vision.types.Refusal` values and back.

The layout and the decoder are public functions that raise ``InputError`` (with its kinds: a tile
count that is no hand, a hand only unlikely corrections make legal) for their own callers; the
photo's search takes their answer as a value at one place (``vision.pipeline.layouts``), and the
raising entry points (``read_readings``, ``PhotoPipeline.read_image``) turn a refusal back into the
same exception at theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from scoring.errors import InputError
from vision.decode.hand import UnbelievedReadingError
from vision.decode.unseen import TileCountError
from vision.types import Refusal

Value = TypeVar("Value")


def refusal_of(error: InputError) -> Refusal:
    """What ``error`` says, as a value: its line, the fixes it names, the tile count's surplus."""
    fixes = error.fixes if isinstance(error, UnbelievedReadingError) else ()
    surplus = error.surplus if isinstance(error, TileCountError) else None
    return Refusal(str(error), tuple(fixes), surplus)


def refusal_error(refusal: Refusal) -> InputError:
    """The exception the raising entry points give for ``refusal``, of the kind it was made from."""
    if refusal.count_failed:
        return TileCountError(refusal.reason, refusal.surplus or 0)
    if refusal.fixes:
        return UnbelievedReadingError(refusal.reason, refusal.fixes)
    return InputError(refusal.reason)


def answer_of(work: Callable[[], Value]) -> Value | Refusal:
    """``work()``, or its refusal: how the search takes the layout's and the decoder's answers."""
    try:
        return work()
    except InputError as error:
        return refusal_of(error)
