"""A prime-sum grid: its size and value range, parsed from ``RxC`` with ``-p max=``/``-p min=``, and the primes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache

from gridsat.models.errors import InvalidInstance
from gridsat.models.params import check_keys, int_param, parse_size

Cell = tuple[int, int]
Filling = list[list[int]]  # the canonical solution: rows of values
Phase = int  # the parity (0 even, 1 odd) of the colour of cell (0, 0); the other colour has the other

MAX_CELLS = 10_000
MAX_VALUE = 100_000
MAX_LITERALS = 4_000_000  # cells x values: past that a one-hot model is gigabytes


PARAMS = {
    "max": "largest value allowed (default rows*cols+1)",
    "min": "smallest value allowed, at least 1 (default 1)",
}


@dataclass(frozen=True)
class Grid:
    """An R x C grid to fill with distinct values from ``low``..``high``."""

    rows: int
    cols: int
    low: int
    high: int

    def cells(self) -> Iterator[Cell]:
        return ((r, c) for r in range(self.rows) for c in range(self.cols))

    def values(self) -> range:
        return range(self.low, self.high + 1)


def parse(text: str, params: Mapping[str, str]) -> Grid:
    """``RxC`` with ``max`` and ``min``; more cells than values is valid (no fillings)."""
    check_keys(params, PARAMS)
    rows, cols = parse_size(text, "grid", MAX_CELLS)
    low = int_param(params, "min", 1, minimum=1)
    high = int_param(params, "max", rows * cols + 1, minimum=1)
    if low > high:
        raise InvalidInstance(f"parameter min={low} is larger than max={high}")
    if high > MAX_VALUE:
        raise InvalidInstance(f"parameter max={high} is too large: at most {MAX_VALUE}")
    if rows * cols * (high - low + 1) > MAX_LITERALS:
        raise InvalidInstance(f"grid {text!r} with values {low}..{high} is too large for a one-hot model")
    return Grid(rows, cols, low, high)


def describe(grid: Grid) -> str:
    return f"{grid.rows}x{grid.cols}/{grid.low}..{grid.high}"


@cache
def primes(limit: int) -> frozenset[int]:
    """The primes up to ``limit`` (a sieve)."""
    sieve = bytearray([1]) * (limit + 1)
    sieve[: min(2, limit + 1)] = b"\0" * min(2, limit + 1)
    for p in range(2, int(limit**0.5) + 1):
        if sieve[p]:
            sieve[p * p :: p] = bytearray(len(range(p * p, limit + 1, p)))
    return frozenset(i for i, flag in enumerate(sieve) if flag)
