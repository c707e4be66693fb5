"""The symmetries of a room: every rotation and reflection, on tilings and on the mat variables."""

from __future__ import annotations

from gridsat.models.breaking import NO
from gridsat.models.formulation import Key
from gridsat.models.symmetry import Element, Group, Motion, board_group
from gridsat.models.tatami.directions import STEPS, mate
from gridsat.models.tatami.formulations import mat_cells
from gridsat.models.tatami.room import Cell, Room, Tiling


def mat_key(cells: list[Cell]) -> tuple[str, int, int]:
    """The variable of the mat on two adjacent cells."""
    (r, c), (r2, c2) = sorted(cells)
    return ("h" if r == r2 else "v", r, c)


def pointer(cells: list[Cell]) -> tuple[str, int, int, str]:
    """The direction variable of a cell pointing to its neighbour."""
    (r, c), (r2, c2) = cells
    step = (r2 - r, c2 - c)
    return ("to", r, c, next(d for d, s in STEPS.items() if s == step))


def group(room: Room) -> Group:
    """Every rotation and reflection of the room: a mirrored tiling is a tiling (the corner rule is local)."""

    def element(move: Motion) -> Element:
        table = move.table

        def tiling(t: Tiling) -> Tiling:
            return sorted(sorted([list(table[r][c]) for r, c in mat]) for mat in t)

        def key(k: Key) -> Key:
            if k[0] == "to":  # a cell's pointer to its mate: both cells move, the pointer follows
                return pointer([move(k[1:3]), move(mate(k[1:3], k[3]))])
            return mat_key([move(tuple(cell)) for cell in mat_cells(k)])

        return Element(move.name, tiling, key)

    return board_group(room.rows, room.cols, element, unbroken=(NO,))
