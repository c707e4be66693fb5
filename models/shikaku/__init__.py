"""Shikaku (Tatham's "Rectangles"): divide the grid into rectangles, one per clue, of the clue's area.

Seed: the rectangle-puzzle write-up (a 12x12 grid with 22 clues and one solution, printed as letters).
Every clue chooses one candidate rectangle: one that contains the clue, has the clue's area, fits
in the grid and contains no other clue. Variables: ``("rect", i, top, left, height, width)`` is
true when clue ``i`` takes that rectangle, so a solution is exactly a choice of rectangles. The
rules are exact cover: each clue takes one candidate, and each cell lies in one chosen rectangle.
A solution lists ``[row, col, height, width]`` (top-left cell and size) per clue, in row-major
clue order. Clues that do not sum to the grid's area are a valid puzzle with no solution; the
instance's description says so.

The package: ``formats`` (the board and its text forms), ``formulations``, ``solution`` (verify,
render), ``reference`` (the search), ``generate`` (random puzzles), and the parts ``symmetry``,
``pictures`` and ``mutation``. This file assembles them.
"""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models.breaking import axis, breaking
from gridsat.models.encoding import EncodingSpace
from gridsat.models.params import check_keys
from gridsat.models.parts import MutationCorpus, Oracle, Pictures, Symmetry
from gridsat.models.puzzle import Puzzle
from gridsat.models.shikaku import mutation, oracle, pictures, reference, symmetry
from gridsat.models.shikaku.formats import Board, read, to_game_id, to_puzzlink
from gridsat.models.shikaku.formulations import CNF_AMO, CNF_CELLS, CPSAT_CELLS, cnf, cpsat
from gridsat.models.shikaku.solution import render, verify

__all__ = ["PUZZLE"]

GROUPS = {"symmetry": symmetry.group}


def parse(text: str, params: Mapping[str, str]) -> Board:
    """A puzzle file, a game id ``WxH:desc``, a puzz.link URL, ``-`` for stdin, or ``seed``; no parameters."""
    check_keys(params, {})
    return read(text)


def note(board: Board) -> str | None:
    """What to tell the user before solving: clues that cannot tile the grid."""
    if board.total() != board.area:
        return f"the clues sum to {board.total()} but the grid has {board.area} cells, so there is no solution"
    return None


def describe(board: Board) -> str:
    count = len(board.clues)
    name = f"{board.rows}x{board.cols}, {count} clue{'' if count == 1 else 's'}"
    return name


def generate(size: str, *, seed: int | None = None, max_area: int | None = None, unique: bool = False) -> str:
    """A random puzzle of ``RxC`` in the text format (see models/shikaku/generate.py)."""
    from gridsat.models.shikaku.generate import generate as run

    return run(size, seed=seed, max_area=max_area, unique=unique)


PUZZLE = Puzzle(
    name="shikaku",
    summary="divide a grid into rectangles, one per clue, each with the clue's area",
    instance_help="a puzzle file (rows of '.' and numbers), a Tatham game id WxH:desc, a puzz.link URL, "
                  "'-' (stdin), or 'seed'",
    params={},
    parse=parse,
    cpsat=breaking(cpsat, GROUPS),
    cnf=breaking(cnf, GROUPS),
    verify=verify,
    render=render,
    describe=describe,
    note=note,
    cpsat_encodings=EncodingSpace((CPSAT_CELLS, axis(GROUPS))),
    cnf_encodings=EncodingSpace((CNF_AMO, CNF_CELLS, axis(GROUPS))),
    generate=generate,
    writers={"gameid": to_game_id, "puzzlink": to_puzzlink},
    reference=reference.ALGORITHMS,
    example="seed",
    symmetry=Symmetry(GROUPS),
    pictures=Pictures(pictures.draw, pictures.sketch),
    mutation=MutationCorpus(mutation.corpus, mutation.ladder, mutation.rect_cells),
    oracle=Oracle(oracle.solutions, oracle.draw),
)
