"""The brute-force oracle: every tiling of a small room with 1x2 mats, kept when no four mats meet.

Written from the rules alone, for differential testing (``gridsat fuzz``): it shares nothing with the
row-scan reference search or the formulations. Every domino tiling is built by covering the first
uncovered cell (row-major) with a mat going right or down, and only then is the tatami rule checked.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from gridsat.models.errors import InvalidInstance
from gridsat.models.tatami.room import Cell, Room, Tiling

MAX_CELLS = 36  # a 6x6 room has 6,728 domino tilings: listed in well under a second


def solutions(room: Room) -> Iterator[Tiling]:
    """Every tatami tiling of ``room`` in canonical form (mats smaller cell first, sorted)."""
    if room.rows * room.cols > MAX_CELLS:
        raise InvalidInstance(f"room {room.rows}x{room.cols} is too large for the brute-force oracle "
                              f"(at most {MAX_CELLS} cells)")
    for mats in tilings(room, frozenset(), []):
        if not four_meet(room, mats):
            yield sorted([list(a), list(b)] for a, b in mats)


def tilings(room: Room, covered: frozenset[Cell], mats: list[tuple[Cell, Cell]]) -> Iterator[list[tuple[Cell, Cell]]]:
    """Every domino tiling of the cells not yet ``covered``."""
    free = next(((r, c) for r in range(room.rows) for c in range(room.cols) if (r, c) not in covered), None)
    if free is None:
        yield list(mats)
        return
    r, c = free
    for other in ((r, c + 1), (r + 1, c)):
        if other[0] < room.rows and other[1] < room.cols and other not in covered:
            yield from tilings(room, covered | {free, other}, [*mats, (free, other)])


def four_meet(room: Room, mats: list[tuple[Cell, Cell]]) -> bool:
    """Whether four mats meet at some interior grid point (its four cells belong to four mats)."""
    mat_of = {cell: i for i, mat in enumerate(mats) for cell in mat}
    return any(
        len({mat_of[(r, c)], mat_of[(r, c + 1)], mat_of[(r + 1, c)], mat_of[(r + 1, c + 1)]}) == 4
        for r in range(room.rows - 1)
        for c in range(room.cols - 1)
    )


def draw(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A random room the oracle lists quickly: 1 to 6 rows and columns, at most ``MAX_CELLS`` cells."""
    rows = rng.randint(1, 6)
    cols = rng.randint(1, min(6, MAX_CELLS // rows))
    return f"{rows}x{cols}", {}
