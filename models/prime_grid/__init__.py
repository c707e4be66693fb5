"""Prime-sum grids: fill an R x C grid with distinct numbers from L..M so that every two
orthogonally adjacent numbers sum to a prime.

Seed: the prime-sum grid write-up (3x3 from 1..10 has 128 fillings, counted by a row-major DFS).
Variables: ``(r, c)`` is cell (r, c)'s value (CP-SAT integers); ``("x", r, c, v)`` says cell (r, c)
holds v (the one-hot models, CP-SAT Booleans and CNF).

Two pieces of redundant knowledge, each an encoding choice that never changes a count:

* Parity: two distinct positive numbers sum to at least 3, and a prime that large is odd, so two
  adjacent numbers have opposite parity and the grid is a checkerboard of odd and even values.
  Which colour is odd is a "phase"; a phase whose colour classes outnumber the values of their
  parity is impossible and is dropped before the solver sees it.
* Symmetry: a rotation or reflection that moves at least one cell moves a value onto a cell that
  held a different value (the values are distinct), so no filling is its own image, every orbit
  has exactly as many fillings as the board has distinct cell permutations, and keeping one filling
  per orbit then listing its images counts exactly. The one kept is the lexicographic leader in
  row-major order: for a permutation g whose first moved cell is q, a filling x and its image
  (x[g^-1(q')] at q') first differ at q, so "x is at most its image" is the single strict
  inequality x[q] < x[g^-1(q)].

Counting up to symmetry (``--up-to symmetry``, solvers/orbits.py) uses that structure. The group is
the same set of board permutations (a moved filling keeps its values, so the range L..M is always
preserved), the representative an orbit count prints is the smallest filling read row by row, and
that is exactly the leader the ``symmetry`` encoding keeps. So with that encoding the orbits are
counted as the leaders themselves: one solver solution per orbit, no images listed and filtered
again (each leader is still checked to be the smallest of its images). Burnside's lemma agrees
without the argument: the solutions a non-identity g fixes are counted on the ``nosymmetry`` model
with x == g(x) added, which AllDifferent makes infeasible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache
from itertools import chain, compress
from operator import add
from typing import Any

from gridsat.models import cardinality, golden, svg
from gridsat.models.encoding import Axis, Encoding, EncodingSpace
from gridsat.models.families import family
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Decoder, Images, Key, picker
from gridsat.models.prime_grid import reference
from gridsat.models.prime_grid.grid import (
    MAX_CELLS,
    MAX_LITERALS,
    MAX_VALUE,
    PARAMS,
    Cell,
    Filling,
    Grid,
    Phase,
    describe,
    parse,
    primes,
)
from gridsat.models.puzzle import Case, Puzzle
from gridsat.models.symmetry import Element, Group, Motion, Permutation, board_group, motions

__all__ = ["MAX_CELLS", "MAX_LITERALS", "MAX_VALUE", "PARAMS", "Cell", "Filling", "Grid", "Phase", "describe", "parse",
           "primes", "PUZZLE"]


# The redundancy switches both formulations offer; each default is the faster choice (benchmarks/compare/prime_grid.py).
# Parity never changes which fillings are models; symmetry keeps one per orbit, so exports default to nosymmetry.
PARITY = Axis("parity", ("parity", "noparity"))
SYMMETRY = Axis("symmetry", ("symmetry", "nosymmetry"), exact="nosymmetry")


def edges(grid: Grid) -> Iterator[tuple[Cell, Cell]]:
    """Every orthogonally adjacent pair of cells, once: right and down neighbours."""
    for r, c in grid.cells():
        if c + 1 < grid.cols:
            yield (r, c), (r, c + 1)
        if r + 1 < grid.rows:
            yield (r, c), (r + 1, c)


def colour(cell: Cell) -> int:
    """The checkerboard colour: 0 for the colour of cell (0, 0)."""
    return (cell[0] + cell[1]) % 2


@cache
def phases(grid: Grid) -> tuple[Phase, ...]:
    """The checkerboard phases with enough values of each parity for each colour class."""
    cells = [0, 0]
    for cell in grid.cells():
        cells[colour(cell)] += 1
    supply = [0, 0]
    for v in grid.values():
        supply[v % 2] += 1
    return tuple(p for p in (1, 0) if cells[0] <= supply[p] and cells[1] <= supply[1 - p])


def candidates(grid: Grid, cell: Cell, parity: bool) -> list[int]:
    """The values cell may hold: all of them, or with parity those some possible phase allows.

    When no phase is possible there is no filling; the rules alone say so, so nothing is restricted.
    """
    if not parity or not phases(grid):
        return list(grid.values())
    allowed = {phase ^ colour(cell) for phase in phases(grid)}
    return [v for v in grid.values() if v % 2 in allowed]


def partners(grid: Grid, value: int, others: list[int]) -> list[int]:
    """The values among ``others`` that may sit next to ``value``: distinct, with a prime sum."""
    table = primes(2 * grid.high)
    return [w for w in others if w != value and value + w in table]


@cache
def symmetries(grid: Grid) -> tuple[Permutation, ...]:
    """The distinct cell permutations of the board's rotations and reflections, identity first."""
    return tuple(move.permutation() for move in motions(grid.rows, grid.cols))


