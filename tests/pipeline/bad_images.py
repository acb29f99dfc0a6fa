"""Files that look like images but must be refused (shared by the imageio and photo CLI tests)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def write_huge_png(path: Path, side: int = 30000) -> None:
    """A PNG whose header claims ``side`` x ``side`` pixels, in a few bytes of data."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + payload))
        return struct.pack(">I", len(payload)) + kind + payload + crc

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    data = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b"")
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + data)
