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
Parsing is a numba loop over the bytes, since proofs run to millions of literals, a piece of ``CHUNK``
bytes at a time: a step cut by a piece's end is read again with the next piece, so the result is the
same as reading the whole, while only the steps parsed and one piece are in memory (``read_drat_file``
never holds a proof file's bytes whole).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np
from numba import njit

ORIGINAL, ADD, DELETE = 0, 1, 2
CHUNK = 1 << 22  # bytes parsed at a time: the parser's scratch arrays take about 13 times this


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
def _read_text(data, kind, in_comment):
    """Text clauses: (lits, starts, kinds, error position or -1, end of the last whole step, whether the data
    ends inside a comment). One pass with its cursor; ``in_comment``: the data begins inside one."""
    lits = np.empty(len(data) // 2 + 1, np.int32)
    starts = np.empty(len(data) // 2 + 3, np.int64)
    kinds = np.empty(len(data) // 2 + 1, np.int8)
    n, m, i, open_kind, done = 0, 0, 0, -1, 0
    starts[0] = 0  # starts[n]: where the step being read begins, so every return leaves whole steps
    if in_comment:
        i = done = _skip_line(data, np.int64(0))
        if i == len(data):
            return lits[:0], starts[:1], kinds[:0], -1, done, True
    while i < len(data):
        b = data[i]
        if b == 32 or b == 9 or b == 10 or b == 13:
            i += 1
        elif (b == 99 or b == 112) and open_kind == -1:  # 'c' comment, 'p' header: to the end of the line
            i = done = _skip_line(data, i)
            if i == len(data):
                return lits[:m], starts[:n + 1], kinds[:n], -1, done, True
        elif b == 100 and kind == ADD and open_kind == -1:  # 'd': a deletion
            open_kind = DELETE
            i += 1
        elif b == 45 or 48 <= b <= 57:  # '-' or a digit
            negative = b == 45
            i += 1 if negative else 0
            if i >= len(data) or not 48 <= data[i] <= 57:
                return lits[:m], starts[:n + 1], kinds[:n], i, done, False
            value = 0
            while i < len(data) and 48 <= data[i] <= 57:
                value = value * 10 + (data[i] - 48)
                i += 1
                if value >= 1 << 30:  # a literal code must fit int32
                    return lits[:m], starts[:n + 1], kinds[:n], i, done, False
            if open_kind == -1:
                open_kind = kind
            if value == 0:
                kinds[n] = open_kind
                n += 1
                starts[n] = m
                open_kind = -1
                done = i
            else:
                lits[m] = 2 * value + (1 if negative else 0)
                m += 1
        else:
            return lits[:m], starts[:n + 1], kinds[:n], i, done, False
    if open_kind != -1:  # a clause without its closing 0
        return lits[:m], starts[:n + 1], kinds[:n], len(data), done, False
    return lits[:m], starts[:n + 1], kinds[:n], -1, done, False


@njit(cache=True)
def _read_binary(data):
    """Binary DRAT: (lits, starts, kinds, error position or -1, end of the last whole step)."""
    lits = np.empty(len(data), np.int32)
    starts = np.empty(len(data) + 1, np.int64)
    kinds = np.empty(len(data), np.int8)
    n, m, i, done = 0, 0, 0, 0
    starts[0] = 0  # starts[n]: where the step being read begins, so every return leaves whole steps
    while i < len(data):
        if data[i] != 97 and data[i] != 100:  # 'a', 'd'
            return lits[:m], starts[:n + 1], kinds[:n], i, done
        kinds[n] = ADD if data[i] == 97 else DELETE
        i += 1
        while True:
            value, shift = 0, 0
            while i < len(data) and data[i] & 128:
                value |= (data[i] & 127) << shift
                shift += 7
                i += 1
            if i >= len(data) or shift > 28:
                return lits[:m], starts[:n + 1], kinds[:n], i, done
            value |= data[i] << shift
            if value >= 1 << 31:  # a literal code must fit int32, as in text
                return lits[:m], starts[:n + 1], kinds[:n], i, done
            i += 1
            if value == 0:
                break
            if value < 2:
                return lits[:m], starts[:n + 1], kinds[:n], i - 1, done
            lits[m] = value
            m += 1
        n += 1
        starts[n] = m
        done = i
    return lits[:m], starts[:n + 1], kinds[:n], -1, done


def is_binary(data: bytes) -> bool:
    """Whether a proof is binary DRAT: it starts with ``a``, or holds a byte text never has (a control
    character other than white space; every binary step ends in a zero byte) among its first 64 KiB."""
    head = data[:65536]
    return head[:1] == b"a" or any(byte < 32 and byte not in b"\t\n\r" or byte > 126 for byte in set(head))


def read_cnf(data: bytes) -> Clauses:
    """The clauses of a DIMACS CNF (comments and the ``p`` header skipped)."""
    return _read(_pieces(data), False, ORIGINAL, "CNF")


def read_drat(data: bytes, binary: bool | None = None) -> Clauses:
    """The steps of a DRAT proof, text or binary (``binary=None``: told apart as drat-trim does)."""
    binary = binary if binary is not None else is_binary(data)
    return _read(_pieces(data), binary, ADD, "binary DRAT" if binary else "DRAT")


def read_drat_file(path: Path, chunk: int | None = None) -> Clauses:
    """The steps of the DRAT proof in the file ``path``, read ``chunk`` bytes (``CHUNK``) at a time: only
    the steps parsed (as compact as ``Clauses`` holds them) and one chunk are in memory, never the file's
    bytes."""
    chunk = chunk or CHUNK
    with path.open("rb") as stream:
        binary = is_binary(stream.read(65536))
        stream.seek(0)
        return _read(iter(lambda: stream.read(chunk), b""), binary, ADD, "binary DRAT" if binary else "DRAT")


def _pieces(data: bytes, chunk: int = CHUNK) -> Iterator[bytes]:
    view = memoryview(data)
    return (bytes(view[at:at + chunk]) for at in range(0, len(data), chunk))


def _read(pieces: Iterator[bytes], binary: bool, kind: int, what: str) -> Clauses:
    """The clauses of data given in pieces, parsed a piece at a time: a step cut by a piece's end is read
    again with the next piece. A last step cut short by the end of the data (a truncated file) is left out,
    as if the data ended before it (only complete steps count), while any other bad byte is an error,
    named by its offset in the whole data."""
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    carry, offset, in_comment, error = b"", 0, False, ""
    for piece in _with_end(pieces):
        data, end = carry + piece, not piece
        usable = len(data) if binary or end else _last_space(data)
        buffer = np.frombuffer(data, np.uint8, count=usable)
        if binary:
            lits, starts, kinds, bad, done = _read_binary(buffer)
        else:
            lits, starts, kinds, bad, done, in_comment = _read_text(buffer, kind, in_comment)
            done = usable if in_comment else done
        found.append((lits[:starts[-1]].copy(), starts.copy(), kinds.copy()))
        if 0 <= bad < usable:
            error = f"{what} unreadable at byte {offset + bad}"
            break
        carry, offset = data[done:], offset + done
        if end:
            break
    return _joined(found, error)


def _with_end(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """The pieces, then an empty one that marks the end."""
    yield from pieces
    yield b""


def _last_space(data: bytes) -> int:
    """Where the data's last whitespace ends (a number never spans one), or its length when it has none
    (then it is a comment or a token too long to be a literal: read, not kept waiting)."""
    last = max(data.rfind(byte) for byte in (b" ", b"\n", b"\t", b"\r"))
    return last + 1 if last >= 0 else len(data)


def _joined(found: list[tuple[np.ndarray, np.ndarray, np.ndarray]], error: str) -> Clauses:
    """The clauses read piece by piece, as one list."""
    shift = np.cumsum([0, *(len(lits) for lits, _, _ in found)])
    starts = np.concatenate([*(starts[:-1] + at for (_, starts, _), at in zip(found, shift[:-1], strict=True)),
                             np.array([shift[-1]], np.int64)])
    return Clauses(np.concatenate([lits for lits, _, _ in found]).astype(np.int32, copy=False), starts,
                   np.concatenate([kinds for _, _, kinds in found]).astype(np.int8, copy=False), error)


def flattened(lists: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Lists of DIMACS integers as one array, and where each list starts (one entry more, the end). In C,
    with no generator frames: this runs for every clause and blocked assignment of a certified run."""
    starts = np.zeros(len(lists) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, lists), np.int64, len(lists)), out=starts[1:])
    return np.fromiter(chain.from_iterable(lists), np.int64, int(starts[-1])), starts


def from_lists(clauses: list[list[int]], kind: int = ORIGINAL) -> Clauses:
    """Clauses given as lists of DIMACS integers."""
    flat, starts = flattened(clauses)
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
