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

The step runs for every state and choice, so it is written for speed: a state of one word stays in a
register (``step_word``), with per-edge masks for its tests, and keeps the labels canonical without a
renumber wherever the change keeps their order; wider states go nibble by nibble (``step_words``).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

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
    V_SLOT,  # v's frontier slot
    U_LEAVES,  # 1: this is u's last edge, so u leaves the frontier after it
    V_LEAVES,  # 1: this is v's last edge (must follow U_LEAVES: step reads U_LEAVES + side)
    ALL_ENTERED,  # 1: every square has entered the frontier by this edge (before that no path is the whole tour)
    OCCUPIED,  # bit k: slot k holds a square at this edge
    LAST_MOVE,  # bit k: slot k's square has one move left to decide after this edge
    START_SLOT,  # the start square's slot; -1: it has not entered the frontier yet; -2: no start, or it has left
    # Value masks, bit x: u's nibble is x, bit 16 + x: v's nibble is x (one test covers both squares):
    SKIP_DEAD,  # skipping this move kills the state: the square can no longer get the moves it needs
    TAKE_DEAD,  # taking it does: the square has both moves, or is the start square with one (follows SKIP_DEAD)
    NEW_END,  # skipping it leaves the square no move and one to decide: a tour end to come (open tours)
    # For states of one word (step_word):
    LAST_MOVE_NIBBLES,  # LAST_MOVE spread to nibbles: bit 4k set when bit k of LAST_MOVE is
    START_NIBBLE,  # bit 4 * START_SLOT while the start square is on the frontier, else 0
    START_TO_COME,  # 1: START_SLOT is -1
    REC,  # words per record: one past the last field
) = range(15)
MAX_SLOTS = 24  # labels 3..14 must name every path end pair: at most 12 pairs on the frontier
NIBBLES = 16  # per uint64 word
SYMMETRY = ("the frontier backend counts knight's tours directed or up to reversal, not up to {up_to}: "
            "count them up to symmetry with cpsat or sat")


@intrinsic
def popcount(typingctx, x):
    """How many bits of the uint64 ``x`` are set (one instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def lowest_bit(typingctx, x):
    """The index of the lowest set bit of the uint64 ``x``, which is not 0 (one instruction)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.IntType(1)(1))

    return types.uint64(types.uint64), codegen


# A state of one word (boards up to 7 squares on their short side; 8 and more need two) is worked on in
# a register, its nibbles read and written by shifts and masks, many at once:
ONES = np.uint64(0x1111111111111111)  # bit 0 of every nibble
NIBBLE = np.uint64(15)


@njit(cache=True, inline="always")
def zero_nibbles(x):
    """Bit 4k set where nibble k of ``x`` is 0."""
    return ~(x | (x >> np.uint64(1)) | (x >> np.uint64(2)) | (x >> np.uint64(3))) & ONES


@njit(cache=True, inline="always")
def label_nibbles(x):
    """Bit 4k set where nibble k of ``x`` is a label (3 or more)."""
    return ((x >> np.uint64(3)) | (x >> np.uint64(2)) | ((x >> np.uint64(1)) & x)) & ONES


@njit(cache=True, inline="always")
def set_nibble(x, shift, value):
    """``x`` with the nibble at bit ``shift`` set to ``value``."""
    return (x & ~(NIBBLE << shift)) | (value << shift)


@njit(cache=True, inline="always")
def relabel_first(x, old, new):
    """``x`` with its lowest nibble equal to ``old`` (a label: not 0, so no free slot) set to ``new``."""
    hits = zero_nibbles(x ^ (old * ONES))
    if hits == 0:
        return x
    return set_nibble(x, lowest_bit(hits), new)


@njit(cache=True, inline="always")
def either(mask, a, b):
    """Whether a value mask (bit x: u's nibble x; bit 16 + x: v's nibble x) holds u's ``a`` or v's ``b``."""
    return ((mask >> a) | (mask >> (np.uint64(16) + b))) & np.uint64(1)


BYTE_LOW = np.uint64(0x0F0F0F0F0F0F0F0F)  # the low nibble of every byte
BYTE_ONES = np.uint64(0x0101010101010101)
BYTE_CARRY = np.uint64(0x1010101010101010)  # bit 4 of every byte


