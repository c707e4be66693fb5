"""The reference searches of a puzzle, found through its declaration (see ``gridsat.models.search``)."""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models import get_puzzle
from gridsat.models.errors import BackendUnavailable, UnknownName
from gridsat.models.puzzle import Puzzle
from gridsat.models.search import Algorithm


def algorithms(puzzle: Puzzle | str) -> Mapping[str, Algorithm]:
    """The reference algorithms of ``puzzle`` (a registered name, or the object; empty when it has none)."""
    if isinstance(puzzle, str):
        puzzle = get_puzzle(puzzle)
    declared = puzzle.reference
    if declared is None:
        return {}
    return declared() if callable(declared) else declared


def algorithm(puzzle: Puzzle | str, name: str | None) -> Algorithm:
    """One algorithm by name, the default when ``name`` is None."""
    table = algorithms(puzzle)
    if not table:
        title = puzzle if isinstance(puzzle, str) else puzzle.name
        raise BackendUnavailable(f"puzzle {title!r} has no reference algorithm")
    if name is None:
        return next(iter(table.values()))
    if name not in table:
        raise UnknownName("algorithm", name, list(table))
    return table[name]
