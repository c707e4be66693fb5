"""Knight's tours as a frontier spec: Knuth's simpath over the knight graph's edges (Hamiltonian paths and cycles).

Elements are the knight moves (undirected edges), sorted by their squares numbered along the
board's short side (column-major on a wide board; see ``order``), so the frontier (squares with some moves
decided and some not) stays about two short sides wide. Each frontier square has a slot, fixed
by the order, holding one nibble:

* 0: no chosen move yet (also every free slot);
* 1: two chosen moves: the square is inside the tour, no more moves;
* 2: one chosen move, on a path whose other end is a tour end that already left the frontier;
* 3..14: one chosen move, on a path whose other end is the frontier square with the same label
  (the mate table); labels are renumbered in slot order after every step so equal states pack equal.

An open tour adds one nibble after the slots: how many tour ends (squares left with one move) so
far, at most 2. A square leaving the frontier with no move kills the state; with one move it
becomes a tour end (open tours only). Closing a path into a cycle is accepted only as the whole
tour (closed tours); joining two paths that each lead to a tour end accepts the whole open path.
The native count is undirected (each tour once); ``scale`` turns it into gridsat's directed count.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gridsat.models.errors import InvalidOption
from gridsat.models.frontier import ACCEPT, KEEP, REJECT, STEP_SIGNATURE, FrontierSpec
from gridsat.models.knights_tour.board import Board, Square

# data: a header of HEAD words, then one record of REC words per element (edge), the layer's at
# data[HEAD + REC * layer + field]. Numba reads these module-level ints as compile-time constants.
HEAD = 8  # header words (those after WORDS are unused)
SLOTS = 0  # frontier slots in the state (an open tour's count of tour ends is the nibble after them)
CLOSED = 1  # 1: closed tours (cycles), 0: open tours (paths)
WORDS = 2  # uint64 words per packed state
# An edge's record; u and v are its two squares, u the lower-numbered.
(
    U_SLOT,  # u's frontier slot
    V_SLOT,  # v's frontier slot (must follow U_SLOT: ends_fit reads U_SLOT + k)
    U_LEAVES,  # 1: this is u's last edge, so u leaves the frontier after it
    V_LEAVES,  # 1: this is v's last edge (must follow U_LEAVES: step reads U_LEAVES + side)
    ALL_ENTERED,  # 1: every square has entered the frontier by this edge (before that no path is the whole tour)
    U_IS_START,  # 1: u is the open tour's fixed start square
    V_IS_START,  # 1: v is the open tour's fixed start square
    OCCUPIED,  # bit k: slot k holds a square at this edge
    U_LEFT,  # u's moves still to decide after this edge
    V_LEFT,  # v's moves still to decide after this edge
    LAST_MOVE,  # bit k: slot k's square has one move left to decide after this edge
    START_SLOT,  # the start square's slot; -1: it has not entered the frontier yet; -2: no start, or it has left
    LAST_MOVE_NIBBLES,  # LAST_MOVE spread to nibbles: bit 4k set when bit k of LAST_MOVE is
    REC,  # words per record: one past the last field
) = range(14)
MAX_SLOTS = 24  # labels 3..14 must name every path end pair: at most 12 pairs on the frontier
NIBBLES = 16  # per uint64 word
SYMMETRY = ("the frontier backend counts knight's tours directed or up to reversal, not up to {up_to}: "
            "count them up to symmetry with cpsat or sat")


@njit(cache=True, inline="always")
def nib(state, k):
    """Slot ``k``'s nibble."""
    return (state[k >> 4] >> np.uint64((k & 15) << 2)) & np.uint64(15)


@njit(cache=True, inline="always")
def put(state, k, x):
    """Slot ``k``'s nibble set to ``x``."""
    w, shift = k >> 4, np.uint64((k & 15) << 2)
    state[w] = (state[w] & ~(np.uint64(15) << shift)) | (x << shift)


@njit(cache=True, inline="always")
def moves(x):
    """How many chosen moves a slot's nibble says its square has."""
    return 0 if x == 0 else 2 if x == 1 else 1


@njit(cache=True, inline="always")
def whole(state, slots, occupied, freed):
    """Every square still on the frontier (not ``freed``) has both its moves."""
    for k in range(slots):
        if (occupied >> k) & 1 and not (freed >> k) & 1 and nib(state, k) != 1:
            return False
    return True