def leader_orders(grid: Grid) -> list[tuple[Cell, Cell]]:
    """Pairs (p, q) with value(p) < value(q) that keep exactly the lexicographic leader of each orbit."""
    pairs: dict[tuple[Cell, Cell], None] = {}
    for image in symmetries(grid)[1:]:
        first = next(i for i, j in enumerate(image) if i != j)
        source = image.index(first)  # g^-1(first)
        pairs.setdefault((divmod(first, grid.cols), divmod(source, grid.cols)), None)
    return list(pairs)


def orbit(grid: Grid, filling: Filling) -> list[Filling]:
    """The images of a filling under every symmetry of the board (all distinct, itself first)."""
    flat = [v for row in filling for v in row]
    return [rows_of(grid, gather(flat)) for gather in gatherers(grid)]


def rows_of(grid: Grid, flat: tuple[int, ...]) -> Filling:
    """A flat row-major filling cut into rows."""
    return [list(flat[start : start + grid.cols]) for start in range(0, len(flat), grid.cols)]


@cache
def gatherers(grid: Grid) -> tuple[Callable[[list[int]], tuple[int, ...]], ...]:
    """Per symmetry, a picker that takes a flat filling to its flat image (cell j gets x[g^-1(j)])."""
    inverses = []
    for image in symmetries(grid):
        inverse = [0] * len(image)
        for i, j in enumerate(image):
            inverse[j] = i
        inverses.append(picker(inverse))
    return tuple(inverses)


def images(grid: Grid, encoding: Encoding) -> Images | None:
    """The formulation's ``images`` when it keeps one filling per orbit, else None."""
    if encoding["symmetry"] != "symmetry" or len(symmetries(grid)) == 1:
        return None
    return lambda filling: orbit(grid, filling)


def orbits(grid: Grid, encoding: Encoding) -> dict[str, Any]:
    """A formulation's ``images`` and ``orbit_size``: one model per orbit of that many fillings, or per filling."""
    found = images(grid, encoding)
    return {"images": found, "orbit_size": len(symmetries(grid)) if found else 1}


def group(grid: Grid) -> Group:
    """Every rotation and reflection: a moved filling keeps its values, its range and its neighbours.

    The ``symmetry`` encoding keeps exactly the lexicographic leader of each orbit (see above), and
    that leader is the representative an orbit count prints (the smallest filling, read row by row),
    so counting orbits needs no images: solvers/orbits.py counts the leaders themselves.
    """
    pickers = dict(zip(symmetries(grid), gatherers(grid), strict=True))

    def element(move: Motion) -> Element:
        gather = pickers[move.permutation()]

        def filling(f: Filling) -> Filling:
            return rows_of(grid, gather([v for row in f for v in row]))

        def key(k: Key) -> Key:
            # ("x", r, c, v) in the one-hot models, (r, c) in the integer model
            return ("x", *move(k[1:3]), k[3]) if k[0] == "x" else move(k)

        return Element(move.name, filling, key)

    return board_group(grid.rows, grid.cols, element, unbroken=("nosymmetry",))


