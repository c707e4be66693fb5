"""Tatami tilings: cover an H x W room with 1x2 mats so that no four mats meet at one point.

Seed: the tatami write-up (3x4 has 4 tilings; the question is the 4x7 room, 14 mats).
Variables: ``("h", r, c)`` is a mat on (r, c)-(r, c+1); ``("v", r, c)`` a mat on (r, c)-(r+1, c).
Four mats meet at the corner shared by (r, c), (r, c+1), (r+1, c), (r+1, c+1) exactly when no
mat crosses that corner's four half-edges, so the rule is one clause per interior corner:
``h(r,c) | h(r+1,c) | v(r,c) | v(r,c+1)``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gridsat.models import cardinality, golden, svg
from gridsat.models.encoding import Encoding, EncodingSpace
from gridsat.models.families import family
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key
from gridsat.models.frontier import FrontierSpec
from gridsat.models.puzzle import Case, Puzzle
from gridsat.models.symmetry import Element, Group, Motion, board_group
from gridsat.models.tatami import reference
from gridsat.models.tatami.room import MAX_CELLS, Cell, Mat, Room, Tiling, describe, parse

__all__ = ["MAX_CELLS", "Cell", "Mat", "Room", "Tiling", "describe", "parse", "PUZZLE"]


def placements(room: Room) -> Iterator[tuple[str, int, int]]:
    """Every mat position: ``("h", r, c)`` and ``("v", r, c)``."""
    for r, c in room.cells():
        if c + 1 < room.cols:
            yield ("h", r, c)
        if r + 1 < room.rows:
            yield ("v", r, c)


def covering(room: Room, r: int, c: int) -> list[tuple[str, int, int]]:
    """The mat positions inside the room that cover cell (r, c)."""
    out = []
    if 0 <= c - 1 and c < room.cols:
        out.append(("h", r, c - 1))
    if c + 1 < room.cols:
        out.append(("h", r, c))
    if 0 <= r - 1 and r < room.rows:
        out.append(("v", r - 1, c))
    if r + 1 < room.rows:
        out.append(("v", r, c))
    return out


def corners(room: Room) -> Iterator[list[tuple[str, int, int]]]:
    """For each interior corner, the four positions of which at least one must hold."""
    for r in range(room.rows - 1):
        for c in range(room.cols - 1):
            yield [("h", r, c), ("h", r + 1, c), ("v", r, c), ("v", r, c + 1)]


def mat_cells(key: tuple[str, int, int]) -> Mat:
    kind, r, c = key
    return [[r, c], [r, c + 1]] if kind == "h" else [[r, c], [r + 1, c]]


def decode(values: Mapping[Key, int]) -> Tiling:
    """The mats whose variables are true, sorted."""
    return sorted(mat_cells(key) for key, value in values.items() if value)


def cpsat(room: Room, encoding: Encoding) -> CpsatFormulation:
    """Booleans per mat position, exactly one mat per cell, one clause per corner."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    mats = {key: model.NewBoolVar(f"{key[0]}_{key[1]}_{key[2]}") for key in placements(room)}
    with family("one mat per cell"):
        for r, c in room.cells():
            model.AddExactlyOne(mats[k] for k in covering(room, r, c))
    with family("no four mats meet"):
        for corner in corners(room):
            model.AddBoolOr(mats[k] for k in corner)
    return CpsatFormulation(model=model, primary=mats, decode=decode)


def cnf(room: Room, encoding: Encoding) -> CnfFormulation:
    """The same rules as clauses; exactly-one per cell through the named cardinality encoding."""
    from pysat.formula import CNF, IDPool

    pool, formula = IDPool(), CNF()
    projection = [pool.id(key) for key in placements(room)]
    with family("one mat per cell"):
        for r, c in room.cells():
            cardinality.exactly_one(formula, [pool.id(k) for k in covering(room, r, c)], pool, encoding["card"])
    with family("no four mats meet"):
        for corner in corners(room):
            formula.append([pool.id(k) for k in corner])
    formula.nv = max(formula.nv, pool.top)
    # Every tiling has rows*cols/2 mats, so blocking a tiling's mats alone is exact.
    return CnfFormulation(cnf=formula, pool=pool, projection=projection, decode=decode, block_true_only=True)


def mat_key(cells: list[Cell]) -> tuple[str, int, int]:
    """The variable of the mat on two adjacent cells."""
    (r, c), (r2, c2) = sorted(cells)
    return ("h" if r == r2 else "v", r, c)


