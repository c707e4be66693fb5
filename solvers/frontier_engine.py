"""The numba kernels of the frontier engine: one layer's expansion into per-partition hash tables.

A layer is ``P`` partitions (P a power of two), each an open-addressing table ``table[p, slot, :]``
of any size, with linear probing, at most 3/4 full. A row is ``[tag, state words..., count
lanes...]``: the tag is the state's hash with its low bit set (0: an empty row), so a probe reads
one row and compares the tag before the words. Once a layer is done its rows are compacted to
the front of each table: the next layer's parents, dense. A child belongs to the partition its
hash's bits name, so partitions hold disjoint states.

One thread runs ``expand``: children go into the table in batches (their hashes first, with a
prefetch of each target row, then the probes), so the cache misses of a batch overlap. Several
threads run ``emit`` then ``insert``: each expands a share of the parents and files the children
by partition, then each inserts its own partition's children from every file; no step is taken
twice and no table is shared. The kernels release the GIL: the driver runs them in Python threads
(numba's prange threads spin between the many short layers and cost more than they give).

Count lane 0 is modulo 2**64 (plain wrapping adds); lane j > 0 is modulo ``moduli[j]`` < 2**62.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

STEP = types.FunctionType(types.int64(types.int64[::1], types.int64, types.uint64[::1], types.int64,
                                      types.uint64[::1]))
U3 = types.uint64[:, :, ::1]
BATCH = 32  # parents expanded before their children are inserted
LOAD_NUM, LOAD_DEN = 3, 4  # a table holds at most 3/4 of its rows (linear probing stays short)

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


@njit(types.uint64(types.uint64[::1], types.int64), cache=True, inline="always")
def mix(key, words):
    """A splitmix64-style hash of a state's words."""
    h = np.uint64(0)
    for w in range(words):
        h = (h ^ key[w]) * _M1
        h = (h ^ (h >> np.uint64(30))) * _M2
    h = (h ^ (h >> np.uint64(27))) * _M3
    return h ^ (h >> np.uint64(31))


@njit(types.uint64(types.uint64, types.uint64), cache=True, inline="always")
def home(h, nrows):
    """A hash's first row in a table of any size: the high half of the hash scaled to the rows (Lemire)."""
    return ((h >> np.uint64(32)) * nrows) >> np.uint64(32)


@njit(types.void(types.uint64[:, ::1], types.int64, types.int64, types.uint64[:, ::1], types.int64,
                 types.int64, types.uint64[::1]), cache=True, inline="always")
def add_into(dst, k, at, src, i, at_src, moduli):
    """dst[k, at:] += src[i, at_src:], lane by lane (indices, not views: a view costs an atomic refcount)."""
    dst[k, at] += src[i, at_src]  # modulo 2**64: numba's uint64 adds wrap
    for j in range(1, moduli.shape[0]):
        s = dst[k, at + j] + src[i, at_src + j]
        if s >= moduli[j]:
            s -= moduli[j]
        dst[k, at + j] = s


@njit(types.void(STEP, types.int64[::1], types.int64, U3, types.int64[::1], types.int64, types.int64,
                 types.uint64[::1], U3,
                 types.int64[::1], types.int64[:, ::1], types.uint64[:, ::1], types.int64, types.int64),
      cache=True, nogil=True)
def expand(step, data, layer, tin, fin, words, choices, moduli, tout, fill, pos, acc, scratch, p):
    """Expand the parents (``tin[q, :fin[q]]``, dense) into partition ``p`` of ``tout``, resuming at ``pos[p]``.

    ``pos[p]`` is (input partition, row). The partition stops early, leaving there where to
    resume, when its table would pass the load limit (the caller grows it and calls again);
    ``pos[p, 0]`` is -1 once it has seen every child. Accepted counts go to ``acc`` (partition 0).
    """
    parts = tout.shape[0]
    rows_out = tout.shape[1]
    nrows = np.uint64(rows_out)
    pmask = np.uint64(parts - 1)
    lanes = moduli.shape[0]
    limit = rows_out // LOAD_DEN * LOAD_NUM
    if pos[p, 0] < 0:
        return
    out = np.zeros(words + scratch, np.uint64)
    key = np.zeros(words, np.uint64)
    width = BATCH * choices
    bkeys = np.zeros((width, words), np.uint64)  # the batch's children, their hashes and parents
    bhash = np.zeros(width, np.uint64)
    bfrom = np.zeros(width, np.int64)
    tab = tout[p]
    q0 = pos[p, 0]
    for q in range(q0, tin.shape[0]):
        src = tin[q]
        i = pos[p, 1] if q == q0 else 0
        end = fin[q]
        while i < end:
            first = i
            n = 0
            while i < end and i - first < BATCH:
                if src[i, 0] != 0:
                    for w in range(words):
                        key[w] = src[i, 1 + w]
                    for c in range(choices):
                        status = step(data, layer, key, c, out)
                        if status == 2:
                            if p == 0:
                                bhash[n] = 0  # an accepted count, added at the flush below
                                bfrom[n] = i
                                n += 1
                        elif status == 1:
                            h = mix(out, words) | np.uint64(1)
                            if (h >> np.uint64(1)) & pmask == np.uint64(p):
                                bhash[n] = h
                                bfrom[n] = i
                                for w in range(words):
                                    bkeys[n, w] = out[w]
                                prefetch(tab, np.int64(home(h, nrows)))
                                n += 1
                i += 1
            if fill[p] + n > limit:  # this batch might not fit: grow first, then redo it
                pos[p, 0], pos[p, 1] = q, first
                return
            for b in range(n):
                h = bhash[b]
                if h == 0:
                    add_into(acc, 0, 0, src, bfrom[b], 1 + words, moduli)
                    continue
                slot = home(h, nrows)
                while True:
                    tag = tab[slot, 0]
                    if tag == 0:
                        tab[slot, 0] = h
                        for w in range(words):
                            tab[slot, 1 + w] = bkeys[b, w]
                        for j in range(lanes):
                            tab[slot, 1 + words + j] = src[bfrom[b], 1 + words + j]
                        fill[p] += 1
                        break
                    if tag == h:
                        same = True
                        for w in range(words):
                            if tab[slot, 1 + w] != bkeys[b, w]:
                                same = False
                                break
                        if same:
                            add_into(tab, slot, 1 + words, src, bfrom[b], 1 + words, moduli)
                            break
                    slot += np.uint64(1)
                    if slot == nrows:
                        slot = np.uint64(0)
    pos[p, 0] = -1


