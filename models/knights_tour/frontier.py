"""Knight's tours as a frontier spec: Knuth's simpath over the knight graph's edges (Hamiltonian paths and cycles).

The moves (undirected edges) are decided in order, sorted by their squares numbered along the
board's short side (column-major on a wide board; see ``order``), so the frontier (squares with some moves
decided and some not) stays about two short sides wide. An element is one move, except in closed
tours: there a square's last move leaves one choice alive (its square needs exactly two moves), so
it is decided in the same element as the move before it, and its layer is never stored (``groups``).
Each frontier square has a slot, fixed by the order, holding one nibble:

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

The mirror reflects each line end to end. After an element whose decided moves it maps onto themselves (one
that ends a line, and in the default "mirror" order one that ends a pair of squares, ``mirror_elements``) a
state and its mirror image have as many completions, mirrored, so the step keeps one of the two and the
engine adds up their counts there (``keep_lesser_image``): in the mixed order, 8x8 closed tours' first 60
layers held 42% fewer states. An open tour's start square must be on the axis or gone.

The step runs for every state and choice, so it is written for speed: the state (one word, or two for
boards of 8 squares and more on their short side) stays in registers, with per-move masks for its
tests, and the labels stay canonical without a renumber wherever a change keeps their order.
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
from gridsat.models.symmetry import Motion

# data: a header of HEAD words, then one record of REC words per element (edge), the layer's at
# data[HEAD + REC * layer + field]. Numba reads these module-level ints as compile-time constants.
HEAD = 8  # header words (4 and 5 are the folded boards', models.knights_tour.folded; 7 is unused)
SLOTS = 0  # frontier slots in the state (an open tour's count of tour ends is the nibble after them)
CLOSED = 1  # 1: closed tours (cycles), 0: open tours (paths)
WORDS = 2  # uint64 words per packed state: 1 or 2
GROUPS = 3  # where the elements' first moves are: element i is moves data[GROUPS + i] .. data[GROUPS + i + 1] - 1
# Where the mirror's tables are (0: none; ``mirror_tables``): element i's is data[data[MIRRORS] + i], 0 where the
# mirror does not map its decided moves onto themselves, else where its pairs of slots to swap are.
MIRRORS = 6
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
    # The same, as nibble masks of the state's first word (and of its second):
    LAST_MOVE_NIBBLES,  # LAST_MOVE spread to nibbles: bit 4k set when bit k of LAST_MOVE is
    START_NIBBLE,  # bit 4 * START_SLOT while the start square is on the frontier, else 0
    LAST_MOVE_NIBBLES_HI,  # bit 4k set when bit 16 + k of LAST_MOVE is
    START_NIBBLE_HI,  # bit 4 * (START_SLOT - 16) while the start square is on the frontier in the second word
    START_TO_COME,  # 1: START_SLOT is -1
    REC,  # words per record: one past the last field
) = range(17)
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


# A state is worked on in registers: ``lo`` holds slots 0-15, ``hi`` slots 16 and up (boards of 8 squares
# and more on their short side need them; ``hi`` is 0 on smaller boards). Every function below takes
# ``pair``, a literal at each call: inlined into ``step``, the half that a one-word state never needs is
# compiled away. Nibbles are read and written by shifts and masks, many at once.
ONES = np.uint64(0x1111111111111111)  # bit 0 of every nibble
NIBBLE = np.uint64(15)
ZERO, ONE, TWO, FOUR = np.uint64(0), np.uint64(1), np.uint64(2), np.uint64(4)
HALF = np.uint64(NIBBLES)  # the first slot of ``hi``


@njit(cache=True, inline="always")
def zero_nibbles(x):
    """Bit 4k set where nibble k of ``x`` is 0."""
    return ~(x | (x >> np.uint64(1)) | (x >> np.uint64(2)) | (x >> np.uint64(3))) & ONES


@njit(cache=True, inline="always")
def equal_nibbles(x, value):
    """Bit 4k set where nibble k of ``x`` is ``value``."""
    return zero_nibbles(x ^ (value * ONES))


@njit(cache=True, inline="always")
def label_nibbles(x):
    """Bit 4k set where nibble k of ``x`` is a label (3 or more)."""
    return ((x >> np.uint64(3)) | (x >> np.uint64(2)) | ((x >> np.uint64(1)) & x)) & ONES


@njit(cache=True, inline="always")
def set_nibble(x, shift, value):
    """``x`` with the nibble at bit ``shift`` set to ``value``."""
    return (x & ~(NIBBLE << shift)) | (value << shift)


@njit(cache=True, inline="always")
def nibble_at(lo, hi, k, pair):
    """Slot ``k``'s nibble."""
    if pair and k >= HALF:
        return (hi >> (FOUR * (k - HALF))) & NIBBLE
    return (lo >> (FOUR * k)) & NIBBLE


