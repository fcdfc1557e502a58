"""Minimal PNG reading and writing with zlib and numpy (no Pillow).

Reads 8-bit, non-interlaced gray (0), RGB (2), gray+alpha (4) and RGBA (6) images; writes 8-bit
gray or RGB with filter 0 on every row at zlib level 9, so the same pixels always give the same
bytes.
"""

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read(data):
    """Return a uint8 array [H, W, C] (C = 1, 2, 3 or 4)."""
    if data[:8] != SIGNATURE:
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or interlace != 0 or color not in _CHANNELS:
        raise ValueError(f"unsupported PNG (depth {depth}, color type {color}, "
                         f"interlace {interlace})")
    channels = _CHANNELS[color]
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    out = np.zeros((height, stride), dtype=np.int64)
    previous = np.zeros(stride, dtype=np.int64)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=start + 1).astype(np.int64)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + previous) & 0xFF
        else:
            row = line.copy()
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                up = previous[i]
                upper_left = previous[i - channels] if i >= channels else 0
                if kind == 1:
                    row[i] = (row[i] + left) & 0xFF
                elif kind == 3:
                    row[i] = (row[i] + ((left + up) >> 1)) & 0xFF
                elif kind == 4:
                    row[i] = (row[i] + _paeth(int(left), int(up), int(upper_left))) & 0xFF
                else:
                    raise ValueError(f"bad PNG filter {kind}")
        out[y] = row
        previous = row
    return out.astype(np.uint8).reshape(height, width, channels)


def _chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def write(pixels):
    """PNG bytes of a uint8 array [H, W] or [H, W, 1] (gray) or [H, W, 3] (RGB)."""
    pixels = np.asarray(pixels, dtype=np.uint8)
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    height, width, channels = pixels.shape
    color = {1: 0, 3: 2}[channels]
    rows = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))
    return (SIGNATURE +
            _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)) +
            _chunk(b"IDAT", zlib.compress(rows, 9)) + _chunk(b"IEND", b""))
