"""The numba kernels of the frontier engine: a layer's parents expanded into children, and a partition of
children merged into the next layer's states.

A layer is held as ``P`` partitions (P a power of two), each a dense array of rows ``[state words...,
count lanes...]``: the state in columns ``0 .. words - 1``, count lane ``j`` in column ``words + j``
(``lane(words, j)``). No tag, no empty rows: a state costs its words and its lanes. A child belongs to
the partition its hash's low bits name, so partitions hold disjoint states and each is merged alone.

``expand`` takes the children of a slice of parents into one array, their partitions beside them;
``scatter`` orders them by partition (a counting sort); ``merge`` adds up equal states of one
partition's children in an open-addressing table (linear probing, the one probe-and-insert loop, with the
next rows' homes prefetched so their cache misses overlap) and hands back the distinct states, dense
(``insert`` a piece of children, ``collect`` the states: a partition's pieces go in one by one, uncopied).
The kernels release the GIL: the driver (``solvers.frontier_engine.layers``) runs them in Python threads.

Count lane 0 is modulo 2**64 (plain wrapping adds); lane j > 0 is modulo ``moduli[j]`` < 2**62.

**Packed rows.** When a spec's state leaves the high bits of its last word unset (``FrontierSpec.spare_bits``)
and one lane is used, the count lives there instead of in a column of its own: ``shift`` (not 0) is how
many low bits of word ``words - 1`` the state takes, and the count is that word's bits ``shift`` and up.
A row is then ``words`` wide (8x8 closed tours: 16 bytes a state instead of 24). Counts add in place
(``count << shift`` words add exactly while the sum stays below ``2**(64 - shift)``: the driver widens
to lanes before a layer whose total could reach that). ``shift`` 0: rows as above.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic

from gridsat.models.frontier import ACCEPT, KEEP

STEP = types.FunctionType(types.int64(types.int64[::1], types.int64, types.uint64[::1], types.int64,
                                      types.uint64[::1]))
ROWS = types.uint64[:, ::1]
LOOKAHEAD = 16  # rows whose table home is prefetched ahead of the row being inserted

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)


@intrinsic
def prefetch(typingctx, table, row):
    """Ask the CPU to start loading ``table[row, 0]`` (a 2-D C array) into the cache."""
    sig = types.void(table, row)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], zero])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(1), i32(3), i32(1)])  # write, high locality, data
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def word_pointer(typingctx, address):
    """The ``uint64`` address of an array's first word as a pointer numba indexes (``pointer[i]``)."""
    sig = types.CPointer(types.uint64)(address)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@njit(cache=True, inline="always")
def lane(words, j):
    """The column of count lane ``j`` in a row of ``words`` state words."""
    return words + j


@njit(cache=True, inline="always")
def key_mask(shift):
    """The state's bits of a row's last state word: all of them, or the ``shift`` low ones of a packed row."""
    if shift == 0:
        return ~np.uint64(0)
    return (np.uint64(1) << np.uint64(shift)) - np.uint64(1)


@njit(cache=True, inline="always")
def mix(rows, i, words, kmask):
    """A splitmix64-style hash of row ``i``'s state words (the last one's ``kmask`` bits)."""
    h = np.uint64(0)
    for w in range(words):
        x = rows[i, w] & kmask if w == words - 1 else rows[i, w]
        h = (h ^ x) * _M1
        h = (h ^ (h >> np.uint64(30))) * _M2
    h = (h ^ (h >> np.uint64(27))) * _M3
    return h ^ (h >> np.uint64(31))


@njit(cache=True, inline="always")
def add_counts(dst, k, src, i, words, moduli):
    """Row ``k`` of ``dst`` gains row ``i`` of ``src``'s counts, lane by lane (``dst`` may be an
    accumulator of lanes alone: its lane j is column j when its rows are one lane wide each)."""
    at = dst.shape[1] - moduli.shape[0]  # dst's first lane: after the state words, if it has them
    dst[k, at] += src[i, lane(words, 0)]  # modulo 2**64: numba's uint64 adds wrap
    for j in range(1, moduli.shape[0]):
        s = dst[k, at + j] + src[i, lane(words, j)]
        if s >= moduli[j]:
            s -= moduli[j]
        dst[k, at + j] = s


@njit(cache=True, inline="always")
def vacant(table, slot, words, kmask):
    """Whether a table row is free: its lanes (or a packed row's count bits) are all zero (a state's count
    never is: it is at least one and below the product of the moduli, so some lane of it is not zero)."""
    if table.shape[1] == words:
        return (table[slot, words - 1] & ~kmask) == 0
    for j in range(words, table.shape[1]):
        if table[slot, j] != 0:
            return False
    return True


@njit(cache=True, inline="always")
def same_state(table, slot, rows, i, words, kmask):
    """Whether table row ``slot`` and row ``i`` of ``rows`` hold the same state."""
    for w in range(words - 1):
        if table[slot, w] != rows[i, w]:
            return False
    return ((table[slot, words - 1] ^ rows[i, words - 1]) & kmask) == 0