@njit(cache=True, inline="always")
def with_nibble(lo, hi, k, value, pair):
    """The state with slot ``k``'s nibble set to ``value``."""
    if pair and k >= HALF:
        return lo, set_nibble(hi, FOUR * (k - HALF), value)
    return set_nibble(lo, FOUR * k, value), hi


@njit(cache=True, inline="always")
def nibble_bit(k, pair):
    """Bit 0 of slot ``k``'s nibble, in (lo, hi)."""
    if pair and k >= HALF:
        return ZERO, ONE << (FOUR * (k - HALF))
    return ONE << (FOUR * k), ZERO


@njit(cache=True, inline="always")
def slot_of(bits_lo, bits_hi, pair):
    """The slot of the lowest nibble flagged in ``bits_lo``, else in ``bits_hi`` (one of them not 0)."""
    if pair and bits_lo == 0:
        return HALF + (lowest_bit(bits_hi) >> np.uint64(2))
    return lowest_bit(bits_lo) >> np.uint64(2)


@njit(cache=True, inline="always")
def below(k, pair):
    """Bit 0 of the nibbles of the slots below ``k``, in (lo, hi)."""
    lo = ONES if k >= HALF else ONES & ((ONE << (FOUR * k)) - ONE)
    if not pair or k <= HALF:
        return lo, ZERO
    return lo, ONES if k >= HALF + HALF else ONES & ((ONE << (FOUR * (k - HALF))) - ONE)


@njit(cache=True, inline="always")
def relabel_first(lo, hi, old, new, pair):
    """The state with its lowest nibble equal to ``old`` (a label: not 0, so no free slot) set to ``new``."""
    hits = equal_nibbles(lo, old)
    if hits:
        return set_nibble(lo, lowest_bit(hits), new), hi
    if pair:
        hits = equal_nibbles(hi, old)
        if hits:
            return lo, set_nibble(hi, lowest_bit(hits), new)
    return lo, hi


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
def drop_label(lo, hi, label, pair):
    """The labels above ``label``, whose pair is gone, one lower: in order still, so canonical still."""
    if pair:
        return lo - above(lo, label), hi - above(hi, label)
    return lo - above(lo, label), hi


@njit(cache=True)
def moved_in_order(lo, hi, label, to, frm, pair):
    """After the path end labelled ``label`` moved from slot ``frm`` to slot ``to``: whether the labels are in
    order still. The path's lowest end may have moved, and the labels keep their order unless another
    path's lowest end lies between the old and the new one: no label there is enough."""
    to_lo, to_hi = nibble_bit(to, pair)
    far = slot_of(equal_nibbles(lo, label) & ~to_lo, equal_nibbles(hi, label) & ~to_hi if pair else ZERO, pair)
    new, old = min(to, far), min(frm, far)
    first, last = min(new, old), max(new, old)
    last_lo, last_hi = below(last, pair)
    first_lo, first_hi = below(first + ONE, pair)
    inside = label_nibbles(lo) & last_lo & ~first_lo  # labels in the slots strictly between
    if pair:
        inside |= label_nibbles(hi) & last_hi & ~first_hi
    return inside == 0


