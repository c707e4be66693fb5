"""Shikaku boards and the formats they come in: a text grid, a Simon Tatham game id, the seed.

Text: one grid row per line, whitespace-separated tokens, ``.`` or ``-`` for a blank cell, a
positive integer for a clue; lines starting with ``#`` and blank lines are ignored.
Game id (Tatham's "Rectangles"): ``WxH:desc``, W columns and H rows; in ``desc``, ``a``..``z``
are runs of 1..26 blank cells, a number is a clue, ``_`` separates two adjacent numbers, row-major.
Note the order: a game id is columns x rows, while gridsat sizes (``generate 10x12``) are rows x columns.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, TextIO

from gridsat.models.errors import InvalidInstance
from gridsat.models.params import MAX_DIGITS, excerpt, overlong
from gridsat.models.shikaku.puzzlink import looks_like_url, parse_url, to_url

Clue = tuple[int, int, int]  # (row, col, area)
BLANKS = (".", "-")
MAX_CELLS = 40_000  # a 200x200 grid
# The most a puzzle file or standard input may hold: a 200x200 grid of large clues is well under a
# megabyte, and reading more (a stray /dev/zero) would only fill memory before failing.
MAX_BYTES = 4 << 20

# The seed's puzzle, transcribed as its (x, y, N) = (column, row, clue) tuples.
SEED_SIZE = (12, 12)
SEED_TUPLES = (
    (0, 8, 10), (8, 4, 9), (7, 0, 8), (3, 1, 8), (5, 6, 8),
    (7, 7, 8), (8, 9, 5), (11, 9, 6), (4, 10, 6), (3, 11, 6),
    (9, 11, 4), (9, 1, 6), (0, 3, 6), (6, 3, 6), (3, 4, 6),
    (11, 4, 6), (0, 6, 6), (10, 6, 6), (2, 7, 6), (9, 8, 6),
    (2, 9, 6), (6, 9, 6),
)  # fmt: skip

_GAME_ID = re.compile(r"([0-9]+)x([0-9]+)(?:e[0-9.]*)?a?:(.*)", re.DOTALL | re.ASCII)


@dataclass(frozen=True)
class Board:
    """An R x C grid and its clues in row-major order; ``source`` says where it came from."""

    rows: int
    cols: int
    clues: tuple[Clue, ...]
    source: str = field(default="", compare=False)
    labels: str = field(default="", compare=False)  # a letter per clue for rendering, when the source has them

    @property
    def area(self) -> int:
        return self.rows * self.cols

    def total(self) -> int:
        """The sum of the clues: a solution exists only when it equals the area."""
        return sum(n for _, _, n in self.clues)


def board(rows: int, cols: int, clues: Iterable[Clue], source: str = "", where: str = "") -> Board:
    """A Board with its clues checked (inside the grid, one per cell, 1..area) and sorted."""
    where = where or source or "puzzle"
    clues = list(clues)
    if rows < 1 or cols < 1:
        raise InvalidInstance(f"{where}: the grid must have at least one row and one column, not {rows}x{cols}")
    if rows * cols > MAX_CELLS:
        raise InvalidInstance(f"{where}: {rows}x{cols} is too large: {rows * cols} cells, at most {MAX_CELLS}")
    seen: set[tuple[int, int]] = set()
    for r, c, n in clues:
        if not (0 <= r < rows and 0 <= c < cols):
            raise InvalidInstance(f"{where}: clue {n} at row {r + 1}, column {c + 1} is outside the {rows}x{cols} grid")
        if (r, c) in seen:
            raise InvalidInstance(f"{where}: two clues at row {r + 1}, column {c + 1}")
        check_clue(n, rows, cols, f"{where}: row {r + 1}, column {c + 1}")
        seen.add((r, c))
    return Board(rows, cols, tuple(sorted(clues)), source)


def clue_value(digits: str, rows: int, cols: int, where: str) -> int:
    """A clue written in ASCII digits, checked before it is converted (it may have thousands of digits)."""
    if len(digits.lstrip("-").lstrip("0")) > len(str(rows * cols)):
        raise InvalidInstance(f"{where}: clue {excerpt(digits)} is larger than the {rows}x{cols} grid "
                              f"({rows * cols} cells)")
    if overlong(digits):
        raise InvalidInstance(f"{where}: clue {excerpt(digits)} has more than {MAX_DIGITS} digits")
    value = int(digits)
    check_clue(value, rows, cols, where)
    return value


def check_clue(n: int, rows: int, cols: int, where: str) -> None:
    """A clue must be positive and fit in the grid's area."""
    if n < 1:
        raise InvalidInstance(f"{where}: clue {n} must be a positive integer")
    if n > rows * cols:
        raise InvalidInstance(f"{where}: clue {n} is larger than the {rows}x{cols} grid ({rows * cols} cells)")