@njit(cache=True, inline="always")
def first_count(rows, i, words, shift):
    """Row ``i``'s count in lane 0 (a packed row's count bits)."""
    if shift == 0:
        return rows[i, words]
    return rows[i, words - 1] >> np.uint64(shift)


@njit(cache=True, inline="always")
def expand_rows(step, data, layer, parents, lo, hi, words, choices, moduli, scratch, pmask, children, part, acc, t,
                shift):
    """The children of ``parents[lo:hi]`` into ``children`` (room for ``choices`` a parent), each with
    its partition in ``part``; the counts of solutions completed here go to ``acc[t]``. Returns how
    many children there are. ``shift``: the rows are packed (see the module's docstring), or 0."""
    lanes = moduli.shape[0]
    kmask = key_mask(shift)
    out = np.zeros(words + scratch, np.uint64)
    key = np.zeros(words, np.uint64)
    m = 0
    for i in range(lo, hi):
        for w in range(words):
            key[w] = parents[i, w]
        key[words - 1] &= kmask
        count = parents[i, words - 1] & ~kmask  # a packed row's count, in place
        for c in range(choices):
            status = step(data, layer, key, c, out)
            if status == KEEP:
                for w in range(words):
                    children[m, w] = out[w]
                if shift:
                    children[m, words - 1] |= count
                else:
                    for j in range(lanes):
                        children[m, lane(words, j)] = parents[i, lane(words, j)]
                part[m] = np.int64(mix(children, m, words, kmask) & pmask)
                m += 1
            elif status == ACCEPT:
                if shift:
                    acc[t, 0] += count >> np.uint64(shift)
                else:
                    add_counts(acc, t, parents, i, words, moduli)
    return m


EXPAND_ARGS = (types.int64[::1], types.int64, ROWS, types.int64, types.int64, types.int64, types.int64,
               types.uint64[::1], types.int64, types.uint64, ROWS, types.int64[::1], ROWS, types.int64, types.int64)


@njit(types.int64(STEP, *EXPAND_ARGS), cache=True, nogil=True)
def expand(step, data, layer, parents, lo, hi, words, choices, moduli, scratch, pmask, children, part, acc, t, shift):
    """``expand_rows`` for any spec: the step called through a first-class function type (one compiled
    kernel for every step; ``expander`` binds one step instead)."""
    return expand_rows(step, data, layer, parents, lo, hi, words, choices, moduli, scratch, pmask, children, part,
                       acc, t, shift)


@functools.cache
def expander(step: Any) -> Callable[..., int]:
    """``expand`` with ``step`` bound when it is compiled (a numba dispatcher), called without its first
    argument: a direct call that LLVM may inline, where the first-class function type costs an indirect
    call and the packing of its arguments for each child (8x8 closed tours, layer 47's 6.9 million
    parents: 0.615 s against 0.71 s, one thread). Compiled once a process for each step and not kept on
    disk (numba keys a closure's cache by its cells, and a dispatcher pickles with an identity of its
    process), some 1.5 s: the driver binds it for large layers only. Any other step gets ``expand``."""
    if not isinstance(step, Dispatcher):
        return functools.partial(expand, step)

    @njit(types.int64(*EXPAND_ARGS), nogil=True)
    def bound(data, layer, parents, lo, hi, words, choices, moduli, scratch, pmask, children, part, acc, t, shift):
        return expand_rows(step, data, layer, parents, lo, hi, words, choices, moduli, scratch, pmask, children,
                           part, acc, t, shift)

    return bound


@njit(types.void(ROWS, types.int64[::1], types.int64, ROWS, types.int64[::1]), cache=True, nogil=True)
def scatter(children, part, m, into, starts):
    """``children[:m]`` into ``into`` ordered by partition: partition p's rows are ``starts[p]:starts[p + 1]``."""
    parts = starts.shape[0] - 1
    at = np.zeros(parts, np.int64)
    for k in range(m):
        at[part[k]] += 1
    starts[0] = 0
    for p in range(parts):
        starts[p + 1] = starts[p] + at[p]
        at[p] = starts[p]
    width = children.shape[1]
    for k in range(m):
        p = part[k]
        d = at[p]
        if width == 2:  # packed rows of two words (boards 8 squares high): no loop, 19% less time
            into[d, 0] = children[k, 0]
            into[d, 1] = children[k, 1]
        else:
            for w in range(width):
                into[d, w] = children[k, w]
        at[p] = d + 1


@njit(types.void(types.int64[::1], types.int64, types.int64[::1]), cache=True, nogil=True)
def count_parts(part, m, starts):
    """Where each partition's rows would start once ``part[:m]`` are ordered by partition (``starts[p]``;
    ``starts[-1]`` is ``m``)."""
    starts[:] = 0
    for k in range(m):
        starts[part[k] + 1] += 1
    for p in range(starts.shape[0] - 1):
        starts[p + 1] += starts[p]


