"""gridsat's own LRAT checker: a formula and a proof with hints that it is unsatisfiable, checked forward.

LRAT (Cruz-Filipe, Heule, Hunt, Kaufmann, Schneider-Kamp, "Efficient Certified RAT Verification", CADE
2017) numbers every clause: the formula's clauses 1 to n in the order the solver was given them, and each
lemma by the number its step names. A step in text LRAT is

- ``ID L1 ... Lk 0 H1 ... Hm 0``: add lemma ``ID`` (numbers only grow) with literals ``L``, justified by the
  hints ``H``, clause numbers to propagate in that order;
- ``ID d C1 ... Cj 0``: delete clauses ``C`` (the leading number is the step's, and means nothing).

Binary LRAT (what CaDiCaL writes with ``--binary``) holds the same steps, each number a variable-length code
(``_binary_tokens``): CaDiCaL writes it faster, and gridsat rewrites it as text (``solvers.proof.external``)
before a certificate keeps it.

What this checker checks, step by step in the proof's order: a lemma is accepted when, with every literal
of the lemma false, each hint clause in turn is *unit* (one literal not false, none true: that literal is
set true) until one is *falsified*: a conflict, so the lemma follows from its hints by unit propagation
(RUP). A hint that is neither (a clause with a true literal or two open ones), a hint naming a clause that
does not exist or was deleted, hints that end without a conflict, and a negative hint (a RAT step: CaDiCaL
writes none; this checker takes none) refuse the proof at that step. The proof is accepted at its first
empty lemma so proved; one without an empty lemma is refused. A lemma naming a variable the formula does
not name is refused. Deleting a clause that does not exist is ignored (and counted): it can only leave
more clauses, each of which is the formula's or a checked lemma.

Unlike DRAT, no search for the units is needed: checking is linear in the hints, so it is much cheaper
than ``solvers.proof.drat``'s forward check (``python -m gridsat.benchmarks.compare.certify`` measures it).
Soundness rests on one fact: every clause a hint names is a clause of the formula or a lemma checked
before it, so every lemma is implied by the formula. A solver that numbered the formula's clauses
differently from 1 to n could only make proofs refused, never a wrong one accepted.

What it trusts: the formula given (the caller's, as for DRAT), this module's parser and loop, and numba.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import chain

import numpy as np
from numba import njit

from gridsat.solvers.proof.clausal import Clauses, flattened

DELETION = np.iinfo(np.int64).min  # the token of a step's ``d``
# what ``_check`` reports, with the step's position
ACCEPTED, NO_EMPTY, REFUSED = 0, 1, 2
REASONS = (
    "",
    "the proof ends without deriving the empty clause",
    "a lemma's number is not above every number before it",
    "a lemma names a variable the formula does not have",
    "a hint names a clause that does not exist or was deleted",
    "a hint clause is neither unit nor falsified (a literal true, or two open)",
    "the hints end without a conflict",
    "a hint is negative (a RAT step, which this checker does not take)",
    "the proof ends inside a step (cut short), without deriving the empty clause",
    "a clause number is out of range",
    "a 'd' stands where a literal, a hint or a clause number belongs",
)


@njit(cache=True, nogil=True)
def _room(out, n):
    """``out`` when it has a place at ``n``, else a copy twice as long: numba checks no bounds, and a proof's
    tokens can outnumber the places a well-formed one needs (``dddd`` is a token a byte)."""
    if n < out.shape[0]:
        return out
    grown = np.empty(2 * out.shape[0] + 2, np.int64)
    grown[:out.shape[0]] = out
    return grown


@njit(cache=True, nogil=True)
def _tokens(data):
    """The integers of a text LRAT proof, a ``d`` as ``DELETION``; comment lines (``c``) skipped. Returns
    (tokens, count, error byte position or -1)."""
    out = np.empty(data.shape[0] // 2 + 2, np.int64)  # a number and its space: enough for a well-formed proof
    n, i, size = 0, 0, data.shape[0]
    while i < size:
        b = data[i]
        if b == 32 or b == 10 or b == 13 or b == 9:
            i += 1
        elif b == 99:  # 'c': a comment, to the end of its line
            while i < size and data[i] != 10:
                i += 1
        elif b == 100:  # 'd'
            out = _room(out, n)
            out[n] = DELETION
            n += 1
            i += 1
        else:
            sign = 1
            if b == 45:
                sign, i = -1, i + 1
            if i >= size or not (48 <= data[i] <= 57):
                return out, n, i
            value = 0
            while i < size and 48 <= data[i] <= 57:
                value = value * 10 + (data[i] - 48)
                if value > 2**40:
                    return out, n, i
                i += 1
            out = _room(out, n)
            out[n] = sign * value
            n += 1
    return out, n, -1


@njit(cache=True, nogil=True)
def _varint(data, i):
    """The number coded at ``data[i:]`` in binary LRAT (seven bits a byte, lowest first, the high bit set on
    every byte but the last) and the position after it; -1 as the position where it is cut short or too big."""
    value, shift, size = 0, 0, data.shape[0]
    while i < size:
        b = data[i]
        value |= np.int64(b & 127) << shift
        i += 1
        if b < 128:
            return value, i
        shift += 7
        if shift > 42:
            return 0, -1
    return 0, -1


@njit(cache=True, nogil=True)
def _binary_tokens(data):
    """The integers of a binary LRAT proof, as ``_tokens`` reads its text form: an addition ``a`` then its
    number, literals, 0, hints, 0; a deletion ``d`` then clause numbers, 0 (taken as the text form's step
    ``N d ...``, N the last lemma's number, or 0 before any, as CaDiCaL writes it). Every number is coded as
    ``2 |n| + (n < 0)`` (``_varint``). Returns (tokens, count, error byte position or -1)."""
    out = np.empty(data.shape[0] + 2, np.int64)  # a step of CaDiCaL's takes a byte more than its numbers
    n, i, size, last = 0, 0, data.shape[0], 0
    while i < size:
        out = _room(out, n + 1)  # a deletion's step number is not written: ``d\0`` is three numbers
        kind, at = data[i], i
        i += 1
        if kind == 97:  # 'a': its number first, positive
            code, i = _varint(data, at + 1)
            if i < 0 or code & 1 or code < 2:
                return out, n, at + 1
            last = code >> 1
            out[n] = last
            lists = 2
        elif kind == 100:  # 'd'
            out[n], out[n + 1] = last, DELETION
            n += 1
            lists = 1
        else:
            return out, n, at
        n += 1
        while lists:
            if i >= size:  # cut between two numbers: read as text is (the check says the proof ends in a step)
                return out, n, -1
            start = i
            code, i = _varint(data, i)
            if i < 0:
                return out, n, start
            out = _room(out, n)
            out[n] = -(code >> 1) if code & 1 else code >> 1
            n += 1
            if code == 0:
                lists -= 1
    return out, n, -1


def tokenized(proof: bytes) -> tuple[np.ndarray, int, int]:
    """The integers of an LRAT proof, text (``_tokens``) or binary (``_binary_tokens``: it starts with ``a`` or
    ``d``, which no text step does). A wrong guess can only make a proof unreadable or refused, never a wrong
    one accepted: every step read is checked."""
    data = np.frombuffer(proof, np.uint8)
    return _binary_tokens(data) if proof[:1] in (b"a", b"d") else _tokens(data)


@njit(cache=True, nogil=True)
def _delete(tokens, k, count, begin, most):
    """A deletion's clause numbers from ``tokens[k]`` to its 0, each deleted (one not there is counted as
    missing). Returns (the token after the 0, missing deletions, reason or 0)."""
    missing = 0
    while k < count and tokens[k] != 0:
        c = tokens[k]
        if c == DELETION:
            return k, missing, 10
        if 0 < c <= most and begin[c] >= 0:
            begin[c] = -1
        else:
            missing += 1
        k += 1
    if k >= count:
        return k, missing, 8
    return k + 1, missing, 0


@njit(cache=True, nogil=True)
def _negate(tokens, k, count, variables, value, trail, pool, used):
    """A lemma's literals from ``tokens[k]`` to its 0, each made false (and kept in ``pool``). Returns (the
    token after the 0, the pool's new end, the assignments made, whether it is a tautology, reason or 0)."""
    top, tautology = 0, False
    while k < count and tokens[k] != 0:
        lit = tokens[k]
        if lit == DELETION:
            return k, used, top, tautology, 10
        v = abs(lit)
        if v > variables:
            return k, used, top, tautology, 3
        want = -1 if lit > 0 else 1  # the lemma's literal made false
        if value[v] == -want:
            tautology = True
        elif value[v] == 0:
            value[v] = want
            trail[top] = v
            top += 1
        pool[used] = lit
        used += 1
        k += 1
    if k >= count:
        return k, used, top, tautology, 8
    return k + 1, used, top, tautology, 0


