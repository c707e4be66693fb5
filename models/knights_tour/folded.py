"""The tours one board motion fixes, counted on a fold of the board: Burnside's lemma on the frontier.

A tour that a motion ``p`` (with or without reversal) fixes is, as a set of moves E, invariant
under ``p``: each orbit of moves under the group ``<p>`` lies wholly in E or wholly outside it. So E
is fixed by the moves it takes among one representative of every orbit (P, the *fold*) and by the
orbits that ``p`` maps onto themselves (short orbits, here only a move between a square and its
image, which the 180-degree rotation has on boards with one odd side): E = P + p(P) + ... + short
orbits taken. The frontier engine walks the representatives in the order of a sweep of the board
(along its columns or its rows, whichever leaves the narrower frontier), with the usual simpath
state and lookahead (the moves still to come include the images), so that every P reaching the
end of the fold is consistent with its images. At the *cut* after the last representative, the
state says, for every square on the frontier, how many moves P gives it and which frontier squares
its paths join: the images of those paths and the short orbits are glued there, in the state's own
step (``glue``), and the state's count is accepted for every choice of short orbits whose union is one
tour. Nothing is enumerated: a count costs the states of the fold, about half (or a quarter) of the
board's.

A move set fixed by ``p`` is one undirected tour that ``p`` maps onto itself, either keeping its
direction (a closed tour turned along itself: no square stays, no move is fixed) or reversing it
(an open tour about its middle square or middle move; a closed one about two squares or two moves
that ``p`` fixes). ``fixed_points`` names which one each group element counts and multiplies by 2 for
gridsat's directed tours (both directions of such a tour are fixed). Where a short argument proves
that an element fixes no tour, the element says so (``Fixed.why``) instead of counting.

The method is the one behind the published tables of geometrically distinct tours (G. Jelliss, Knight's
Tour Notes; D. E. Knuth, "Long and skinny knight's tours", 2010; A. Howroyd's OEIS A328340/A328341, 2019):
Burnside's lemma (the Cauchy-Frobenius lemma), each symmetric count a transfer-matrix count on a folded
board, here Knuth's simpath state (models/knights_tour/frontier.py) with the fold's images glued at the cut.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridsat.models.errors import InvalidOption
from gridsat.models.frontier import ACCEPT, REJECT, STEP_SIGNATURE, Fixed, FrontierSpec
from gridsat.models.knights_tour.board import Board, Square
from gridsat.models.knights_tour.frontier import (
    CLOSED,
    GROUPS,
    HEAD,
    MAX_SLOTS,
    NIBBLES,
    REC,
    SLOTS,
    TWO,
    U_SLOT,
    V_SLOT,
    WORDS,
    ZERO,
    advance_element,
    build,
    edge_records,
    groups,
    nibble_at,
    order,
)
from gridsat.models.knights_tour.symmetry import element_name
from gridsat.models.symmetry import Motion, motions

CUT = 4  # header word: the glue element (the number of fold moves' elements before it)
GLUE = 5  # header word: where the glue's tables start
# The glue's header, at data[data[GLUE] + field]:
PIECES, NODES, SHORT, ALLOW, CUT_SLOTS, SOURCE, NODE_OF, ORBITS = range(8)
# ALLOW: which choices of short orbits count: 0 none taken (a closed tour turned along itself),
# 1 some taken (one reversed about two fixed moves), 2 any (it is known which kind the motion fixes)
NONE_TAKEN, SOME_TAKEN, ANY = 0, 1, 2
MAX_SHORT = 6  # short orbits the glue tries every choice of (2 ** 6 choices at the cut): boards have 0 or 2


@njit(cache=True, inline="always")
def get(out, i):
    return np.int64(out[i])


@njit(cache=True)
def find(out, base, v):
    """The root of ``v`` in the union-find held in ``out[base:]`` (path halving)."""
    while get(out, base + v) != v:
        out[base + v] = out[base + get(out, base + v)]
        v = get(out, base + v)
    return v


@njit(cache=True)
def union(out, base, a, b):
    ra, rb = find(out, base, a), find(out, base, b)
    if ra != rb:
        out[base + ra] = np.uint64(rb)


@njit(cache=True, inline="always")
def moves_of(nibble):
    """The moves a square's nibble says it has: 0, 2 (nibble 1) or 1 (a path end)."""
    if nibble == 0:
        return 0
    return 2 if nibble == 1 else 1


END = 256  # added to a node's moves (held in the glue's scratch) when a path or a short move ends there


