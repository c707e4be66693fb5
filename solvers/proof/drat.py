"""gridsat's own DRAT checker: a formula and a clausal proof that it is unsatisfiable, checked forward.

DRAT (Wetzler, Heule, Hunt, "DRAT-trim: Efficient Checking and Trimming Using Expressive Clausal Proofs",
SAT 2014) is a list of steps: add a lemma, or delete a clause. What this checker checks, step by step
in the proof's order, against the formula's clauses plus the lemmas added so far minus those deleted:

- **RUP**: a lemma C is accepted when unit propagation on the clauses and the negation of C's literals
  reaches a conflict (C is a reverse unit propagation consequence, so adding it keeps every model).
- **RAT**: otherwise C is accepted when it is a resolution asymmetric tautology on its *first* literal
  p (the pivot): for every clause D in the database that holds -p, C united with D without -p is RUP
  (adding C keeps satisfiability, though not every model). No other literal is tried as pivot.
- **Deletions** remove one copy of the named clause (matched as a set of literals). As drat-trim does,
  a deletion of a clause that is the reason of a top-level unit (a unit clause, or a pseudo-unit: all
  its other literals false at the top level) is ignored, and so is a deletion of a clause that is not
  in the database; both are counted. Ignoring a deletion can only make checking stricter for RAT and
  never accepts a lemma RUP would not, so it is sound.
  With ``keep_original=True`` a deletion of a clause of the formula is ignored too (and counted): the
  formula's clauses then stay for the whole proof. This is sound for the same reason (every clause set
  checked against holds the formula, and a lemma RUP or RAT against a larger set keeps satisfiability
  of that set), and it is needed for CaDiCaL's proofs of an incremental run: CaDiCaL deletes clauses it
  eliminates, and when a clause added later names an eliminated variable it restores them as original
  clauses without writing them to the proof, whose later lemmas may then rest on them (seen on
  knights-tour 6x6 closed, a run that adds cut and blocking clauses as it goes).
- **The end**: the proof is accepted at its first empty clause, which must itself be RUP (a conflict by
  unit propagation alone); the steps after it are not read. A proof without an empty clause is refused,
  even when its lemmas already propagate to a conflict.

What it trusts: that the formula it is given is the formula meant (the caller's business: gridsat
checks the formula it wrote with the blocking and cut clauses it justified), this module's unit
propagation (two watched literals per clause, Moskewicz et al. 2001), and numba compiling it faithfully.
It trusts nothing of the solver that wrote the proof. Literals repeated within a clause are kept once.
A proof naming a variable the formula does not name is refused at that step (``check(..., extension=True)``
takes extended resolution's new variables, up to one a step), so the checker's memory is bounded by the
formula's and the proof's sizes, never by the numbers written in the proof.

Forward checking checks every lemma, needed or not (drat-trim checks backward from the empty clause and
only the lemmas in its core); the cost is about one propagation per lemma, like the solver's own work.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from gridsat.solvers.proof.clausal import (
    ADD,
    DELETE,
    ORIGINAL,
    Clauses,
    from_lists,
    join,
    read_cnf,
    read_drat,
    write_binary,
)
from gridsat.solvers.proof.watches import _assign, _attach, _dedupe, _propagate, _undo

ACCEPTED, FAILED, NO_EMPTY = 0, 1, 2
LEMMAS, RAT, DELETED, UNIT_DELETIONS, MISSING_DELETIONS, ORIGINAL_DELETIONS = range(6)
_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)


@njit(cache=True)
def _refute(s, e, skip, lits, starts, active, val, reason, trail, st, head, nxt):
    """Assign the negation of ``lits[s:e]`` (but literal ``skip``) and propagate: True on a conflict.
    The caller takes the assignments back."""
    for j in range(s, e):
        lit = lits[j]
        if lit == skip:
            continue
        if val[lit] == 1:
            return True
        if val[lit] == 0:
            _assign(lit ^ 1, -1, val, reason, trail, st)
    return _propagate(lits, starts, active, val, reason, trail, st, head, nxt)


@njit(cache=True)
def _rat(c, lits, starts, kinds, active, val, reason, trail, st, head, nxt):
    """Whether lemma ``c`` is RAT on its first literal, the negation of its literals already propagated
    (without conflict): every clause D holding the pivot's negation gives a conflict once D's other
    literals are falsified too."""
    if starts[c + 1] == starts[c]:
        return False
    negation = lits[starts[c]] ^ 1
    for d in range(c):
        if not active[d]:
            continue
        s, e = starts[d], starts[d + 1]
        holds = False
        for j in range(s, e):
            if lits[j] == negation:
                holds = True
                break
        if not holds:
            continue
        mark = st[0]
        conflict = _refute(s, e, negation, lits, starts, active, val, reason, trail, st, head, nxt)
        _undo(mark, val, reason, trail, st)
        if not conflict:
            return False
    return True


@njit(cache=True)
def _digest(lits, s, e):
    """An order-free hash of a clause's literals."""
    h = np.uint64(0)
    for j in range(s, e):
        x = np.uint64(lits[j]) * _M1
        x ^= x >> np.uint64(31)
        h += x * _M2
    return h