def keeps_leaders(grid: Grid, encoding: Encoding) -> list[tuple[Cell, Cell]]:
    """The leader inequalities the encoding asks for (none without symmetry breaking)."""
    return leader_orders(grid) if images(grid, encoding) else []


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


def everywhere(grid: Grid, parity: bool) -> set[int]:
    """The values every filling uses (pigeonhole), so "at most once" may become "exactly once".

    With as many values as cells every value is used. With parity and a forced phase, the same holds
    for a colour class with as many cells as values of its parity (each is a candidate there only).
    """
    cells = list(grid.cells())
    used = set(grid.values()) if len(cells) == len(grid.values()) else set()
    if parity and len(phases(grid)) == 1:
        for k in (0, 1):
            group = [cell for cell in cells if colour(cell) == k]
            if group and len(group) == len(candidates(grid, group[0], True)):
                used.update(candidates(grid, group[0], True))
    return used


def phase_guard(grid: Grid, parity: bool) -> bool:
    """Whether a phase variable is needed: parity on and both phases possible."""
    return parity and len(phases(grid)) == 2


def cpsat(grid: Grid, encoding: Encoding) -> CpsatFormulation:
    """Integer cells with AllDifferent and allowed-pair tables, or one-hot Booleans with support rules."""
    if encoding["model"] == "integer":
        return cpsat_integer(grid, encoding)
    return cpsat_boolean(grid, encoding)


def cpsat_integer(grid: Grid, encoding: Encoding) -> CpsatFormulation:
    """One integer per cell; adjacency as an allowed-pairs table per edge."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    parity = encoding["parity"] == "parity"
    cells = {cell: model.NewIntVarFromDomain(
        cp_model.Domain.FromValues(candidates(grid, cell, parity)), f"v_{cell[0]}_{cell[1]}")
        for cell in grid.cells()}
    with family("values all differ"):
        model.AddAllDifferent(cells.values())
    with family("neighbours sum to a prime"):
        for p, q in edges(grid):
            pairs = [(a, b) for a in candidates(grid, p, parity)
                     for b in partners(grid, a, candidates(grid, q, parity))]
            model.AddAllowedAssignments([cells[p], cells[q]], pairs)
    if phase_guard(grid, parity):
        odd_first = model.NewBoolVar("phase")  # cell (0, 0)'s colour holds the odd values
        for cell, var in cells.items():
            odd = model.NewBoolVar(f"odd_{cell[0]}_{cell[1]}")
            with family("odd flag"):
                model.AddModuloEquality(odd, var, 2)
            with family("parity by colour"):
                model.Add(odd == (odd_first if colour(cell) == 0 else 1 - odd_first))
    with family("symmetry leaders"):
        for p, q in keeps_leaders(grid, encoding):
            model.Add(cells[p] < cells[q])
    return CpsatFormulation(model=model, primary=cells, decode=decode_integers(grid), **orbits(grid, encoding))


def cpsat_boolean(grid: Grid, encoding: Encoding) -> CpsatFormulation:
    """One Boolean per (cell, value): exactly one value per cell, each value at most once, supports."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    parity = encoding["parity"] == "parity"
    x = {("x", r, c, v): model.NewBoolVar(f"x_{r}_{c}_{v}") for r, c in grid.cells()
         for v in candidates(grid, (r, c), parity)}
    with family("one value per cell"):
        for r, c in grid.cells():
            model.AddExactlyOne(x["x", r, c, v] for v in candidates(grid, (r, c), parity))
    used = everywhere(grid, parity)
    for v, lits in by_value(grid, x).items():
        with family("value at most once"):
            model.AddAtMostOne(lits)
        if v in used:
            with family("value used"):
                model.AddBoolOr(lits)
    with family("a neighbour sums to a prime"):
        for p, q in edges(grid):
            for here, there in ((p, q), (q, p)):
                for v in candidates(grid, here, parity):
                    support = partners(grid, v, candidates(grid, there, parity))
                    model.AddBoolOr([x["x", *there, w] for w in support]).OnlyEnforceIf(x["x", *here, v])
    if phase_guard(grid, parity):
        odd_first = model.NewBoolVar("phase")
        with family("parity by colour"):
            for (_, r, c, v), var in x.items():
                model.AddImplication(var, odd_first if (v + colour((r, c))) % 2 else odd_first.Not())
    with family("symmetry leaders"):
        for p, q in keeps_leaders(grid, encoding):
            for a in candidates(grid, p, parity):
                larger = [x["x", *q, b] for b in candidates(grid, q, parity) if b > a]
                model.AddBoolOr(larger).OnlyEnforceIf(x["x", *p, a])
    return CpsatFormulation(model=model, primary=x, decode=decode_one_hot(grid), **orbits(grid, encoding))


