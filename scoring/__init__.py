"""taicam's rules engine: Taiwanese mahjong hands in, itemised scores out.

Pure Python with no numpy or OpenCV, so it can be used (and tested) on its own.
"""

from scoring.errors import InputError

__all__ = ["InputError"]