@njit(cache=True, nogil=True)
def _hints(tokens, k, count, most, begin, end, pool, value, trail, top, conflict):
    """The hints from ``tokens[k]`` to their 0, each clause unit (its literal set true) until one is falsified.
    Returns (the token after the 0, the assignments made, whether a conflict was reached, reason or 0)."""
    reason = 0
    while k < count and tokens[k] != 0:
        h = tokens[k]
        k += 1
        if h == DELETION:
            reason = 10
        if conflict or reason:
            continue  # hints after the conflict are read, not needed
        if h < 0:
            reason = 7
            continue
        if h > most or begin[h] < 0:
            reason = 4
            continue
        unit, opened = 0, 0
        for j in range(begin[h], end[h]):
            lit = pool[j]
            state = value[abs(lit)] * (1 if lit > 0 else -1)
            if state == 1:
                opened = 2
                break
            if state == 0 and lit != unit:
                unit = lit
                opened += 1
                if opened > 1:
                    break
        if opened == 0:
            conflict = True
        elif opened == 1:
            value[abs(unit)] = 1 if unit > 0 else -1
            trail[top] = abs(unit)
            top += 1
        else:
            reason = 5
    if k >= count:
        return k, top, conflict, 8 if not reason else reason
    return k + 1, top, conflict, reason