ONES = np.uint64(0x1111111111111111)  # bit 0 of every nibble
# De Bruijn multiplication: the index of a word's single set bit in three operations.
DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
BIT_INDEX = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    BIT_INDEX[((int(DE_BRUIJN) << _bit) & ((1 << 64) - 1)) >> 58] = _bit


@njit(cache=True, inline="always")
def renumber(state, slots):
    """Labels 3.. renumbered in slot order, so equal mate tables pack to equal words."""
    seen = np.uint64(0)  # nibble x: the new label of old label x (0: not seen yet)
    label = np.uint64(3)
    if slots < NIBBLES:  # one word: visit only the nibbles that hold a label (value 3 or more)
        x = state[0]
        y = x
        labels = ((x >> np.uint64(3)) | (x >> np.uint64(2)) | ((x >> np.uint64(1)) & x)) & ONES
        while labels:
            low = labels & (~labels + np.uint64(1))
            shift = np.uint64(BIT_INDEX[(low * DE_BRUIJN) >> np.uint64(58)])
            old = ((x >> shift) & np.uint64(15)) << np.uint64(2)
            m = (seen >> old) & np.uint64(15)
            if m == 0:
                m = label
                seen |= m << old
                label += np.uint64(1)
            y = (y & ~(np.uint64(15) << shift)) | (m << shift)
            labels ^= low
        state[0] = y
        return
    for k in range(slots):
        x = nib(state, k)
        if x >= 3:
            shift = x << np.uint64(2)
            m = (seen >> shift) & np.uint64(15)
            if m == 0:
                m = label
                seen |= m << shift
                label += np.uint64(1)
            if m != x:
                put(state, k, m)


@njit(cache=True, inline="always")
def find(state, slots, x, skip):
    """The slot other than ``skip`` whose nibble is ``x`` (-1: none)."""
    if slots < NIBBLES:  # one word: the nibbles equal to x are the empty nibbles of state ^ (x in every nibble)
        d = state[0] ^ (x * ONES)
        hits = ~(d | (d >> np.uint64(1)) | (d >> np.uint64(2)) | (d >> np.uint64(3))) & ONES
        hits &= (np.uint64(1) << np.uint64(4 * slots)) - np.uint64(1)
        if skip >= 0:
            hits &= ~(np.uint64(1) << np.uint64(4 * skip))
        if hits == 0:
            return -1
        low = hits & (~hits + np.uint64(1))
        return BIT_INDEX[(low * DE_BRUIJN) >> np.uint64(58)] >> 2
    for k in range(slots):
        if k != skip and nib(state, k) == x:
            return k
    return -1


@njit(cache=True, inline="always")
def ends_fit(state, data, base, slots, freed):
    """An open tour has two ends: those made so far, the squares with no move and one left to decide
    (each can only end the tour), and the start square while it is to come, are at most two."""
    ends = nib(state, slots)
    last_move = data[base + LAST_MOVE]  # slots whose square has one move left to decide
    start = data[base + START_SLOT]  # the start square's slot (-1: off the frontier), or -2 once it has left
    if slots < NIBBLES:  # one word: its empty nibbles among those slots, counted all at once
        x = state[0]
        empty = ~(x | (x >> np.uint64(1)) | (x >> np.uint64(2)) | (x >> np.uint64(3)))
        empty &= np.uint64(data[base + LAST_MOVE_NIBBLES])  # bit 4k: slot k has one move left
        for k in range(2):
            w = data[base + U_SLOT + k]  # V_SLOT follows U_SLOT
            if (freed >> w) & 1:
                empty &= ~(np.uint64(1) << np.uint64(4 * w))
        if start >= 0 and (empty >> np.uint64(4 * start)) & np.uint64(1):
            start = -2  # counted below
        while empty:
            empty &= empty - np.uint64(1)
            ends += np.uint64(1)
    else:
        for k in range(slots):
            if (last_move >> k) & 1 and not (freed >> k) & 1 and nib(state, k) == 0:
                ends += np.uint64(1)
                if k == start:
                    start = -2  # counted already
    if start == -1 or (start >= 0 and not (freed >> start) & 1):
        ends += np.uint64(1)  # the start square is to come, or on the frontier: an end either way
    return ends <= np.uint64(2)