@njit(cache=True)
def take_short(data, at, short, mask, out, degree, parent):
    """The short orbits chosen by ``mask`` (their moves listed from ``data[at]``) added to the nodes' moves
    (each an end of a move) and joined in the union-find."""
    for f in range(short):
        size = data[at]
        if (mask >> f) & 1:
            for e in range(size):
                a, b = data[at + 1 + 2 * e], data[at + 2 + 2 * e]
                out[degree + a] = np.uint64((get(out, degree + a) + 1) | END)
                out[degree + b] = np.uint64((get(out, degree + b) + 1) | END)
                union(out, parent, a, b)
        at += 1 + 2 * size


@njit(cache=True)
def glue(data, lo, hi, mask, out, pair):
    """Whether the fold's state at the cut, its images and the short orbits in ``mask`` make one tour.

    Each node (a square whose moves come from more than one piece, or from a short orbit) sums its moves
    over the pieces (piece j holds p^j(P): its moves at node v are those of P at p^-j(v)) and the short
    orbits taken: two everywhere for a closed tour; one or two, with two tour ends in all, for an open
    one. Every path of P between two frontier squares, in every piece, joins its two end nodes; the whole
    is one tour when the nodes that end a path or a short move are one component (a cycle inside one
    piece is a cycle of P, which the fold's own steps refused). Scratch: ``out[2:2 + 2 * nodes]``."""
    g = data[GLUE]
    pieces, nodes, short, allow = data[g + PIECES], data[g + NODES], data[g + SHORT], data[g + ALLOW]
    if mask >= (1 << short) or (allow == NONE_TAKEN and mask != 0) or (allow == SOME_TAKEN and mask == 0):
        return REJECT
    source, node_of, slots, closed = data[g + SOURCE], data[g + NODE_OF], data[g + CUT_SLOTS], data[CLOSED]
    degree, parent = np.int64(2), 2 + nodes  # out[0:2] may hold the state; int64: a literal compiles take_short again
    for v in range(nodes):
        moves = 0
        for j in range(pieces):
            s = data[source + v * pieces + j]
            if s >= 0:
                x = nibble_at(lo, hi, np.uint64(s), pair)
                moves += moves_of(x)
                if x >= TWO:
                    moves |= END
        out[degree + v] = np.uint64(moves)
        out[parent + v] = np.uint64(v)
    take_short(data, data[g + ORBITS], short, mask, out, degree, parent)
    ends = 0 if closed else pieces * np.int64(nibble_at(lo, hi, np.uint64(data[SLOTS]), pair))
    for v in range(nodes):
        moves = get(out, degree + v) & (END - 1)
        if moves == 0 or moves > 2 or (closed and moves == 1):
            return REJECT
        if moves == 1:
            ends += 1
    if not closed and ends != 2:
        return REJECT
    for s in range(slots):
        x = nibble_at(lo, hi, np.uint64(s), pair)
        if x > TWO:
            for t in range(s + 1, slots):
                if nibble_at(lo, hi, np.uint64(t), pair) == x:
                    for j in range(pieces):
                        union(out, parent, data[node_of + j * slots + s], data[node_of + j * slots + t])
                    break
    root = -1
    for v in range(nodes):
        if get(out, degree + v) >= END:
            r = find(out, parent, v)
            if root == -1:
                root = r
            elif r != root:
                return REJECT
    return ACCEPT if root != -1 else REJECT


@njit(cache=True)
def fold_element(data, layer, lo, hi, choice, out, pair):
    """A fold move decided, or at the cut the state glued to its images (``choice``: the short orbits taken).

    A whole tour inside the fold (accepted by its own steps) is refused: P and p(P) share no move, so
    P + p(P) would have more moves than a tour has."""
    if layer == data[CUT]:
        return glue(data, lo, hi, choice, out, pair)
    if choice > 1:
        return REJECT
    status = advance_element(data, layer, lo, hi, choice, out, pair)
    return REJECT if status == ACCEPT else status


# _nrt=False as frontier.step: the step allocates nothing (the glue works in ``out``'s scratch words)
@njit(STEP_SIGNATURE, cache=True, _nrt=False)
def fold_step(data, layer, key, choice, out):
    if data[WORDS] == 1:
        return fold_element(data, layer, key[0], ZERO, choice, out, False)
    return fold_element(data, layer, key[0], key[1], choice, out, True)


def sweeps(board: Board) -> list[dict[Square, int]]:
    """The squares numbered along the columns and along the rows (a line's squares in ``frontier.order``'s
    order): the fold sweeps whichever leaves the narrower frontier."""
    return [order(board, along)[1] for along in ("columns", "rows")]


