"""Writing HEIF and AVIF files box by box (ISO/IEC 23008-12 on ISO/IEC 14496-12), for what
pillow-heif does not write: grids of tiles (as phones store photos), clean apertures, irot and imir
on a grid. Each tile is a single-image file Pillow encodes, whose configuration (hvcC or av1C),
size and colour properties and coded bytes become an item of the grid. Used by
Scripts/make-format-fixtures and Scripts/make-memory-corpus.

    from heif_grid import grid_heif
    data = grid_heif(pixels, columns=2, rows=2, tile_width=64, tile_height=64, rotation=3)
"""
import io

import numpy as np
from PIL import Image


def pil_bytes(image, **options):
    b = io.BytesIO()
    image.save(b, **options)
    return b.getvalue()


def boxes(data, start=0, end=None):
    """(type, payload start, payload end) of each box in data[start:end]."""
    end = len(data) if end is None else end
    found = []
    while start + 8 <= end:
        size, kind = int.from_bytes(data[start:start + 4], "big"), data[start + 4:start + 8].decode("latin-1")
        header = 8
        if size == 1:
            size, header = int.from_bytes(data[start + 8:start + 16], "big"), 16
        elif size == 0:
            size = end - start
        found.append((kind, start + header, start + size))
        start += size
    return found


def child(data, parent, kind, full=False):
    """The first box of `kind` inside `parent` (after its version and flags when `full`)."""
    start = parent[1] + (4 if full else 0)
    return next(b for b in boxes(data, start, parent[2]) if b[0] == kind)


def single_image(heic):
    """The primary item's hvcC or av1C/ispe/colr/pixi property boxes (whole) and coded data of a
    HEIC or AVIF."""
    meta = next(b for b in boxes(heic) if b[0] == "meta")
    primary = int.from_bytes(heic[child(heic, meta, "pitm", True)[1] + 4:][:2], "big")
    iprp = child(heic, meta, "iprp", True)
    ipco = child(heic, iprp, "ipco")
    properties = [heic[b[1] - 8:b[2]] for b in boxes(heic, ipco[1], ipco[2])]
    ipma = child(heic, iprp, "ipma")
    version, flags = heic[ipma[1]], int.from_bytes(heic[ipma[1] + 1:ipma[1] + 4], "big")
    at = ipma[1] + 4
    count = int.from_bytes(heic[at:at + 4], "big"); at += 4
    associated = []
    for _ in range(count):
        size = 2 if version < 1 else 4
        item = int.from_bytes(heic[at:at + size], "big"); at += size
        n = heic[at]; at += 1
        for _ in range(n):
            wide = flags & 1
            value = int.from_bytes(heic[at:at + (2 if wide else 1)], "big"); at += 2 if wide else 1
            index = value & (0x7FFF if wide else 0x7F)
            if item == primary:
                associated.append(properties[index - 1])
    # libheif pads small pictures (under 64 x 64, or not a multiple of 32 wide) and crops them back
    # with a clap of its own: the pictures used here are sized so that it does not.
    assert not any(p[4:8] in (b"clap", b"irot", b"imir") for p in associated), "the encoder added a transformation"
    keep = [p for p in associated if p[4:8] in (b"hvcC", b"av1C", b"ispe", b"colr", b"pixi")]
    # The item's data: iloc version 0/1, construction method 0 (offsets into the file).
    iloc = child(heic, meta, "iloc", True)
    version = heic[iloc[1]]
    at = iloc[1] + 4
    offset_size, length_size = heic[at] >> 4, heic[at] & 15
    base_size, index_size = heic[at + 1] >> 4, (heic[at + 1] & 15) if version in (1, 2) else 0
    at += 2
    count = int.from_bytes(heic[at:at + (2 if version < 2 else 4)], "big"); at += 2 if version < 2 else 4
    read = lambda n: (int.from_bytes(heic[at:at + n], "big") if n else 0, at + n)
    for _ in range(count):
        item, at = read(2 if version < 2 else 4)
        if version in (1, 2):
            method, at = read(2)
            assert method & 15 == 0
        _, at = read(2)  # data_reference_index
        base, at = read(base_size)
        extents, at = read(2)
        data = b""
        for _ in range(extents):
            _, at = read(index_size)
            offset, at = read(offset_size)
            length, at = read(length_size)
            data += heic[base + offset:base + offset + length]
        if item == primary:
            return keep, data
    raise ValueError("no primary item data")


def box(kind, payload, full=None):
    head = b"" if full is None else bytes([full[0]]) + full[1].to_bytes(3, "big")
    return (8 + len(head) + len(payload)).to_bytes(4, "big") + kind.encode() + head + payload


def ispe(width, height):
    return box("ispe", width.to_bytes(4, "big") + height.to_bytes(4, "big"), (0, 0))


def irot(quarter_turns_anticlockwise):
    return box("irot", bytes([quarter_turns_anticlockwise & 3]))


def imir(axis):
    """A mirror as libheif 1.15 reads it: 1 left-right (what it writes for EXIF orientation 2), 0
    top-bottom."""
    return box("imir", bytes([axis & 1]))


