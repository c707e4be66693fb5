"""A division checked from the rules (``verify``) and written as text (``render``): letters, or boxes."""

from __future__ import annotations

from gridsat.models.shikaku.formats import Board
from gridsat.models.shikaku.formulations import Cell, Solution, cells

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def verify(board: Board, solution: Solution) -> list[str]:
    """The rules a solution breaks, checked from the definition (not from any encoding)."""
    if not isinstance(solution, list) or len(solution) != len(board.clues):
        return [f"expected one rectangle per clue ({len(board.clues)}), got {solution!r}"]
    clue_at = {(r, c): i for i, (r, c, _) in enumerate(board.clues)}
    owner: dict[Cell, int] = {}
    problems: list[str] = []
    for i, ((r, c, n), rect) in enumerate(zip(board.clues, solution, strict=True)):
        if not (isinstance(rect, list) and len(rect) == 4 and all(type(x) is int for x in rect)):
            return [f"rectangle {i} is not [row, col, height, width]: {rect!r}"]
        top, left, height, width = rect
        name = f"the rectangle {rect} of clue {n} at {[r, c]}"
        if height < 1 or width < 1 or top < 0 or left < 0 or top + height > board.rows or left + width > board.cols:
            problems.append(f"{name} is empty or leaves the grid")
            continue
        if height * width != n:
            problems.append(f"{name} has area {height * width}")
        if not (top <= r < top + height and left <= c < left + width):
            problems.append(f"{name} does not contain its clue")
        for cell in cells((top, left, height, width)):
            if clue_at.get(cell, i) != i:
                problems.append(f"{name} contains another clue, at {list(cell)}")
            if cell in owner:
                problems.append(f"cell {list(cell)} is in two rectangles")
            owner[cell] = i
    missing = [[r, c] for r in range(board.rows) for c in range(board.cols) if (r, c) not in owner]
    if missing:
        problems.append(f"{len(missing)} cells are in no rectangle, first {missing[0]}")
    return problems


def regions(board: Board, solution: Solution) -> list[list[int]]:
    """The grid as clue indices: which clue's rectangle holds each cell."""
    grid = [[-1] * board.cols for _ in range(board.rows)]
    for i, rect in enumerate(solution):
        for r, c in cells(tuple(rect)):
            grid[r][c] = i
    return grid


def touching(board: Board, grid: list[list[int]]) -> list[set[int]]:
    """Per clue, the clues whose regions share an edge with its own (cells of no region are skipped)."""
    near: list[set[int]] = [set() for _ in board.clues]
    for r in range(board.rows):
        for c in range(board.cols):
            for r2, c2 in ((r + 1, c), (r, c + 1)):
                if r2 < board.rows and c2 < board.cols:
                    a, b = grid[r][c], grid[r2][c2]
                    if a != b and a >= 0 and b >= 0:
                        near[a].add(b)
                        near[b].add(a)
    return near


def letters(board: Board, grid: list[list[int]]) -> list[str] | None:
    """A letter per clue: the board's own labels, else a..zA..Z in clue order, else a greedy
    colouring where touching regions differ; None when 52 letters do not suffice."""
    count = len(board.clues)
    if board.labels:
        return list(board.labels)
    if count <= len(LETTERS):
        return list(LETTERS[:count])
    near = touching(board, grid)
    out: list[str] = []
    for i in range(count):
        taken = {out[j] for j in near[i] if j < i}
        free = [ch for k in range(len(LETTERS)) if (ch := LETTERS[(i + k) % len(LETTERS)]) not in taken]
        if not free:
            return None
        out.append(free[0])
    return out


def render(board: Board, solution: Solution) -> str:
    """The regions as a letter grid, like the seed's output (boxes when letters run out)."""
    grid = regions(board, solution)
    names = letters(board, grid)
    if names is None:
        return boxes(board, grid)
    return "\n".join("".join(names[i] if i >= 0 else "?" for i in row) for row in grid)


def boxes(board: Board, grid: list[list[int]]) -> str:
    """The regions drawn with ``+--+`` borders and the clues in their cells."""
    width = max([2, *(len(str(n)) for _, _, n in board.clues)])
    clue = {(r, c): str(n) for r, c, n in board.clues}
    lines = []
    for r in range(board.rows + 1):
        border = "+"
        for c in range(board.cols):
            inside = 0 < r < board.rows and grid[r - 1][c] == grid[r][c]
            border += (" " if inside else "-") * width + "+"
        lines.append(border)
        if r == board.rows:
            break
        row = "|"
        for c in range(board.cols):
            joined = c + 1 < board.cols and grid[r][c] == grid[r][c + 1]
            row += clue.get((r, c), "").rjust(width) + (" " if joined else "|")
        lines.append(row)
    return "\n".join(lines)
