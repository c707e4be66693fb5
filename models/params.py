"""Parsing the pieces every puzzle's instance text and ``-p KEY=VALUE`` parameters share."""

from __future__ import annotations

import re
from collections.abc import Mapping

from gridsat.models.errors import InvalidInstance

_SIZE = re.compile(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*")


def parse_size(text: str, what: str = "grid", max_cells: int = 1_000_000) -> tuple[int, int]:
    """``RxC`` as (rows, columns), both positive and the area bounded."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise InvalidInstance(f"bad {what} size {text!r}: expected ROWSxCOLUMNS, e.g. 4x7")
    rows, cols = int(match[1]), int(match[2])
    if rows < 1 or cols < 1:
        raise InvalidInstance(f"bad {what} size {text!r}: rows and columns must be positive")
    if rows * cols > max_cells:
        raise InvalidInstance(f"{what} {text!r} is too large: {rows * cols} cells, at most {max_cells}")
    return rows, cols


def check_keys(params: Mapping[str, str], allowed: Mapping[str, str]) -> None:
    """Reject a parameter the puzzle does not take, listing those it does."""
    for key in params:
        if key not in allowed:
            valid = ", ".join(allowed) or "none"
            raise InvalidInstance(f"unknown parameter {key!r}; valid: {valid}")


def int_param(params: Mapping[str, str], key: str, default: int, minimum: int | None = None) -> int:
    """An integer parameter, with its bad value named on failure."""
    if key not in params:
        return default
    text = params[key]
    try:
        value = int(text)
    except ValueError:
        raise InvalidInstance(f"parameter {key}={text!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise InvalidInstance(f"parameter {key}={text!r} must be at least {minimum}")
    return value


def bool_param(params: Mapping[str, str], key: str, default: bool) -> bool:
    """``true/false/yes/no/1/0`` as a bool."""
    if key not in params:
        return default
    text = params[key].strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise InvalidInstance(f"parameter {key}={params[key]!r} is not a boolean (true or false)")
