"""The files ``gridsat new-puzzle`` writes (see gridsat/scaffold.py), as ``string.Template`` texts.

``$name`` is the puzzle's command-line name, ``$package`` its Python package (``gridsat_<name>``),
``$title`` the name as a heading. The puzzle is deliberately tiny but real: choose K of the N cells
of a row, no two of them adjacent (there are C(N - K + 1, K) ways), formulated for CP-SAT and CNF
through ``gridsat.plugin``, with a backtracking reference search and tests that cross-check it.
"""

from __future__ import annotations

from string import Template

PYPROJECT = Template('''\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "gridsat-$name"
version = "0.1.0"
description = "$title for gridsat"
requires-python = ">=3.11"
dependencies = ["gridsat"]

# The line that makes gridsat see the puzzle: its command-line name, then the Puzzle object.
[project.entry-points."gridsat.puzzles"]
$name = "$package:PUZZLE"

[tool.setuptools]
packages = ["$package"]

[tool.pytest.ini_options]
pythonpath = ["."]
testpaths = ["tests"]
filterwarnings = ["error"]
''')

README = Template('''\
# gridsat-$name

A gridsat puzzle plugin, written by `gridsat new-puzzle $name`. Its puzzle is a placeholder: choose K
of the N cells of a row, no two adjacent. Replace the rules in `$package/__init__.py` (parse,
both formulations, verify, render) and the search in `$package/reference.py`, then:

    pip install -e .                       # registers the puzzle with gridsat
    gridsat crosscheck $name 7 -p k=3      # every backend, compared
    python -m pytest                       # the cross-check tests in tests/
''')

PUZZLE = Template('''\
"""$title: choose K of the N cells of a row so that no two chosen cells are adjacent.

A placeholder puzzle written by ``gridsat new-puzzle``: replace its rules with yours. The instance is
N (``7``), the parameter ``-p k=K`` (default 2). A solution is the sorted list of the chosen cells
(0-based). Variables (both formulations): ``("cell", i)`` is true when cell i is chosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gridsat.plugin import (
    Algorithm,
    Case,
    CnfFormulation,
    CpsatFormulation,
    Encoding,
    EncodingSpace,
    Key,
    MutationCorpus,
    Formula,
    Model,
    Puzzle,
    cardinality,
    check_keys,
    int_param,
    integer,
)

PARAMS = {"k": "how many cells to choose (default 2)"}
MAX_CELLS = 10_000
Choice = list[int]  # the chosen cells, smallest first


@dataclass(frozen=True)
class Row:
    """A row of ``cells`` cells, of which ``k`` are chosen."""

    cells: int
    k: int


def parse(text: str, params: Mapping[str, str]) -> Row:
    """``N``: the row's length; ``-p k=K``: how many cells to choose."""
    check_keys(params, PARAMS)
    return Row(integer(text, "row length", 1, MAX_CELLS), int_param(params, "k", 2, minimum=0))


def describe(row: Row) -> str:
    return f"{row.cells} cells, {row.k} chosen"


def decode(values: Mapping[Key, int]) -> Choice:
    """The chosen cells: every backend hands over each ``("cell", i)`` with its value."""
    return sorted(key[1] for key, value in values.items() if value)


def cpsat(row: Row, encoding: Encoding) -> CpsatFormulation:
    """A Boolean per cell; K of them true; no two neighbours both true."""
    model = Model("$name:cpsat")  # a CpModel that notes where each constraint comes from
    cell = {("cell", i): model.NewBoolVar(f"cell_{i}") for i in range(row.cells)}
    # Each family names what its constraints are for: gridsat mutate reports its bugs by these names.
    with model.family("choose k cells"):
        model.Add(sum(cell.values()) == row.k)
    with model.family("no two neighbours"):
        for i in range(row.cells - 1):
            model.AddBoolOr([cell["cell", i].Not(), cell["cell", i + 1].Not()])
    return CpsatFormulation(**model.parts(), primary=cell, decode=decode)


def cnf(row: Row, encoding: Encoding) -> CnfFormulation:
    """The same rules as clauses; "K of them" through the named cardinality encoding."""
    formula = Formula("$name:cnf")  # clauses, their variable pool, and where each clause comes from
    projection = [formula.var(("cell", i)) for i in range(row.cells)]
    with formula.family("choose k cells"):
        cardinality.exactly(formula, projection, row.k, encoding["card"])
    with formula.family("no two neighbours"):
        formula.extend([-a, -b] for a, b in zip(projection, projection[1:], strict=False))
    # Every solution has K true cells, so blocking its true cells alone excludes exactly it.
    return CnfFormulation(**formula.parts(), projection=projection, decode=decode, block_true_only=True)


def verify(row: Row, choice: Choice) -> list[str]:
    """The rules a solution breaks, from the definition (never from a formulation)."""
    if not isinstance(choice, list) or any(type(i) is not int for i in choice):
        return [f"expected a list of cell numbers, not {choice!r}"]
    problems = [f"cell {i} is off the row" for i in choice if not 0 <= i < row.cells]
    if len(set(choice)) != row.k or len(choice) != row.k:
        problems.append(f"{len(set(choice))} distinct cells chosen, not {row.k}")
    ordered = sorted(choice)
    problems += [f"cells {a} and {b} are neighbours" for a, b in zip(ordered, ordered[1:], strict=False) if b - a < 2]
    return problems


def render(row: Row, choice: Choice) -> str:
    """The row: ``#`` for a chosen cell, ``.`` for the others."""
    chosen = set(choice)
    return "".join("#" if i in chosen else "." for i in range(row.cells))


def reference_searches() -> Mapping[str, Algorithm]:
    """The searches, imported when the reference backend runs (their module imports this one)."""
    from $package.reference import ALGORITHMS

    return ALGORITHMS


def corpus() -> list[Case]:
    """Known counts, for ``gridsat mutate $name``: C(N - K + 1, K)."""
    known = [(1, 1, 1), (4, 2, 3), (5, 2, 6), (7, 3, 10), (8, 4, 5), (9, 3, 35)]
    return [Case(str(n), {"k": str(k)}, count, f"C({n - k + 1}, {k})") for n, k, count in known]


PUZZLE = Puzzle(
    name="$name",
    summary="choose K of N cells in a row, no two adjacent (a placeholder: put your puzzle here)",
    instance_help="N, the row's length, e.g. 7 (-p k=K: how many cells to choose)",
    params=PARAMS,
    parse=parse,
    cpsat=cpsat,
    cnf=cnf,
    verify=verify,
    render=render,
    describe=describe,
    cnf_encodings=EncodingSpace((cardinality.axis(),)),
    reference=reference_searches,
    example="7",
    mutation=MutationCorpus(corpus),
)
''')

