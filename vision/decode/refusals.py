"""The decoder's refusals: the :class:`~vision.types.Refusal` values it returns, and the exceptions
its raising entry points (``decode_hand``, ``unseen_tiles``, ``read_readings``) give for them.

The photo's search passes refusals on as values; only a caller that wants an exception (a test, a
script, the command line's one-line error) turns one back, keeping its kind: a tile count that is
no hand (:class:`TileCountError`), a hand only unlikely corrections make legal
(:class:`UnbelievedReadingError`).
"""

from __future__ import annotations

from scoring.errors import InputError
from vision.types import Refusal


class TileCountError(InputError):
    """The tiles found are not a hand's count: too many or too few standing for the sets laid down.
    A detection fault (a tile found as two, one missed) shows first as this. ``surplus`` is how many
    standing tiles there are beyond the count (negative when short)."""

    def __init__(self, message: str, surplus: int = 0) -> None:
        super().__init__(message)
        self.surplus = surplus


class UnbelievedReadingError(InputError):
    """The nearest winning hand needs changes too unlikely or too many to believe; ``fixes`` are the
    ``--fix`` (READ, TRUE) pairs that would read it so, for a player or a tool to offer."""

    def __init__(self, message: str, fixes: tuple[tuple[str, str], ...]) -> None:
        super().__init__(message)
        self.fixes = fixes


def refusal_error(refusal: Refusal) -> InputError:
    """The exception the raising entry points give for ``refusal``, of the kind it was made from."""
    if refusal.count_failed:
        return TileCountError(refusal.reason, refusal.surplus or 0)
    if refusal.fixes:
        return UnbelievedReadingError(refusal.reason, refusal.fixes)
    return InputError(refusal.reason)
