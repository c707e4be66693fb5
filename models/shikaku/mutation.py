"""The cases ``gridsat mutate shikaku`` judges mutants on, the boards it tries survivors on, and the
cells a rectangle variable is about."""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models import golden
from gridsat.models.formulation import Key
from gridsat.models.parts import Case
from gridsat.models.shikaku.formats import read, to_game_id
from gridsat.models.shikaku.formulations import Cell


def corpus() -> list[Case]:
    """The golden counts that take under a few seconds; a file name is read from the golden folder."""
    cases = golden.cases("shikaku/golden", "instance")
    return [Case(str(golden.path("shikaku", c.text)) if c.text.endswith(".txt") else c.text, c.params, c.count,
                 c.source) for c in cases]


def checkerboard(rows: int, cols: int) -> str:
    """A game id with a 2 on every cell of one colour: its solutions are the grid's domino tilings."""
    return to_game_id(read("\n".join(" ".join("2" if (r + c) % 2 == 0 else "." for c in range(cols))
                                     for r in range(rows))))


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """Domino checkerboards up to 4x4, then generated puzzles up to 5x5 (fixed seeds), as game ids."""
    # Importing the generator module rebinds this package's ``generate`` to that module: call it by module.
    from gridsat.models.shikaku.generate import generate as make

    boards = [checkerboard(r, c) for r, c in ((2, 2), (2, 3), (3, 4), (4, 4))]
    for size in ("3x3", "3x4", "4x4", "4x5", "5x5"):
        boards += [to_game_id(read(make(size, seed=seed))) for seed in range(3)]
    return [(b, {}) for b in boards]


def rect_cells(key: Key) -> list[Cell]:
    """A rectangle variable ``(tag, clue, top, left, height, width)`` is about its two corner cells; any
    other (an auxiliary, such as a CP-SAT symmetry-breaking chain's, named by a string) about none."""
    if not (isinstance(key, tuple) and key[:1] == ("rect",)):
        return []
    top, left, height, width = key[-4:]
    return [(top, left), (top + height - 1, left + width - 1)]
