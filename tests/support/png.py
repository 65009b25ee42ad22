"""Minimal PNG reading for tests: 8-bit RGBA/RGB, non-interlaced, as stb_image_write writes."""
import struct
import zlib


def load(path):
    """Returns (width, height, rows) with rows top to bottom as bytearrays of RGBA."""
    with open(path, "rb") as f:
        return decode(f.read(), path)


def decode(data, name="PNG"):
    """load() of PNG bytes in memory; `name` says what they are in errors."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{name}: not a PNG")
    width, height, depth, color = struct.unpack(">IIBB", data[16:26])
    channels = {6: 4, 2: 3}[color]
    chunks, pos = b"", 8
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        if data[pos + 4:pos + 8] == b"IDAT":
            chunks += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(chunks)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    if channels == 3:
        rows = [bytearray(b for px in range(width) for b in (*row[3 * px:3 * px + 3], 255)) for row in rows]
    return width, height, rows
