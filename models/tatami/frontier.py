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

**Folds, for Burnside's lemma** (``fixed_points``). The tilings a mirror or the half turn fixes are
counted on the half of the room that the motion folds onto the other: a fixed tiling is the half's mats
and their images, so it is counted once, as a tiling of the half with a cut, ``FOLD``, where the half meets
its image. The half is laid so that its frontier stays as narrow as the room's:

* ``MIRROR`` (a mirror across an even side): the cut is the half's right edge, which its image mirrors.
  A cell of the last column may lay its mat right, across the cut (the mat is its own image). The point
  between rows r - 1 and r on the cut has four mats around it exactly when cell (r - 1, last) placed no mat
  (right or down) and cell (r, last) lays none across: the image's half-edges repeat the half's, so the
  check is local, at each last-column cell;
* ``MIDDLE`` (a mirror across an odd side): the middle column maps onto itself cell by cell, so its mats
  lie along it, rows (0, 1), (2, 3)...; the half's right edge meets it, none crosses into it, and the point
  between rows r - 1 and r with r even has four mats around it unless cell (r - 1, last) laid its mat down;
* ``TURN`` (the half turn, cut along the short side, across an even long side): the half is the top
  rows, and a cell of their last row may lay its mat down across the cut, onto the image of the cell's
  half-turn partner (column j's image is column C-1-j). So the cut is not local: one more layer, the
  glue, reads the last row from the state and asks that the columns crossed map onto themselves (j to
  C-1-j) and that every point j on the cut is crossed: by a mat down at column j - 1 or j, by the last
  row's mat across j, or by its image, the last row's mat across C-j;
* ``MIDDLE_TURN`` (the half turn across an odd long side): the middle row maps onto itself reversed.
  The glue derives it from the half's last row: a cell covered from above, a cell whose partner is
  (so it lays its mat down, the image of that one), or a run of neither, which mats along the row tile in
  one way only (an even run) and which the half turn maps onto itself; then every point above it must be
  crossed (the points below it are their images);
* ``MIRROR_BELOW`` and ``MIDDLE_BELOW``: a mirror laid with its axis below the half (when that frontier
  is narrower), checked by the glue in the same way.

The quarter turns and the diagonal mirrors fix no tiling; ``fixed_points`` says why.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridsat.models.frontier import ACCEPT, KEEP, REJECT, STEP_SIGNATURE, Fixed, FrontierSpec
from gridsat.models.symmetry import motions
from gridsat.models.tatami.room import Room

# data: a header of HEAD words, nothing after it. Numba reads these module-level ints as compile-time constants.
(
    ROWS,  # rows walked (the room's long side)
    COLS,  # columns per row (the short side)
    WORDS,  # uint64 words per packed state
    CELLS,  # cells walked in all (ROWS * COLS): the last is layer CELLS - 1
    FOLD,  # WHOLE, or the fold whose glue is layer CELLS (see the module's docstring)
    HEAD,  # header words: one past the last field
) = range(6)
WHOLE, MIRROR, MIDDLE, TURN, MIRROR_BELOW, MIDDLE_BELOW, MIDDLE_TURN = range(7)
BELOW = (TURN, MIRROR_BELOW, MIDDLE_BELOW, MIDDLE_TURN)  # cut below the half's last row: checked by the glue


@njit(cache=True, inline="always")
def set_bit(out, bit, value):
    """Bit ``bit`` of the packed words set to ``value`` (0 or 1)."""
    w, b = bit >> 6, np.uint64(bit & 63)
    out[w] = (out[w] & ~(np.uint64(1) << b)) | (value << b)


@njit(cache=True, inline="always")
def get_bit(key, bit):
    return (key[bit >> 6] >> np.uint64(bit & 63)) & np.uint64(1)


@njit(cache=True)
def glue_middle_turn(width, key):
    """The half turn's middle row (an odd number of rows), below the half: cell c of it is covered from above
    (D(c)), or lays its mat down, as the image of the mat down onto cell C-1-c, or neither, and then lies in a
    run of such cells that mats along the row tile (one way only). ACCEPT when that tiles the row and every
    point between the half's last row and the middle row is crossed; the points below the middle row are
    their images."""
    run = 0
    along = 0  # bit j: a mat of the middle row lies across point j
    for c in range(width + 1):
        if c == width or get_bit(key, c) or get_bit(key, width - 1 - c):
            if c < width and get_bit(key, c) and get_bit(key, width - 1 - c):
                return REJECT  # cell c is covered from above and, by the image of that, from below
            if run % 2:
                return REJECT  # an odd run of cells that only mats along the row could cover
            for k in range(c - run + 1, c, 2):
                along |= 1 << k
            run = 0
        else:
            run += 1
    for j in range(1, width):
        top = get_bit(key, width + j - 1) == 1 and get_bit(key, j - 1) == 0
        if not (top or (along >> j) & 1 or get_bit(key, j - 1) or get_bit(key, j)):
            return REJECT  # no mat crosses point j above the middle row: four mats meet there
    return ACCEPT


@njit(cache=True)
def glue(data, key):
    """A cut below the half (a layer after its last cell): ACCEPT when the half and its image tile the room."""
    width, fold = data[COLS], data[FOLD]
    if fold == MIDDLE_TURN:
        return glue_middle_turn(width, key)
    for j in range(width):
        if fold == TURN and get_bit(key, j) != get_bit(key, width - 1 - j):
            return REJECT  # a mat across the cut at column j whose image (at column C-1-j) is missing
    for j in range(1, width):
        # The last row has a mat across point j: cell j - 1 placed its mat, and not down. The image row has
        # one across j where the last row has one across j (a mirror) or across C - j (the half turn).
        top = get_bit(key, width + j - 1) == 1 and get_bit(key, j - 1) == 0
        if fold == MIDDLE_BELOW:
            if not top and j % 2 == 0:
                return REJECT  # no mat crosses point j between the last row and the middle line's mats
            continue
        mirrored = width - j if fold == TURN else j
        image = get_bit(key, width + mirrored - 1) == 1 and get_bit(key, mirrored - 1) == 0
        if not (top or image or get_bit(key, j - 1) or get_bit(key, j)):
            return REJECT  # no mat crosses point j of the cut: four mats meet there
    return ACCEPT


@njit(cache=True, inline="always")
def meets_at_cut(fold, r, placed_above, across):
    """Whether four mats meet at the point between rows r - 1 and r on a mirror's cut (the last column's
    right edge): ``placed_above``: cell (r - 1, last) placed its mat; ``across``: cell (r, last) lays one across."""
    if r == 0 or placed_above:
        return False
    return not across if fold == MIRROR else r % 2 == 0


@njit(STEP_SIGNATURE, cache=True)
def step(data, layer, key, choice, out):
    """Cell ``layer``: choice 0 lays a mat to the right (or passes a covered cell), choice 1 a mat downwards;
    in a fold, right or down across its cut (and, for a cut below the half, the glue: a layer past the last cell)."""
    rows, width, words, fold = data[ROWS], data[COLS], data[WORDS], data[FOLD]
    if layer == data[CELLS]:
        return glue(data, key) if choice == 0 else REJECT
    r, c = layer // width, layer % width
    for w in range(words):
        out[w] = key[w]
    covered = get_bit(key, c)
    placed_at = width + c
    above_left = 2 * width
    if r > 0 and c > 0 and get_bit(key, above_left) == 0 and covered == 0:
        return REJECT  # no mat crosses the corner above-left of this cell: four mats meet there
    placed_before = get_bit(key, placed_at)
    last = c + 1 == width
    if covered:
        if choice != 0:
            return REJECT
        placed = np.uint64(0)
        down = np.uint64(0)
    elif choice == 0:  # a mat to the right (across a mirror's cut: its own image)
        if last and fold != MIRROR or not last and get_bit(key, c + 1):
            return REJECT
        if not last:
            out[(c + 1) >> 6] |= np.uint64(1) << np.uint64((c + 1) & 63)
        placed = np.uint64(1)
        down = np.uint64(0)
    else:  # a mat downwards (across the half turn's cut: its image is the mat down from column C-1-c)
        if r + 1 >= rows and fold != TURN and fold != MIRROR_BELOW and fold != MIDDLE_TURN:
            return REJECT
        placed = np.uint64(1)
        down = np.uint64(1)
    if last and (fold == MIRROR or fold == MIDDLE) and meets_at_cut(fold, r, placed_before, placed and not down):
        return REJECT
    set_bit(out, c, down)
    # The last column's placed bit is read only on a mirror's cut.
    set_bit(out, placed_at, placed if not last or fold == MIRROR or fold == MIDDLE else np.uint64(0))
    set_bit(out, above_left, placed_before if not last else np.uint64(0))
    if layer == data[CELLS] - 1 and (fold == WHOLE or fold == MIRROR or fold == MIDDLE):
        return ACCEPT  # the last cell: covered or across the cut (the only ways it passes): the half is tiled
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


def build_fold(rows: int, cols: int, fold: int, name: str) -> FrontierSpec:
    """The half of a ``rows`` x ``cols`` room cut by ``fold``: the top half (``rows // 2`` rows, then the glue
    layer) for a cut below it, else the left half (``cols // 2`` columns, the cut on its right)."""
    walked, width = (rows // 2, cols) if fold in BELOW else (rows, cols // 2)
    words = (2 * width + 1 + 63) // 64
    data = np.zeros(HEAD, dtype=np.int64)
    data[ROWS], data[COLS], data[WORDS], data[CELLS], data[FOLD] = walked, width, words, walked * width, fold
    cut = "then the glue" if fold in BELOW else "the cut on the right"
    return FrontierSpec(
        elements=walked * width + (fold in BELOW), words=words, choices=2, step=step, data=data,
        bound_bits=rows * cols // 2 + 1, order=f"fold of {name}: {walked}x{width} half, row-major, {cut}",
        width=width, refuse=REFUSE, details={"profile_bits": 2 * width + 1},
    )


def fixed_points(room: Room, up_to: str) -> list[Fixed]:
    """Every element of the group ``up_to`` (the elements of ``symmetry.group``, in its order) with the
    tilings it fixes: counted on its fold, or none, with the reason."""
    rows, cols = room.rows, room.cols
    whole = build(rows, cols)
    found = []
    for move in motions(rows, cols):
        if move.is_identity:
            found.append(Fixed(move.name, whole))
        elif whole.fixed is not None:
            found.append(Fixed(move.name, known=0, why=f"the {rows}x{cols} room has an odd number of cells"))
        else:
            found.append(fixed_by(rows, cols, move.name))
    return found


def fixed_by(rows: int, cols: int, name: str) -> Fixed:
    """The tilings of a rows x cols room with an even number of cells that the motion ``name`` fixes."""
    if name in ("rot90", "rot270"):
        return Fixed(name, known=0, why="the quarter turn takes each of the four cells around the centre to the "
                     "next: a mat on two of them would overlap its image, so four mats meet there")
    if name in ("transpose", "antitranspose"):
        return Fixed(name, known=0, why="the cells on the mirror's diagonal stay, and a mat on one of them lies "
                     "across the diagonal: its image is another mat on the same cell")
    if name == "rot180":  # the cut (the frontier) along the short side; across an odd long side, a middle row
        tall, wide = (rows, cols) if cols <= rows else (cols, rows)
        return Fixed(name, build_fold(tall, wide, TURN if tall % 2 == 0 else MIDDLE_TURN, name))
    # A mirror: mirror-lr cuts the columns, mirror-ud the rows. Laid with its cut across the columns (the cut on
    # the half's right) or across the rows (below it, transposed), whichever leaves the narrower frontier.
    across, along = (cols, rows) if name == "mirror-lr" else (rows, cols)  # the side cut, the side along the cut
    if across % 2 and along % 2:
        return Fixed(name, known=0, why=f"the mirror keeps each of the {along} cells of the middle line in place: "
                     "only mats along the line can cover them, and they are an odd number")
    right = across // 2 <= along
    if across % 2 == 0:
        return Fixed(name, build_fold(along, across, MIRROR, name) if right else
                     build_fold(across, along, MIRROR_BELOW, name))
    return Fixed(name, build_fold(along, across, MIDDLE, name) if right else
                 build_fold(across, along, MIDDLE_BELOW, name))


REFUSE = "the frontier backend counts tatami tilings, and their orbits up to symmetry, not up to {up_to}"