@njit(cache=True, nogil=True)
def _check(lits, starts, variables, tokens, count):
    """Check the proof ``tokens[:count]`` against the formula (flat DIMACS literals ``lits`` by ``starts``).
    Returns (status, reason, step, lemmas, missing deletions)."""
    n = starts.shape[0] - 1
    most = n + count + 1  # no number can be higher and still name a clause (a lemma takes a token at least)
    begin = np.full(most + 1, -1, np.int64)
    end = np.zeros(most + 1, np.int64)
    pool = np.empty(lits.shape[0] + count, np.int64)
    pool[: lits.shape[0]] = lits
    for c in range(n):
        begin[c + 1], end[c + 1] = starts[c], starts[c + 1]
    used, last = lits.shape[0], n
    value = np.zeros(variables + 1, np.int8)  # 1 true, -1 false, 0 open (of the variable's positive literal)
    trail = np.empty(variables + 1, np.int64)
    lemmas, missing, step, k = 0, 0, 0, 0
    while k < count:
        step += 1
        if k + 1 < count and tokens[k + 1] == DELETION:
            k, gone, reason = _delete(tokens, k + 2, count, begin, most)
            missing += gone
            if reason:
                return REFUSED, reason, step, lemmas, missing
            continue
        ident = tokens[k]
        if ident <= last:
            return REFUSED, 2, step, lemmas, missing
        if ident > most:
            return REFUSED, 9, step, lemmas, missing
        first = used
        k, used, top, tautology, reason = _negate(tokens, k + 1, count, variables, value, trail, pool, used)
        conflict = tautology
        if not reason:
            k, top, conflict, reason = _hints(tokens, k, count, most, begin, end, pool, value, trail, top, tautology)
        for t in range(top):
            value[trail[t]] = 0
        if reason:
            return REFUSED, reason, step, lemmas, missing
        if not conflict:
            return REFUSED, 6, step, lemmas, missing
        lemmas += 1
        last = ident
        begin[ident], end[ident] = first, used
        if used == first:
            return ACCEPTED, 0, step, lemmas, missing
    return NO_EMPTY, 1, step, lemmas, missing