def read(text: str) -> Board:
    """INSTANCE as typed: ``seed``, a game id ``WxH:desc``, a puzz.link URL, ``-`` (stdin), grid text
    (one row may stand on one line), or a file path."""
    stripped = text.strip()
    if stripped == "seed":
        return seed()
    if _GAME_ID.fullmatch(stripped):
        return parse_game_id(text)  # as typed: like Tatham's parser, a stray space is an error
    if stripped == "-":
        return parse_text(read_capped(getattr(sys.stdin, "buffer", sys.stdin), "standard input"), "<stdin>")
    if "\n" in text or is_grid_row(text):
        return parse_text(text, "<text>")
    if looks_like_url(text):
        return board(*parse_url(text, MAX_CELLS))
    path = Path(text)
    try:  # stat can fail too: a name too long, a folder the user may not search
        if not path.is_file() or text.endswith(("/", os.sep)):  # Path drops the slash that names a folder
            what = "is a directory" if path.is_dir() else "is not a regular file" if path.exists() else "does not exist"
            what = "ends in '/' (a folder's name)" if text.endswith(("/", os.sep)) and not path.is_dir() else what
            raise InvalidInstance(
                f"puzzle file {excerpt(text)} {what} "
                "(INSTANCE is a puzzle file, a game id WxH:desc, a puzz.link URL, '-' or 'seed')"
            )
        with path.open("rb") as handle:
            content = read_capped(handle, f"puzzle file {excerpt(text)}")
    except OSError as error:
        raise InvalidInstance(f"cannot read puzzle file {excerpt(text)}: {error.strerror or error}") from None
    return parse_text(content, text)


def is_grid_row(text: str) -> bool:
    """One row of the text format typed inline (``"2 . . 2"``): two or more clue or blank tokens. A
    file name has no spaces between such tokens, so this never shadows a puzzle file."""
    tokens = text.split()
    return len(tokens) > 1 and all(token in BLANKS or re.fullmatch(r"[0-9]+", token, re.ASCII) for token in tokens)


def read_capped(handle: BinaryIO | TextIO, name: str) -> str:
    """At most ``MAX_BYTES`` of UTF-8 text; more, or bytes that are not UTF-8, is an input error.
    (A text stream, as a test or an embedding program may put in place of stdin, is read as it is.)"""
    data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise InvalidInstance(f"{name} holds more than {MAX_BYTES >> 20} MB: not a puzzle")
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidInstance(f"{name} is not UTF-8 text (byte {error.start + 1})") from None


def seed() -> Board:
    """The seed's puzzle; its labels are the letters the seed prints, given in its tuples' order."""
    rows, cols = SEED_SIZE
    lettered = sorted((y, x, n, chr(ord("a") + k)) for k, (x, y, n) in enumerate(SEED_TUPLES))
    plain = board(rows, cols, (clue[:3] for clue in lettered), "seed")
    return replace(plain, labels="".join(clue[3] for clue in lettered))


