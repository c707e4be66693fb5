"""Reference algorithms: the seed documents' own searches, reimplemented independently of any encoding.

A puzzle names the module holding its ``ALGORITHMS`` in ``Puzzle.reference``; that dict maps a name
to an ``Algorithm``, and its first entry is the default.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gridsat.models.errors import BackendUnavailable, UnknownName
from gridsat.models.puzzle import Puzzle
from gridsat.solvers.stop import Stop


@dataclass(frozen=True)
class Algorithm:
    """A search that yields canonical solutions and polls ``stop`` while it works."""

    name: str
    summary: str
    run: Callable[[Any, Stop], Iterator[Any]]
    exhaustive: bool = True  # False: finds some solutions (e.g. one), so its count is never complete


def algorithms(puzzle: Puzzle) -> dict[str, Algorithm]:
    """The reference algorithms of ``puzzle`` (empty when it has none)."""
    if puzzle.reference is None:
        return {}
    return importlib.import_module(puzzle.reference).ALGORITHMS


def algorithm(puzzle: Puzzle, name: str | None) -> Algorithm:
    """One algorithm by name, the default when ``name`` is None."""
    table = algorithms(puzzle)
    if not table:
        raise BackendUnavailable(f"puzzle {puzzle.name!r} has no reference algorithm")
    if name is None:
        return next(iter(table.values()))
    if name not in table:
        raise UnknownName("algorithm", name, list(table))
    return table[name]