@njit(cache=True, inline="always")
def above(x, t):
    """Bit 4k set where nibble k of ``x`` is more than ``t`` (less than 15): each nibble plus 15 - t, in a
    byte of its own so that it carries into bit 4 alone."""
    k = (np.uint64(15) - t) * BYTE_ONES
    even = ((x & BYTE_LOW) + k) & BYTE_CARRY
    odd = (((x >> np.uint64(4)) & BYTE_LOW) + k) & BYTE_CARRY
    return (even >> np.uint64(4)) | odd


@njit(cache=True, inline="always")
def drop_label(x, label):
    """The labels above ``label``, whose pair is gone, one lower: in order still, so canonical still."""
    return x - above(x, label)


@njit(cache=True, inline="always")
def lowest(bits):
    """The lowest set bit of ``bits`` alone (0: none)."""
    return bits & (~bits + np.uint64(1))


@njit(cache=True, inline="always")
def moved_in_order(x, label, to, frm):
    """After the path end labelled ``label`` moved from the nibble at bit ``frm`` to the one at ``to``: whether
    the labels are in order still. The path's lowest end may have moved, and the labels keep their order
    unless another path's lowest end lies between the old and the new one: no label there is enough."""
    ends = zero_nibbles(x ^ (label * ONES))  # the path's ends: to, and the far end
    new = lowest(ends)
    old = lowest((ends & ~(np.uint64(1) << to)) | (np.uint64(1) << frm))
    between = ((old - np.uint64(1)) ^ (new - np.uint64(1))) & ~(old | new)
    return label_nibbles(x) & between == 0


@njit(cache=True, inline="always")
def join(x, a, b, su, sv):
    """Paths labelled ``a`` (its end at u) and ``b`` (at v) joined at u and v, which are set to 1 already: their
    far ends get one label, and the label that may be out of order (0: none). In order where the joined
    path's lowest end was its path's lowest end: that path keeps its label and the other's label goes."""
    far_a, far_b = zero_nibbles(x ^ (a * ONES)), zero_nibbles(x ^ (b * ONES))  # one nibble each
    if far_a < far_b and far_a < np.uint64(1) << su:
        return drop_label(x ^ (far_b * (a ^ b)), b), np.uint64(0)
    if far_b < far_a and far_b < np.uint64(1) << sv:
        return drop_label(x ^ (far_a * (a ^ b)), a), np.uint64(0)
    return x ^ (far_b * (a ^ b)), a


@njit(cache=True, inline="always")
def renumber_word(x):
    """Labels renumbered 3, 4, ... in slot order (one word): each label names the two ends of a path,
    so a pass per path (its lowest end first) relabels both ends at once. The costliest part of a step:
    step_word calls it only where the labels may be out of order."""
    y = x
    labels = label_nibbles(x)
    label = np.uint64(3)
    while labels:
        old = (x >> lowest_bit(labels)) & NIBBLE
        pair = zero_nibbles(x ^ (old * ONES))  # the nibbles equal to old
        y = (y & ~(pair * NIBBLE)) | (pair * label)
        labels &= ~pair
        label += np.uint64(1)
    return y


@njit(cache=True, inline="always")
def whole_word(x, slots, occupied, freed):
    """Every square still on the frontier (``occupied``, not ``freed``: bit 4k for slot k) has both its moves."""
    for k in range(slots):
        if (occupied >> k) & 1 and not (freed >> np.uint64(4 * k)) & np.uint64(1):
            if (x >> np.uint64(4 * k)) & NIBBLE != np.uint64(1):
                return False
    return True


@njit(cache=True, inline="always")
def ends_fit_word(x, data, base, slots, freed):
    """``ends_fit`` on one word, ``freed`` a nibble mask: the empty nibbles among the slots with one move left
    counted all at once."""
    empty = zero_nibbles(x) & np.uint64(data[base + LAST_MOVE_NIBBLES]) & ~freed
    ends = ((x >> np.uint64(4 * slots)) & NIBBLE) + popcount(empty)
    start = np.uint64(data[base + START_NIBBLE]) & ~freed & ~empty  # the start square on the frontier, not counted yet
    if data[base + START_TO_COME] or start:
        ends += np.uint64(1)
    return ends <= np.uint64(2)