def by_value(grid: Grid, x: Mapping[Key, object]) -> dict[int, list]:
    """The one-hot variables grouped by the value they place."""
    groups: dict[int, list] = {}
    for key, var in x.items():
        groups.setdefault(key[3], []).append(var)
    return groups


def cnf(grid: Grid, encoding: Encoding) -> CnfFormulation:
    """The direct encoding: exactly one value per cell, at most one cell per value, adjacency rules."""
    from pysat.formula import CNF, IDPool

    pool, formula = IDPool(), CNF()
    parity, card = encoding["parity"] == "parity", encoding["card"]
    cand = {cell: candidates(grid, cell, parity) for cell in grid.cells()}
    projection = [pool.id(("x", r, c, v)) for (r, c), values in cand.items() for v in values]

    def x(cell: Cell, v: int) -> int:
        return pool.id(("x", *cell, v))

    with family("one value per cell"):
        for cell, values in cand.items():
            cardinality.exactly_one(formula, [x(cell, v) for v in values], pool, card)
    used = everywhere(grid, parity)
    for v, lits in by_value(grid, {key: pool.id(key) for key in map(pool.obj, projection)}).items():
        if v in used:
            with family("value used once"):
                cardinality.exactly_one(formula, lits, pool, card)
        else:
            with family("value at most once"):
                cardinality.at_most(formula, lits, 1, pool, card)
    for p, q in edges(grid):
        if encoding["adjacency"] == "support":
            with family("a neighbour sums to a prime"):
                for here, there in ((p, q), (q, p)):
                    for v in cand[here]:
                        formula.append([-x(here, v), *(x(there, w) for w in partners(grid, v, cand[there]))])
        else:
            with family("no non-prime neighbours"):
                for a in cand[p]:
                    allowed = set(partners(grid, a, cand[q]))
                    formula.extend([-x(p, a), -x(q, b)] for b in cand[q] if b not in allowed and b != a)
    if phase_guard(grid, parity):
        odd_first = pool.id("phase")
        with family("parity by colour"):
            for cell, values in cand.items():
                formula.extend([-x(cell, v), odd_first if (v + colour(cell)) % 2 else -odd_first] for v in values)
    with family("symmetry leaders"):
        for p, q in keeps_leaders(grid, encoding):
            formula.extend([-x(p, a), -x(q, b)] for a in cand[p] for b in cand[q] if a >= b)
    formula.nv = max(formula.nv, pool.top)
    # One value per cell: every filling sets as many projection variables, so blocking the true ones is exact.
    return CnfFormulation(cnf=formula, pool=pool, projection=projection, decode=decode_one_hot(grid),
                          block_true_only=True, **orbits(grid, encoding))