@njit(STEP_SIGNATURE, cache=True)
def step(data, layer, key, choice, out):
    """One move decided: skip it (choice 0) or take it (choice 1). Works on the packed words in place."""
    slots, closed, words = data[SLOTS], data[CLOSED], data[WORDS]
    base = HEAD + REC * layer
    u, v = data[base + U_SLOT], data[base + V_SLOT]
    leave_u, leave_v = data[base + U_LEAVES], data[base + V_LEAVES]
    occupied = data[base + OCCUPIED]
    for w in range(words):
        out[w] = key[w]
    a, b = nib(out, u), nib(out, v)
    one, two = np.uint64(1), np.uint64(2)
    need = 2 if closed else 1  # moves a square needs (an open tour's end needs one)
    dirty = False
    if choice == 0:
        if moves(a) + data[base + U_LEFT] < need or moves(b) + data[base + V_LEFT] < need:
            return REJECT  # look ahead: a square that cannot get the moves it needs kills the state now
        if not leave_u and not leave_v:
            if closed or not ((a == 0 and data[base + U_LEFT] == 1) or (b == 0 and data[base + V_LEFT] == 1)):
                return KEEP
            return KEEP if ends_fit(out, data, base, slots, 0) else REJECT
    else:
        if a == one or b == one:
            return REJECT
        if (data[base + U_IS_START] and a != 0) or (data[base + V_IS_START] and b != 0):
            return REJECT  # the start square keeps one move: it is a tour end
        dirty = True
        if a == 0 and b == 0:  # a new path; 15 is renumbered below
            put(out, u, np.uint64(15))
            put(out, v, np.uint64(15))
            a, b = np.uint64(15), np.uint64(15)
        elif a == 0:
            put(out, u, b)
            put(out, v, one)
            a, b = b, one
        elif b == 0:
            put(out, v, a)
            put(out, u, one)
            a, b = one, a
        else:
            put(out, u, one)
            put(out, v, one)
            if a == b:  # one path closes into a cycle (closed tours), or two join tour end to tour end
                if (a == two) == bool(closed) or not data[base + ALL_ENTERED]:
                    return REJECT
                return ACCEPT if whole(out, slots, occupied, 0) else REJECT
            keep, drop = (a, b) if b != two else (b, a)  # the joined path's far ends: drop's end gets keep
            put(out, find(out, slots, drop, -1), keep)
            a, b = one, one
        if moves(a) + data[base + U_LEFT] < need or moves(b) + data[base + V_LEFT] < need:
            return REJECT
    freed = 0
    for side in range(2):
        if not data[base + U_LEAVES + side]:  # V_LEAVES follows U_LEAVES
            continue
        w = u if side == 0 else v
        x = nib(out, w)
        freed |= 1 << w
        if x == 0:
            return REJECT  # a square no move reaches
        put(out, w, np.uint64(0))
        if x == one:
            continue
        if closed:
            return REJECT
        ends = nib(out, slots) + one
        if ends > two:
            return REJECT
        put(out, slots, ends)
        if x == two:  # a path from tour end to tour end: the whole open tour, or nothing
            if not data[base + ALL_ENTERED]:
                return REJECT
            return ACCEPT if whole(out, slots, occupied, freed) else REJECT
        put(out, find(out, slots, x, w), two)  # the path's other end now leads to a tour end
        dirty = True
    if not closed and not ends_fit(out, data, base, slots, freed):
        return REJECT
    if dirty:
        renumber(out, slots)
    return KEEP


def order(board: Board) -> tuple[str, dict[Square, int]]:
    """Squares numbered along the short side, a line (column, or row of a tall board) at a time, its
    even squares before its odd ones. A move to the next line keeps that parity and a move to the
    line after changes it, so this order groups the moves and keeps fewer states than plain line
    order (states are what the time and memory follow; the README gives the measurement)."""
    if board.rows <= board.cols:
        squares = sorted(board.squares(), key=lambda s: (s[1], s[0] % 2, s[0]))
        return "column-major", {s: i for i, s in enumerate(squares)}
    squares = sorted(board.squares(), key=lambda s: (s[0], s[1] % 2, s[1]))
    return "row-major", {s: i for i, s in enumerate(squares)}


def bound_bits(degrees: list[int], open_tour: bool) -> int:
    """A bound on log2 of the undirected tours from Bregman's bound on the permanent: directed
    Hamiltonian cycles (of the board plus a hub square joined to every square, for open tours) are
    at most the permanent of the adjacency, and each undirected tour is two of them."""
    n = len(degrees)
    degs = [d + 1 for d in degrees] + [n] if open_tour else degrees
    bits = sum(math.lgamma(d + 1) / d / math.log(2) for d in degs if d > 0)
    return math.ceil(bits)  # undirected tours are half the bound: that bit is the margin for rounding


