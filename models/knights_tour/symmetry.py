"""The symmetries of a knight's-tour instance: board motions, each with or without reversing the tour."""

from __future__ import annotations

from gridsat.models.breaking import NO
from gridsat.models.formulation import Key
from gridsat.models.knights_tour.board import Board, Tour, rooted
from gridsat.models.symmetry import Element, Group, Motion, NotPermutable, motions

OTHER_END = {"first": "last", "last": "first"}


MOVES_START = "move the start square"


REVERSES = "reverse the tour (an open tour reversed begins where it ended, not at the start)"


def group(board: Board, moves: tuple[Motion, ...]) -> Group:
    """The board motions in ``moves``, each also with the tour reversed, that map the instance onto itself.

    A closed tour passes every square, so its root is only where it is written: every motion and
    its reversal maps closed tours to closed tours (re-rooted). An open tour with a start keeps only
    the motions that fix the start square, and never its reversal (that begins where the tour ended).
    A one-square tour is its own reverse, so there reversal is the identity and is listed once.
    """
    kept, left_out, why = [], [], set()
    for move in moves:
        for reverse in (False, True) if board.area > 1 else (False,):
            name = element_name(move, reverse)
            if board.start and not board.closed and move(board.start) != board.start:
                left_out.append(name)
                why.add(MOVES_START)
            elif board.start and not board.closed and reverse:
                left_out.append(name)
                why.add(REVERSES)
            else:
                kept.append(tour_element(board, move, reverse, name))
    return Group(tuple(kept), tuple(left_out), " or ".join(r for r in (MOVES_START, REVERSES) if r in why), (NO,))


def element_name(move: Motion, reverse: bool) -> str:
    """An element's name: the motion's, ``+reverse`` when the tour is reversed too."""
    if not reverse:
        return move.name
    return "reverse" if move.is_identity else f"{move.name}+reverse"


def tour_element(board: Board, move: Motion, reverse: bool, name: str) -> Element:
    """A motion, then optionally the reversal, on tours (re-rooted when closed) and on every formulation's keys."""
    n, table = board.area, move.table

    def tour(t: Tour) -> Tour:
        return rooted(board, [list(table[r][c]) for r, c in (reversed(t) if reverse else t)])

    def key(k: Key) -> Key:
        kind = k[0]
        if kind == "arc":
            u, v = move(k[1]), move(k[2])
            return ("arc", v, u) if reverse else ("arc", u, v)
        if kind in OTHER_END:
            return (OTHER_END[kind] if reverse else kind, move(k[1]))
        if kind == "at":  # square k[1] is step k[2]
            step = k[2]
            if board.closed and move(board.root) != board.root:
                raise NotPermutable(f"the position encoding numbers a closed tour's steps from the root square "
                                    f"{list(board.root)}, which {name} moves, so this encoding has no image of it "
                                    "(choose rank, ordering or binary)")
            if reverse:
                step = (n - step) % n if board.closed else n - 1 - step
            return ("at", move(k[1]), step)
        raise NotPermutable(f"{name} has no image for the variable {k!r}")

    return Element(name, tour, key)


def up_to_symmetry(board: Board) -> Group:
    """The board's rotations and reflections, each with and without reversing the tour."""
    return group(board, motions(board.rows, board.cols))


def up_to_reversal(board: Board) -> Group:
    """A tour and its reverse: undirected tours."""
    return group(board, motions(board.rows, board.cols)[:1])
