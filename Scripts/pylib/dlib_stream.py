"""Reading dlib's serialization format (dlib/serialize.h), enough for its face models.

Integers: one byte holding the byte count (low nibble) and the sign (0x80), then that many
little-endian magnitude bytes. Strings: an integer length, then the bytes. Booleans: the
character '0' or '1'. Floats outside tensors: an integer mantissa then an integer exponent,
value = mantissa * 2**exponent (exponents 32000-32002 mean inf, -inf, nan). DNN tensors: integer
version 2, then num_samples, k, nr, nc, then the values as little-endian IEEE float32. Matrices:
-rows and -columns as integers (negative in the current format), then each value as a float.
"""

import numpy as np

_SPECIAL_EXPONENTS = {32000: float("inf"), 32001: float("-inf"), 32002: float("nan")}


class DlibStreamError(ValueError):
    pass


class DlibStream:
    def __init__(self, data, name):
        self.data = data
        self.name = name
        self.pos = 0

    def fail(self, message):
        raise DlibStreamError(f"{self.name}: byte {self.pos}: {message}")

    def _take(self, count):
        if self.pos + count > len(self.data):
            self.fail(f"needs {count} more bytes, the file ends")
        chunk = self.data[self.pos:self.pos + count]
        self.pos += count
        return chunk

    def int(self):
        head = self._take(1)[0]
        size = head & 0x0F
        if size > 8 or head & 0x70:
            self.fail(f"bad integer header 0x{head:02x}")
        value = int.from_bytes(self._take(size), "little")
        return -value if head & 0x80 else value

    def string(self):
        length = self.int()
        if length < 0 or length > 1 << 20:
            self.fail(f"bad string length {length}")
        return self._take(length).decode("latin-1")

    def expect_string(self, *allowed):
        value = self.string()
        if value not in allowed:
            self.fail(f"expected {' or '.join(allowed)}, found {value!r}")
        return value

    def bool(self):
        value = self._take(1)
        if value not in (b"0", b"1"):
            self.fail(f"bad boolean {value!r}")
        return value == b"1"

    def float(self):
        mantissa = self.int()
        exponent = self.int()
        if exponent in _SPECIAL_EXPONENTS:
            return _SPECIAL_EXPONENTS[exponent]
        return float(mantissa) * 2.0 ** exponent

    def tensor(self):
        """A DNN tensor as a float32 array of shape (num_samples, k, nr, nc)."""
        version = self.int()
        if version != 2:
            self.fail(f"tensor version {version}, expected 2")
        shape = tuple(self.int() for _ in range(4))
        if any(d < 0 for d in shape):
            self.fail(f"bad tensor shape {shape}")
        count = int(np.prod(shape))
        return np.frombuffer(self._take(4 * count), dtype="<f4").reshape(shape)

    def alias_tensor(self):
        version = self.int()
        if version != 1:
            self.fail(f"alias_tensor version {version}, expected 1")
        return tuple(self.int() for _ in range(4))

    def matrix(self):
        """A column vector or matrix of floats (each as mantissa and exponent)."""
        rows, columns = self.int(), self.int()
        rows, columns = abs(rows), abs(columns)
        return np.array([self.float() for _ in range(rows * columns)], dtype=np.float64).reshape(rows, columns)

    def at_end(self):
        return self.pos == len(self.data)