def verify(grid: Grid, filling: Filling) -> list[str]:
    """The rules a filling breaks, checked from the definition (not from any encoding).

    A quick pass accepts a good filling; anything it doubts goes through ``problems`` for the reasons.
    """
    # Every step is one call into C (no Python loop over the cells): this runs for every solution
    # of every backend, so it is the floor of the per-solution cost.
    if (
        type(filling) is list
        and len(filling) == grid.rows
        and set(map(type, filling)) == LIST
        and set(map(len, filling)) == {grid.cols}
    ):
        flat = list(chain.from_iterable(filling))
        first, second = neighbours(grid)
        if (
            set(map(type, flat)) == INT
            and len(set(flat)) == len(flat)
            and grid.low <= min(flat)
            and max(flat) <= grid.high
            and primes(2 * grid.high).issuperset(map(add, first(flat), second(flat)))
        ):
            return []
    return problems(grid, filling)


LIST, INT = {list}, {int}


@cache
def neighbours(grid: Grid) -> tuple[Callable[[list[int]], tuple[int, ...]], ...]:
    """Two pickers that take a flat filling to the first and to the second ends of every edge."""
    ends = [(r1 * grid.cols + c1, r2 * grid.cols + c2) for (r1, c1), (r2, c2) in edges(grid)]
    return tuple(picker([pair[k] for pair in ends]) for k in (0, 1))


def problems(grid: Grid, filling: Filling) -> list[str]:
    """Every broken rule, each named: shape, range, distinctness, adjacent sums."""
    shape = shape_problems(grid, filling)
    if shape:
        return shape
    flat = [v for row in filling for v in row]
    table = primes(2 * grid.high)
    found = [f"value {v} at {list(divmod(i, grid.cols))} is outside {grid.low}..{grid.high}"
             for i, v in enumerate(flat) if not grid.low <= v <= grid.high]
    if len(set(flat)) != len(flat):
        repeated = sorted({v for v in flat if flat.count(v) > 1})
        found.append(f"values used more than once: {repeated}")
    for (r1, c1), (r2, c2) in edges(grid):
        a, b = filling[r1][c1], filling[r2][c2]
        if a + b not in table:
            found.append(f"{a} at {[r1, c1]} and {b} at {[r2, c2]} sum to {a + b}, not a prime")
    return found


def shape_problems(grid: Grid, filling: Filling) -> list[str]:
    """Whether a filling is R rows of C integers."""
    if not isinstance(filling, (list, tuple)) or len(filling) != grid.rows:
        return [f"expected {grid.rows} rows, got {filling!r}"]
    for r, row in enumerate(filling):
        if not isinstance(row, (list, tuple)) or len(row) != grid.cols:
            return [f"row {r} should hold {grid.cols} values: {row!r}"]
        if any(type(v) is not int for v in row):
            return [f"row {r} holds a value that is not an integer: {row!r}"]
    return []


def render(grid: Grid, filling: Filling) -> str:
    """The grid as right-aligned columns of numbers."""
    width = len(str(grid.high))
    return "\n".join(" ".join(f"{v:>{width}}" for v in row) for row in filling)


PARITY_FILLS = ("#a9cbee", "#f6c08f")  # even (blue), odd (orange)
BLANK_FILLS = ("#f4f4f4", "#e6e6e6")  # the two checkerboard colours of an empty grid


def value_shape(grid: Grid, lay: svg.Layout, r: int, c: int, value: int) -> list[svg.Element]:
    """A filled cell: coloured by the value's parity, the value in the middle."""
    shapes = [svg.rect(lay.x(c), lay.y(r), lay.cell, lay.cell, fill=PARITY_FILLS[value % 2],
                       class_="odd" if value % 2 else "even")]
    size = lay.font(len(str(grid.high)))
    if size:
        shapes.append(svg.label(lay.centre(r, c), str(value), size, fill=svg.INK, class_="value"))
    return shapes


