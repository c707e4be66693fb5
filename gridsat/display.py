"""The SVG drawing of solutions that results show in a notebook (see gridsat.solvers.reprs, which
builds the rest and cannot import this layer's pictures itself)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gridsat.models.errors import InvalidOption
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.pictures import drawer, sheet, still
from gridsat.solvers.reprs import use_painter


def paint(puzzle: Puzzle, instance: Instance, solutions: Sequence[Any], label: str, state: str) -> str | None:
    """One solution as a picture, several as a sheet; None when the puzzle has no drawing."""
    try:
        drawer(puzzle)
    except InvalidOption:
        return None
    if len(solutions) == 1:
        return still(puzzle, instance, solutions[0], label)
    return sheet(puzzle, instance, solutions, label, state)


use_painter(paint)
