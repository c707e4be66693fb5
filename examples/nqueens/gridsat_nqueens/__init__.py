"""N-Queens for gridsat: place N queens on an N x N board, no two on a row, column or diagonal.

A solution is the queen's column in each row, top row first (0-based). Two formulations:

- CP-SAT: one integer per row (its queen's column), AllDifferent on the columns and on both
  diagonals (column + row and column - row).
- CNF: a Boolean ``("queen", r, c)`` per square; exactly one per row, at most one per column and per
  diagonal, each through the named at-most-one encoding (gridsat's constraint library, the ``amo`` axis).

Every solution places N queens, so a blocking clause over the true squares alone is exact.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import permutations

from gridsat.plugin import (
    Algorithm,
    Case,
    CnfFormulation,
    CpsatFormulation,
    Encoding,
    EncodingSpace,
    Formula,
    InvalidInstance,
    Key,
    Model,
    MutationCorpus,
    Oracle,
    Puzzle,
    amo,
    check_keys,
)

Placement = list[int]  # the column of the queen in each row
MAX_SIZE = 200


@dataclass(frozen=True)
class Board:
    """An N x N chess board."""

    size: int


def parse(text: str, params: Mapping[str, str]) -> Board:
    """``N`` or ``NxN``; N-Queens takes no parameters."""
    check_keys(params, {})
    match = re.fullmatch(r"\s*(\d+)\s*(?:[xX]\s*(\d+)\s*)?", text)
    if not match or (match[2] is not None and match[1] != match[2]):
        raise InvalidInstance(f"bad board {text!r}: expected N or NxN, e.g. 8")
    size = int(match[1])
    if not 1 <= size <= MAX_SIZE:
        raise InvalidInstance(f"bad board {text!r}: N must be from 1 to {MAX_SIZE}")
    return Board(size)


def describe(board: Board) -> str:
    return f"{board.size}x{board.size}"


# Every backend hands ``decode`` the value of every primary key (see gridsat.plugin), so each model's
# decoder reads its own variables and never asks which backend ran.
def decode_columns(values: Mapping[Key, int]) -> Placement:
    """Columns by row, from the integer model: ``("col", r)`` holds row r's column."""
    return [values["col", r] for r in range(len(values))]


def decode_queens(values: Mapping[Key, int]) -> Placement:
    """Columns by row, from the Boolean model: ``("queen", r, c)`` is true for row r's column."""
    return [c for _, _, c in sorted(key for key, value in values.items() if value)]


def cpsat(board: Board, encoding: Encoding) -> CpsatFormulation:
    """A column per row; AllDifferent on columns and on both diagonals."""
    n, model = board.size, Model("nqueens:cpsat")
    cols = {("col", r): model.NewIntVar(0, n - 1, f"col_{r}") for r in range(n)}
    # Each family is labelled, so gridsat mutate names the bug it injects by what the constraint is for.
    with model.family("one queen per column"):
        model.AddAllDifferent(cols.values())
    with model.family("one queen per diagonal"):
        model.AddAllDifferent(cols["col", r] + r for r in range(n))
    with model.family("one queen per antidiagonal"):
        model.AddAllDifferent(cols["col", r] - r for r in range(n))
    return CpsatFormulation(**model.parts(), primary=cols, decode=decode_columns)


def cnf(board: Board, encoding: Encoding) -> CnfFormulation:
    """A Boolean per square; the line rules through the named at-most-one encoding."""
    n, formula, name = board.size, Formula("nqueens:cnf"), encoding["amo"]
    squares = [(r, c) for r in range(n) for c in range(n)]
    projection = [formula.var(("queen", r, c)) for r, c in squares]
    with formula.family("one queen per row"):
        for r in range(n):
            amo.exactly_one(formula, [formula.var(("queen", r, c)) for c in range(n)], name)
    lines: dict[tuple[str, int], list[int]] = {}
    for r, c in squares:
        for line in (("column", c), ("diagonal", r + c), ("antidiagonal", r - c)):
            lines.setdefault(line, []).append(formula.var(("queen", r, c)))
    with formula.family("at most one queen per line"):
        for lits in lines.values():
            amo.at_most_one(formula, lits, name)
    return CnfFormulation(**formula.parts(), projection=projection, decode=decode_queens, block_true_only=True)


def verify(board: Board, placement: Placement) -> list[str]:
    """The rules a placement breaks, from the definition."""
    n = board.size
    if not isinstance(placement, list) or len(placement) != n or any(type(c) is not int for c in placement):
        return [f"expected {n} column numbers, one per row, not {placement!r}"]
    problems = [f"row {r}: column {c} is off the board" for r, c in enumerate(placement) if not 0 <= c < n]
    for a in range(n):
        for b in range(a + 1, n):
            if placement[a] == placement[b]:
                problems.append(f"rows {a} and {b} share column {placement[a]}")
            elif abs(placement[a] - placement[b]) == b - a:
                problems.append(f"rows {a} and {b} share a diagonal")
    return problems


def render(board: Board, placement: Placement) -> str:
    """The board: ``Q`` for a queen, ``.`` for an empty square."""
    return "\n".join(" ".join("Q" if c == col else "." for c in range(board.size)) for col in placement)


def reference_searches() -> Mapping[str, Algorithm]:
    """The backtracking search, imported when the reference backend runs (its module imports this one)."""
    from gridsat_nqueens.reference import ALGORITHMS

    return ALGORITHMS


# OEIS A000170: the number of ways to place N non-attacking queens on an N x N board.
A000170 = (1, 0, 0, 2, 10, 4, 40, 92)


def corpus() -> list[Case]:
    """The golden cases ``gridsat mutate nqueens`` judges mutants on: N = 1..8, counts from OEIS."""
    return [Case(str(n), {}, count, f"OEIS A000170: a({n}) = {count}") for n, count in enumerate(A000170, 1)]


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """The boards ``gridsat mutate`` tries a survivor on, smallest first."""
    return [(str(n), {}) for n in range(1, 10)]


ORACLE_SIZE = 8  # 40,320 permutations: listed in well under a second


def every_placement(board: Board) -> Iterator[Placement]:
    """The brute-force oracle of ``gridsat fuzz``: every permutation of the columns (one queen per row and
    column), kept when no two queens share a diagonal; written from the rules, sharing nothing with the
    formulations or the reference search."""
    if board.size > ORACLE_SIZE:
        raise InvalidInstance(f"board {board.size} is too large for the brute-force oracle (at most {ORACLE_SIZE})")
    for columns in permutations(range(board.size)):
        if all(abs(columns[a] - columns[b]) != b - a for a in range(board.size) for b in range(a + 1, board.size)):
            yield list(columns)


def draw(rng: random.Random) -> tuple[str, Mapping[str, str]]:
    """A random board the oracle lists quickly."""
    return str(rng.randint(1, ORACLE_SIZE - 1)), {}


PUZZLE = Puzzle(
    name="nqueens",
    summary="place N queens on an NxN board, no two on a row, column or diagonal",
    instance_help="N or NxN board size, e.g. 8",
    params={},
    parse=parse,
    cpsat=cpsat,
    cnf=cnf,
    verify=verify,
    render=render,
    describe=describe,
    cnf_encodings=EncodingSpace((amo.axis(),)),
    reference=reference_searches,
    example="6",
    mutation=MutationCorpus(corpus, ladder),
    oracle=Oracle(every_placement, draw),
)
