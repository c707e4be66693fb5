"""Reference algorithms: the seed documents' own searches, reimplemented independently of any encoding.

``REFERENCES`` maps a puzzle name to the module holding its ``ALGORITHMS``; the first algorithm is
the default.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gridsat.models.errors import BackendUnavailable, UnknownName
from gridsat.solvers.stop import Stop

REFERENCES: dict[str, str] = {
    "tatami": "gridsat.solvers.reference.tatami",
    "prime-grid": "gridsat.solvers.reference.prime_grid",
    "shikaku": "gridsat.solvers.reference.shikaku",
    "knights-tour": "gridsat.solvers.reference.knights_tour",
}


@dataclass(frozen=True)
class Algorithm:
    """A search that yields canonical solutions and polls ``stop`` while it works."""

    name: str
    summary: str
    run: Callable[[Any, Stop], Iterator[Any]]
    exhaustive: bool = True  # False: finds some solutions (e.g. one), so its count is never complete


def algorithms(puzzle: str) -> dict[str, Algorithm]:
    """The reference algorithms registered for ``puzzle``."""
    if puzzle not in REFERENCES:
        raise BackendUnavailable(f"no reference algorithm for puzzle {puzzle!r}")
    return importlib.import_module(REFERENCES[puzzle]).ALGORITHMS


def algorithm(puzzle: str, name: str | None) -> Algorithm:
    """One algorithm by name, the default when ``name`` is None."""
    table = algorithms(puzzle)
    if name is None:
        return next(iter(table.values()))
    if name not in table:
        raise UnknownName("algorithm", name, list(table))
    return table[name]