@njit(types.void(ROWS, types.int64[::1], types.int64, types.uint64[::1]), cache=True, nogil=True)
def scatter_into(children, part, m, addresses):
    """``children[:m]`` copied into one array a partition, in order: partition p's into the C-contiguous
    array of rows as wide whose first word is at ``addresses[p]``, with room for all of them (``count_parts``
    says how many). Each task's share of a partition lands in the piece that keeps it: no copy between."""
    width = children.shape[1]
    at = np.zeros(addresses.shape[0], np.int64)  # words written into each partition's piece
    for k in range(m):
        p = part[k]
        into, d = word_pointer(addresses[p]), at[p]
        for w in range(width):
            into[d + w] = children[k, w]
        at[p] = d + width


@njit(cache=True)
def table_bits(m):
    """log2 of the slots ``merge``'s table has for ``m`` children: at most 4/5 full before equal states
    merge (about 3/5 after), so linear probes stay short."""
    bits = 4
    while (1 << bits) < m + (m >> 2):
        bits += 1
    return bits


@njit(cache=True, nogil=True)
def insert(children, words, moduli, table, bits, shift):
    """``children``'s rows added to ``table`` (``1 << bits`` rows, see ``merge``): an equal state gains the
    row's counts, a new one takes a vacant slot. Returns how many states are new. One partition's children
    may come in several pieces, each inserted on its own into the one table (no copy gathers them)."""
    m, width = children.shape
    kmask = key_mask(shift)
    hshift = np.uint64(64 - bits)
    mask = np.uint64((1 << bits) - 1)
    homes = np.empty(LOOKAHEAD, np.uint64)
    n = 0
    for i in range(min(m, LOOKAHEAD)):
        homes[i] = mix(children, i, words, kmask) >> hshift
        prefetch(table, np.int64(homes[i]))
    for i in range(m):
        slot = homes[i % LOOKAHEAD]
        ahead = i + LOOKAHEAD
        if ahead < m:
            homes[ahead % LOOKAHEAD] = mix(children, ahead, words, kmask) >> hshift
            prefetch(table, np.int64(homes[ahead % LOOKAHEAD]))
        while True:  # the one probe-and-insert loop: linear probing from the home slot
            if vacant(table, slot, words, kmask):  # a new state
                for w in range(width):
                    table[slot, w] = children[i, w]
                n += 1
                break
            if same_state(table, slot, children, i, words, kmask):  # a known state gains the counts
                if shift:
                    table[slot, words - 1] += children[i, words - 1] & ~kmask  # exact: below 2**(64 - shift)
                else:
                    add_counts(table, slot, children, i, words, moduli)
                break
            slot = (slot + np.uint64(1)) & mask
    return n


@njit(cache=True, nogil=True)
def collect(table, bits, states, words, shift):
    """The states ``insert`` put in ``table``'s first ``1 << bits`` rows into ``states`` (as many rows), dense
    (in table order), the table's rows zeroed again; returns the sum of lane 0 as a float (a bound on the
    total while it is exact)."""
    width = table.shape[1]
    kmask = key_mask(shift)
    total = 0.0
    k = 0
    for s in range(1 << bits):
        if not vacant(table, s, words, kmask):
            for w in range(width):
                states[k, w] = table[s, w]
                table[s, w] = 0
            total += float(first_count(states, k, words, shift))
            k += 1
    return total


@njit(cache=True, nogil=True)
def merge(children, words, moduli, table, shift):
    """The distinct states of one partition's ``children``, each with the sum of its counts, dense
    (in table order); and the sum of lane 0 as a float (a bound on the total while it is exact).
    ``table``: at least ``1 << table_bits(m)`` rows, every lane zero; they are zero again on return, so
    one table serves every merge of a thread (no fresh pages to fault in, partition after partition).
    ``shift``: the rows are packed (see the module's docstring), or 0."""
    bits = table_bits(children.shape[0])
    states = np.empty((insert(children, words, moduli, table, bits, shift), table.shape[1]), np.uint64)
    return states, collect(table, bits, states, words, shift)


def insert_pieces(pieces: list[np.ndarray], words: int, moduli: np.ndarray, table: np.ndarray,
                  shift: int) -> tuple[int, int]:
    """``insert`` of a partition whose children come in ``pieces`` (each task's share of it), one by one:
    some 3 us a piece against a copy of every row into one array first. Returns the distinct states and
    the table's ``bits``, for ``collect``."""
    bits = table_bits(sum(piece.shape[0] for piece in pieces))
    return sum(insert(piece, words, moduli, table, bits, shift) for piece in pieces if piece.shape[0]), bits


@njit(types.void(ROWS, ROWS, types.int64, types.uint64[::1], types.int64), cache=True, nogil=True)
def widen(narrow, wide, words, moduli, shift):
    """``narrow``'s rows (one exact lane, packed when ``shift`` is not 0) copied into ``wide`` with every
    lane: lane j is lane 0 modulo ``moduli[j]`` (each count is exact in lane 0 when this is called)."""
    kmask = key_mask(shift)
    for i in range(narrow.shape[0]):
        for w in range(words):
            wide[i, w] = narrow[i, w]
        wide[i, words - 1] &= kmask
        c = first_count(narrow, i, words, shift)
        wide[i, words] = c
        for j in range(1, moduli.shape[0]):
            wide[i, words + j] = c % moduli[j]