@njit(cache=True)
def _match(c, lits, starts, active, hashes, bucket, chain, seen):
    """The active clause with the literals of deletion ``c`` (the latest added copy), or -1."""
    s, e = starts[c], starts[c + 1]
    for j in range(s, e):
        seen[lits[j]] = c + 1
    d = bucket[hashes[c] & np.uint64(len(bucket) - 1)]
    while d != -1:
        if active[d] and hashes[d] == hashes[c] and starts[d + 1] - starts[d] == e - s:
            same = True
            for j in range(starts[d], starts[d + 1]):
                if seen[lits[j]] != c + 1:
                    same = False
                    break
            if same:
                return d
        d = chain[d]
    return -1


@njit(cache=True)
def _is_reason(d, lits, starts, val, reason):
    for j in range(starts[d], starts[d + 1]):
        if val[lits[j]] == 1 and reason[lits[j] >> 1] == d:
            return True
    return False


@njit(cache=True, nogil=True)  # without the GIL: a judge checks one proof beside its other checks
def _check(lits, starts, kinds, nvars, keep_original):
    """The checker's loop over formula and proof: (status, index of the deciding clause, stats)."""
    n = len(kinds)
    seen = np.zeros(2 * nvars + 2, np.int64)
    lits, starts = _dedupe(lits, starts, seen)
    val = np.zeros(2 * nvars + 2, np.int8)
    reason = np.full(nvars + 1, -1, np.int64)
    trail = np.empty(nvars + 1, np.int32)
    st = np.zeros(2, np.int64)  # trail length, propagation head
    head = np.full(2 * nvars + 2, -1, np.int64)
    nxt = np.full(2 * n, -1, np.int64)
    active = np.zeros(n, np.uint8)
    hashes = np.zeros(n, np.uint64)
    bucket = np.full(1 << max(4, int(np.ceil(np.log2(n + 1))) + 1), -1, np.int64)
    chain = np.full(n, -1, np.int64)
    stats = np.zeros(6, np.int64)
    inconsistent = False
    for c in range(n):
        hashes[c] = _digest(lits, starts[c], starts[c + 1])
        if kinds[c] == DELETE:
            d = _match(c, lits, starts, active, hashes, bucket, chain, seen)
            if d == -1:
                stats[MISSING_DELETIONS] += 1
            elif _is_reason(d, lits, starts, val, reason):
                stats[UNIT_DELETIONS] += 1
            elif keep_original and kinds[d] == ORIGINAL:
                stats[ORIGINAL_DELETIONS] += 1
            else:
                active[d] = 0
                stats[DELETED] += 1
            continue
        if kinds[c] == ADD:
            stats[LEMMAS] += 1
            if not inconsistent:
                mark = st[0]
                ok = _refute(starts[c], starts[c + 1], np.int64(-1), lits, starts, active, val, reason, trail, st, head,
                             nxt)
                if not ok:
                    ok = _rat(c, lits, starts, kinds, active, val, reason, trail, st, head, nxt)
                    stats[RAT] += ok
                _undo(mark, val, reason, trail, st)
                if not ok:
                    return FAILED, c, stats
            if starts[c + 1] == starts[c]:
                return ACCEPTED, c, stats
        slot = hashes[c] & np.uint64(len(bucket) - 1)
        chain[c] = bucket[slot]
        bucket[slot] = c
        if not inconsistent:
            inconsistent = _attach(c, lits, starts, active, val, reason, trail, st, head, nxt)
        else:
            active[c] = 1
    return NO_EMPTY, n, stats