@njit(cache=True)
def join(lo, hi, a, b, u, v, pair):
    """Paths labelled ``a`` (its end at slot u) and ``b`` (at v) joined at u and v, which are set to 1 already:
    their far ends get one label, and the label that may be out of order (0: none). In order where the
    joined path's lowest end was its path's lowest end: that path keeps its label and the other's goes."""
    far_a = slot_of(equal_nibbles(lo, a), equal_nibbles(hi, a) if pair else ZERO, pair)
    far_b = slot_of(equal_nibbles(lo, b), equal_nibbles(hi, b) if pair else ZERO, pair)
    if far_a < far_b and far_a < u:
        lo, hi = with_nibble(lo, hi, far_b, a, pair)
        lo, hi = drop_label(lo, hi, b, pair)
        return lo, hi, ZERO
    if far_b < far_a and far_b < v:
        lo, hi = with_nibble(lo, hi, far_a, b, pair)
        lo, hi = drop_label(lo, hi, a, pair)
        return lo, hi, ZERO
    lo, hi = with_nibble(lo, hi, far_b, a, pair)
    return lo, hi, a


@njit(cache=True)
def renumber(lo, hi, pair):
    """Labels renumbered 3, 4, ... in slot order: each label names the two ends of a path, so a pass per
    path (its lowest end first) relabels both ends at once. The costliest part of a step: ``advance``
    calls it only where the labels may be out of order."""
    new_lo, new_hi = lo, hi
    left_lo = label_nibbles(lo)
    left_hi = label_nibbles(hi) if pair else ZERO
    label = np.uint64(3)
    while left_lo or left_hi:
        if left_lo:
            old = (lo >> lowest_bit(left_lo)) & NIBBLE
        else:
            old = (hi >> lowest_bit(left_hi)) & NIBBLE
        ends = equal_nibbles(lo, old)
        new_lo = (new_lo & ~(ends * NIBBLE)) | (ends * label)
        left_lo &= ~ends
        if pair:
            ends = equal_nibbles(hi, old)
            new_hi = (new_hi & ~(ends * NIBBLE)) | (ends * label)
            left_hi &= ~ends
        label += ONE
    return new_lo, new_hi


@njit(cache=True)
def whole(lo, hi, slots, occupied, freed_lo, freed_hi, pair):
    """Every square still on the frontier (``occupied``, bit k for slot k; not ``freed``, nibble masks)
    has both its moves."""
    for k in range(slots):
        if (occupied >> k) & 1:
            at = np.uint64(k)
            bit_lo, bit_hi = nibble_bit(at, pair)
            if not (freed_lo & bit_lo or freed_hi & bit_hi) and nibble_at(lo, hi, at, pair) != ONE:
                return False
    return True


@njit(cache=True)
def ends_fit(lo, hi, data, base, slots, freed_lo, freed_hi, pair):
    """An open tour has two ends: those made so far, the squares with no move and one left to decide
    (each can only end the tour), and the start square while it is to come, are at most two. The empty
    nibbles among the slots with one move left are counted all at once."""
    empty = zero_nibbles(lo) & np.uint64(data[base + LAST_MOVE_NIBBLES]) & ~freed_lo
    ends = nibble_at(lo, hi, np.uint64(slots), pair) + popcount(empty)
    start = np.uint64(data[base + START_NIBBLE]) & ~freed_lo & ~empty  # on the frontier, not counted yet
    if pair:
        empty = zero_nibbles(hi) & np.uint64(data[base + LAST_MOVE_NIBBLES_HI]) & ~freed_hi
        ends += popcount(empty)
        start |= np.uint64(data[base + START_NIBBLE_HI]) & ~freed_hi & ~empty
    if data[base + START_TO_COME] or start:
        ends += ONE
    return ends <= TWO


@njit(cache=True, inline="always")
def put_state(out, lo, hi, pair):
    out[0] = lo
    if pair:
        out[1] = hi


