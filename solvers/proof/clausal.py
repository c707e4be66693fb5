"""Clauses as flat arrays, read from DIMACS CNF and from DRAT proofs in text or binary form.

A clause list is three arrays: ``lits`` (int32 literal codes, all clauses one after another), ``starts``
and ``kinds`` (one entry per clause; a clause is ``lits[starts[i]:starts[i + 1]]`` with a closing entry
``starts[n] = len(lits)``). A literal code is ``2 * v`` for variable ``v`` and ``2 * v + 1`` for its
negation, the code the binary DRAT format writes (Wetzler, Heule, Hunt, SAT 2014; drat-trim's README).
Kinds: ``ORIGINAL`` (a clause of the formula), ``ADD`` (a lemma), ``DELETE`` (a deletion).

The text format (DIMACS and text DRAT) is whitespace-separated integers, each clause closed by ``0``; a
proof line starting with ``d`` is a deletion, lines starting with ``c`` (and DIMACS's ``p`` header) are
skipped. The binary format is a byte ``a`` (addition) or ``d`` (deletion), then each literal code as an
unsigned LEB128 number (7 bits a byte, low first, high bit set on all but the last), then a zero byte.
A literal code must fit int32 (a variable below 2**30): a larger one is an unreadable byte, in either form.
Parsing is a numba loop over the bytes, since proofs run to millions of literals.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

ORIGINAL, ADD, DELETE = 0, 1, 2


@dataclass(frozen=True)
class Clauses:
    """Clauses as flat arrays (see the module docstring); ``error`` names the first unreadable byte."""

    lits: np.ndarray
    starts: np.ndarray
    kinds: np.ndarray
    error: str = ""

    def __len__(self) -> int:
        return len(self.kinds)

    def clause(self, i: int) -> list[int]:
        """Clause ``i`` as DIMACS integers (dropped duplicate literals stay dropped)."""
        return [dimacs(int(code)) for code in self.lits[self.starts[i]:self.starts[i + 1]]]


def dimacs(code: int) -> int:
    """The DIMACS integer of a literal code."""
    return -(code >> 1) if code & 1 else code >> 1


def encode(literal: int) -> int:
    """The literal code of a DIMACS integer."""
    return 2 * abs(literal) + (literal < 0)


@njit(cache=True)
def _skip_line(data, i):
    while i < len(data) and data[i] != 10:
        i += 1
    return i


@njit(cache=True)
def _read_text(data, kind):
    """Text clauses: (lits, starts, kinds, error position or -1). One pass with its cursor."""
    lits = np.empty(len(data) // 2 + 1, np.int32)
    starts = np.empty(len(data) // 2 + 3, np.int64)
    kinds = np.empty(len(data) // 2 + 1, np.int8)
    n, m, i, open_kind = 0, 0, 0, -1
    starts[0] = 0  # starts[n]: where the step being read begins, so every return leaves whole steps
    while i < len(data):
        b = data[i]
        if b == 32 or b == 9 or b == 10 or b == 13:
            i += 1
        elif (b == 99 or b == 112) and open_kind == -1:  # 'c' comment, 'p' header: to the end of the line
            i = _skip_line(data, i)
        elif b == 100 and kind == ADD and open_kind == -1:  # 'd': a deletion
            open_kind = DELETE
            i += 1
        elif b == 45 or 48 <= b <= 57:  # '-' or a digit
            negative = b == 45
            i += 1 if negative else 0
            if i >= len(data) or not 48 <= data[i] <= 57:
                return lits[:m], starts[:n + 1], kinds[:n], i
            value = 0
            while i < len(data) and 48 <= data[i] <= 57:
                value = value * 10 + (data[i] - 48)
                i += 1
                if value >= 1 << 30:  # a literal code must fit int32
                    return lits[:m], starts[:n + 1], kinds[:n], i
            if open_kind == -1:
                open_kind = kind
            if value == 0:
                kinds[n] = open_kind
                n += 1
                starts[n] = m
                open_kind = -1
            else:
                lits[m] = 2 * value + (1 if negative else 0)
                m += 1
        else:
            return lits[:m], starts[:n + 1], kinds[:n], i
    if open_kind != -1:  # a clause without its closing 0
        return lits[:m], starts[:n + 1], kinds[:n], len(data)
    return lits[:m], starts[:n + 1], kinds[:n], -1


@njit(cache=True)
def _read_binary(data):
    """Binary DRAT: (lits, starts, kinds, error position or -1)."""
    lits = np.empty(len(data), np.int32)
    starts = np.empty(len(data) + 1, np.int64)
    kinds = np.empty(len(data), np.int8)
    n, m, i = 0, 0, 0
    starts[0] = 0  # starts[n]: where the step being read begins, so every return leaves whole steps
    while i < len(data):
        if data[i] != 97 and data[i] != 100:  # 'a', 'd'
            return lits[:m], starts[:n + 1], kinds[:n], i
        kinds[n] = ADD if data[i] == 97 else DELETE
        i += 1
        while True:
            value, shift = 0, 0
            while i < len(data) and data[i] & 128:
                value |= (data[i] & 127) << shift
                shift += 7
                i += 1
            if i >= len(data) or shift > 28:
                return lits[:m], starts[:n + 1], kinds[:n], i
            value |= data[i] << shift
            if value >= 1 << 31:  # a literal code must fit int32, as in text
                return lits[:m], starts[:n + 1], kinds[:n], i
            i += 1
            if value == 0:
                break
            if value < 2:
                return lits[:m], starts[:n + 1], kinds[:n], i - 1
            lits[m] = value
            m += 1
        n += 1
        starts[n] = m
    return lits[:m], starts[:n + 1], kinds[:n], -1


def is_binary(data: bytes) -> bool:
    """Whether a proof is binary DRAT: it starts with ``a``, or holds a byte text never has (a control
    character other than white space; every binary step ends in a zero byte) among its first 64 KiB."""
    head = data[:65536]
    return head[:1] == b"a" or any(byte < 32 and byte not in b"\t\n\r" or byte > 126 for byte in set(head))


def read_cnf(data: bytes) -> Clauses:
    """The clauses of a DIMACS CNF (comments and the ``p`` header skipped)."""
    return _clauses(*_read_text(np.frombuffer(data, np.uint8), ORIGINAL), "CNF", len(data))


def read_drat(data: bytes, binary: bool | None = None) -> Clauses:
    """The steps of a DRAT proof, text or binary (``binary=None``: told apart as drat-trim does)."""
    buffer = np.frombuffer(data, np.uint8)
    if binary if binary is not None else is_binary(data):
        return _clauses(*_read_binary(buffer), "binary DRAT", len(data))
    return _clauses(*_read_text(buffer, ADD), "DRAT", len(data))


def _clauses(lits: np.ndarray, starts: np.ndarray, kinds: np.ndarray, error: int, what: str, size: int) -> Clauses:
    """The clauses read; a last step cut short by the end of the data (a truncated file) is left out, as
    if the data ended before it (only complete steps count), while any other bad byte is an error."""
    message = f"{what} unreadable at byte {error}" if 0 <= error < size else ""
    return Clauses(lits[:starts[-1]].copy(), starts.copy(), kinds.copy(), message)


def from_lists(clauses: list[list[int]], kind: int = ORIGINAL) -> Clauses:
    """Clauses given as lists of DIMACS integers."""
    sizes = np.fromiter((len(c) for c in clauses), np.int64, len(clauses))
    starts = np.zeros(len(clauses) + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    flat = np.fromiter((x for c in clauses for x in c), np.int64, int(starts[-1]))
    lits = (2 * np.abs(flat) + (flat < 0)).astype(np.int32)
    return Clauses(lits, starts, np.full(len(clauses), kind, np.int8))


def join(first: Clauses, second: Clauses) -> Clauses:
    """The clauses of ``first`` followed by those of ``second``."""
    starts = np.concatenate([first.starts[:-1], second.starts + len(first.lits)])
    return Clauses(np.concatenate([first.lits, second.lits]), starts,
                   np.concatenate([first.kinds, second.kinds]), first.error or second.error)


def write_binary(clauses: Clauses) -> bytes:
    """A proof in binary DRAT (for tests and for drat-trim's binary mode)."""
    out = bytearray()
    for i in range(len(clauses)):
        out.append(ord("d") if clauses.kinds[i] == DELETE else ord("a"))
        for code in clauses.lits[clauses.starts[i]:clauses.starts[i + 1]]:
            value = int(code)
            while value >= 128:
                out.append(value & 127 | 128)
                value >>= 7
            out.append(value)
        out.append(0)
    return bytes(out)