def sum_labels(grid: Grid, filling: Filling, lay: svg.Layout) -> list[svg.Element]:
    """Each neighbour sum on the edge between the two cells, when it can be read."""
    size = lay.font(len(str(2 * grid.high)), share=0.4, cap=0.22)
    if not size:
        return []
    out = []
    for (r1, c1), (r2, c2) in edges(grid):
        x1, y1 = lay.centre(r1, c1)
        x2, y2 = lay.centre(r2, c2)
        out.append(svg.label(((x1 + x2) / 2, (y1 + y2) / 2), str(filling[r1][c1] + filling[r2][c2]), size,
                             fill="#7a1f1f", stroke="#ffffff", stroke_width=3, paint_order="stroke", class_="sum"))
    return out


def draw(grid: Grid, filling: Filling | None, cell: float | None = None) -> svg.Figure:
    """The numbers in their cells, even ones blue and odd ones orange, each neighbour sum on its edge."""
    lay = svg.layout(grid.rows, grid.cols, cell)
    body = [svg.rect(lay.x(c), lay.y(r), lay.cell, lay.cell, fill=BLANK_FILLS[colour((r, c))], class_="cell")
            for r, c in grid.cells()]
    top = [*svg.grid_lines(lay, stroke="#555555", stroke_width=1),
           svg.rect(0, 0, lay.width, lay.height, fill="none", stroke=svg.INK, stroke_width=2, class_="border")]
    figure = svg.Figure(lay.width, lay.height, body, top, layout=lay)
    if filling is None:
        return figure
    figure.body += [shape for r, c in grid.cells() for shape in value_shape(grid, lay, r, c, filling[r][c])]
    sums = sum_labels(grid, filling, lay)
    figure.top += sums
    figure.legend = "blue: even, orange: odd (neighbours always differ)" + ("; red: each neighbour sum, a prime"
                                                                              if sums else "")
    if not lay.font(len(str(grid.high))):
        figure.note = "numbers left out at this size: the colours show the parities"
    return figure


def sketch(grid: Grid, lay: svg.Layout, kind: str, depth: int, what: list[int], path: list[list[int]]) -> svg.Sketch:
    """A value placed in its cell; other events add nothing."""
    if kind != "place":
        return svg.Sketch()
    r, c, value = what
    return svg.Sketch(value_shape(grid, lay, r, c, value), {(r, c): str(value)})


def corpus() -> list[Case]:
    """The golden counts that take under a few seconds."""
    return golden.cases("prime_grid", "grid", ("max", "min"))


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """Grids up to 4x4, values 1..R*C+1 and, from four cells, exactly 1..R*C."""
    sizes = [(1, 1), (1, 2), (1, 3), (2, 2), (1, 4), (2, 3), (2, 4), (3, 3), (2, 5), (3, 4), (4, 4)]
    out: list[tuple[str, Mapping[str, str]]] = []
    for r, c in sizes:
        out.append((f"{r}x{c}", {}))
        if r * c >= 4:
            out.append((f"{r}x{c}", {"max": str(r * c)}))
    return out


PUZZLE = Puzzle(
    name="prime-grid",
    summary="fill an RxC grid with distinct numbers min..max, adjacent numbers summing to primes",
    instance_help="RxC grid size, e.g. 3x3 (values 1..R*C+1 unless -p max/min say otherwise)",
    params=PARAMS,
    parse=parse,
    cpsat=cpsat,
    cnf=cnf,
    verify=verify,
    render=render,
    describe=describe,
    cpsat_encodings=EncodingSpace((Axis("model", ("integer", "boolean")), PARITY, SYMMETRY)),
    cnf_encodings=EncodingSpace((Axis("adjacency", ("support", "conflict")), cardinality.axis(), PARITY, SYMMETRY)),
    reference=reference.ALGORITHMS,
    example="3x3",
    symmetries={"symmetry": group},
    draw=draw,
    sketch=sketch,
    corpus=corpus,
    ladder=ladder,
)
