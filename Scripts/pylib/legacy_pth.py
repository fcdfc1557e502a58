"""Reader for PyTorch's legacy (non-zip) serialization format, without torch.

Layout of such a file: five pickles and raw storage bytes, back to back:
  1. the magic number 0x1950a86a20f9469cfc6c
  2. the protocol version (1001)
  3. a dict describing the writer (endianness, type sizes)
  4. the object itself (here the state dict); every tensor storage appears as a persistent id
     ('storage', storage_type, key, location, numel[, view_metadata]) and tensors are rebuilt
     with torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)
  5. the list of storage keys, in the order their bytes follow
then, for each key in that order: an int64 little-endian element count and the raw
little-endian element bytes.

load() returns an OrderedDict {name: numpy array} (contiguous copies, storage dtype kept).
Only the globals listed in _GLOBALS are resolved; anything else is refused.
"""

import collections
import io
import pickle
import struct

import numpy as np

MAGIC = 0x1950a86a20f9469cfc6c
PROTOCOL = 1001

_STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "HalfStorage": np.float16,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}


class _StorageType:
    def __init__(self, name):
        self.name = name
        self.dtype = np.dtype(_STORAGE_DTYPES[name]).newbyteorder("<")


class _StorageRef:
    def __init__(self, key, storage_type, numel):
        self.key = key
        self.dtype = storage_type.dtype
        self.numel = numel


class _TensorRef:
    """A tensor whose storage bytes have not been read yet."""

    def __init__(self, storage, offset, size, stride):
        self.storage = storage
        self.offset = offset
        self.size = tuple(size)
        self.stride = tuple(stride)

    def materialize(self, arrays):
        base = arrays[self.storage.key]
        if not self.size:
            return np.array(base[self.offset])
        last = self.offset + sum((n - 1) * s for n, s in zip(self.size, self.stride) if n > 0)
        if any(n == 0 for n in self.size):
            return np.zeros(self.size, dtype=base.dtype)
        if last >= base.size:
            raise ValueError("tensor view runs past the end of its storage")
        itemsize = base.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            base[self.offset:], shape=self.size,
            strides=tuple(s * itemsize for s in self.stride), writeable=False)
        return np.ascontiguousarray(view)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, *unused):
    return _TensorRef(storage, storage_offset, size, stride)


_GLOBALS = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _GLOBALS:
            return _GLOBALS[(module, name)]
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        raise pickle.UnpicklingError(f"refusing to load global {module}.{name}")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        _, storage_type, key, _location, numel = pid[:5]
        if len(pid) > 5 and pid[5] is not None:
            raise pickle.UnpicklingError("storage views are not supported")
        return _StorageRef(key, storage_type, numel)


def _walk(obj, fn):
    if isinstance(obj, _TensorRef):
        return fn(obj)
    if isinstance(obj, collections.OrderedDict):
        return collections.OrderedDict((k, _walk(v, fn)) for k, v in obj.items())
    if isinstance(obj, dict):
        return {k: _walk(v, fn) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_walk(v, fn) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_walk(v, fn) for v in obj)
    return obj


def loads(data):
    f = io.BytesIO(data)
    if pickle.load(f) != MAGIC:
        raise ValueError("not a legacy PyTorch file (bad magic number)")
    if pickle.load(f) != PROTOCOL:
        raise ValueError("unsupported legacy PyTorch protocol version")
    sys_info = pickle.load(f)
    if not sys_info.get("little_endian", False):
        raise ValueError("big-endian PyTorch files are not supported")

    storages = {}

    def collect(t):
        s = t.storage
        prev = storages.setdefault(s.key, s)
        if prev.dtype != s.dtype or prev.numel != s.numel:
            raise ValueError(f"storage {s.key} used with inconsistent types")
        return t

    obj = _Unpickler(f).load()
    _walk(obj, collect)
    keys = pickle.load(f)

    arrays = {}
    for key in keys:
        (count,) = struct.unpack("<q", f.read(8))
        s = storages.get(key)
        if s is None:
            raise ValueError(f"storage {key} is not referenced by any tensor")
        if count != s.numel:
            raise ValueError(f"storage {key}: {count} elements, expected {s.numel}")
        nbytes = count * s.dtype.itemsize
        raw = f.read(nbytes)
        if len(raw) != nbytes:
            raise ValueError("file truncated")
        arrays[key] = np.frombuffer(raw, dtype=s.dtype).astype(s.dtype.newbyteorder("="))
    missing = set(storages) - set(arrays)
    if missing:
        raise ValueError(f"storages without data: {sorted(missing)}")
    if f.read(1):
        raise ValueError("trailing bytes after the last storage")
    return _walk(obj, lambda t: t.materialize(arrays))


def load(path):
    with open(path, "rb") as fh:
        return loads(fh.read())
