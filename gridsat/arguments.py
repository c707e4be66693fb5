"""The argparse types of every command-line value: numbers range-checked before conversion, in
ASCII digits, and no blank value taken for a default; and the parser that reports a usage error in
one line. Shared by ``gridsat``, ``gridsat bench`` and the benchmark scripts. And ``flagged``: a refusal
from below the API, which names each option by its keyword (``parts=8``), said with the parser's flags."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from gridsat.models.errors import InvalidOption
from gridsat.models.params import MAX_DIGITS, excerpt, integer


def at_least(least: int | None, digits: int = MAX_DIGITS, most: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least`` (and at most ``most``), in ASCII digits."""

    def parse(text: str) -> int:
        try:
            return integer(text, "", least=least, most=most, error=InvalidOption, digits=digits)
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


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, naming a value argparse took for an option."""

    argv: list[str] = []  # the command line being parsed, for the error of whichever subcommand fails

    def add_argument(self, *names: Any, **options: Any) -> argparse.Action:
        """Every value that takes no type of its own is checked by ``text``: none may be blank."""
        if options.get("action", "store") in ("store", "append") and "type" not in options and not names[0] == "-h":
            options["type"] = text
        return super().add_argument(*names, **options)

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        Parser.argv = list(sys.argv[1:] if args is None else args)
        return super().parse_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        missing = "expected one argument" in message or "arguments are required" in message
        self.exit(2, f"gridsat: error: {message}{self.dash_hint() if missing else ''}\n")

    def dash_hint(self) -> str:
        """Why argparse missed a value: it starts with '-' (``--encoding -x``, a size ``-1x0``), so it
        looked like an option; say which, and how to write it."""
        known = set(self._option_string_actions)
        odd = [a for a in Parser.argv if a.startswith("-") and a != "--" and a.partition("=")[0] not in known
               and not self._negative_number_matcher.match(a)]
        if not odd:
            return ""
        return f" ({', '.join(map(repr, odd))} is read as an option: write a value that starts with '-' as " \
               f"--option=VALUE, or after --)"


# An option as a refusal names it (models.errors): its API keyword, then ``=`` and its value if any. Not
# after a word, a dash, a quote, a path or a query: ``'a=b'`` or ``?x=1`` is a value, not an option.
OPTION = re.compile(r"(?<![\w.'\"/?&=-])([a-z][a-z0-9_]*)=(True\b)?")
CLOSERS = ",;:)]"  # what may follow an option named without its value


def flags(parser: argparse.ArgumentParser) -> dict[str, tuple[str, bool]]:
    """Each option of ``parser`` by its keyword (its ``dest``, as the API names it: ``time_limit``): its
    flag (the first long one, ``--time-limit``) and whether it is a switch that takes no value."""
    found: dict[str, tuple[str, bool]] = {}
    for action in parser._actions:  # argparse offers no public list of a parser's options
        long = [s for s in action.option_strings if s.startswith("--")]
        if long and action.dest not in found:
            found[action.dest] = (long[0], action.nargs == 0)
    return found


def flagged(message: str, options: Mapping[str, tuple[str, bool]]) -> str:
    """``message`` as the command line says it: each option it names as the API's keyword (``parts=8``,
    ``time_limit=``, ``certify=True``) shown as its flag in ``options`` (``--parts 8``, ``--time-limit``,
    ``--certify``); a keyword the command has no flag for stays as it is."""

    def flag(match: re.Match[str]) -> str:
        if match[1] not in options:
            return match[0]
        spelled, switch = options[match[1]]
        if switch:
            return spelled if match[2] or not value_after(match.end()) else match[0]
        value = match[2] or ""
        return f"{spelled} {value}" if value or value_after(match.end()) else spelled

    def value_after(end: int) -> bool:
        return end < len(message) and not message[end].isspace() and message[end] not in CLOSERS

    return OPTION.sub(flag, message)