class Fold:
    """The representatives of ``p``'s orbits of moves in one sweep's order, with the tables of the glue."""

    def __init__(self, board: Board, motion: Motion, index: dict[Square, int]) -> None:
        self.board, self.index = board, index
        square = {i: s for s, i in index.items()}
        self.perm = [index[motion(square[i])] for i in range(board.area)]
        self.pieces = order_of(self.perm)
        edges = {(min(index[s], index[t]), max(index[s], index[t])) for s in board.squares() for t in board.jumps(s)}
        self.fold, self.short, rest = [], [], []
        for e in sorted(edges):
            orbit = self.orbit(e)
            if len(orbit) < self.pieces:
                if e == min(orbit):
                    self.short.append(sorted(orbit))
            elif e == min(orbit):
                self.fold.append(e)
            else:
                rest.append(e)
        self.edges = self.fold + [e for orbit in self.short for e in orbit] + rest
        self.degree = [0] * board.area
        for a, b in self.edges:
            self.degree[a] += 1
            self.degree[b] += 1
        records, _ = edge_records(self.edges, self.degree, -1, board.closed)
        self.records = records[: len(self.fold)]
        self.slots = 1 + max((max(r[U_SLOT], r[V_SLOT]) for r in self.records), default=-1)

    def orbit(self, edge: tuple[int, int]) -> set[tuple[int, int]]:
        found, (a, b) = set(), edge
        for _ in range(self.pieces):
            found.add((min(a, b), max(a, b)))
            a, b = self.perm[a], self.perm[b]
        return found

    def frontier(self) -> dict[int, int]:
        """The squares on the frontier at the cut (some move in the fold, some after it), by slot."""
        cut, first, last = len(self.fold), {}, {}
        for i, (a, b) in enumerate(self.edges):
            for v in (a, b):
                first.setdefault(v, i)
                last[v] = i
        held = {}
        for i, (a, b) in enumerate(self.fold):
            for v, field in ((a, U_SLOT), (b, V_SLOT)):
                if last[v] >= cut:
                    held[self.records[i][field]] = v
        assert all(first[v] < cut for v in held.values())
        return held

    def tables(self, allow: int) -> list[int]:
        """The glue's header and tables (see ``glue``), to append after the fold's records."""
        held = self.frontier()
        slot_of = {v: s for s, v in held.items()}
        inverse = [0] * len(self.perm)
        for i, j in enumerate(self.perm):
            inverse[j] = i
        nodes = sorted({power(self.perm, v, j) for v in held.values() for j in range(self.pieces)}
                       | {v for orbit in self.short for e in orbit for v in e})
        node = {v: n for n, v in enumerate(nodes)}
        source = [slot_of.get(power(inverse, v, j), -1) for v in nodes for j in range(self.pieces)]
        node_of = [node[power(self.perm, held[s], j)] if s in held else -1
                   for j in range(self.pieces) for s in range(self.slots)]
        orbits = [x for orbit in self.short for x in [len(orbit), *(node[v] for e in orbit for v in e)]]
        head = [self.pieces, len(nodes), len(self.short), allow, self.slots]
        at = len(head) + 3
        return [*head, at, at + len(source), at + len(source) + len(node_of), *source, *node_of, *orbits]


def order_of(perm: list[int]) -> int:
    """The smallest k >= 1 with perm^k the identity."""
    k, now = 1, list(perm)
    while any(now[i] != i for i in range(len(now))):
        now, k = [perm[x] for x in now], k + 1
    return k


def power(perm: list[int], v: int, j: int) -> int:
    for _ in range(j):
        v = perm[v]
    return v


