"""Deterministic, readable JSON: 2-space indentation, but any object or array whose members
are all scalars or arrays of scalars is written on a single line. Key order is the dict's
insertion order (callers build dicts in a fixed order). ASCII only, trailing newline."""

import json
import math


def _scalar(v):
    return v is None or isinstance(v, (str, bool, int, float))


def _flat(v):
    if isinstance(v, list):
        return all(_scalar(x) for x in v)
    if isinstance(v, dict):
        return all(_scalar(x) or (isinstance(x, list) and all(_scalar(y) for y in x))
                   for x in v.values())
    return True


def _inline(v):
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError("non-finite float in JSON output")
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_inline(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + _inline(x) for k, x in v.items()) + "}"
    return json.dumps(v, ensure_ascii=True)


def _block(v, indent):
    if _scalar(v) or _flat(v):
        return _inline(v)
    pad = "  " * (indent + 1)
    if isinstance(v, list):
        if not v:
            return "[]"
        return "[\n" + ",\n".join(pad + _block(x, indent + 1) for x in v) + "\n" + "  " * indent + "]"
    return ("{\n" + ",\n".join(pad + json.dumps(k) + ": " + _block(x, indent + 1)
                               for k, x in v.items()) + "\n" + "  " * indent + "}")


def dumps(obj):
    return _block(obj, 0) + "\n"
