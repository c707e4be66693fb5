"""The errors gridsat raises; the CLI turns each into one line on stderr and exit status 2.

Input errors (``InvalidInstance``, ``UnknownName``, ``InvalidOption``) are ``ValueError`` too, so a
caller of the Python API can catch them the usual way; their message is the line the CLI prints (but
for how it names an option, below).

A refusal names an option as the API's keyword: ``parts=8`` (with its value), ``time_limit=`` (without),
``certify=True`` (a switch), so a Python caller is never told of a flag. The command line shows each as its
flag (``--parts 8``, ``--time-limit``, ``--certify``), mapped from its own parser in one place
(``gridsat.arguments.flagged``). An ``InvalidInstance`` names the puzzle's parameters (``max='-4'``),
never options, and is shown as it is.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CLOSE = 0.6  # difflib's similarity below which a valid name is no suggestion


def folded(name: str) -> str:
    """A name as a user may mean it: case, ``_`` for ``-`` and surrounding blanks aside."""
    return name.strip().lower().replace("_", "-")


def closest(name: str, valid: Iterable[str], most: int = 3) -> list[str]:
    """The valid names ``name`` most likely meant: those equal to it but for case and ``_``/``-``,
    else up to ``most`` close ones (difflib), closest first."""
    valid = list(dict.fromkeys(valid))
    same = [v for v in valid if folded(v) == folded(name)]
    if same:
        return same
    by_fold = {folded(v): v for v in reversed(valid)}  # the first spelling of a folded name wins
    return [by_fold[f] for f in difflib.get_close_matches(folded(name), list(by_fold), n=most, cutoff=CLOSE)]


def did_you_mean(name: str, valid: Iterable[str]) -> str:
    """``"did you mean 'x'? "`` for the closest valid names (to go before the list of valid ones), or
    nothing when none is close."""
    found = [repr(v) for v in closest(name, valid)]
    if not found:
        return ""
    listed = found[0] if len(found) == 1 else f"{', '.join(found[:-1])} or {found[-1]}"
    return f"did you mean {listed}? "


class GridsatError(Exception):
    """Root of every error that is the user's input or setup, not a bug."""


class InvalidInstance(GridsatError, ValueError):
    """An instance or parameter that does not describe a puzzle."""


class InvalidOption(GridsatError, ValueError):
    """An option that does not fit the rest of the request (e.g. a solver for a backend that has none)."""


class UnknownName(GridsatError, ValueError):
    """A name (puzzle, backend, encoding, solver, algorithm, suite) that is not registered."""

    def __init__(self, kind: str, name: str, valid: list[str] | tuple[str, ...], where: str = "", *,
                 word: str | None = None, hint: str = "") -> None:
        """``word`` is the part of ``name`` the suggestions are for (default: all of it); ``hint`` ends the line."""
        suggestion = did_you_mean(name if word is None else word, valid)
        super().__init__(f"unknown {kind} {name!r}{where}; {suggestion}valid: {', '.join(valid)}{hint}")
        self.kind, self.name, self.valid = kind, name, tuple(valid)


class UnknownEncoding(UnknownName):
    """An encoding name that the puzzle's formulation does not offer."""

    def __init__(self, name: str, valid: list[str] | tuple[str, ...], where: str = "", *,
                 word: str | None = None, hint: str = "") -> None:
        super().__init__("encoding", name, valid, where, word=word, hint=hint)


class BackendUnavailable(GridsatError, RuntimeError):
    """A backend whose optional package is not installed, or that cannot run this puzzle."""
