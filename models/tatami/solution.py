"""A tiling checked from the rules (``verify``) and drawn as text (``render``)."""

from __future__ import annotations

from gridsat.models.tatami.room import Cell, Room, Tiling


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
