"""An LRAT proof in which clauses were added during the solve, renumbered so that they follow the formula.

A certified search in one solver call (``solvers.proof.blocker``) gives CaDiCaL each blocking and cut clause
from its model check (IPASIR-UP's external clauses). CaDiCaL numbers such a clause as it takes it, among
its own lemmas, and writes no line for it: in its LRAT proof the clause is a number that no step defines,
as a formula clause is. Those numbers, in the order they were taken, are the gaps in the proof's lemma
numbers above the formula's (measured: knights-tour 6x6 closed, 23,340 clauses given, 23,340 gaps).

``renumbered`` rewrites the proof so that the clauses given stand where a checker expects them: the
formula's clauses keep their numbers 1 to F, the k-th clause given takes the number the caller names for
it (its place in the clause list the proof is checked against), and every lemma's number moves up by the
count of clauses given, which keeps lemma numbers growing and above every clause of the list. The result
is plain LRAT over that list, which gridsat's checker and drat-trim's ``lrat-check`` read.

Nothing here is trusted: a wrong guess about which number is which clause makes a hint name the wrong
clause, and the checker then refuses the proof (it accepts a hint only if it is unit or falsified).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from gridsat.solvers.proof.lrat import DELETION, tokenized


@njit(cache=True, nogil=True)
def _lemma_numbers(tokens, count):
    """The lemma numbers of a tokenised proof, in order, or an empty array when it is malformed."""
    found = np.empty(count, np.int64)
    n, k = 0, 0
    while k < count:
        deletion = k + 1 < count and tokens[k + 1] == DELETION
        if not deletion:
            found[n] = tokens[k]
            n += 1
        k += 2 if deletion else 1
        zeros = 1 if deletion else 2  # a deletion: numbers to a 0; a lemma: literals to a 0, hints to a 0
        while zeros and k < count:
            if tokens[k] == 0:
                zeros -= 1
            k += 1
        if zeros:
            return np.empty(0, np.int64)
    return found[:n]


@njit(cache=True, nogil=True)
def _write(out, at, value):
    """``value`` in decimal at ``out[at:]``, then a space; the position after it."""
    if value < 0:
        out[at] = 45
        at += 1
        value = -value
    digits = 1
    while value >= 10 ** digits:
        digits += 1
    for d in range(digits - 1, -1, -1):
        out[at + d] = 48 + value % 10
        value //= 10
    out[at + digits] = 32
    return at + digits + 1


@njit(cache=True, nogil=True)
def _rewrite(tokens, count, numbers, size, same=False):
    """The proof as text, every clause number ``c`` written as ``numbers[c]`` (literals as they are), or as it is
    (``same``: ``numbers`` is not read); empty when a clause number is outside ``numbers`` or a ``d`` stands
    where a literal or number belongs."""
    out = np.empty(size, np.uint8)
    top = numbers.shape[0] if not same else np.iinfo(np.int64).max
    at, k = np.int64(0), 0  # int64, not a literal: a literal argument compiles _write once more
    while k < count:
        deletion = k + 1 < count and tokens[k + 1] == DELETION
        ident = tokens[k]
        if ident < (0 if deletion else 1) or ident >= top:  # CaDiCaL numbers a deletion before any lemma 0
            return out[:0]
        at = _write(out, at, numbers[ident] if not same else ident)
        k += 1
        if deletion:
            out[at], out[at + 1] = 100, 32
            at, k = at + 2, k + 1
        for phase in range(1 if deletion else 0, 2):  # 0: a lemma's literals; 1: clause numbers (hints)
            while k < count and tokens[k] != 0:
                c = tokens[k]
                if c == DELETION or (phase == 1 and (c < 1 or c >= top)):
                    return out[:0]
                at = _write(out, at, numbers[c] if phase == 1 and not same else c)
                k += 1
            if k >= count:
                return out[:0]
            at, k = _write(out, at, np.int64(0)), k + 1
        out[at - 1] = 10  # the line's last space becomes its end
    return out[:at]


@njit(cache=True, nogil=True)
def _largest(tokens, count):
    """The largest magnitude among the first ``count`` tokens, ``DELETION`` aside (without the copies a numpy
    mask and ``abs`` would make of a proof's millions of tokens)."""
    most = 0
    for k in range(count):
        t = tokens[k]
        if t != DELETION:
            most = max(most, -t if t < 0 else t)
    return most


def renumbered(proof: bytes, formula: int, places: list[int]) -> bytes | None:
    """``proof`` (CaDiCaL's LRAT, binary or text, its formula numbered 1 to ``formula``) in text, with the k-th
    clause given during the solve numbered ``places[k]`` and each lemma ``len(places)`` higher (see the
    module docstring); None when its gaps are not one for each clause given, or it cannot be read."""
    tokens, count, error = tokenized(proof)
    if error >= 0 or count == 0:
        return None
    lemmas = _lemma_numbers(tokens, count)
    if not lemmas.size or lemmas[0] <= formula or (np.diff(lemmas) <= 0).any():
        return None
    top = int(lemmas[-1])
    if top > formula + len(places) + count:  # more gaps than clauses given, before an array of them is made
        return None
    numbers = np.arange(top + 1, dtype=np.int64)
    numbers[lemmas] += len(places)
    given = np.ones(top + 1, np.bool_)
    given[: formula + 1] = False
    given[lemmas] = False
    gaps = np.flatnonzero(given)
    if gaps.size != len(places):
        return None
    numbers[gaps] = np.asarray(places, np.int64)
    widest = max(len(str(top + len(places))), len(str(int(_largest(tokens, count))))) + 2
    written = _rewrite(tokens, count, numbers, count * widest + 16)
    return written.tobytes() if written.size else None


def as_text(proof: bytes) -> bytes | None:
    """An LRAT proof (binary or text) in text, every number as it is: what a certificate keeps and writes, for
    checkers that read text LRAT only (cake_lpr, drat-trim's ``lrat-check``); None when it cannot be read."""
    tokens, count, error = tokenized(proof)
    if error >= 0:
        return None
    if count == 0:
        return b""
    widest = len(str(int(_largest(tokens, count)))) + 2
    written = _rewrite(tokens, count, np.empty(0, np.int64), count * widest + 16, True)
    return written.tobytes() if written.size else None
