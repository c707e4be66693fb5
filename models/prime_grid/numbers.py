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

from gridsat.models import cardinality
from gridsat.models.constraints import alldiff
from gridsat.models.constraints.domains import DOMAINS, LogInt, OrderInt, forbid
from gridsat.models.encoding import Encoding
from gridsat.models.families import family
from gridsat.models.formulation import CnfFormulation, Decoder, Key
from gridsat.models.prime_grid.grid import Cell, Filling, Grid
from gridsat.models.prime_grid.rules import candidates, colour, edges, partners, phase_guard
from gridsat.models.prime_grid.symmetry import keeps_leaders, orbits

Number = OrderInt | LogInt


class Sink:
    """A CNF and its pool behind the writing interface of models/constraints/domains.py."""

    def __init__(self) -> None:
        from pysat.formula import CNF, IDPool

        self.pool, self.cnf = IDPool(), CNF()

    def add(self, clause: list[int]) -> None:
        self.cnf.append(list(clause))

    def var(self, key: Key) -> int:
        return self.pool.id(key)

    def aux(self) -> int:
        return self.pool.id()

    def family(self, label: str) -> family:
        return family(label)


def decode_numbers(grid: Grid, cells: Mapping[Cell, Number]) -> Decoder:
    """Decoder for ``("ge", r, c, v)`` or ``("bit", r, c, k)`` variables."""

    def decode(values: Mapping[Key, int]) -> Filling:
        true = {key for key, value in values.items() if value}
        return [[cells[(r, c)].value(true) for c in range(grid.cols)] for r in range(grid.rows)]

    return decode


def cnf(grid: Grid, encoding: Encoding) -> CnfFormulation:
    """The CNF of ``encoding`` (domain ``order``, ``log`` or ``hall``); see the module."""
    out = Sink()
    parity = encoding["parity"] == "parity"
    kind = DOMAINS["log" if encoding["domain"] == "log" else "order"]
    cells: dict[Cell, Number] = {cell: kind.new(out, cell, grid.low, grid.high) for cell in grid.cells()}
    allowed = {cell: set(candidates(grid, cell, parity)) for cell in cells}
    with family("candidate values"):
        for cell, x in cells.items():
            x.restrict(out, allowed[cell])
    all_different(out, grid, encoding, cells, allowed)
    adjacency(out, grid, encoding["adjacency"] == "support", cells, allowed)
    if phase_guard(grid, parity):
        odd_first = out.var("phase")
        with family("parity by colour"):
            for cell, x in cells.items():
                for v in allowed[cell]:
                    forbid(out, x.equals(v), [-odd_first if (v + colour(cell)) % 2 else odd_first])
    with family("symmetry leaders"):
        for p, q in keeps_leaders(grid, encoding):
            cells[p].below(out, cells[q])
    out.cnf.nv = max(out.cnf.nv, out.pool.top)
    projection = [v for x in cells.values() for v in x.projection()]
    return CnfFormulation(cnf=out.cnf, pool=out.pool, projection=projection, decode=decode_numbers(grid, cells),
                          **orbits(grid, encoding))


def all_different(out: Sink, grid: Grid, encoding: Encoding, cells: dict[Cell, Number],
                  allowed: dict[Cell, set[int]]) -> None:
    """One value per cell at most once: per value, or by Hall intervals."""
    name = encoding["card"]

    def at_most_one(lits: list[int]) -> None:
        cardinality.at_most(out.cnf, lits, 1, out.pool, name)

    def at_most(lits: list[int], bound: int) -> None:
        cardinality.at_most(out.cnf, lits, bound, out.pool, "seqcounter")

    xs, ok = list(cells.values()), [allowed[cell] for cell in cells]
    if encoding["domain"] == "hall":
        alldiff.hall(out, xs, ok, at_most_one, at_most)  # type: ignore[arg-type]
        return
    with family("values all differ"):
        alldiff.per_value(out, xs, ok, name == "pairwise", at_most_one)


def adjacency(out: Sink, grid: Grid, support: bool, cells: dict[Cell, Number],
              allowed: dict[Cell, set[int]]) -> None:
    """Neighbours sum to a prime: supports (intervals or blocks of non-supports) or conflict pairs."""
    for p, q in edges(grid):
        if support:
            with family("a neighbour sums to a prime"):
                for here, there in ((p, q), (q, p)):
                    for a in sorted(allowed[here]):
                        supports = set(partners(grid, a, sorted(allowed[there])))
                        for conj in cells[there].cover(allowed[there] - supports, supports):
                            forbid(out, cells[here].equals(a), conj)
        else:
            with family("no non-prime neighbours"):
                for a in sorted(allowed[p]):
                    fine = set(partners(grid, a, sorted(allowed[q])))
                    for b in sorted(allowed[q] - fine - {a}):
                        forbid(out, cells[p].equals(a), cells[q].equals(b))
