"""The prime-sum grid's CNF with each cell's number in the order or the log encoding (``domain`` axis:
``order``, ``log``, and ``hall``: the order encoding with the Hall-interval all-different).

Every cell is an integer over the grid's whole range L..M (models/constraints/domains.py), so a board
symmetry maps a cell's variables onto its image's; parity then forbids the values of the wrong parity.
The rules, each in the domain's own form:

- all different: an at-most-one per value over the terms x = v (models/constraints/alldiff.py),
  or under ``hall`` Bessiere et al.'s Hall intervals;
- neighbours sum to a prime: ``support`` writes x = a -> y in S(a) for each a, with the values of y
  outside S(a) covered by as few intervals (order) or aligned blocks of values (log) as possible, one
  clause each; ``conflict`` writes one clause per forbidden pair of values;
- parity by colour: x = v -> the phase's literal, when both phases are possible;
- symmetry leaders: x[p] < x[q], on order literals (d clauses) or by a bit comparator (log).

The projection is the order literals or the bits: one-to-one with fillings.
"""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models.constraints import Formula, alldiff
from gridsat.models.constraints.domains import DOMAINS, LogInt, OrderInt, forbid
from gridsat.models.encoding import Encoding
from gridsat.models.formulation import CnfFormulation, Decoder, Key
from gridsat.models.prime_grid.grid import Cell, Filling, Grid
from gridsat.models.prime_grid.rules import candidates, colour, edges, partners, phase_guard
from gridsat.models.prime_grid.symmetry import keeps_leaders, orbits

Number = OrderInt | LogInt
AMO = "amo"  # the at-most-one axis


def decode_numbers(grid: Grid, cells: Mapping[Cell, Number]) -> Decoder:
    """Decoder for ``("ge", r, c, v)`` or ``("bit", r, c, k)`` variables."""

    def decode(values: Mapping[Key, int]) -> Filling:
        true = {key for key, value in values.items() if value}
        return [[cells[(r, c)].value(true) for c in range(grid.cols)] for r in range(grid.rows)]

    return decode


def cnf(grid: Grid, encoding: Encoding) -> CnfFormulation:
    """The CNF of ``encoding`` (domain ``order``, ``log``, ``hall`` or a registered one); see the module."""
    out = Formula("prime_grid:cnf")
    parity = encoding["parity"] == "parity"
    kind = DOMAINS["order" if encoding["domain"] == "hall" else encoding["domain"]]
    cells: dict[Cell, Number] = {cell: kind.new(out, cell, grid.low, grid.high) for cell in grid.cells()}
    allowed = {cell: set(candidates(grid, cell, parity)) for cell in cells}
    with out.family("candidate values"):
        for cell, x in cells.items():
            x.restrict(out, allowed[cell])
    all_different(out, grid, encoding, cells, allowed)
    adjacency(out, grid, encoding["adjacency"] == "support", cells, allowed)
    if phase_guard(grid, parity):
        odd_first = out.var("phase")
        with out.family("parity by colour"):
            for cell, x in cells.items():
                for v in allowed[cell]:
                    forbid(out, x.equals(v), [-odd_first if (v + colour(cell)) % 2 else odd_first])
    with out.family("symmetry leaders"):
        for p, q in keeps_leaders(grid, encoding):
            cells[p].below(out, cells[q])
    projection = [v for x in cells.values() for v in x.projection()]
    return CnfFormulation(**out.parts(), projection=projection, decode=decode_numbers(grid, cells),
                          **orbits(grid, encoding))


def all_different(out: Formula, grid: Grid, encoding: Encoding, cells: dict[Cell, Number],
                  allowed: dict[Cell, set[int]]) -> None:
    """One value per cell at most once: per value, or by Hall intervals."""
    xs, ok = list(cells.values()), [allowed[cell] for cell in cells]
    if encoding["domain"] == "hall":
        alldiff.hall(out, xs, ok, encoding[AMO])  # type: ignore[arg-type]
        return
    with out.family("values all differ"):
        alldiff.per_value(out, xs, ok, encoding[AMO])


def adjacency(out: Formula, grid: Grid, support: bool, cells: dict[Cell, Number],
              allowed: dict[Cell, set[int]]) -> None:
    """Neighbours sum to a prime: supports (intervals or blocks of non-supports) or conflict pairs."""
    for p, q in edges(grid):
        if support:
            with out.family("a neighbour sums to a prime"):
                for here, there in ((p, q), (q, p)):
                    for a in sorted(allowed[here]):
                        supports = set(partners(grid, a, sorted(allowed[there])))
                        for conj in cells[there].cover(allowed[there] - supports, supports):
                            forbid(out, cells[here].equals(a), conj)
        else:
            with out.family("no non-prime neighbours"):
                for a in sorted(allowed[p]):
                    fine = set(partners(grid, a, sorted(allowed[q])))
                    for b in sorted(allowed[q] - fine - {a}):
                        forbid(out, cells[p].equals(a), cells[q].equals(b))
