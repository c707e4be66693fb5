"""Prime-sum grids formulated for CP-SAT (integer or one-hot) and CNF (the direct encoding here; the order
and log encodings in models/prime_grid/numbers.py)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress

from gridsat.models import breaking
from gridsat.models.constraints import Formula, Model, amo
from gridsat.models.constraints.amo import at_most_one, exactly_one
from gridsat.models.constraints.domains import DOMAINS
from gridsat.models.encoding import Axis, Encoding, EncodingSpace
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Decoder, Key
from gridsat.models.prime_grid.grid import Cell, Filling, Grid
from gridsat.models.prime_grid.rules import by_value, candidates, colour, edges, everywhere, partners, phase_guard
from gridsat.models.prime_grid.symmetry import keeps_leaders, orbits

# The redundancy switches both formulations offer; each default is the faster choice (benchmarks/compare/prime_grid.py).
# Parity never changes which fillings are models; symmetry keeps one per orbit, so exports default to nosymmetry.
PARITY = Axis("parity", ("parity", "noparity"))
SYMMETRY = breaking.axis(["symmetry"], default="symmetry", registered=False)  # its own leaders: closed


def decode_integers(grid: Grid) -> Decoder:
    """Decoder for ``(r, c) -> value`` variables."""

    def decode(values: Mapping[Key, int]) -> Filling:
        return [[values[(r, c)] for c in range(grid.cols)] for r in range(grid.rows)]

    return decode


def decode_one_hot(grid: Grid) -> Decoder:
    """Decoder for ``("x", r, c, v) -> 0/1`` variables."""

    def decode(values: Mapping[Key, int]) -> Filling:
        filling = [[0] * grid.cols for _ in range(grid.rows)]
        for _, r, c, v in compress(values, values.values()):  # the keys whose value is true
            filling[r][c] = v
        return filling

    return decode


def cpsat(grid: Grid, encoding: Encoding) -> CpsatFormulation:
    """Integer cells with AllDifferent and allowed-pair tables, or one-hot Booleans with support rules."""
    if encoding["model"] == "integer":
        return cpsat_integer(grid, encoding)
    return cpsat_boolean(grid, encoding)


def cpsat_integer(grid: Grid, encoding: Encoding) -> CpsatFormulation:
    """One integer per cell; adjacency as an allowed-pairs table per edge."""
    from ortools.sat.python import cp_model

    model = Model("prime_grid:cpsat")
    parity = encoding["parity"] == "parity"
    cells = {cell: model.NewIntVarFromDomain(
        cp_model.Domain.FromValues(candidates(grid, cell, parity)), f"v_{cell[0]}_{cell[1]}")
        for cell in grid.cells()}
    with model.family("values all differ"):
        model.AddAllDifferent(cells.values())
    with model.family("neighbours sum to a prime"):
        for p, q in edges(grid):
            pairs = [(a, b) for a in candidates(grid, p, parity)
                     for b in partners(grid, a, candidates(grid, q, parity))]
            model.AddAllowedAssignments([cells[p], cells[q]], pairs)
    if phase_guard(grid, parity):
        odd_first = model.NewBoolVar("phase")  # cell (0, 0)'s colour holds the odd values
        for cell, var in cells.items():
            odd = model.NewBoolVar(f"odd_{cell[0]}_{cell[1]}")
            with model.family("odd flag"):
                model.AddModuloEquality(odd, var, 2)
            with model.family("parity by colour"):
                model.Add(odd == (odd_first if colour(cell) == 0 else 1 - odd_first))
    with model.family("symmetry leaders"):
        for p, q in keeps_leaders(grid, encoding):
            model.Add(cells[p] < cells[q])
    return CpsatFormulation(**model.parts(), primary=cells, decode=decode_integers(grid), **orbits(grid, encoding))


def cpsat_boolean(grid: Grid, encoding: Encoding) -> CpsatFormulation:
    """One Boolean per (cell, value): exactly one value per cell, each value at most once, supports."""
    model = Model("prime_grid:cpsat")
    parity = encoding["parity"] == "parity"
    x = {("x", r, c, v): model.NewBoolVar(f"x_{r}_{c}_{v}") for r, c in grid.cells()
         for v in candidates(grid, (r, c), parity)}
    with model.family("one value per cell"):
        for r, c in grid.cells():
            model.AddExactlyOne(x["x", r, c, v] for v in candidates(grid, (r, c), parity))
    used = everywhere(grid, parity)
    for v, lits in by_value(grid, x).items():
        with model.family("value at most once"):
            model.AddAtMostOne(lits)
        if v in used:
            with model.family("value used"):
                model.AddBoolOr(lits)
    with model.family("a neighbour sums to a prime"):
        for p, q in edges(grid):
            for here, there in ((p, q), (q, p)):
                for v in candidates(grid, here, parity):
                    support = partners(grid, v, candidates(grid, there, parity))
                    model.AddBoolOr([x["x", *there, w] for w in support]).OnlyEnforceIf(x["x", *here, v])
    if phase_guard(grid, parity):
        odd_first = model.NewBoolVar("phase")
        with model.family("parity by colour"):
            for (_, r, c, v), var in x.items():
                model.AddImplication(var, odd_first if (v + colour((r, c))) % 2 else odd_first.Not())
    with model.family("symmetry leaders"):
        for p, q in keeps_leaders(grid, encoding):
            for a in candidates(grid, p, parity):
                larger = [x["x", *q, b] for b in candidates(grid, q, parity) if b > a]
                model.AddBoolOr(larger).OnlyEnforceIf(x["x", *p, a])
    return CpsatFormulation(**model.parts(), primary=x, decode=decode_one_hot(grid), **orbits(grid, encoding))


def cnf(grid: Grid, encoding: Encoding) -> CnfFormulation:
    """The CNF in the named domain encoding: ``direct`` here, the others in models/prime_grid/numbers.py."""
    if encoding["domain"] != "direct":
        from gridsat.models.prime_grid import numbers

        return numbers.cnf(grid, encoding)
    return cnf_direct(grid, encoding)


def cnf_direct(grid: Grid, encoding: Encoding) -> CnfFormulation:
    """The direct encoding (de Kleer 1989; Walsh, "SAT v CSP", CP 2000): a Boolean per cell and value,
    exactly one value per cell, at most one cell per value, adjacency rules. Size: n d variables;
    n + d at-most-ones (pairwise: n d(d-1)/2 + d n(n-1)/2 clauses); support: 2 d per edge."""
    formula = Formula("prime_grid:cnf")
    pool, parity, name = formula.pool, encoding["parity"] == "parity", encoding["amo"]
    cand = {cell: candidates(grid, cell, parity) for cell in grid.cells()}
    projection = [pool.id(("x", r, c, v)) for (r, c), values in cand.items() for v in values]

    def x(cell: Cell, v: int) -> int:
        return pool.id(("x", *cell, v))

    with formula.family("one value per cell"):
        for cell, values in cand.items():
            exactly_one(formula, [x(cell, v) for v in values], name)
    used = everywhere(grid, parity)
    for v, lits in by_value(grid, {key: pool.id(key) for key in map(pool.obj, projection)}).items():
        if v in used:
            with formula.family("value used once"):
                exactly_one(formula, lits, name)
        else:
            with formula.family("value at most once"):
                at_most_one(formula, lits, name)
    for p, q in edges(grid):
        if encoding["adjacency"] == "support":
            with formula.family("a neighbour sums to a prime"):
                for here, there in ((p, q), (q, p)):
                    for v in cand[here]:
                        formula.add([-x(here, v), *(x(there, w) for w in partners(grid, v, cand[there]))])
        else:
            with formula.family("no non-prime neighbours"):
                for a in cand[p]:
                    allowed = set(partners(grid, a, cand[q]))
                    formula.extend([-x(p, a), -x(q, b)] for b in cand[q] if b not in allowed and b != a)
    if phase_guard(grid, parity):
        odd_first = pool.id("phase")
        with formula.family("parity by colour"):
            for cell, values in cand.items():
                formula.extend([-x(cell, v), odd_first if (v + colour(cell)) % 2 else -odd_first] for v in values)
    with formula.family("symmetry leaders"):
        for p, q in keeps_leaders(grid, encoding):
            formula.extend([-x(p, a), -x(q, b)] for a in cand[p] for b in cand[q] if a >= b)
    # One value per cell: every filling sets as many projection variables, so blocking the true ones is exact.
    return CnfFormulation(**formula.parts(), projection=projection, decode=decode_one_hot(grid),
                          block_true_only=True, **orbits(grid, encoding))


CPSAT_ENCODINGS = EncodingSpace((Axis("model", ("integer", "boolean")), PARITY, SYMMETRY))
# How a cell's number is written: one-hot (direct), order (unary) or log (binary) literals, or the order
# encoding with the Hall-interval all-different (models/prime_grid/numbers.py); then every other domain
# encoding registered (an open axis: models/constraints/domains.py).
DOMAIN = Axis("domain", ("direct", "order", "log", "hall"), registry=DOMAINS)
ADJACENCY = Axis("adjacency", ("support", "conflict"))
CNF_ENCODINGS = EncodingSpace((DOMAIN, ADJACENCY, amo.axis(), PARITY, SYMMETRY))