# advance and advance_element are plain calls, not inlined by numba (LLVM still may): numba's own inlining
# of them into every call site made the step take minutes to compile.
@njit(cache=True)
def advance(data, base, lo, hi, choice, out, pair):
    """One move decided (the record at ``data[base:]``), on a state held in registers; the child is
    written to ``out`` once, on KEEP.

    The labels stay canonical without a renumber where a path ends at a tour end (its pair of labels goes
    and the labels above step down, keeping their order); only a new path, a path end that moves, or two
    paths that join can reorder them.

    A numba kernel that stays whole, over 60 lines: the state stays in registers through every case, and
    each piece split out would be a call of its own in the innermost loop (numba's inlining of helpers
    into every call site made the step take minutes to compile, see above)."""
    slots, closed = data[SLOTS], data[CLOSED]
    u, v = np.uint64(data[base + U_SLOT]), np.uint64(data[base + V_SLOT])
    a, b = nibble_at(lo, hi, u, pair), nibble_at(lo, hi, v, pair)
    if either(np.uint64(data[base + SKIP_DEAD + choice]), a, b):  # TAKE_DEAD follows SKIP_DEAD
        return REJECT
    moved = ZERO  # the label (15: a new path) that may now be out of order (0: none)
    if choice == 0:  # the common case first
        if not data[base + U_LEAVES] and not data[base + V_LEAVES]:
            put_state(out, lo, hi, pair)
            if closed or not either(np.uint64(data[base + NEW_END]), a, b):
                return KEEP
            return KEEP if ends_fit(lo, hi, data, base, slots, ZERO, ZERO, pair) else REJECT
    elif a == 0 and b == 0:  # a new path
        lo, hi = with_nibble(lo, hi, u, NIBBLE, pair)
        lo, hi = with_nibble(lo, hi, v, NIBBLE, pair)
        moved = NIBBLE
    elif a == 0:  # v's path end moves to u
        lo, hi = with_nibble(lo, hi, u, b, pair)
        lo, hi = with_nibble(lo, hi, v, ONE, pair)
        if b != TWO and not moved_in_order(lo, hi, b, u, v, pair):
            moved = b
    elif b == 0:
        lo, hi = with_nibble(lo, hi, v, a, pair)
        lo, hi = with_nibble(lo, hi, u, ONE, pair)
        if a != TWO and not moved_in_order(lo, hi, a, v, u, pair):
            moved = a
    else:
        lo, hi = with_nibble(lo, hi, u, ONE, pair)
        lo, hi = with_nibble(lo, hi, v, ONE, pair)
        if a == b:  # one path closes into a cycle (closed tours), or two join tour end to tour end
            if (a == TWO) == bool(closed) or not data[base + ALL_ENTERED]:
                return REJECT
            return ACCEPT if whole(lo, hi, slots, data[base + OCCUPIED], ZERO, ZERO, pair) else REJECT
        if a == TWO or b == TWO:  # a path joins one that leads to a tour end: so does its far end
            label = b if a == TWO else a
            lo, hi = relabel_first(lo, hi, label, TWO, pair)
            lo, hi = drop_label(lo, hi, label, pair)
        else:  # two paths join into one between their far ends
            lo, hi, moved = join(lo, hi, a, b, u, v, pair)
    freed_lo, freed_hi = ZERO, ZERO  # nibble masks of the squares that leave
    for side in range(2):
        if not data[base + U_LEAVES + side]:  # V_LEAVES follows U_LEAVES
            continue
        k = u if side == 0 else v
        w = nibble_at(lo, hi, k, pair)
        if w == 0:
            return REJECT  # a square no move reaches
        bit_lo, bit_hi = nibble_bit(k, pair)
        freed_lo |= bit_lo * NIBBLE
        freed_hi |= bit_hi * NIBBLE
        lo, hi = lo & ~(bit_lo * NIBBLE), hi & ~(bit_hi * NIBBLE)
        if w == ONE:
            continue
        if closed:
            return REJECT
        ends = nibble_at(lo, hi, np.uint64(slots), pair)
        if ends >= TWO:
            return REJECT  # a third tour end
        lo, hi = with_nibble(lo, hi, np.uint64(slots), ends + ONE, pair)
        if w == TWO:  # a path from tour end to tour end: the whole open tour, or nothing
            if not data[base + ALL_ENTERED]:
                return REJECT
            return ACCEPT if whole(lo, hi, slots, data[base + OCCUPIED], freed_lo, freed_hi, pair) else REJECT
        lo, hi = relabel_first(lo, hi, w, TWO, pair)  # the path's other end now leads to a tour end
        lo, hi = drop_label(lo, hi, w, pair)
        if w == moved:
            moved = ZERO  # the path that moved is gone: the rest kept their order
    if not closed and not ends_fit(lo, hi, data, base, slots, freed_lo, freed_hi, pair):
        return REJECT
    if moved:
        lo, hi = renumber(lo, hi, pair)
    put_state(out, lo, hi, pair)
    return KEEP


