"""The symmetries of a room: every rotation and reflection, on tilings and on the mat variables."""

from __future__ import annotations

from gridsat.models.breaking import NO
from gridsat.models.formulation import Key
from gridsat.models.symmetry import Element, Group, Motion, board_group
from gridsat.models.tatami.formulations import mat_cells
from gridsat.models.tatami.room import Cell, Room, Tiling


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

    return board_group(room.rows, room.cols, element, unbroken=(NO,))
