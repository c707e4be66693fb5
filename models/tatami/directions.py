"""Tatami's second formulation, in both backends: each cell points to the other half of its mat.

gridsat's own formulation (no paper found that states it; it is the "pointer" view of a domino tiling,
each cell's mate as a direction). Variables: ``("to", r, c, d)`` for each direction d in ``n``, ``e``,
``s``, ``w`` that stays inside the room: the mat on (r, c) goes on to the neighbour that way.

- one direction per cell: an exactly-one over its (two to four) directions, in the named at-most-one;
- mates agree: (r, c) points east exactly when (r, c+1) points west, south exactly when (r+1, c)
  points north (two binary clauses per inner edge);
- no four mats meet, on directions: at an interior corner four mats meet exactly when each of the
  four cells around it points out of their 2x2 block, so one clause of the eight inward pointers.

Size on an R x C room: 2(2RC - R - C) variables (two per inner edge), RC exactly-ones,
2(2RC - R - C) agreement clauses and (R-1)(C-1) corner clauses of eight literals; the mat formulation
has half the variables and no agreement clauses. The projection is every direction variable: a tiling
sets exactly one per cell, so blocking its true ones is exact.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gridsat.models.constraints import Formula, Model
from gridsat.models.constraints.amo import exactly_one
from gridsat.models.encoding import Encoding
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key
from gridsat.models.tatami.room import Cell, Room, Tiling

STEPS = {"n": (-1, 0), "e": (0, 1), "s": (1, 0), "w": (0, -1)}
OPPOSITE = {"n": "s", "e": "w", "s": "n", "w": "e"}


def mate(cell: Cell, direction: str) -> Cell:
    """The neighbour of ``cell`` that way."""
    dr, dc = STEPS[direction]
    return (cell[0] + dr, cell[1] + dc)


def pointers(room: Room) -> Iterator[tuple[str, int, int, str]]:
    """Every direction variable: ``("to", r, c, d)`` with (r, c)'s neighbour d inside the room."""
    for cell in room.cells():
        for d in STEPS:
            r, c = mate(cell, d)
            if 0 <= r < room.rows and 0 <= c < room.cols:
                yield ("to", *cell, d)


def agreements(room: Room) -> Iterator[tuple[Key, Key]]:
    """(r, c) east with (r, c+1) west, (r, c) south with (r+1, c) north: the two ends of one mat."""
    for key in pointers(room):
        if key[3] in "es":
            yield key, ("to", *mate(key[1:3], key[3]), OPPOSITE[key[3]])


def corners(room: Room) -> Iterator[list[Key]]:
    """For each interior corner, the eight pointers into its 2x2 block, of which at least one holds."""
    for r in range(room.rows - 1):
        for c in range(room.cols - 1):
            yield [("to", r, c, "e"), ("to", r, c, "s"), ("to", r, c + 1, "w"), ("to", r, c + 1, "s"),
                   ("to", r + 1, c, "n"), ("to", r + 1, c, "e"), ("to", r + 1, c + 1, "n"), ("to", r + 1, c + 1, "w")]


def decode(values: Mapping[Key, int]) -> Tiling:
    """The mats of the cells that point east or south, sorted."""
    return sorted([[r, c], list(mate((r, c), d))] for _, r, c, d in (k for k, v in values.items() if v) if d in "es")


def cells_of(room: Room) -> dict[Cell, list[Key]]:
    """Each cell's direction variables."""
    found: dict[Cell, list[Key]] = {cell: [] for cell in room.cells()}
    for key in pointers(room):
        found[key[1:3]].append(key)
    return found


def cpsat(room: Room, encoding: Encoding) -> CpsatFormulation:
    """Four direction Booleans per cell (those inside the room), exactly one; mates agree; corners."""
    model = Model("tatami:cpsat")
    to = {key: model.NewBoolVar("to_{}_{}_{}".format(*key[1:])) for key in pointers(room)}
    with model.family("one direction per cell"):
        for keys in cells_of(room).values():
            model.AddExactlyOne(to[k] for k in keys)
    with model.family("mates agree"):
        for here, there in agreements(room):
            model.Add(to[here] == to[there])
    with model.family("no four mats meet"):
        for corner in corners(room):
            model.AddBoolOr(to[k] for k in corner)
    return CpsatFormulation(**model.parts(), primary=to, decode=decode)


def cnf(room: Room, encoding: Encoding) -> CnfFormulation:
    """The same rules as clauses; exactly-one per cell through the named at-most-one encoding."""
    formula = Formula("tatami:cnf")
    projection = [formula.var(key) for key in pointers(room)]
    with formula.family("one direction per cell"):
        for keys in cells_of(room).values():
            exactly_one(formula, [formula.var(k) for k in keys], encoding["amo"])
    with formula.family("mates agree"):
        for here, there in agreements(room):
            a, b = formula.var(here), formula.var(there)
            formula.extend([[-a, b], [a, -b]])
    with formula.family("no four mats meet"):
        formula.extend([formula.var(k) for k in corner] for corner in corners(room))
    return CnfFormulation(**formula.parts(), projection=projection, decode=decode, block_true_only=True)
