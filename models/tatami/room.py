"""A tatami room: its size, parsed from ``RxC``, and the shapes of a tiling."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from gridsat.models.params import check_keys, parse_size

Cell = tuple[int, int]
Mat = list[list[int]]  # [[r, c], [r2, c2]], the smaller cell first
Tiling = list[Mat]  # sorted

MAX_CELLS = 100_000  # a 316x316 room: past that the CNF alone needs gigabytes


@dataclass(frozen=True)
class Room:
    """An H x W room."""

    rows: int
    cols: int

    def cells(self) -> Iterator[Cell]:
        return ((r, c) for r in range(self.rows) for c in range(self.cols))


def parse(text: str, params: Mapping[str, str]) -> Room:
    """``RxC``; tatami takes no parameters."""
    check_keys(params, {})
    return Room(*parse_size(text, "room", MAX_CELLS))


def describe(room: Room) -> str:
    return f"{room.rows}x{room.cols}"
