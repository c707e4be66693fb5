"""Solutions as SVG: one picture with a title line, or a sheet of small multiples."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from gridsat.models import svg
from gridsat.models.errors import InvalidOption
from gridsat.models.puzzle import Instance, Puzzle

SHEET_TILE = 200.0  # px: the larger side of one drawing on a sheet


def drawer(puzzle: Puzzle) -> Any:
    """The puzzle's ``draw``, or a clear error for a puzzle that has none."""
    if puzzle.pictures is None:
        raise InvalidOption(f"puzzle {puzzle.name!r} has no SVG drawing")
    return puzzle.pictures.draw


def still(puzzle: Puzzle, instance: Instance, solution: Any, label: str) -> str:
    """One solution under the title line ``puzzle instance · label``."""
    figure = drawer(puzzle)(instance, solution, None)
    return svg.to_text(svg.picture(figure, f"{puzzle.name} {puzzle.describe(instance)} · {label}"))


def sheet(puzzle: Puzzle, instance: Instance, solutions: Sequence[Any], label: str, state: str) -> str:
    """Every solution small, numbered in the order found, under one title line."""
    draw = drawer(puzzle)
    unit = draw(instance, None, 1.0)  # one pixel a cell: the board's size in cells
    cell = max(6.0, min(36.0, math.floor(SHEET_TILE / max(unit.width, unit.height))))
    figures = [draw(instance, solution, cell) for solution in solutions] or [draw(instance, None, cell)]
    captions = [f"#{i}" for i in range(1, len(solutions) + 1)] or ["no solution"]
    count = f"{len(solutions)} solution{'' if len(solutions) == 1 else 's'}"
    title = f"{puzzle.name} {puzzle.describe(instance)} · {label} · {count} ({state})"
    return svg.to_text(svg.sheet(figures, captions, title))