@njit(cache=True, inline="always")
def step_word(data, base, x, choice, out):
    """``step`` on a state of one word, kept in a register; ``out[0]`` is written once, on KEEP.

    The labels stay canonical without a renumber where a path ends at a tour end (its pair of labels goes
    and the labels above step down, keeping their order); only a new path, a path end that moves, or two
    paths that join can reorder them."""
    slots, closed = data[SLOTS], data[CLOSED]
    su, sv = np.uint64(4 * data[base + U_SLOT]), np.uint64(4 * data[base + V_SLOT])  # the nibbles' shifts
    a, b = (x >> su) & NIBBLE, (x >> sv) & NIBBLE
    one, two = np.uint64(1), np.uint64(2)
    if either(np.uint64(data[base + SKIP_DEAD + choice]), a, b):  # TAKE_DEAD follows SKIP_DEAD
        return REJECT
    moved = np.uint64(0)  # the label (15: a new path) that may now be out of order (0: none)
    if choice == 0:  # the common case first
        if not data[base + U_LEAVES] and not data[base + V_LEAVES]:
            out[0] = x
            if closed or not either(np.uint64(data[base + NEW_END]), a, b):
                return KEEP
            return KEEP if ends_fit_word(x, data, base, slots, np.uint64(0)) else REJECT
    elif a == 0 and b == 0:  # a new path
        x |= (NIBBLE << su) | (NIBBLE << sv)
        moved = NIBBLE
    elif a == 0:  # v's path end moves to u
        x = set_nibble(set_nibble(x, su, b), sv, one)
        if b != two and not moved_in_order(x, b, su, sv):
            moved = b
    elif b == 0:
        x = set_nibble(set_nibble(x, sv, a), su, one)
        if a != two and not moved_in_order(x, a, sv, su):
            moved = a
    else:
        x = set_nibble(set_nibble(x, su, one), sv, one)
        if a == b:  # one path closes into a cycle (closed tours), or two join tour end to tour end
            if (a == two) == bool(closed) or not data[base + ALL_ENTERED]:
                return REJECT
            return ACCEPT if whole_word(x, slots, data[base + OCCUPIED], np.uint64(0)) else REJECT
        if a == two or b == two:  # a path joins one that leads to a tour end: so does its far end
            label = b if a == two else a
            x = drop_label(relabel_first(x, label, two), label)
        else:  # two paths join into one between their far ends
            x, moved = join(x, a, b, su, sv)
    freed = np.uint64(0)  # nibble mask of the squares that leave
    for side in range(2):
        if not data[base + U_LEAVES + side]:  # V_LEAVES follows U_LEAVES
            continue
        shift = su if side == 0 else sv
        w = (x >> shift) & NIBBLE
        if w == 0:
            return REJECT  # a square no move reaches
        freed |= NIBBLE << shift
        x &= ~(NIBBLE << shift)
        if w == one:
            continue
        if closed:
            return REJECT
        at = np.uint64(4 * slots)
        if (x >> at) & NIBBLE >= two:
            return REJECT  # a third tour end
        x += one << at
        if w == two:  # a path from tour end to tour end: the whole open tour, or nothing
            if not data[base + ALL_ENTERED]:
                return REJECT
            return ACCEPT if whole_word(x, slots, data[base + OCCUPIED], freed) else REJECT
        x = drop_label(relabel_first(x, w, two), w)  # the path's other end now leads to a tour end
        if w == moved:
            moved = np.uint64(0)  # the path that moved is gone: the rest kept their order
    if not closed and not ends_fit_word(x, data, base, slots, freed):
        return REJECT
    out[0] = renumber_word(x) if moved else x
    return KEEP


# A state of several words (boards of 8 rows and more) is read and written in out, a nibble at a time.
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
def whole(state, slots, occupied, freed):
    """Every square still on the frontier (not ``freed``) has both its moves."""
    for k in range(slots):
        if (occupied >> k) & 1 and not (freed >> k) & 1 and nib(state, k) != 1:
            return False
    return True


@njit(cache=True, inline="always")
def renumber(state, slots):
    """Labels 3.. renumbered in slot order, so equal mate tables pack to equal words."""
    seen = np.uint64(0)  # nibble x: the new label of old label x (0: not seen yet)
    label = np.uint64(3)
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
    for k in range(slots):
        if (last_move >> k) & 1 and not (freed >> k) & 1 and nib(state, k) == 0:
            ends += np.uint64(1)
            if k == start:
                start = -2  # counted already
    if start == -1 or (start >= 0 and not (freed >> start) & 1):
        ends += np.uint64(1)  # the start square is to come, or on the frontier: an end either way
    return ends <= np.uint64(2)


