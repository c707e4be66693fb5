"""The argparse types of every command-line value: numbers range-checked before conversion, in
ASCII digits, and no blank value taken for a default. Shared by ``gridsat`` and ``gridsat bench``."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

from gridsat.models.errors import InvalidOption
from gridsat.models.params import MAX_DIGITS, excerpt, integer


def at_least(least: int | None, digits: int = MAX_DIGITS) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``, in ASCII digits."""

    def parse(text: str) -> int:
        try:
            return integer(text, "", least=least, error=InvalidOption, digits=digits)
        except InvalidOption as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


positive_int, whole = at_least(1), at_least(0)
any_int = at_least(None, digits=1000)  # random seeds: any size Python's random takes, within reason


def count_or_all(text: str) -> int | str:
    """An argparse type: a whole number of at least 1, or ``all``."""
    if text == "all":
        return text
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{error}; or 'all'") from None


MAX_SECONDS = 1e9  # about 30 years: a larger time limit is a typo, and inf would reach the solvers


def positive_float(text: str) -> float:
    """An argparse type: a positive, finite number of seconds (``1e309`` is not one)."""
    try:
        value = float(text) if text.isascii() else math.nan
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"{excerpt(text)} is not a number")
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{excerpt(text)} must be positive and at most {MAX_SECONDS:g}")
    return value


def percent(text: str) -> float:
    """An argparse type: a percentage from 0 to 100."""
    try:
        value = float(text) if text.isascii() else math.nan
    except ValueError:
        value = math.nan
    if not 0 <= value <= 100:  # NaN fails too
        raise argparse.ArgumentTypeError(f"{excerpt(text)} is not a percentage from 0 to 100")
    return value


def folder(value: str) -> Path:
    """An argparse type: a folder to write into (a blank one would be this folder, silently)."""
    return Path(text(value))


def text(value: str) -> str:
    """The argparse type of every other value: an empty or blank one is an error, never a default."""
    if not value.strip():
        raise argparse.ArgumentTypeError(f"{value!r} is empty")
    return value