def group(room: Room) -> Group:
    """Every rotation and reflection of the room: a mirrored tiling is a tiling (the corner rule is local)."""

    def element(move: Motion) -> Element:
        table = move.table

        def tiling(t: Tiling) -> Tiling:
            return sorted(sorted([list(table[r][c]) for r, c in mat]) for mat in t)

        def key(k: Key) -> Key:
            return mat_key([move(tuple(cell)) for cell in mat_cells(k)])

        return Element(move.name, tiling, key)

    return board_group(room.rows, room.cols, element)


def verify(room: Room, tiling: Tiling) -> list[str]:
    """The rules a tiling breaks, checked from the definition (not from any encoding)."""
    owner: dict[Cell, int] = {}
    problems: list[str] = []
    for i, mat in enumerate(tiling):
        try:
            (r1, c1), (r2, c2) = mat
        except (TypeError, ValueError):
            return [f"mat {i} is not a pair of cells: {mat!r}"]
        if abs(r1 - r2) + abs(c1 - c2) != 1:
            problems.append(f"mat {mat} does not cover two adjacent cells")
        for cell in ((r1, c1), (r2, c2)):
            if not (0 <= cell[0] < room.rows and 0 <= cell[1] < room.cols):
                problems.append(f"mat {mat} leaves the room")
            elif cell in owner:
                problems.append(f"cell {list(cell)} is covered twice")
            owner[cell] = i
    missing = [list(cell) for cell in room.cells() if cell not in owner]
    if missing:
        problems.append(f"{len(missing)} cells uncovered, first {missing[0]}")
    if problems:
        return problems
    for r in range(room.rows - 1):
        for c in range(room.cols - 1):
            quad = {owner[(r, c)], owner[(r, c + 1)], owner[(r + 1, c)], owner[(r + 1, c + 1)]}
            if len(quad) == 4:
                problems.append(f"four mats meet at the corner below-right of cell {[r, c]}")
    return problems


def render(room: Room, tiling: Tiling) -> str:
    """The room drawn with ``+---+`` borders: a mat is two cells with no border between them."""
    owner = {tuple(cell): i for i, mat in enumerate(tiling) for cell in mat}

    def across(r: int, c: int) -> bool:
        """Whether the border above cell (r, c) is drawn."""
        return 0 <= c < room.cols and not (0 < r < room.rows and owner.get((r - 1, c)) == owner.get((r, c)))

    def down(r: int, c: int) -> bool:
        """Whether the border left of cell (r, c) is drawn."""
        return 0 <= r < room.rows and not (0 < c < room.cols and owner.get((r, c - 1)) == owner.get((r, c)))

    lines = []
    for r in range(room.rows + 1):
        # A corner is "+" where a vertical border touches it, "-" where only horizontal ones do.
        corner = ["+" if down(r - 1, c) or down(r, c) else "-" if across(r, c - 1) or across(r, c) else " "
                  for c in range(room.cols + 1)]
        lines.append("".join(corner[c] + ("---" if across(r, c) else "   ") for c in range(room.cols)) + corner[-1])
        if r < room.rows:
            lines.append("".join(("|" if down(r, c) else " ") + "   " for c in range(room.cols + 1)).rstrip())
    return "\n".join(lines)


SEAM = "#3b3025"
FILLS = {"h": "#e9d8a6", "v": "#c5d89d"}  # straw for horizontal mats, green for vertical ones


def mat_shape(lay: svg.Layout, mat: Mat, **attrs: object) -> svg.Element:
    """A mat as one rectangle over its two cells; its outline is the seam."""
    (r1, c1), (r2, c2) = mat
    top, left = min(r1, r2), min(c1, c2)
    kind = "h" if r1 == r2 else "v"
    return svg.rect(lay.x(left), lay.y(top), lay.x(abs(c2 - c1) + 1), lay.y(abs(r2 - r1) + 1), fill=FILLS[kind],
                    stroke=SEAM, stroke_width=max(1.5, lay.cell / 14), class_="mat", **attrs)


