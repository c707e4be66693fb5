"""The seed's "propagation and distribution" search for Shikaku, enumerating every solution.

State: per clue, the rectangles it may still take (the seed's "solution space"). Its candidates
are only "fits the grid, contains the clue, has the clue's area": a rectangle over another clue
goes at the first propagation, since it overlaps every candidate of that clue.
Propagation: drop a candidate that overlaps every remaining candidate of another clue, and keep
checking until nothing changes. Distribution: split the clue with the fewest candidates (more
than one) into its first candidate and the rest, and search both halves. A state where every
clue has one candidate is a solution: at the fixpoint no two of them overlap, and when the clues
sum to the area they then cover the grid. Differences from the seed: only clues whose candidates
can meet are ever compared, a split re-checks only the clues next to the one split, the halves
wait on an explicit stack instead of the call stack, and every solution is yielded.

Events (see ``gridsat.models.search``): a distribution at depth n is a "place" of one half,
``{"clue": i, "rect": [top, left, height, width]}`` (clue i takes its first candidate) or
``{"clue": i, "not": [...]}`` (it takes any other); its "remove" comes when the search leaves that
half. After every propagation, "prune" (information) lists the clues it left with one candidate,
``{"fixed": [{"clue": i, "rect": [...]}, ...], "dead": bool}``, ``dead`` when the state has no
solution. A solution can be found at any depth, even 0 (propagation alone). The veto is honoured:
a vetoed half is dropped before propagation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gridsat.models.search import Algorithm, Halt, Listener
from gridsat.models.shikaku.formats import Board

Rect = tuple[int, int, int, int]  # (top, left, height, width), as in the canonical solution
Space = list[tuple[Rect, ...]]  # per clue, its remaining candidates
POLL = 256  # candidate checks between looks at the clock


def placements(board: Board, row: int, col: int, area: int) -> list[Rect]:
    """Every rectangle of ``area`` cells inside the grid that contains (row, col)."""
    out = []
    for width in range(1, area + 1):
        if area % width:
            continue
        height = area // width
        for left in range(col - width + 1, col + 1):
            for top in range(row - height + 1, row + 1):
                if left >= 0 and top >= 0 and left + width <= board.cols and top + height <= board.rows:
                    out.append((top, left, height, width))
    return out


def overlap(a: Rect, b: Rect) -> bool:
    """Whether two rectangles share a cell."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def hull(rects: tuple[Rect, ...]) -> Rect:
    """The smallest rectangle around all of ``rects`` (nothing when there are none)."""
    if not rects:
        return (0, 0, 0, 0)
    top, left = min(r[0] for r in rects), min(r[1] for r in rects)
    bottom, right = max(r[0] + r[2] for r in rects), max(r[1] + r[3] for r in rects)
    return (top, left, bottom - top, right - left)


def neighbours(space: Space) -> list[list[int]]:
    """Per clue, the other clues whose candidates could overlap its own: all that propagation compares."""
    hulls = [hull(rects) for rects in space]
    return [[j for j in range(len(space)) if j != i and overlap(hulls[i], hulls[j])] for i in range(len(space))]


class SearchState:
    """The state shared by one enumeration: the board, the neighbour lists, the rules used, the clock."""

    def __init__(self, board: Board, near: list[list[int]], stop: Halt, cells: bool) -> None:
        self.board, self.near, self.stop, self.cells, self.turns = board, near, stop, cells, 0

    def settle(self, space: Space, changed: list[int]) -> bool:
        """Propagate to a fixpoint of every rule in use; False when the state has no solution."""
        while changed:
            if not self.propagate(space, changed):
                return False
            changed = self.cover(space) if self.cells else []
            if changed is None:
                return False
        return True

    def cover(self, space: Space) -> list[int] | None:
        """The cell rule: a cell no candidate covers is a dead end; a cell that only one clue's
        candidates cover must be covered by that clue. The clues it narrowed; None when dead."""
        cols = self.board.cols
        first = [-1] * self.board.area  # per cell: the first clue seen covering it, -2 if several
        for i, rects in enumerate(space):
            for top, left, height, width in rects:
                for r in range(top, top + height):
                    for cell in range(r * cols + left, r * cols + left + width):
                        if first[cell] == -1:
                            first[cell] = i
                        elif first[cell] != i:
                            first[cell] = -2
        if -1 in first:
            return None
        forced: dict[int, list[int]] = {}
        for cell, i in enumerate(first):
            if i >= 0:
                forced.setdefault(i, []).append(cell)
        changed = []
        for i, needed in forced.items():
            kept = tuple(rect for rect in space[i] if all(inside(rect, cell, cols) for cell in needed))
            if not kept:
                return None
            if len(kept) < len(space[i]):
                space[i] = kept
                changed.append(i)
        return changed

    def propagate(self, space: Space, changed: list[int]) -> bool:
        """Drop, to a fixpoint, every candidate that overlaps all candidates of another clue.

        ``changed`` lists the clues whose candidates shrank since the last fixpoint; False when
        some clue is left with nothing (or the clock ran out).
        """
        todo = {(i, j) for j in changed for i in self.near[j]}
        while todo:
            x, y = todo.pop()
            others = space[y]
            kept = tuple(rect for rect in space[x] if not all(overlap(rect, other) for other in others))
            self.turns += len(space[x])
            if len(kept) == len(space[x]):
                continue
            if not kept:
                return False
            space[x] = kept
            todo.update((i, x) for i in self.near[x])
            if self.turns >= POLL:
                self.turns = 0
                if self.stop.expired():
                    return False
        return True