def fold_spec(board: Board, motion: Motion, allow: int, name: str) -> FrontierSpec:
    """The spec that counts the undirected tours ``motion`` maps onto themselves (of the kind ``allow``
    names), on the narrower of the two sweeps' folds."""
    fold = min((Fold(board, motion, index) for index in sweeps(board)), key=lambda f: f.slots)
    if fold.slots > MAX_SLOTS:
        raise InvalidOption(f"the fold of {name} on the {board.rows}x{board.cols} board is {fold.slots} squares wide; "
                            f"the frontier backend's state holds at most {MAX_SLOTS}")
    if len(fold.short) > MAX_SHORT:
        raise InvalidOption(f"{name} has {len(fold.short)} short orbits of moves; the fold glues at most {MAX_SHORT}")
    nibbles = fold.slots if board.closed else fold.slots + 1
    words = max(1, -(-nibbles // NIBBLES))
    starts = groups(fold.records, board.closed)
    glue_tables = fold.tables(allow)
    at = HEAD + REC * len(fold.records)
    data = np.zeros(at + len(starts) + len(glue_tables), dtype=np.int64)
    data[SLOTS], data[CLOSED], data[WORDS], data[GROUPS] = fold.slots, int(board.closed), words, at
    data[CUT], data[GLUE] = len(starts) - 1, at + len(starts)
    if fold.records:
        data[HEAD:at] = np.array(fold.records, dtype=np.int64).ravel()
    data[at : at + len(starts)] = starts
    data[at + len(starts) :] = glue_tables
    base = data[GLUE]
    for field in (SOURCE, NODE_OF, ORBITS):
        data[base + field] += base
    nodes = glue_tables[NODES]
    return FrontierSpec(
        elements=len(starts), words=words, choices=max(2, 1 << len(fold.short)), step=fold_step, data=data,
        bound_bits=build(board).bound_bits, scratch=2 + 2 * nodes - words, width=fold.slots,
        order=f"fold of {name}", details={"fold_moves": len(fold.fold), "short_orbits": len(fold.short)})


def fixed_points(board: Board, up_to: str) -> list[Fixed]:
    """Every element of the group ``up_to`` (the same elements, in the same order, as ``symmetry.group``)
    with what it fixes: the directed tours of a count or a proof that there are none."""
    moves = motions(board.rows, board.cols)
    whole = build(board)
    found = []
    for move in moves if up_to == "symmetry" else moves[:1]:
        for reverse in (False, True) if board.area > 1 else (False,):
            if board.start and not board.closed and (move(board.start) != board.start or reverse):
                continue  # symmetry.group leaves it out
            name = element_name(move, reverse)
            if move.is_identity and not reverse:
                found.append(Fixed(name, whole, whole.scale[None]))
            elif whole.fixed is not None:
                found.append(Fixed(name, known=0, why=f"the {board.rows}x{board.cols} board has no tour"))
            else:
                found.append(fixed_by(board, move, reverse, name))
    return found


def fixed_by(board: Board, move: Motion, reverse: bool, name: str) -> Fixed:
    """The directed tours ``move`` (then the reversal, if ``reverse``) fixes: twice the undirected tours it
    maps onto themselves in the right sense, counted on its fold, unless one of the arguments below
    proves there are none."""
    why = no_fixed_tour(board, move, reverse, name)
    if why:
        return Fixed(name, known=0, why=why)
    fixed_squares = sum(move(s) == s for s in board.squares())
    if not board.closed:
        allow = ANY  # p reverses every open tour it maps onto itself
    elif not reverse:
        allow = NONE_TAKEN
    else:
        allow = ANY if fixed_squares else SOME_TAKEN
    return Fixed(name, fold_spec(board, move, allow, name), 2)


def no_fixed_tour(board: Board, move: Motion, reverse: bool, name: str) -> str:
    """Why no directed tour is fixed (a proof, for the report), or "" when it takes a count. A tour t_0 ..
    t_(N-1) that p fixes keeping its direction has p(t_i) = t_(i+s) (s = 0 for an open tour); reversing
    it, p(t_i) = t_(k-i) (k = N-1 for an open tour)."""
    n, squares = board.area, list(board.squares())
    kept = sum(move(s) == s for s in squares)
    order = 1 if move.is_identity else 2 if all(move(move(s)) == s for s in squares) else 4
    joined = any(move(s) in board.jumps(s) for s in squares)  # a move between a square and its image
    if move.is_identity:
        return (f"a tour of {n} squares is not its own reverse" if reverse else "")
    if not board.closed and not reverse:
        return f"a motion that fixes an open tour keeps each of its squares in place, and {move.name} moves some"
    if reverse and order != 2:
        return f"a motion that reverses a tour is its own inverse, and {move.name} is not"
    if not board.closed:
        if n % 2:
            return "" if kept == 1 else (f"a reversed open tour of odd length keeps only its middle square in "
                                         f"place, and {move.name} keeps {kept}")
        if kept:
            return f"a reversed open tour of even length keeps no square in place, and {move.name} keeps {kept}"
        return "" if joined else ("a reversed open tour of even length has a middle move that joins a square to its "
                                  f"image, and no move does under {move.name}")
    if reverse:
        if kept not in (0, 2):
            return (f"a reversed closed tour keeps at most two squares in place, and {move.name} keeps {kept} "
                    "(every tour passes them)")
        if kept or joined:
            return ""
        return ("a reversed closed tour that keeps no square in place has two moves that join a square to its image, "
                f"and no move does under {move.name}")
    if kept:
        return f"a closed tour turned along itself keeps no square in place, and {move.name} keeps {kept}"
    if n % order:
        return f"a closed tour turned along itself by {name} has a length that {order} divides, and {n} is not"
    shift = n // order % 2  # p moves each square N/order steps (or 3N/4) along the tour: its colour changes iff odd
    if any((sum(s) + sum(move(s))) % 2 != shift for s in squares):
        return (f"a closed tour turned along itself by {name} moves each square {n // order} steps along it, which "
                f"{'changes' if shift else 'keeps'} its colour, and {move.name} does not do so to every square")
    return ""
