"""safetensors reading and writing with numpy.

File layout: u64 little-endian N, then N bytes of UTF-8 JSON header, then the data section.
Header: {"__metadata__": {str: str}, name: {"dtype", "shape", "data_offsets": [begin, end]}};
offsets are relative to the start of the data section, tensors are contiguous, in header order,
row-major, little-endian. The writer pads the header with spaces to a multiple of 8 bytes and
requires every tensor's byte size to be a multiple of 8, so each tensor starts 8-byte aligned
in the file while the file stays strictly standard (no holes between tensors).
"""

import json
import struct

import numpy as np

_DTYPES = {
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"), "I32": np.dtype("<i4"), "I16": np.dtype("<i2"), "I8": np.dtype("i1"),
    "U8": np.dtype("u1"), "BOOL": np.dtype("?"),
}
_NAMES = {v: k for k, v in _DTYPES.items()}
ALIGNMENT = 8


def dumps(tensors, metadata=None):
    """tensors: iterable of (name, array) in the order to store; metadata: {str: str}."""
    header = {}
    if metadata:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("safetensors metadata keys and values must be strings")
        header["__metadata__"] = dict(metadata)
    chunks = []
    offset = 0
    for name, array in tensors:
        if name == "__metadata__" or name in header:
            raise ValueError(f"bad or duplicate tensor name {name!r}")
        dtype = np.dtype(array.dtype).newbyteorder("<") if array.dtype.itemsize > 1 \
            else np.dtype(array.dtype)
        if dtype not in _NAMES:
            raise TypeError(f"{name}: unsupported dtype {array.dtype}")
        raw = np.ascontiguousarray(array, dtype=dtype).tobytes()
        if len(raw) % ALIGNMENT:
            raise ValueError(f"{name}: {len(raw)} bytes would break {ALIGNMENT}-byte alignment")
        header[name] = {"dtype": _NAMES[dtype], "shape": [int(d) for d in array.shape],
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode("utf-8")
    text += b" " * (-len(text) % ALIGNMENT)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def loads(data):
    """Return (OrderedDict-like dict {name: array} in header order, metadata dict)."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {}
    expected = 0
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        begin, end = info["data_offsets"]
        if begin != expected or end < begin:
            raise ValueError(f"{name}: tensors are not contiguous")
        expected = end
        dtype = _DTYPES[info["dtype"]]
        shape = tuple(info["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        if count * dtype.itemsize != end - begin:
            raise ValueError(f"{name}: size does not match shape")
        tensors[name] = np.frombuffer(data, dtype=dtype, count=count,
                                      offset=base + begin).reshape(shape)
    if base + expected != len(data):
        raise ValueError("data section size does not match the header")
    ordered = {k: tensors[k] for k in header}
    return ordered, metadata
