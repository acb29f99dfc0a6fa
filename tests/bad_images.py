"""Files that look like images but must be refused (shared by the image-loading, photo CLI and
decompression-bomb tests)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

#: Rows of the flat image compressed at a time; every block compresses to the same bytes.
_BLOCK_ROWS = 100


def huge_png_bytes(side: int = 30000) -> bytes:
    """A complete, valid ``side`` x ``side`` black RGB PNG: 2.7 GB of pixels in under 3 MB.

    Each block of rows is compressed with a full flush, so the compressor starts afresh and every
    block gives the same bytes: the stream is built from two compressions, not 900 MB of input.
    The data is all zero bytes (filter byte 0, black pixels), so its Adler-32 is
    ``(length mod 65521) << 16 | 1``.
    """
    if side % _BLOCK_ROWS:
        raise ValueError(f"side must be a multiple of {_BLOCK_ROWS}")
    block = bytes((3 * side + 1) * _BLOCK_ROWS)
    compressor = zlib.compressobj(9)
    first = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush()[:-4]  # the empty last block, without the checksum of two blocks only
    adler = ((len(block) * (side // _BLOCK_ROWS)) % 65521) << 16 | 1
    stream = first + repeated * (side // _BLOCK_ROWS - 1) + end + struct.pack(">I", adler)

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + payload))
        return struct.pack(">I", len(payload)) + kind + payload + crc

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", stream)
            + chunk(b"IEND", b""))


def write_huge_png(path: Path, side: int = 30000) -> None:
    """Write :func:`huge_png_bytes` to ``path``."""
    path.write_bytes(huge_png_bytes(side))