@njit(cache=True)
def advance_element(data, layer, lo, hi, choice, out, pair):
    """Element ``layer``: its first move decided by ``choice``, then the forced moves grouped with it, each
    the one choice that lives (see ``groups``)."""
    at = data[GROUPS] + layer
    first, last = data[at], data[at + 1]
    status = advance(data, HEAD + REC * first, lo, hi, choice, out, pair)
    for move in range(first + 1, last):
        if status != KEEP:
            break
        base, lo = HEAD + REC * move, out[0]
        if pair:
            hi = out[1]
        # the choices as int64, not literals: a literal argument is a specialization of its own (each of
        # advance's about 2.4 s to compile; numba typed the constants 0 and 1 as Literal[int])
        status = advance(data, base, lo, hi, np.int64(0), out, pair)
        if status == REJECT:
            status = advance(data, base, lo, hi, np.int64(1), out, pair)
    return status


@njit(cache=True, inline="always")
def swap_nibbles(x, a, b):
    """``x`` with its nibbles at bits ``a`` and ``b`` swapped."""
    t = ((x >> a) ^ (x >> b)) & NIBBLE
    return x ^ ((t << a) | (t << b))


@njit(cache=True)
def keep_lesser_image(data, at, out, pair):
    """The child in ``out`` or its mirror image, whichever is less as a pair of words (second word first) with
    every label read as 15, and where those tie, as they are: the image swaps the nibbles of each pair of slots
    whose squares are each other's images (``data[at]`` pairs, slot a then slot b > a, after it), and its
    labels are renumbered. Only after an element whose decided moves the mirror maps onto themselves: there a
    state and its image have the same completions, mirrored, so their counts add up in one of them
    (``mirror_tables``)."""
    lo = out[0]
    hi = out[1] if pair else ZERO
    image_lo, image_hi = lo, hi
    for j in range(data[at]):
        a, b = np.uint64(data[at + 1 + 2 * j]), np.uint64(data[at + 2 + 2 * j])
        if not pair or b < HALF:
            image_lo = swap_nibbles(image_lo, FOUR * a, FOUR * b)
        elif a >= HALF:
            image_hi = swap_nibbles(image_hi, FOUR * (a - HALF), FOUR * (b - HALF))
        else:
            x, y = nibble_at(lo, hi, a, pair), nibble_at(lo, hi, b, pair)
            image_lo, image_hi = with_nibble(image_lo, image_hi, a, y, pair)
            image_lo, image_hi = with_nibble(image_lo, image_hi, b, x, pair)
    # First by the states with every label read as 15 (a swap moves labels, the renumbering does not): the
    # image needs renumbering only where it is kept or the two tie, and the choice is the same from either side.
    key_lo, key_hi = lo | label_nibbles(lo) * NIBBLE, hi | label_nibbles(hi) * NIBBLE
    image_key_lo = image_lo | label_nibbles(image_lo) * NIBBLE
    image_key_hi = image_hi | label_nibbles(image_hi) * NIBBLE
    if key_hi < image_key_hi or (key_hi == image_key_hi and key_lo < image_key_lo):
        return
    image_lo, image_hi = renumber(image_lo, image_hi, pair)
    if key_hi == image_key_hi and key_lo == image_key_lo and (hi < image_hi or (hi == image_hi and lo <= image_lo)):
        return
    put_state(out, image_lo, image_hi, pair)