@njit(cache=True, inline="always")
def step_words(data, base, key, choice, out):
    """``step`` on a state of several words, worked on in ``out``."""
    slots, closed, words = data[SLOTS], data[CLOSED], data[WORDS]
    u, v = data[base + U_SLOT], data[base + V_SLOT]
    a, b = nib(key, u), nib(key, v)
    if either(np.uint64(data[base + SKIP_DEAD + choice]), a, b):  # TAKE_DEAD follows SKIP_DEAD
        return REJECT
    for w in range(words):
        out[w] = key[w]
    one, two = np.uint64(1), np.uint64(2)
    dirty = False
    if choice == 0:
        if not data[base + U_LEAVES] and not data[base + V_LEAVES]:
            if closed or not either(np.uint64(data[base + NEW_END]), a, b):
                return KEEP
            return KEEP if ends_fit(out, data, base, slots, 0) else REJECT
    else:
        dirty = True
        if a == 0 and b == 0:  # a new path; 15 is renumbered below
            put(out, u, np.uint64(15))
            put(out, v, np.uint64(15))
        elif a == 0:
            put(out, u, b)
            put(out, v, one)
        elif b == 0:
            put(out, v, a)
            put(out, u, one)
        else:
            put(out, u, one)
            put(out, v, one)
            if a == b:  # one path closes into a cycle (closed tours), or two join tour end to tour end
                if (a == two) == bool(closed) or not data[base + ALL_ENTERED]:
                    return REJECT
                return ACCEPT if whole(out, slots, data[base + OCCUPIED], 0) else REJECT
            keep, drop = (a, b) if b != two else (b, a)  # the joined path's far ends: drop's end gets keep
            put(out, find(out, slots, drop, -1), keep)
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
            return ACCEPT if whole(out, slots, data[base + OCCUPIED], freed) else REJECT
        put(out, find(out, slots, x, w), two)  # the path's other end now leads to a tour end
        dirty = True
    if not closed and not ends_fit(out, data, base, slots, freed):
        return REJECT
    if dirty:
        renumber(out, slots)
    return KEEP


# _nrt=False: the step allocates nothing, and without numba's reference counting it does not pay an
# atomic increment and decrement of each array argument per call (5 ns or more of a call that is now ~11).
@njit(STEP_SIGNATURE, cache=True, _nrt=False)
def step(data, layer, key, choice, out):
    """One move decided: skip it (choice 0) or take it (choice 1)."""
    base = HEAD + REC * layer
    if data[WORDS] == 1:
        return step_word(data, base, key[0], choice, out)
    return step_words(data, base, key, choice, out)


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


def value_mask(u_values, v_values) -> int:
    """A record's value mask: bit x for u's nibble values, bit 16 + x for v's."""
    return sum(1 << x for x in u_values) | sum(1 << 16 + x for x in v_values)


def edge_records(edges: list[tuple[int, int]], degree: list[int], start: int,
                 closed: bool) -> tuple[list[list[int]], int]:
    """One spec record per edge, in order (the slots its ends hold in the frontier, which ends leave it,
    what is left to decide), and the frontier's widest count of squares. ``start``: the fixed first
    square of an open tour, or -1."""
    need = 2 if closed else 1  # moves a square needs (an open tour's end needs one)
    chosen = [0, 2] + [1] * 14  # chosen moves of a square, by its nibble
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
        record[OCCUPIED] = occupied
        record[LAST_MOVE] = last_move
        record[START_SLOT] = start_slot
        # a square dies when the moves it has (by its nibble) and those left cannot make the moves it needs
        record[SKIP_DEAD] = value_mask(*[[x for x in range(16) if chosen[x] + left[w] < need] for w in (a, b)])
        record[TAKE_DEAD] = value_mask(*[[x for x in range(16) if x == 1 or (w == start and x != 0)] for w in (a, b)])
        record[NEW_END] = value_mask(*[[0] if left[w] == 1 else [] for w in (a, b)])
        record[LAST_MOVE_NIBBLES] = sum(1 << 4 * k for k in range(NIBBLES) if (last_move >> k) & 1)
        record[START_NIBBLE] = 1 << 4 * start_slot if 0 <= start_slot < NIBBLES else 0
        record[START_TO_COME] = int(start_slot == -1)
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
    records, width = edge_records(edges, degree, start, board.closed)
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
