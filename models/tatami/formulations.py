"""Tatami tilings formulated for CP-SAT and CNF (``mats``: a Boolean per mat position; ``directions``: each
cell points to its mat's other half, models/tatami/directions.py), and for the frontier backend
(models/tatami/frontier.py, which needs numba)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from gridsat.models.constraints import Formula, Model
from gridsat.models.constraints.amo import exactly_one
from gridsat.models.encoding import Axis, Encoding
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key
from gridsat.models.frontier import Fixed, FrontierSpec
from gridsat.models.tatami import directions
from gridsat.models.tatami.room import Mat, Room, Tiling


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


# The formulation, in both backends: mats (the first, the faster measured) or directions.
MODEL = Axis("model", ("mats", "directions"))


def cpsat(room: Room, encoding: Encoding) -> CpsatFormulation:
    """Booleans per mat position, exactly one mat per cell, one clause per corner (or the directions)."""
    if encoding["model"] == "directions":
        return directions.cpsat(room, encoding)
    model = Model("tatami:cpsat")
    mats = {key: model.NewBoolVar(f"{key[0]}_{key[1]}_{key[2]}") for key in placements(room)}
    with model.family("one mat per cell"):
        for r, c in room.cells():
            model.AddExactlyOne(mats[k] for k in covering(room, r, c))
    with model.family("no four mats meet"):
        for corner in corners(room):
            model.AddBoolOr(mats[k] for k in corner)
    return CpsatFormulation(**model.parts(), primary=mats, decode=decode)


def cnf(room: Room, encoding: Encoding) -> CnfFormulation:
    """The same rules as clauses; exactly-one per cell through the named at-most-one encoding."""
    if encoding["model"] == "directions":
        return directions.cnf(room, encoding)
    formula = Formula("tatami:cnf")
    projection = [formula.var(key) for key in placements(room)]
    with formula.family("one mat per cell"):
        for r, c in room.cells():
            exactly_one(formula, [formula.var(k) for k in covering(room, r, c)], encoding["amo"])
    with formula.family("no four mats meet"):
        formula.extend([formula.var(k) for k in corner] for corner in corners(room))
    # Every tiling has rows*cols/2 mats, so blocking a tiling's mats alone is exact.
    return CnfFormulation(**formula.parts(), projection=projection, decode=decode, block_true_only=True)


def frontier_spec(room: Room) -> FrontierSpec:
    """The tilings as a frontier spec, for the frontier backend (imports numba, so only when asked)."""
    from gridsat.models.tatami.frontier import build

    return build(room.rows, room.cols)


def frontier_fixed(room: Room, up_to: str) -> list[Fixed]:
    """What each element of the group fixes, counted on folds of the room (Burnside's lemma on the frontier)."""
    from gridsat.models.tatami.frontier import fixed_points

    return fixed_points(room, up_to)