# _nrt=False: the step allocates nothing, and without numba's reference counting it does not pay an
# atomic increment and decrement of each array argument per call (5 ns or more of a call that is now ~11).
@njit(STEP_SIGNATURE, cache=True, _nrt=False)
def step(data, layer, key, choice, out):
    """Element ``layer`` decided: its first move skipped (choice 0) or taken (choice 1); after an element the
    mirror maps onto itself, the child is the lesser of itself and its image (``keep_lesser_image``)."""
    pair = data[WORDS] != 1
    if pair:
        status = advance_element(data, layer, key[0], key[1], choice, out, True)
    else:
        status = advance_element(data, layer, key[0], ZERO, choice, out, False)
    if status == KEEP and data[MIRRORS] != 0:
        at = data[data[MIRRORS] + layer]
        if at != 0:
            if pair:
                keep_lesser_image(data, at, out, True)
            else:
                keep_lesser_image(data, at, out, False)
    return status



# The order of a line's squares (their positions along it), by line length and then by the line's distance
# from the board's far edge (0: the last line). The moves of a line are decided between the same two sets of
# states in any order of its squares (at a line's end the same moves are decided), so each line's states
# follow its own order alone, and each was searched on its own: a local search scored by the states of
# that line's layers in whole counts of 8x5 closed tours, confirmed on 8x6 (docs/explanation/frontier.md,
# "The order of the moves"). Other lines take the colour rule (even lengths) or the parity rule (odd ones).
TUNED: dict[int, dict[int, tuple[int, ...]]] = {
    8: {3: (5, 7, 2, 3, 1, 0, 4, 6), 2: (1, 6, 2, 0, 5, 4, 7, 3), 1: (7, 3, 0, 5, 1, 6, 4, 2),
        0: (0, 2, 4, 6, 1, 3, 5, 7)},
}
# ``order``'s rules; the first is the default. "tuned" walks fewer states on 8x5 and 8x6, but its permutations
# widen 8x8's frontier from 18 squares to 20: the count's spare bits then hold less, its rows widen to two
# count lanes at layer 87 of 108 (24 bytes a state, not 16) and more layers spill to disk; 8x8 closed tours on
# two quiet cores took 1,605 s in tuned order against 1,425 s in parity order, with 5% fewer states in all.
LINE_ORDERS = ("mirror", "mixed", "tuned", "colour", "parity", "plain")


