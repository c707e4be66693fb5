"""Tatami tilings as a frontier spec: a broken-profile transfer matrix over the cells, row by row.

The room is walked row by row along its short side (a tall room is transposed: its tilings are
the same in number). At cell (r, c) the state holds, for every column j, bit ``j``: the next cell
of column j still to be walked is already covered (by a mat from above, or from the left); bit
``W + j``: the cell of column j walked last placed its own mat (right or down) rather than being
covered; and bit ``2W``: that "placed" bit of column c - 1 in the row above, kept while column
c - 1's bit is overwritten. Four mats meet at the corner above-left of (r, c) exactly when none
of the four half-edges there is crossed: (r-1, c-1) was covered rather than placing a mat, and
(r, c) is not covered from above or the left. That is one test per cell, so the spec counts only
tilings that keep the rule. A tiling is fixed by the choice (right or down) at every cell that is
not covered when walked, one per mat: at most 2**(cells/2) tilings, the bound the residues need.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridsat.models.frontier import ACCEPT, KEEP, REJECT, STEP_SIGNATURE, FrontierSpec

# data: a header of HEAD words, nothing after it. Numba reads these module-level ints as compile-time constants.
(
    ROWS,  # rows walked (the room's long side)
    COLS,  # columns per row (the short side)
    WORDS,  # uint64 words per packed state
    CELLS,  # cells walked in all (ROWS * COLS): the last is layer CELLS - 1
    HEAD,  # header words: one past the last field
) = range(5)


@njit(cache=True, inline="always")
def set_bit(out, bit, value):
    """Bit ``bit`` of the packed words set to ``value`` (0 or 1)."""
    w, b = bit >> 6, np.uint64(bit & 63)
    out[w] = (out[w] & ~(np.uint64(1) << b)) | (value << b)


@njit(STEP_SIGNATURE, cache=True)
def step(data, layer, key, choice, out):
    """Cell ``layer``: choice 0 lays a mat to the right (or passes a covered cell), choice 1 a mat downwards."""
    rows, width, words = data[ROWS], data[COLS], data[WORDS]
    r, c = layer // width, layer % width
    for w in range(words):
        out[w] = key[w]
    covered = (key[c >> 6] >> np.uint64(c & 63)) & np.uint64(1)
    placed_at = width + c
    above_left = 2 * width
    carry = (key[above_left >> 6] >> np.uint64(above_left & 63)) & np.uint64(1)
    if r > 0 and c > 0 and carry == 0 and covered == 0:
        return REJECT  # no mat crosses the corner above-left of this cell: four mats meet there
    placed_before = (key[placed_at >> 6] >> np.uint64(placed_at & 63)) & np.uint64(1)
    if covered:
        if choice != 0:
            return REJECT
        placed = np.uint64(0)
        down = np.uint64(0)
    elif choice == 0:  # a mat to the right
        if c + 1 >= width or (key[(c + 1) >> 6] >> np.uint64((c + 1) & 63)) & np.uint64(1):
            return REJECT
        out[(c + 1) >> 6] |= np.uint64(1) << np.uint64((c + 1) & 63)
        placed = np.uint64(1)
        down = np.uint64(0)
    else:  # a mat downwards
        if r + 1 >= rows:
            return REJECT
        placed = np.uint64(1)
        down = np.uint64(1)
    set_bit(out, c, down)
    set_bit(out, placed_at, placed if c + 1 < width else np.uint64(0))  # the last column's is never read
    set_bit(out, above_left, placed_before if c + 1 < width else np.uint64(0))
    if layer == data[CELLS] - 1:
        return ACCEPT  # the last cell: covered (the only way it passes), so the room is tiled
    return KEEP


def build(rows: int, cols: int, least_words: int = 1) -> FrontierSpec:
    """The spec of the tatami tilings of a rows x cols room (``least_words``: see the knight's tours')."""
    long, short = max(rows, cols), min(rows, cols)
    words = max(least_words, (2 * short + 1 + 63) // 64)
    data = np.zeros(HEAD, dtype=np.int64)
    data[ROWS], data[COLS], data[WORDS], data[CELLS] = long, short, words, long * short
    label = "row-major cells" if cols <= rows else "column-major cells"
    if (rows * cols) % 2:
        return FrontierSpec(0, words, 2, step, data, 1, label, fixed=0, width=short, refuse=REFUSE)
    return FrontierSpec(
        elements=long * short, words=words, choices=2, step=step, data=data, bound_bits=rows * cols // 2 + 1,
        order=label, width=short, refuse=REFUSE, details={"profile_bits": 2 * short + 1},
    )


REFUSE = "the frontier backend counts tatami tilings, not up to {up_to}: count them up to symmetry with cpsat or sat"