REFERENCE = Template('''\
"""The reference search for $title: backtracking, independent of both formulations.

A cross-check compares every backend with it, so it must follow the rules as written, not the
encodings. It polls ``stop`` so that a time limit or Ctrl-C ends it with a correct partial count.
"""

from __future__ import annotations

from collections.abc import Iterator

from gridsat.plugin import Algorithm, Halt, Listener

from $package import Choice, Row


def choices(row: Row, stop: Halt, listen: Listener | None = None) -> Iterator[Choice]:
    """Every choice, in lexicographic order: each next cell at least two after the last one. Events
    (see gridsat.plugin's ``Listener``): "place" and "remove" a cell, "solution"."""
    chosen: list[int] = []

    def extend(start: int) -> Iterator[Choice]:
        if stop.expired():
            return
        if len(chosen) == row.k:
            if listen is not None:
                listen("solution", len(chosen), list(chosen))
            yield list(chosen)
            return
        for i in range(start, row.cells):
            chosen.append(i)
            # A listener's False vetoes the decision (a split run leaves that subtree to another part).
            if listen is None or listen("place", len(chosen), i) is not False:
                yield from extend(i + 2)
            chosen.pop()
            if listen is not None:
                listen("remove", len(chosen) + 1, i)

    yield from extend(0)


ALGORITHMS = {"backtrack": Algorithm("backtrack", "cells left to right, each two past the last", choices)}
''')

TESTS = Template('''\
"""$title cross-checked: every backend finds the same solutions, and as many as C(N - K + 1, K)."""

from __future__ import annotations

from math import comb

import gridsat.api
import pytest
from gridsat.plugin import InvalidInstance

from $package import PUZZLE


@pytest.mark.parametrize("cells, k", [(1, 0), (1, 1), (7, 3), (8, 5)])
def test_every_backend_agrees_and_counts_the_binomial(cells: int, k: int) -> None:
    report = gridsat.api.crosscheck(PUZZLE, str(cells), params={"k": str(k)}, backends=["cpsat", "sat", "reference"])
    assert report.agree, report.problems
    assert {outcome.count for outcome in report.outcomes} == {comb(cells - k + 1, k)}


def test_every_cnf_encoding_agrees() -> None:
    assert gridsat.api.crosscheck(PUZZLE, "6", params={"k": "2"}, encodings="each").agree


def test_a_bad_row_is_one_clear_error() -> None:
    with pytest.raises(InvalidInstance, match="row length"):
        PUZZLE.parse("seven", {})
''')