def line_order(rule: str, n: int, line: int, lines: int) -> list[int]:
    """The positions of line ``line`` of ``lines`` (n squares each) in the order its squares are numbered:
    "mirror" (the default) each square beside its mirror image on lines of even length (0, n - 1, 1, n - 2, ...),
    so that the mirror maps the moves decided onto themselves after each pair of squares, not only at a line's
    end (``mirror_elements``), and "parity" on odd ones (measured with the mirror on 8x5 and 8x6 closed tours
    along columns of 8: 27% and 25% fewer states than "mixed", 24% and 21% less processor time; on 7x6 open
    along columns of 7, pairs took 13% more states than parity); "mixed" "colour" on lines of even length and
    "parity" on odd ones (measured: 7x8's columns keep fewer states in parity order); "tuned" the searched
    permutation (``TUNED``) where there is one, else as "mixed"; "colour" the squares of one colour before the
    other's, line 0's even positions first (a move to the next line changes a square's colour and one to the line
    after keeps it); "parity" even positions first in every line (the order before the others); "plain" in turn."""
    if rule == "tuned" and lines - 1 - line in TUNED.get(n, {}):
        return list(TUNED[n][lines - 1 - line])
    if rule == "mirror" and n % 2 == 0:
        return [i for k in range(n // 2) for i in (k, n - 1 - k)]
    if rule == "colour" or (rule in ("mixed", "tuned") and n % 2 == 0):
        return sorted(range(n), key=lambda i: ((i + line) % 2, i))
    if rule in ("parity", "mixed", "tuned", "mirror"):
        return sorted(range(n), key=lambda i: (i % 2, i))
    if rule == "plain":
        return list(range(n))
    raise ValueError(f"no line order {rule!r}: one of {', '.join(LINE_ORDERS)}")


def order(board: Board, along: str | None = None, rule: str = LINE_ORDERS[0]) -> tuple[str, dict[Square, int]]:
    """Squares numbered along the short side (or ``along`` "columns" or "rows"), a line (column, or row of
    a tall board) at a time, the squares of a line in the order ``line_order`` gives by ``rule``. The moves
    are then decided by their lower square, so the order sets which squares are on the frontier at each
    move, and with them the states (which the time and memory follow): 8x6 closed tours' whole count, swept
    along its columns of 8 as 8x8's, visits 758,121,054 states in parity order, 714,471,563 in mixed order
    (colour, on its even lines) and 583,151,325 in tuned order (docs/explanation/frontier.md, "The order of
    the moves")."""
    columns = (along or ("columns" if board.rows <= board.cols else "rows")) == "columns"
    lines, n = (board.cols, board.rows) if columns else (board.rows, board.cols)
    index: dict[Square, int] = {}
    for line in range(lines):
        for i in line_order(rule, n, line, lines):
            index[(i, line) if columns else (line, i)] = len(index)
    return ("column-major" if columns else "row-major"), index


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


def edge_records(edges: list[tuple[int, int]], degree: list[int], start: int, closed: bool, first_slot: int = 0,
                 frontiers: list[dict[int, int]] | None = None) -> tuple[list[list[int]], int]:
    """One spec record per edge, in order (the slots its ends hold in the frontier, which ends leave it,
    what is left to decide), and the frontier's widest count of squares. ``start``: the fixed first
    square of an open tour, or -1; ``first_slot``: where slots start (see ``build``); ``frontiers``: when
    given, each edge's frontier once it is decided (square -> slot) is appended to it."""
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
                slot_of[v] = min(free) if free else first_slot + len(slot_of) + len(free)
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
        record[LAST_MOVE_NIBBLES_HI] = sum(1 << 4 * k for k in range(NIBBLES) if (last_move >> NIBBLES + k) & 1)
        record[START_NIBBLE_HI] = 1 << 4 * (start_slot - NIBBLES) if start_slot >= NIBBLES else 0
        record[START_TO_COME] = int(start_slot == -1)
        records.append(record)
        for v in (a, b):
            if last[v] == i:
                free.append(slot_of.pop(v))
        if frontiers is not None:
            frontiers.append(dict(slot_of))
    return records, width


def mirror_image(board: Board, columns: bool, index: dict[Square, int]) -> list[int]:
    """Each square's image (by ``index``) in the mirror that reflects each line (``columns`` or rows, as the
    board is swept, ``order``) end to end."""
    reflect = Motion(board.rows, board.cols, transpose=False, flip_rows=columns, flip_cols=not columns)
    image = [0] * len(index)
    for square, v in index.items():
        image[v] = index[reflect(square)]
    return image


def fixes(image: list[int], edges: list[tuple[int, int]], start: int, decided: int) -> bool:
    """Whether the mirror leaves an open tour's ``start`` square (-1: none) out of what is left once the first
    ``decided`` moves are: true when the square is its own image (on the mirror's axis) or every move of it is
    decided (it has left the frontier, and only a tour end, which the state counts, remains of it)."""
    return start < 0 or image[start] == start or all(start not in edge for edge in edges[decided:])


def mirror_elements(image: list[int], edges: list[tuple[int, int]], starts: list[int], start: int = -1) -> list[int]:
    """The elements after which the moves decided are a set the mirror (``image``) maps onto itself, and the start
    square, if any, is out of what is left (``fixes``). The moves are sorted by their lower square, a line at a
    time, so those that end a line qualify; one that straddles two lines (a closed tour's forced move,
    ``groups``) does not."""
    position = {edge: i for i, edge in enumerate(edges)}
    reach = 0  # the latest position among the images of the moves decided so far
    found = []
    for element in range(len(starts) - 1):
        for a, b in edges[starts[element] : starts[element + 1]]:
            reach = max(reach, position[min(image[a], image[b]), max(image[a], image[b])])
        if reach < starts[element + 1] and fixes(image, edges, start, starts[element + 1]):
            found.append(element)
    return found


def mirror_tables(image: list[int], edges: list[tuple[int, int]], starts: list[int], start: int,
                  frontiers: list[dict[int, int]], base: int) -> list[int]:
    """The mirror's tables (``MIRRORS``), to be placed at ``data[base:]``: per element, 0, or where its swaps are,
    for each of the ``mirror_elements``; then those swaps, each table its number of pairs, then each pair of slots
    (a < b) whose squares are each other's images (a square on the mirror's axis keeps its slot).

    After such an element the moves left are mirrored too, so a state and its mirror image (each square's
    nibble moved to its image's slot) have as many completions, mirrored: ``step`` keeps the lesser of the
    two, and the states that follow from either are counted once (docs: explanation/frontier, "The mirror")."""
    table = [0] * (len(starts) - 1)
    maps: list[int] = []
    for element in mirror_elements(image, edges, starts, start):
        frontier = frontiers[starts[element + 1] - 1]
        swaps = sorted({(k, frontier[image[v]]) for v, k in frontier.items() if k < frontier[image[v]]})
        table[element] = base + len(table) + len(maps)
        maps += [len(swaps)] + [k for swap in swaps for k in swap]
    return table + maps


def groups(records: list[list[int]], closed: bool) -> list[int]:
    """Each element's first move, then one past the last move. In closed tours a move by which a square
    leaves the frontier joins the element before it: one choice at most lives there (the square's last
    move is taken when it has one move, skipped when it has two, and with none it is dead), so a state
    has at most as many children over the element as over its first move, and the layer between is
    never stored."""
    last_moves = [bool(r[U_LEAVES] or r[V_LEAVES]) for r in records]
    return [i for i in range(len(records)) if i == 0 or not closed or not last_moves[i]] + [len(records)]


def build(board: Board, first_slot: int = 0, along: str | None = None, rule: str = LINE_ORDERS[0],
          mirrored: bool = True) -> FrontierSpec:
    """The spec of ``board``'s tours (open or closed, optionally from a start square). ``first_slot`` moves
    the slots up, so that a small board's state spans both words (a test of the two-word path); ``along``
    sweeps the board along its "columns" or "rows" instead of its short side (to measure the layers of a
    long board's frontier on short boards); ``rule`` orders a line's squares (``line_order``); ``mirrored``
    False keeps each state apart from its mirror image (``mirror_tables``: to measure what merging them saves)."""
    label, index = order(board, along, rule)
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
    frontiers: list[dict[int, int]] = []
    records, width = edge_records(edges, degree, start, board.closed, first_slot, frontiers)
    slots = max(max(r[U_SLOT], r[V_SLOT]) for r in records) + 1
    if slots > MAX_SLOTS:
        raise InvalidOption(f"the {board.rows}x{board.cols} board's frontier is {slots} squares wide; the frontier "
                            f"backend's state holds at most {MAX_SLOTS}")
    nibbles = slots if board.closed else slots + 1
    words = -(-nibbles // NIBBLES)  # 1 or 2: MAX_SLOTS + 1 nibbles fit in two
    starts = groups(records, board.closed)
    at = HEAD + REC * len(edges) + len(starts)  # where the mirror's tables go
    image = mirror_image(board, label == "column-major", index)
    mirror = mirror_tables(image, edges, starts, start, frontiers, at) if mirrored else []
    data = np.zeros(at + len(mirror), dtype=np.int64)
    data[SLOTS], data[CLOSED], data[WORDS] = slots, int(board.closed), words
    data[GROUPS] = HEAD + REC * len(edges)
    data[HEAD : data[GROUPS]] = np.array(records, dtype=np.int64).ravel()
    data[data[GROUPS] : at] = starts
    if mirror:
        data[MIRRORS] = at
        data[at:] = mirror
    first_move = square[edges[0][0]], square[edges[0][1]]
    return FrontierSpec(
        elements=len(starts) - 1, words=words, choices=2, step=step, data=data,
        bound_bits=min(bound_bits(degree, not board.closed), len(edges) + 1), scratch=0,
        width=width, spare_bits=NIBBLES * 4 * words - 4 * nibbles,
        details={"frontier_slots": slots, "moves": len(edges),
                 "first_move": [list(first_move[0]), list(first_move[1])]},
        **common,
    )