def parse_text(text: str, name: str) -> Board:
    """The text grid format; every error names the line and column."""
    grid: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            grid.append((number, line.split()))
    if not grid:
        raise InvalidInstance(f"{name}: no grid rows (only blank or '#' lines)")
    first, tokens = grid[0]
    rows, cols = len(grid), len(tokens)
    clues = []
    for r, (number, tokens) in enumerate(grid):
        if len(tokens) != cols:
            raise InvalidInstance(
                f"{name} line {number}: {len(tokens)} cells, but line {first} has {cols} (rows must be equally long)"
            )
        for c, token in enumerate(tokens):
            if token in BLANKS:
                continue
            where = f"{name} line {number}, column {c + 1}"
            if not re.fullmatch(r"-?[0-9]+", token, re.ASCII):
                raise InvalidInstance(
                    f"{where}: {excerpt(token)} is neither a clue (a positive integer) nor a blank ('.' or '-')"
                )
            clue = clue_value(token, rows, cols, where)
            clues.append((r, c, clue))
    return board(rows, cols, clues, name)


def parse_game_id(text: str) -> Board:
    """Tatham's ``WxH:desc`` (columns x rows); every error names the position in ``desc``."""
    match = _GAME_ID.fullmatch(text)
    if not match:
        raise InvalidInstance(f"game id {text!r} is not of the form WxH:desc")
    name = f"game id {excerpt(text)}"
    if max(len(match[1].lstrip("0")), len(match[2].lstrip("0"))) > len(str(MAX_CELLS)):
        raise InvalidInstance(f"{name}: bad size (columns x rows, at most {MAX_CELLS} cells)")
    if overlong(match[1]) or overlong(match[2]):
        raise InvalidInstance(f"{name}: bad size (a side has more than {MAX_DIGITS} digits)")
    cols, rows, desc = int(match[1]), int(match[2]), match[3]
    if cols < 1 or rows < 1 or cols * rows > MAX_CELLS:
        raise InvalidInstance(f"{name}: bad size {cols}x{rows} (columns x rows, at most {MAX_CELLS} cells)")
    clues, cell, i = [], 0, 0
    while i < len(desc):
        ch = desc[i]
        if "a" <= ch <= "z":
            cell += ord(ch) - ord("a") + 1
            i += 1
        elif ch == "_":
            i += 1
        elif "0" <= ch <= "9":  # ASCII only: str.isdigit takes superscripts, which int() rejects
            j = i
            while j < len(desc) and "0" <= desc[j] <= "9":
                j += 1
            clue = clue_value(desc[i:j], rows, cols, f"{name}: character {i + 1}")
            if cell < rows * cols:
                clues.append((cell // cols, cell % cols, clue))
            cell, i = cell + 1, j
        else:
            raise InvalidInstance(f"{name}: character {i + 1} is {ch!r}; expected a..z, a number or '_'")
    if cell != rows * cols:
        raise InvalidInstance(f"{name}: the description covers {cell} cells, but {cols}x{rows} has {rows * cols}")
    return board(rows, cols, clues, name)


def to_text(puzzle: Board, comments: Iterable[str] = ()) -> str:
    """The text grid format, clues right-aligned in columns; ``comments`` become ``#`` lines."""
    width = max([1, *(len(str(n)) for _, _, n in puzzle.clues)])
    cells = [["." for _ in range(puzzle.cols)] for _ in range(puzzle.rows)]
    for r, c, n in puzzle.clues:
        cells[r][c] = str(n)
    lines = [f"# {line}" for line in comments]
    lines += [" ".join(token.rjust(width) for token in row) for row in cells]
    return "\n".join(lines) + "\n"


def to_game_id(puzzle: Board) -> str:
    """Tatham's game id ``WxH:desc`` for the board."""
    at = {(r, c): n for r, c, n in puzzle.clues}
    parts: list[str] = []
    run = 0
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            if (r, c) not in at:
                run += 1
                continue
            parts.append(_blanks(run) if run else "_" if parts else "")
            parts.append(str(at[(r, c)]))
            run = 0
    parts.append(_blanks(run))
    return f"{puzzle.cols}x{puzzle.rows}:{''.join(parts)}"


def to_puzzlink(puzzle: Board) -> str:
    """The puzz.link URL of the board."""
    return to_url(puzzle.rows, puzzle.cols, puzzle.clues)


def _blanks(run: int) -> str:
    """A run of blank cells as letters: ``z`` for each 26, then one letter for the rest."""
    return "z" * (run // 26) + (chr(ord("a") + run % 26 - 1) if run % 26 else "")
