"""Puzzle formulations: one module per puzzle family, the shared formulation types, and the registry.

The registry is an explicit, ordered mapping: the built-in puzzles in the order of the seed
documents, then the puzzles that installed packages register under the entry point group
``gridsat.puzzles`` (each entry point names a ``Puzzle`` object, e.g.
``nqueens = gridsat_nqueens:PUZZLE``). Puzzle modules are imported on first use, so listing names
is cheap; a plugin that fails to load is reported in one line and never breaks the others.
"""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import EntryPoint, entry_points

from gridsat.models.errors import BackendUnavailable, UnknownName
from gridsat.models.puzzle import Puzzle

ENTRY_POINTS = "gridsat.puzzles"

PUZZLES: dict[str, str] = {
    "tatami": "gridsat.models.tatami",
    "prime-grid": "gridsat.models.prime_grid",
    "shikaku": "gridsat.models.shikaku",
    "knights-tour": "gridsat.models.knights_tour",
}


@functools.cache
def plugins() -> dict[str, EntryPoint]:
    """The entry points of installed plugins by puzzle name (a built-in name is never shadowed)."""
    found: dict[str, EntryPoint] = {}
    for point in sorted(entry_points(group=ENTRY_POINTS), key=lambda p: p.name):
        if point.name not in PUZZLES:
            found.setdefault(point.name, point)
    return found


def names() -> list[str]:
    """Every puzzle name: built-ins in seed order, then plugins by name."""
    return [*PUZZLES, *plugins()]


@functools.cache
def get_puzzle(name: str) -> Puzzle:
    """The puzzle called ``name``; a plugin that does not load raises ``BackendUnavailable``, in one line."""
    if name in PUZZLES:
        return importlib.import_module(PUZZLES[name]).PUZZLE
    if name not in plugins():
        raise UnknownName("puzzle", name, names())
    point = plugins()[name]
    where = f"plugin {name!r} ({point.value}{distribution(point)})"
    try:
        puzzle = point.load()
    except Exception as error:  # a plugin's own bug: reported, never fatal to gridsat
        raise BackendUnavailable(f"{where} failed to load: {type(error).__name__}: {one_line(error)}") from None
    if not isinstance(puzzle, Puzzle):
        raise BackendUnavailable(f"{where} is a {type(puzzle).__name__}, not a gridsat Puzzle")
    if puzzle.name != name:
        raise BackendUnavailable(f"{where} holds a puzzle named {puzzle.name!r}, not {name!r}")
    return puzzle


def shadowed() -> list[str]:
    """One line per plugin entry point that tries to take a built-in puzzle's name."""
    return [f"plugin entry point {p.name!r} ({p.value}) is ignored: a built-in puzzle has that name"
            for p in entry_points(group=ENTRY_POINTS) if p.name in PUZZLES]


def distribution(point: EntryPoint) -> str:
    """``, from dist-name`` when the entry point knows its distribution."""
    dist = getattr(point, "dist", None)
    return f", from {dist.name}" if dist is not None else ""


def one_line(error: BaseException) -> str:
    """An exception's message on one line."""
    return " ".join(str(error).split()) or "(no message)"
