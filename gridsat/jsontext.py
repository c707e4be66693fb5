"""JSON for people and programs at once: one document, indented like ``json.dumps(indent=2)``, but
with the small lists a solution is made of kept on one line (a grid row, a mat, a square, a
rectangle), and runs of squares or rectangles wrapped several to a line. ``json.loads`` reads it
back unchanged."""

from __future__ import annotations

import json
from typing import Any

WIDTH = 100  # columns a line may use before a list breaks over lines
SMALL = 4  # lists of at most this many scalars (squares, rectangles) are wrapped several to a line


def dumps(value: Any, indent: int = 2) -> str:
    """``value`` as one JSON document (see the module's docstring for the layout)."""
    return _layout(value, 0, indent)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "))


def _scalar(value: Any) -> bool:
    return not isinstance(value, (list, dict))


def _layout(value: Any, depth: int, step: int) -> str:
    pad, inner = " " * depth, " " * (depth + step)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(str(k))}: {_layout(v, depth + step, step)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if not isinstance(value, list):
        return json.dumps(value)
    flat = _compact(value)
    if all(map(_scalar, value)) or len(flat) + depth <= WIDTH:
        return flat  # a row of numbers, or anything short, stays on one line
    if all(isinstance(v, list) and len(v) <= SMALL and all(map(_scalar, v)) for v in value):
        return "[\n" + ",\n".join(_wrapped([_compact(v) for v in value], inner)) + f"\n{pad}]"
    return "[\n" + ",\n".join(inner + _layout(v, depth + step, step) for v in value) + f"\n{pad}]"


def _wrapped(parts: list[str], inner: str) -> list[str]:
    """Pieces joined by ", " into lines of at most ``WIDTH`` columns."""
    lines, line = [], ""
    for part in parts:
        if line and len(inner) + len(line) + len(part) + 2 > WIDTH:
            lines.append(inner + line)
            line = ""
        line = f"{line}, {part}" if line else part
    return lines + [inner + line] if line else lines
