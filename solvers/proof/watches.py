"""Unit propagation by two watched literals (Moskewicz et al., "Chaff", DAC 2001) over clauses as flat
arrays (``solvers.proof.clausal``): the kernels gridsat's DRAT checker (``solvers.proof.drat``) and its
model checks (``solvers.proof.propagation``) share. ``val[lit]`` is 1 (true), -1 (false) or 0 for a
literal code; ``st`` holds the trail's length and the propagation head.
"""
from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def _assign(lit, why, val, reason, trail, st):
    val[lit] = 1
    val[lit ^ 1] = -1
    reason[lit >> 1] = why
    trail[st[0]] = lit
    st[0] += 1


@njit(cache=True)
def _undo(mark, val, reason, trail, st):
    """Take back the assignments from trail position ``mark`` on."""
    for i in range(mark, st[0]):
        lit = trail[i]
        val[lit] = 0
        val[lit ^ 1] = 0
        reason[lit >> 1] = -1
    st[0] = mark
    st[1] = mark


@njit(cache=True)
def _propagate(lits, starts, active, val, reason, trail, st, head, nxt):
    """Unit propagation from trail position ``st[1]`` by two watched literals: watch slot ``2c + k``
    watches ``lits[starts[c] + k]`` and sits in the list of that literal (``head``, ``nxt``). Deleted
    clauses leave the lists as they are met. True on a conflict. Kept whole: it is the hot loop."""
    while st[1] < st[0]:
        false = trail[st[1]] ^ 1
        st[1] += 1
        prev, w = -1, head[false]
        while w != -1:
            following = nxt[w]
            c = w >> 1
            s = starts[c]
            other = lits[s + 1 - (w & 1)]
            if not active[c] or val[other] == 1:
                if active[c]:
                    prev = w
                elif prev == -1:
                    head[false] = following
                else:
                    nxt[prev] = following
                w = following
                continue
            moved = False
            for j in range(s + 2, starts[c + 1]):
                if val[lits[j]] != -1:
                    k = s + (w & 1)
                    lits[k], lits[j] = lits[j], lits[k]
                    if prev == -1:
                        head[false] = following
                    else:
                        nxt[prev] = following
                    nxt[w] = head[lits[k]]
                    head[lits[k]] = w
                    moved = True
                    break
            if not moved:
                if val[other] == -1:
                    return True
                _assign(other, c, val, reason, trail, st)
                prev = w
            w = following
    return False


@njit(cache=True)
def _attach(c, lits, starts, active, val, reason, trail, st, head, nxt):
    """Add clause ``c`` to the database at the top level; True when the top level becomes a conflict."""
    s, e = starts[c], starts[c + 1]
    active[c] = 1
    if e == s:
        return True
    if e - s == 1:
        if val[lits[s]] != 0:
            return val[lits[s]] == -1
        _assign(lits[s], c, val, reason, trail, st)
        return _propagate(lits, starts, active, val, reason, trail, st, head, nxt)
    found = 0
    for j in range(s, e):  # the watches go to literals not false, where there are such
        if val[lits[j]] != -1:
            lits[s + found], lits[j] = lits[j], lits[s + found]
            found += 1
            if found == 2:
                break
    for k in range(2):
        nxt[2 * c + k] = head[lits[s + k]]
        head[lits[s + k]] = 2 * c + k
    if found == 0:
        return True
    if found == 1 and val[lits[s]] == 0:
        _assign(lits[s], c, val, reason, trail, st)
        return _propagate(lits, starts, active, val, reason, trail, st, head, nxt)
    return False


@njit(cache=True)
def _dedupe(lits, starts, seen):
    """Each clause's literals with repeats dropped (first occurrences kept in order), in place: a literal
    is never written after the place it is read from, so the arrays are their own output (a proof's
    lemmas are most of the checker's memory, and are not copied again)."""
    m, s = 0, 0
    for c in range(len(starts) - 1):
        e = starts[c + 1]
        starts[c] = m
        for j in range(s, e):
            if seen[lits[j]] != c + 1:
                seen[lits[j]] = c + 1
                lits[m] = lits[j]
                m += 1
        s = e
    starts[len(starts) - 1] = m
    seen[:] = 0
    return lits[:m], starts