def clap(width, height, horizontal_offset, vertical_offset):
    """Clean aperture with whole-pixel fractions; offsets of its centre from the image centre."""
    s32 = lambda v: (v & 0xFFFFFFFF).to_bytes(4, "big")
    return box("clap", b"".join(s32(v) for v in (width, 1, height, 1, horizontal_offset, 1, vertical_offset, 1)))


def heif_file(items, primary, properties, associations, references=(), brand="heic"):
    """A HEIC (or an AVIF, brand "avif"): items are (id, type, data, hidden), where data may be an
    earlier item's id to share its bytes; associations map an item to 1-based property indices;
    references are (type, from, [to...])."""
    infe = [box("infe", i.to_bytes(2, "big") + b"\0\0" + t.encode() + b"\0", (2, 1 if hidden else 0))
            for i, t, _, hidden in items]
    # Property indices take 7 bits, or 15 with ipma's flag 1 when there are more than 127.
    wide = len(properties) > 127

    def association(index, essential):
        return ((0x8000 if essential else 0) | index).to_bytes(2, "big") if wide else bytes([(0x80 if essential else 0) | index])

    ipma_entries = b"".join(
        item.to_bytes(2, "big") + bytes([len(indices)]) + b"".join(association(i, essential) for i, essential in indices)
        for item, indices in associations)
    iprp = box("iprp", box("ipco", b"".join(properties)) + box("ipma", len(associations).to_bytes(4, "big") + ipma_entries, (0, 1 if wide else 0)))
    iref = box("iref", b"".join(
        box(kind, source.to_bytes(2, "big") + len(targets).to_bytes(2, "big") + b"".join(t.to_bytes(2, "big") for t in targets))
        for kind, source, targets in references), (0, 0)) if references else b""
    ftyp = box("ftyp", brand.encode() + (0).to_bytes(4, "big") + b"mif1" + brand.encode())
    stored = [(i, data) for i, _, data, _ in items if isinstance(data, bytes)]

    def meta_box(data_start):
        entries, offset, placed = b"", data_start, {}
        for i, data in stored:
            placed[i] = (offset, len(data))
            offset += len(data)
        for i, _, data, _ in items:
            at, length = placed[i if isinstance(data, bytes) else data]
            entries += i.to_bytes(2, "big") + (0).to_bytes(2, "big") + (1).to_bytes(2, "big")
            entries += at.to_bytes(4, "big") + length.to_bytes(4, "big")
        iloc = box("iloc", bytes([0x44, 0x00]) + len(items).to_bytes(2, "big") + entries, (0, 0))
        return box("meta", box("hdlr", b"\0" * 4 + b"pict" + b"\0" * 12 + b"\0", (0, 0))
                   + box("pitm", primary.to_bytes(2, "big"), (0, 0))
                   + iloc + box("iinf", len(items).to_bytes(2, "big") + b"".join(infe), (0, 0)) + iref + iprp, (0, 0))

    # The offsets depend only on the meta box's size, which they do not change.
    meta = meta_box(0)
    start = len(ftyp) + len(meta) + 8
    return ftyp + meta_box(start) + box("mdat", b"".join(data for _, data in stored))


def grid_heif(picture, columns, rows, tile_width, tile_height, rotation=0, mirror=None, mirror_first=False,
              coding="hevc", **encoding):
    """The picture (an RGB array) cut into columns x rows tiles (padded with black), output cropped
    to its size, turned by irot and mirrored by imir in the order asked; coding "av1" writes an
    AVIF. `encoding` goes to Pillow's encoder (default quality 90)."""
    encoding = {"quality": 90, **encoding}
    height, width = picture.shape[:2]
    canvas = np.zeros((rows * tile_height, columns * tile_width, 3), np.uint8)
    canvas[:height, :width] = picture
    properties, items, associations = [], [], []
    tile_ids = []
    for row in range(rows):
        for column in range(columns):
            tile = canvas[row * tile_height:(row + 1) * tile_height, column * tile_width:(column + 1) * tile_width]
            encoded = pil_bytes(Image.fromarray(tile), format="AVIF" if coding == "av1" else "HEIF", **encoding)
            tile_properties, data = single_image(encoded)
            first = len(properties) + 1
            properties += tile_properties
            item = 2 + len(tile_ids)
            tile_ids.append(item)
            items.append((item, "av01" if coding == "av1" else "hvc1", data, True))
            associations.append((item, [(first + k, tile_properties[k][4:8] in (b"hvcC", b"av1C"))
                                        for k in range(len(tile_properties))]))
    properties.append(ispe(width, height))
    grid_properties = [(len(properties), False)]
    transformations = ([irot(rotation)] if rotation else []) + ([imir(mirror)] if mirror is not None else [])
    for transformation in reversed(transformations) if mirror_first else transformations:
        properties.append(transformation)
        grid_properties.append((len(properties), True))
    # ImageGrid: version 0, flags 0 (16-bit output size), rows - 1, columns - 1, output size.
    grid = bytes([0, 0, rows - 1, columns - 1]) + width.to_bytes(2, "big") + height.to_bytes(2, "big")
    return heif_file([(1, "grid", grid, False)] + items, 1, properties,
                     [(1, grid_properties)] + associations, [("dimg", 1, tile_ids)],
                     brand="avif" if coding == "av1" else "heic")
