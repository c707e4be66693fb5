"""Parsing the pieces every puzzle's instance text and ``-p KEY=VALUE`` parameters share."""

from __future__ import annotations

import re
from collections.abc import Mapping

from gridsat.models.errors import GridsatError, InvalidInstance, did_you_mean

# ASCII digits only: ``\d`` and ``str.isdigit`` also take other scripts' digits and superscripts,
# which ``int`` then rejects or reads. At most 18 of them: ``int`` of a 5,000-digit string fails
# (Python's conversion limit), and no count gridsat bounds needs more.
MAX_DIGITS = 18
_SIZE = re.compile(r"\s*([0-9]+)\s*[xX×]\s*([0-9]+)\s*", re.ASCII)
EXCERPT = 40  # characters of a bad value a message quotes


def excerpt(text: str, width: int = EXCERPT) -> str:
    """A bad value as a message quotes it: its repr, cut in the middle when long (with its length)."""
    if len(text) <= width:
        return repr(text)
    half = width // 2
    return f"{text[:half]!r}...{text[-half:]!r} ({len(text):,} characters)"


def overlong(digits: str, most: int = MAX_DIGITS) -> bool:
    """Whether a number has more than ``most`` digits as written: leading zeros count, so that one
    padded with thousands of them is refused like a long one, before ``int`` reads it."""
    return len(digits.strip().lstrip("+-")) > most


def integer(text: str, what: str, least: int | None = None, most: int | None = None,
            error: type[GridsatError] = InvalidInstance, digits: int = MAX_DIGITS) -> int:
    """A whole number written in ASCII digits (an optional sign, at most ``digits`` of them),
    range-checked; ``error`` names ``what`` and quotes an excerpt of the text otherwise."""
    named = what + ("" if not what or what.endswith("=") else " ") + excerpt(text)  # "parameter max='ten'"
    match = re.fullmatch(r"[+-]?[0-9]+", text.strip(), re.ASCII)
    if not match:
        raise error(f"{named} is not an integer (ASCII digits)")
    if overlong(text, digits):
        raise error(f"{named} has more than {digits} digits")
    value = int(text.strip())
    if least is not None and value < least:
        raise error(f"{named} must be at least {least}")
    if most is not None and value > most:
        raise error(f"{named} must be at most {most}")
    return value


def parse_size(text: str, what: str = "grid", max_cells: int = 1_000_000) -> tuple[int, int]:
    """``RxC`` as (rows, columns), both positive and the area bounded."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise InvalidInstance(f"bad {what} size {excerpt(text)}: expected ROWSxCOLUMNS, e.g. 4x7")
    if max(len(match[1].lstrip("0")), len(match[2].lstrip("0"))) > len(str(max_cells)):
        raise InvalidInstance(f"{what} {excerpt(text)} is too large: at most {max_cells} cells")
    if overlong(match[1]) or overlong(match[2]):
        raise InvalidInstance(f"bad {what} size {excerpt(text)}: a side has more than {MAX_DIGITS} digits")
    rows, cols = int(match[1]), int(match[2])
    if rows < 1 or cols < 1:
        raise InvalidInstance(f"bad {what} size {excerpt(text)}: rows and columns must be positive")
    if rows * cols > max_cells:
        raise InvalidInstance(f"{what} {excerpt(text)} is too large: {rows * cols} cells, at most {max_cells}")
    return rows, cols


def check_keys(params: Mapping[str, str], allowed: Mapping[str, str]) -> None:
    """Reject a parameter the puzzle does not take, listing those it does."""
    for key in params:
        if key not in allowed:
            valid = ", ".join(allowed) or "none"
            raise InvalidInstance(f"unknown parameter {excerpt(key)}; {did_you_mean(key, allowed)}valid: {valid}")


def int_param(params: Mapping[str, str], key: str, default: int, minimum: int | None = None) -> int:
    """An integer parameter, with its bad value named on failure."""
    if key not in params:
        return default
    return integer(params[key], f"parameter {key}=", least=minimum)


def bool_param(params: Mapping[str, str], key: str, default: bool) -> bool:
    """``true/false/yes/no/1/0`` as a bool."""
    if key not in params:
        return default
    text = params[key].strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise InvalidInstance(f"parameter {key}={excerpt(params[key])} is not a boolean (true or false)")