def inside(rect: Rect, cell: int, cols: int) -> bool:
    """Whether the cell numbered ``row * cols + col`` lies in ``rect``."""
    r, c = divmod(cell, cols)
    return rect[0] <= r < rect[0] + rect[2] and rect[1] <= c < rect[1] + rect[3]


def seed_search(board: Board, stop: Halt, listen: Listener | None = None) -> Iterator[list[list[int]]]:
    """The seed's rules only: propagation by overlap, distribution over the tightest clue."""
    return solve(board, stop, cells=False, listen=listen)


def cell_search(board: Board, stop: Halt, listen: Listener | None = None) -> Iterator[list[list[int]]]:
    """The seed's search with the cell rule added to propagation (every cell needs a rectangle)."""
    return solve(board, stop, cells=True, listen=listen)


def fixed(space: Space, before: list[bool]) -> list[dict[str, Any]]:
    """The clues left with one candidate that had more ``before``."""
    return [{"clue": i, "rect": list(rects[0])} for i, rects in enumerate(space) if len(rects) == 1 and not before[i]]


def solve(board: Board, stop: Halt, cells: bool, listen: Listener | None = None) -> Iterator[list[list[int]]]:
    """Every solution, by propagation to a fixpoint and distribution over the tightest clue."""
    if board.total() != board.area:
        return  # rectangles of these areas cannot tile the grid
    root: Space = [tuple(placements(board, r, c, n)) for r, c, n in board.clues]
    if any(not rects for rects in root):
        return
    search = SearchState(board, neighbours(root), stop, cells)
    # A state to search: the space, the clues just narrowed, its depth, and the decision that made it.
    stack: list[tuple[Space, list[int], int, Any]] = [(root, list(range(len(root))), 0, None)]
    path: list[tuple[int, Any]] = []  # the decisions above the current state, when someone listens
    while stack and not stop.expired():
        space, changed, depth, decision = stack.pop()
        if listen is not None:
            while path and path[-1][0] >= depth:
                listen("remove", *path.pop())
            if depth:
                path.append((depth, decision))
                if listen("place", depth, decision) is False:
                    listen("remove", *path.pop())
                    continue
            before = [len(rects) == 1 for rects in space]
            if depth:  # the clue just split had several candidates: report it when it is down to one
                before[decision["clue"]] = False
        alive = search.settle(space, changed)
        if listen is not None:
            listen("prune", depth, {"fixed": fixed(space, before), "dead": not alive})
        if not alive:
            continue
        open_clues = [(len(rects), i) for i, rects in enumerate(space) if len(rects) > 1]
        if not open_clues:
            solution = [list(rects[0]) for rects in space]
            if listen is not None:
                listen("solution", depth, solution)
            yield solution
            continue
        _, index = min(open_clues)
        first, rest = list(space), list(space)
        first[index], rest[index] = space[index][:1], space[index][1:]
        split = list(space[index][0])
        stack.append((rest, [index], depth + 1, {"clue": index, "not": split}))
        # Popped next: the first candidate is searched first, as in the seed.
        stack.append((first, [index], depth + 1, {"clue": index, "rect": split}))
    if listen is not None and not stack:
        while path:
            listen("remove", *path.pop())


ALGORITHMS = {
    "propagate": Algorithm("propagate", "the seed's overlap propagation and first/rest distribution", seed_search),
    "cells": Algorithm("cells", "the seed's search, plus the rule that every cell needs a rectangle", cell_search),
}