def edge_records(edges: list[tuple[int, int]], degree: list[int], start: int) -> tuple[list[list[int]], int]:
    """One spec record per edge, in order (the slots its ends hold in the frontier, which ends leave it,
    what is left to decide), and the frontier's widest count of squares. ``start``: the fixed first
    square of an open tour, or -1."""
    area = len(degree)
    first = {v: len(edges) for v in range(area)}
    last = {v: -1 for v in range(area)}
    for i, (a, b) in enumerate(edges):
        for v in (a, b):
            first[v], last[v] = min(first[v], i), max(last[v], i)
    entered_all = max(first.values())
    left = list(degree)  # moves not yet decided, per square
    slot_of: dict[int, int] = {}
    free: list[int] = []
    width = 0
    records = []
    for i, (a, b) in enumerate(edges):
        for v in (a, b):
            if first[v] == i:
                slot_of[v] = min(free) if free else len(slot_of) + len(free)
                if free:
                    free.remove(slot_of[v])
        occupied = sum(1 << s for s in slot_of.values())
        width = max(width, len(slot_of))
        for v in (a, b):
            left[v] -= 1
        last_move = sum(1 << k for w, k in slot_of.items() if left[w] == 1)
        start_slot = slot_of.get(start, -2 if start < 0 or last[start] < i else -1)
        record = [0] * REC
        record[U_SLOT], record[V_SLOT] = slot_of[a], slot_of[b]
        record[U_LEAVES], record[V_LEAVES] = int(last[a] == i), int(last[b] == i)
        record[ALL_ENTERED] = int(i >= entered_all)
        record[U_IS_START], record[V_IS_START] = int(a == start), int(b == start)
        record[OCCUPIED] = occupied
        record[U_LEFT], record[V_LEFT] = left[a], left[b]
        record[LAST_MOVE] = last_move
        record[START_SLOT] = start_slot
        record[LAST_MOVE_NIBBLES] = sum(1 << 4 * k for k in range(NIBBLES) if (last_move >> k) & 1)
        records.append(record)
        for v in (a, b):
            if last[v] == i:
                free.append(slot_of.pop(v))
    return records, width


def build(board: Board, least_words: int = 1) -> FrontierSpec:
    """The spec of ``board``'s tours (open or closed, optionally from a start square); ``least_words``
    widens the state (a test of the multi-word path on a small board)."""
    label, index = order(board)
    square = {i: s for s, i in index.items()}
    scale: dict[str | None, int] = {None: 1 if board.start and not board.closed else 2, "reversal": 1}
    edges = sorted({(min(index[s], index[t]), max(index[s], index[t])) for s in board.squares()
                    for t in board.jumps(s)})
    degree = [0] * board.area
    for a, b in edges:
        degree[a] += 1
        degree[b] += 1
    common = {"order": f"{label} edges", "scale": scale, "refuse": SYMMETRY}
    if board.area == 1:
        return FrontierSpec(0, 1, 2, step, np.zeros(HEAD, np.int64), 1, fixed=0 if board.closed else 1,
                            scale={None: 1, "reversal": 1}, order=common["order"], refuse=SYMMETRY)
    least = 2 if board.closed else 1
    if min(degree) < least or (board.closed and board.area % 2):
        return FrontierSpec(0, 1, 2, step, np.zeros(HEAD, np.int64), 1, fixed=0, **common)
    start = index[board.start] if board.start and not board.closed else -1
    records, width = edge_records(edges, degree, start)
    slots = max(max(r[U_SLOT], r[V_SLOT]) for r in records) + 1
    if slots > MAX_SLOTS:
        raise InvalidOption(f"the {board.rows}x{board.cols} board's frontier is {slots} squares wide; the frontier "
                            f"backend's state holds at most {MAX_SLOTS}")
    nibbles = slots if board.closed else slots + 1
    words = max(least_words, -(-nibbles // NIBBLES))
    data = np.zeros(HEAD + REC * len(edges), dtype=np.int64)
    data[SLOTS], data[CLOSED], data[WORDS] = slots, int(board.closed), words
    data[HEAD:] = np.array(records, dtype=np.int64).ravel()
    first_move = square[edges[0][0]], square[edges[0][1]]
    return FrontierSpec(
        elements=len(edges), words=words, choices=2, step=step, data=data,
        bound_bits=min(bound_bits(degree, not board.closed), len(edges) + 1), scratch=0,
        width=width, details={"frontier_slots": slots, "first_move": [list(first_move[0]), list(first_move[1])]},
        **common,
    )
