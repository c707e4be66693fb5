"""The symmetries of a shikaku board: the rotations and reflections that keep its clues."""

from __future__ import annotations

from gridsat.models.breaking import NO
from gridsat.models.formulation import Key
from gridsat.models.shikaku.formats import Board
from gridsat.models.shikaku.formulations import Solution
from gridsat.models.symmetry import Element, Group, Motion, board_group


def group(board: Board) -> Group:
    """The rotations and reflections that map every clue onto a clue of the same number."""
    clues = set(board.clues)
    index = {(r, c): i for i, (r, c, _) in enumerate(board.clues)}

    def element(move: Motion) -> Element | None:
        if {(*move((r, c)), n) for r, c, n in board.clues} != clues:
            return None
        target = [index[move((r, c))] for r, c, _ in board.clues]  # clue i's rectangle becomes clue target[i]'s

        def solution(s: Solution) -> Solution:
            out: Solution = [[]] * len(s)
            for i, rect in enumerate(s):
                out[target[i]] = list(move.rect(tuple(rect)))
            return out

        def key(k: Key) -> Key:
            return ("rect", target[k[1]], *move.rect(k[2:]))

        return Element(move.name, solution, key)

    return board_group(board.rows, board.cols, element, why="move the clues", unbroken=(NO,))