@njit(types.void(U3, U3, types.int64), cache=True, nogil=True)
def regrow(old, new, p):
    """Move partition ``p``'s rows from ``old`` into the larger, empty ``new``."""
    src, tab = old[p], new[p]
    nrows = np.uint64(tab.shape[0])
    for i in range(src.shape[0]):
        h = src[i, 0]
        if h == 0:
            continue
        slot = home(h, nrows)
        while tab[slot, 0] != 0:
            slot += np.uint64(1)
            if slot == nrows:
                slot = np.uint64(0)
        for w in range(src.shape[1]):
            tab[slot, w] = src[i, w]


@njit(types.void(U3, types.int64), cache=True, nogil=True)
def compact(table, p):
    """Partition ``p``'s occupied rows moved to its front, in order (the next layer's parents, dense)."""
    tab = table[p]
    k = 0
    for i in range(tab.shape[0]):
        if tab[i, 0] != 0:
            if k != i:
                for w in range(tab.shape[1]):
                    tab[k, w] = tab[i, w]
            k += 1


# Several threads on one layer (see the module's docstring); the layer goes by in chunks so the files stay small.


@njit(types.int64(STEP, types.int64[::1], types.int64, types.uint64[:, ::1], types.int64[::1], types.int64,
                  types.int64, types.int64, types.int64, types.int64, types.uint64[::1], types.uint64[:, :, ::1],
                  types.int64[:, ::1], types.int64[:, ::1], types.uint64[:, ::1], types.int64, types.int64),
      cache=True, nogil=True)
def emit(step, data, layer, tin, fin, stride, words, choices, lo, hi, moduli, ekeys, efrom, ecount, acc, scratch,
         t):
    """File the children of parent rows ``lo:hi`` of ``tin`` (a flat view, ``stride`` rows per input
    partition, ``fin`` of them used) by partition: ``ekeys[p, k] = [tag, state...]``, ``efrom[p, k]``
    its parent's row. Accepted counts go to ``acc[t]``. Returns the children filed."""
    parts = ecount.shape[0]
    pmask = np.uint64(parts - 1)
    out = np.zeros(words + scratch, np.uint64)
    key = np.zeros(words, np.uint64)
    filed = 0
    for p in range(parts):
        ecount[p, t] = 0
    for g in range(lo, hi):
        if g % stride >= fin[g // stride]:
            continue
        for w in range(words):
            key[w] = tin[g, 1 + w]
        for c in range(choices):
            status = step(data, layer, key, c, out)
            if status == 2:
                add_into(acc, t, 0, tin, g, 1 + words, moduli)
            elif status == 1:
                h = mix(out, words) | np.uint64(1)
                p = np.int64((h >> np.uint64(1)) & pmask)
                k = ecount[p, t]
                ekeys[p, k, 0] = h
                for w in range(words):
                    ekeys[p, k, 1 + w] = out[w]
                efrom[p, k] = g
                ecount[p, t] = k + 1
                filed += 1
    return filed


@njit(types.void(types.uint64[:, :, :, ::1], types.int64[:, :, ::1], types.int64[:, ::1], types.uint64[:, ::1],
                 types.int64, types.uint64[::1], U3, types.int64[::1], types.int64[:, ::1], types.int64),
      cache=True, nogil=True)
def insert(ekeys, efrom, ecount, tin, words, moduli, tout, fill, done, p):
    """Insert partition ``p``'s filed children (every thread's file) into ``tout[p]``, resuming at
    ``done[p, t]``; stops when the table reaches its load limit (``done`` says where it got)."""
    tab = tout[p]
    nrows = np.uint64(tab.shape[0])
    limit = tab.shape[0] // LOAD_DEN * LOAD_NUM
    lanes = moduli.shape[0]
    for t in range(ekeys.shape[0]):
        keys = ekeys[t, p]
        start = done[p, t]
        end = ecount[p, t]
        for b in range(start, min(end, start + 8)):
            prefetch(tab, np.int64(home(keys[b, 0], nrows)))
        for b in range(start, end):
            if b + 8 < end:
                prefetch(tab, np.int64(home(keys[b + 8, 0], nrows)))
            if fill[p] >= limit:
                done[p, t] = b
                return
            h = keys[b, 0]
            g = efrom[t, p, b]
            slot = home(h, nrows)
            while True:
                tag = tab[slot, 0]
                if tag == 0:
                    for w in range(1 + words):
                        tab[slot, w] = keys[b, w]
                    for j in range(lanes):
                        tab[slot, 1 + words + j] = tin[g, 1 + words + j]
                    fill[p] += 1
                    break
                if tag == h:
                    same = True
                    for w in range(words):
                        if tab[slot, 1 + w] != keys[b, 1 + w]:
                            same = False
                            break
                    if same:
                        add_into(tab, slot, 1 + words, tin, g, 1 + words, moduli)
                        break
                slot += np.uint64(1)
                if slot == nrows:
                    slot = np.uint64(0)
        done[p, t] = end
