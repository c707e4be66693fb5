"""Unit propagation on one formula from many partial assignments: the checker's own propagation
(``solvers.proof.watches``: two watched literals, as in ``solvers.proof.drat``), its clauses attached
once, each assignment propagated and taken back in turn.

A certificate asks this of every blocked assignment and of every member of every orbit (thousands of
them): is it a model of the formula, and does it fix the projection it claims to fix? Asking a PySAT
solver one assignment at a time cost a quarter of a millisecond each (prime-grid 4x4: 11,124 of them, 4 s
of a 30 s check); here a whole batch is one numba call. Where propagation leaves a variable of the formula
unset, it is set false (true if false propagates to a conflict) and propagated again, without further
backtracking; where even that fails, the caller asks a solver for the rest (``solvers.proof.models``).
Every clause is then evaluated on the full assignment, so nothing rests on the propagation's own
bookkeeping.
Top-level consequences of the formula are part of every closure (unlike a PySAT solver's
``propagate``, which leaves out what it fixed at its top level).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from gridsat.solvers.proof.clausal import Clauses, flattened, from_lists
from gridsat.solvers.proof.watches import _assign, _attach, _dedupe, _propagate, _undo

# What propagating one assignment found: a model (every variable of the formula set, every clause
# holding), a conflict (no model extends it), a projection not fixed (a variable of it unset, or set true
# though the assignment did not name it), a partial assignment (a search must find the rest), or every
# variable set and a clause false all the same (which only a fault of the propagation would give).
MODEL, CONFLICT, OPEN_PROJECTION, PARTIAL, FALSE_CLAUSE = 0, 1, 2, 3, 4


class Propagation:
    """A formula's clauses attached to the checker's watch lists, at its top level, once."""

    def __init__(self, clauses: Clauses | list[list[int]], top: int = 0) -> None:
        formula = clauses if isinstance(clauses, Clauses) else from_lists(clauses)
        self.nvars = max(top, int(formula.lits.max()) >> 1 if len(formula.lits) else 0)
        self.state = _attached(formula.lits.astype(np.int32), formula.starts.astype(np.int64), self.nvars)

    def settle(self, assignments: list[list[int]], projection: list[int] | None = None, fixes: list[bool] | None = None,
               models: bool | Sequence[bool] = True, negated: bool = False, extra: Clauses | None = None) -> np.ndarray:
        """For each assignment (DIMACS literals; ``negated``: each given as the clause that rules it out),
        what propagating it found (``MODEL`` ... ``PARTIAL``). ``fixes``: the assignments that must also fix
        every ``projection`` variable, those they do not name false (``OPEN_PROJECTION`` when not);
        ``models=False`` (or False for an assignment, given one per assignment): found no further than that
        (``MODEL``: no conflict, and the projection fixed where asked). ``extra``: clauses a ``MODEL`` must
        satisfy too, evaluated on it, not propagated (a cube's, cut clauses: on knights-tour 6x6 closed, 3,616
        cut clauses of about 30 arcs each, which propagation would visit for each of 19,724 tours); a model
        that fails one is ``PARTIAL`` (the caller's search, on every clause, decides)."""
        flat, starts = flattened(assignments)
        if len(flat) and int(np.abs(flat).max()) > self.nvars:
            raise ValueError("an assignment names a variable the formula does not have")
        shown = np.zeros(self.nvars + 1, np.bool_)
        if projection is not None:
            shown[np.asarray(projection, np.int64)] = True
        asked = np.asarray(fixes if fixes is not None else [False] * len(assignments), np.bool_)
        codes = 2 * np.abs(flat) + ((flat > 0) if negated else (flat < 0))
        extra = extra if extra is not None else from_lists([])
        if len(extra.lits) and int(extra.lits.max()) >> 1 > self.nvars:
            raise ValueError("an extra clause names a variable the formula does not have")
        whole = np.broadcast_to(np.asarray(models, np.bool_), (len(assignments),))
        return _settle(*self.state, codes, starts, shown, asked, whole, extra.lits, extra.starts.astype(np.int64))

    def left_open(self, true: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """Those of ``candidates`` (variables) that unit propagation does not set false once ``true``
        (variables) are set true: all of them when that is a conflict. One C call: this runs for every
        model a certified search blocks."""
        return _left_open(*self.state, 2 * true, candidates)


@njit(cache=True, nogil=True)
def _attached(lits, starts, nvars):
    """The watch lists and top-level assignment of a formula (a top-level conflict: ``st[2] == 1``)."""
    n = len(starts) - 1
    seen = np.zeros(2 * nvars + 2, np.int64)
    lits, starts = _dedupe(lits, starts, seen)
    val = np.zeros(2 * nvars + 2, np.int8)
    reason = np.full(nvars + 1, -1, np.int64)
    trail = np.empty(nvars + 1, np.int32)
    st = np.zeros(3, np.int64)  # trail length, propagation head, top-level conflict
    head = np.full(2 * nvars + 2, -1, np.int64)
    nxt = np.full(2 * n + 2, -1, np.int64)
    active = np.zeros(n, np.uint8)
    occurs = np.zeros(nvars + 1, np.bool_)
    for j in range(len(lits)):
        occurs[lits[j] >> 1] = True
    for c in range(n):
        if _attach(c, lits, starts, active, val, reason, trail, st, head, nxt):
            st[2] = 1
            break
    if st[2] == 0 and _propagate(lits, starts, active, val, reason, trail, st, head, nxt):
        st[2] = 1
    return lits, starts, active, val, reason, trail, st, head, nxt, occurs


@njit(cache=True, nogil=True)
def _push(codes, lits, starts, active, val, reason, trail, st, head, nxt):
    """Set the literal ``codes`` true and propagate: True on a conflict. The caller takes them back."""
    for j in range(len(codes)):
        lit = codes[j]
        if val[lit] == -1:
            return True
        if val[lit] == 0:
            _assign(lit, -1, val, reason, trail, st)
    return _propagate(lits, starts, active, val, reason, trail, st, head, nxt)


@njit(cache=True, nogil=True)
def _closure(codes, shown, val):
    """Whether a propagated assignment (its literals ``codes``) fixes every projection variable (``shown``),
    those it does not name false."""
    named = np.zeros(len(shown), np.bool_)
    for j in range(len(codes)):
        named[codes[j] >> 1] = True
    for v in range(len(shown)):
        if shown[v] and (val[2 * v] == 0 or val[2 * v] == 1 and not named[v]):
            return OPEN_PROJECTION
    return MODEL


@njit(cache=True, nogil=True)
def _complete(lits, starts, active, val, reason, trail, st, head, nxt, occurs):
    """Set each variable propagation left open, false unless that propagates to a conflict, then true
    (no backtracking further): True when every variable of the formula is then set without a conflict.
    Auxiliary variables (counters, ladders) are mostly fixed so; what this sets is evaluated after."""
    for v in range(len(occurs)):
        if occurs[v] and val[2 * v] == 0:
            mark = st[0]
            _assign(2 * v + 1, -1, val, reason, trail, st)
            if _propagate(lits, starts, active, val, reason, trail, st, head, nxt):
                _undo(mark, val, reason, trail, st)
                _assign(2 * v, -1, val, reason, trail, st)
                if _propagate(lits, starts, active, val, reason, trail, st, head, nxt):
                    return False
    return True


@njit(cache=True, nogil=True)
def _evaluate(lits, starts, val):
    """MODEL when every clause holds a true literal (trusting no watch), else FALSE_CLAUSE."""
    for c in range(len(starts) - 1):
        held = False
        for j in range(starts[c], starts[c + 1]):
            if val[lits[j]] == 1:
                held = True
                break
        if not held:
            return FALSE_CLAUSE
    return MODEL


@njit(cache=True, nogil=True)
def _hinted(lits, starts, val, hint):
    """Whether every clause holds a true literal, as ``_evaluate``, clause ``c`` looked at first where it
    held last time (``hint[c]``): models in a row share most true literals (knights-tour 6x6 closed's cut
    clauses were otherwise scanned to their middle for every tour). Only ``val`` says whether it holds."""
    for c in range(len(starts) - 1):
        if hint[c] < starts[c + 1] and val[lits[hint[c]]] == 1:  # an empty clause's hint is past its end
            continue
        held = False
        for j in range(starts[c], starts[c + 1]):
            if val[lits[j]] == 1:
                held = True
                hint[c] = j
                break
        if not held:
            return False
    return True


@njit(cache=True, nogil=True)
def _settle(lits, starts, active, val, reason, trail, st, head, nxt, occurs, codes, code_starts, shown, fixes,
            models, extra_lits, extra_starts):
    out = np.empty(len(code_starts) - 1, np.int8)
    base = st[0]
    hint = extra_starts[:-1].copy()  # where each extra clause held last: ``_hinted``
    for k in range(len(out)):
        mine = codes[code_starts[k]:code_starts[k + 1]]
        if st[2] == 1 or _push(mine, lits, starts, active, val, reason, trail, st, head, nxt):
            out[k] = CONFLICT
        elif fixes[k] and _closure(mine, shown, val) == OPEN_PROJECTION:
            out[k] = OPEN_PROJECTION
        elif not models[k]:
            out[k] = MODEL
        elif not _complete(lits, starts, active, val, reason, trail, st, head, nxt, occurs):
            out[k] = PARTIAL
        else:
            out[k] = _evaluate(lits, starts, val)
            if out[k] == MODEL and not _hinted(extra_lits, extra_starts, val, hint):
                out[k] = PARTIAL
        _undo(base, val, reason, trail, st)
    return out


@njit(cache=True, nogil=True)
def _left_open(lits, starts, active, val, reason, trail, st, head, nxt, occurs, codes, candidates):
    base = st[0]
    if st[2] != 0 or _push(codes, lits, starts, active, val, reason, trail, st, head, nxt):
        _undo(base, val, reason, trail, st)
        return candidates.copy()  # a conflict: nothing is known false
    found = np.empty(len(candidates), np.int64)
    k = 0
    for v in candidates:
        if val[2 * v + 1] != 1:
            found[k] = v
            k += 1
    _undo(base, val, reason, trail, st)
    return found[:k]