@dataclass(frozen=True)
class DratVerdict:
    """What the checker found. ``steps``: the proof steps read (through the empty clause when accepted);
    ``failure`` names the first failing step (1-based, in the proof's order) in one line."""

    accepted: bool
    steps: int
    failure: str
    failed_step: int | None
    lemmas: int
    rat_lemmas: int
    deletions: int
    ignored_unit_deletions: int
    missing_deletions: int
    seconds: float
    ignored_original_deletions: int = 0


def check(formula: Clauses | list[list[int]], proof: Clauses, *, extension: bool = False,
          keep_original: bool = False) -> DratVerdict:
    """Check ``proof`` (DRAT steps) against ``formula``; see the module docstring for what is checked.
    A proof naming a variable the formula does not is refused unless ``extension`` (extended resolution's
    new variables), and then only up to one new variable per proof step, so that the checker's memory
    stays within a multiple of the formula's and the proof's sizes whatever numbers the proof holds.
    ``keep_original``: a deletion of a formula's clause is ignored (see the module docstring)."""
    start = time.perf_counter()
    if not isinstance(formula, Clauses):
        formula = from_lists(formula)
    nvars = int(formula.lits.max()) >> 1 if len(formula.lits) else 0
    beyond = _beyond(proof, nvars + (len(proof) if extension else 0))
    both = join(formula, proof)
    if beyond is None and not formula.error and not proof.error:
        # ``both`` is new (join copies): the checker reorders and dedupes its literals in place
        status, index, stats = _check(both.lits, both.starts.astype(np.int64, copy=False), both.kinds,
                                      max(nvars, int(both.lits.max()) >> 1 if len(both.lits) else 0), keep_original)
    else:
        status, index, stats = FAILED, len(formula), np.zeros(6, np.int64)
    seconds = time.perf_counter() - start
    step = int(index) - len(formula) + 1
    failure = ""
    if formula.error or proof.error:
        status, step = FAILED, 1
        failure = f"the formula is unreadable: {formula.error}" if formula.error else proof.error
    elif beyond is not None:
        step, variable = beyond
        failure = f"step {step} names variable {variable}, beyond the formula's {nvars} variables" + \
            (f" and the {len(proof)} new ones a proof of {len(proof)} steps may define" if extension else "")
    elif status == FAILED:
        lemma = proof.clause(step - 1)
        text = " ".join([*map(str, lemma[:8]), *(["...", f"({len(lemma)} literals)"] if len(lemma) > 8 else ["0"])])
        failure = f"step {step} (lemma {text}) is neither RUP nor RAT on its first literal"
    elif status == NO_EMPTY:
        failure = f"the proof ends after step {len(proof)} without deriving the empty clause"
    return DratVerdict(status == ACCEPTED, min(step, len(proof)), failure, step if status != ACCEPTED else None,
                   int(stats[LEMMAS]), int(stats[RAT]), int(stats[DELETED]), int(stats[UNIT_DELETIONS]),
                   int(stats[MISSING_DELETIONS]), seconds, int(stats[ORIGINAL_DELETIONS]))


def _beyond(proof: Clauses, most: int) -> tuple[int, int] | None:
    """The first proof step (1-based) naming a variable above ``most``, and that variable; None if none."""
    over = np.flatnonzero(proof.lits >> 1 > most)
    if not len(over):
        return None
    at = int(over[0])
    return int(np.searchsorted(proof.starts, at, side="right")), int(proof.lits[at]) >> 1


@functools.cache
def warm_up() -> None:
    """Compile (or load from numba's cache) the checkers' kernels (DRAT's and LRAT's), to keep that off a
    timed check."""
    formula = read_cnf(b"p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    check(formula, read_drat(b"2 0\nd 1 2 0\n0\n"))
    check(formula, read_drat(b"2 0\nd 1 2 0\n0\n"), keep_original=True)
    check(formula, read_drat(write_binary(from_lists([[2], []], ADD))))
    from gridsat.solvers.proof.models import satisfied  # a blocked assignment's model check

    satisfied(formula, [[1, 2]])
    from gridsat.solvers.proof import lrat

    lrat.check([[1, 2], [-1, 2], [1, -2], [-1, -2]], b"5 2 0 1 2 0\n5 d 1 0\n6 0 5 3 4 0\n")
    from gridsat.solvers.proof.external import renumbered  # a one-call search's proof (solvers.proof.blocker)

    renumbered(b"5 2 0 1 2 0\n5 d 1 0\n6 0 5 3 4 0\n", 3, [4])