def junctions(room: Room, tiling: Tiling, lay: svg.Layout) -> list[svg.Element]:
    """A dot where three mats meet, and a red ring where four do (the rule broken)."""
    owner = {tuple(cell): i for i, mat in enumerate(tiling) for cell in mat}
    marks = []
    for r in range(1, room.rows):
        for c in range(1, room.cols):
            meeting = {owner.get(cell) for cell in ((r - 1, c - 1), (r - 1, c), (r, c - 1), (r, c))}
            if None in meeting or len(meeting) < 3:
                continue
            at = (lay.x(c), lay.y(r))
            if len(meeting) == 3:
                marks.append(svg.circle(at, max(1.5, lay.cell / 11), fill=SEAM, class_="junction"))
            else:
                marks.append(svg.circle(at, lay.cell / 4, fill="none", stroke="#d62728", stroke_width=2,
                                        class_="four"))
    return marks


def draw(room: Room, tiling: Tiling | None, cell: float | None = None) -> svg.Figure:
    """The room with one rectangle per mat; the seams meet in T's, marked by dots, never in a cross."""
    lay = svg.layout(room.rows, room.cols, cell)
    body = [svg.rect(0, 0, lay.width, lay.height, fill="#f7f3e8", class_="room"),
            *svg.grid_lines(lay, stroke="#d8d0bc", stroke_width=1, stroke_dasharray="2,3")]
    mats = [mat_shape(lay, mat) for mat in tiling or []]
    walls = svg.rect(0, 0, lay.width, lay.height, fill="none", stroke=SEAM, stroke_width=max(2.5, lay.cell / 8),
                     class_="wall")
    legend = "straw: horizontal mats; green: vertical mats; dots: three mats meet (never four)" if tiling else None
    return svg.Figure(lay.width, lay.height, body + mats + junctions(room, tiling or [], lay), [walls], legend,
                      layout=lay)


def sketch(room: Room, lay: svg.Layout, kind: str, depth: int, what: Mat, path: list[Mat]) -> svg.Sketch:
    """A placed mat with the seed's number (the n-th mat of the path); other events add nothing."""
    if kind != "place":
        return svg.Sketch()
    (r1, c1), (r2, c2) = what
    pieces = [mat_shape(lay, what)]
    size = lay.font(len(str(depth)), share=0.9)
    if size:
        centre = ((lay.x(c1) + lay.x(c2 + 1)) / 2, (lay.y(r1) + lay.y(r2 + 1)) / 2)
        pieces.append(svg.label(centre, str(depth), size, fill=SEAM, class_="number"))
    return svg.Sketch(pieces, {(r1, c1): str(depth), (r2, c2): str(depth)})


def oeis_rooms() -> dict[tuple[int, int], int]:
    """OEIS A068920 as golden ships it, unpacked: antidiagonal k holds t(1,k), t(2,k-1), ..., t(k,1)."""
    terms, table, k = list(golden.golden("tatami")["oeis"]["antidiagonals"]), {}, 1
    while terms:
        for r in range(1, k + 1):
            table[(r, k + 1 - r)] = terms.pop(0)
        k += 1
    return table


def corpus() -> list[Case]:
    """The golden counts, and the rooms of the OEIS table with both sides from 2 and at most 30 cells."""
    found = golden.cases("tatami", "room")
    found += [Case(f"{r}x{c}", {}, n, f"OEIS A068920: t({r},{c}) = {n}")
              for (r, c), n in oeis_rooms().items() if min(r, c) >= 2 and r * c <= 30]
    return found


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """Rooms up to 8x8, smallest area first."""
    rooms = sorted(((r, c) for r in range(1, 9) for c in range(1, 9)), key=lambda rc: (rc[0] * rc[1], rc))
    return [(f"{r}x{c}", {}) for r, c in rooms]


def frontier_spec(room: Room) -> FrontierSpec:
    """The tilings as a frontier spec, for the frontier backend (imports numba, so only when asked)."""
    from gridsat.models.tatami.frontier import build

    return build(room.rows, room.cols)


PUZZLE = Puzzle(
    name="tatami",
    summary="tile an RxC room with 1x2 mats, no four mats meeting at a point",
    instance_help="RxC room size, e.g. 4x7",
    params={},
    parse=parse,
    cpsat=cpsat,
    cnf=cnf,
    verify=verify,
    render=render,
    describe=describe,
    cnf_encodings=EncodingSpace((cardinality.axis(),)),
    reference=reference.ALGORITHMS,
    example="4x7",
    symmetries={"symmetry": group},
    draw=draw,
    sketch=sketch,
    frontier=frontier_spec,
    corpus=corpus,
    ladder=ladder,
)