@dataclass(frozen=True)
class LratVerdict:
    """What the checker found: ``accepted``, the steps read, the lemmas checked, the deletions of clauses
    that were not there (ignored), why it refused (and at which step), and the seconds it took."""

    accepted: bool
    steps: int
    lemmas: int
    missing_deletions: int
    failure: str
    seconds: float


def highest(clauses: list[list[int]]) -> int:
    """The highest variable ``clauses`` name (0: none); in C, as this sees every literal of a run's clauses."""
    return max(map(abs, chain.from_iterable(clauses)), default=0)


def numbered(clauses: list[list[int]]) -> list[list[int]]:
    """The clauses as a solver writing LRAT is given them, numbered 1 to n in this order: each clause's
    literals once, and each unit clause ``[u]`` as ``[u, a]`` and ``[u, -a]`` over a fresh variable ``a``
    (one a unit, above every variable the clauses name), which together say exactly ``u``.

    Why: CaDiCaL numbers a clause as it is added, and where a unit clause has already set a variable it
    simplifies a clause added later, or derives a unit, writing that as a lemma numbered among the clauses
    still to come; a clause with a literal twice is written again without it, numbered likewise. Without
    units and repeated literals no clause is changed as it is added, so the numbers are 1 to n. A clause that
    needs no change is given as the very list it was (not to be changed after)."""
    top = highest(clauses)
    out: list[list[int]] = []
    for clause in clauses:
        n = len(clause)
        # most clauses have two or more literals, none twice: given as they are (this runs for every clause
        # of a certified run's formula, twice)
        if n == 2 and clause[0] != clause[1] or n > 2 and len(set(clause)) == n:
            out.append(clause)
            continue
        once = list(dict.fromkeys(clause))
        if len(once) == 1:
            top += 1
            out += [[once[0], top], [once[0], -top]]
        else:
            out.append(once)
    return out


def check(formula: Clauses | list[list[int]], proof: bytes, variables: int | None = None) -> LratVerdict:
    """Check an LRAT ``proof`` (text or binary: ``tokenized``) that ``formula`` (clauses numbered from 1 in
    order) is unsatisfiable. ``variables``: how many the formula has (default: the highest it names). A
    formula holding the empty clause needs no proof."""
    started = time.perf_counter()
    flat, starts = _flat(formula)
    if variables is None:
        variables = int(np.abs(flat).max()) if flat.size else 0
    if (np.diff(starts) == 0).any():
        return LratVerdict(True, 0, 0, 0, "", time.perf_counter() - started)
    tokens, count, error = tokenized(proof)
    if error >= 0:
        return LratVerdict(False, 0, 0, 0, f"unreadable LRAT at byte {error}",
                       time.perf_counter() - started)
    status, reason, step, lemmas, missing = _check(flat, starts, variables, tokens, count)
    failure = "" if status == ACCEPTED else f"step {step}: {REASONS[reason]}"
    return LratVerdict(status == ACCEPTED, int(step), int(lemmas), int(missing), failure, time.perf_counter() - started)


def _flat(formula: Clauses | list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """The formula's DIMACS literals one after another, and where each clause starts (and a last end)."""
    if isinstance(formula, Clauses):
        codes = formula.lits.astype(np.int64)
        return np.where(codes & 1, -(codes >> 1), codes >> 1), formula.starts.astype(np.int64)
    return flattened(formula)
