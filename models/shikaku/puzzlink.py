"""Shikaku boards as puzz.link URLs, the exchange format of pencil puzzles on the web.

A URL reads ``https://puzz.link/p?shikaku/COLS/ROWS/BODY`` (also ``pzv.jp/p.html?...`` and the
other pzprjs hosts; ``puzz.link/p?shikaku/...`` without a scheme too). Note the order: columns
first, as in a Tatham game id. The body is pzprjs's "number16" cell encoding, row-major:

- ``0``-``9``, ``a``-``f``: a clue of one hexadecimal digit (0..15);
- ``-`` and 2, ``+`` and 3 hexadecimal digits: a clue of 16..255 or 256..4095;
- ``=``, ``%`` and 3 digits, ``*`` and 4, ``$`` and 5: clues from 4096, 8192, 12240 and 77776 up;
- ``g``..``z``: a run of 1..20 blank cells;
- ``.``: a clue written as ``?`` (a rectangle of unknown area), which gridsat's Shikaku does not
  take: such a URL is refused, naming the cell.

Written from the decoder and encoder of pzprjs (its ``Encode`` module), so that a URL gridsat writes
opens in puzz.link, and one puzz.link writes reads here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from gridsat.models.errors import InvalidInstance
from gridsat.models.params import excerpt

Clue = tuple[int, int, int]  # (row, col, area), as formats.Board holds them
MAX_SIDE_DIGITS = 6  # a side of more digits is refused before int()

# Scheme and host are optional; the variety may be followed by pzprjs's editor flags (none for Shikaku).
URL = re.compile(
    r"(?:https?://)?(?:[a-z0-9.-]+/)(?:p|p\.html|list\.html)?\?(?P<pid>[a-z]+)/(?P<cols>[0-9]+)/(?P<rows>[0-9]+)/(?P<body>.*)",
    re.ASCII | re.IGNORECASE,
)
HOSTS = ("puzz.link", "pzv.jp", "pzprxs.vercel.app")
VARIETIES = ("shikaku",)
# A clue of many digits: the prefix, the digits after it, and the value the digits are added to.
WIDE = {"-": (2, 0), "+": (3, 0), "=": (3, 4096), "%": (3, 8192), "*": (4, 12240), "$": (5, 77776)}
HEX = frozenset("0123456789abcdef")
RUNS = frozenset("ghijklmnopqrstuvwxyz")  # g..z: runs of 1..20 blank cells
MAX_RUN = 20  # "z": the longest run of blank cells one letter holds


def looks_like_url(text: str) -> bool:
    """Whether INSTANCE is meant as a puzz.link URL (so errors speak of the URL, not of a file)."""
    stripped = text.strip().lower()
    return any(f"{host}/" in stripped for host in HOSTS) or stripped.startswith(("http://", "https://"))


class Decoded(NamedTuple):
    """What a URL holds, for ``formats.board`` (which checks the size and clues as for any format)."""

    rows: int
    cols: int
    clues: list[Clue]
    source: str


def parse_url(text: str, max_cells: int) -> Decoded:
    """A puzz.link or pzv.jp Shikaku URL's grid and clues; every error names the URL and the position."""
    name = f"puzz.link URL {excerpt(text.strip())}"
    match = URL.fullmatch(text.strip())
    if not match:
        raise InvalidInstance(f"{name}: expected https://puzz.link/p?shikaku/COLUMNS/ROWS/CLUES")
    if match["pid"].lower() not in VARIETIES:
        raise InvalidInstance(f"{name}: the puzzle is a {match['pid']!r}, not a Shikaku")
    if max(len(match["cols"]), len(match["rows"])) > MAX_SIDE_DIGITS:
        raise InvalidInstance(f"{name}: bad size {excerpt(match['cols'])}/{excerpt(match['rows'])} (columns/rows)")
    cols, rows = int(match["cols"]), int(match["rows"])
    if cols < 1 or rows < 1 or cols * rows > max_cells:
        raise InvalidInstance(f"{name}: bad size {cols}/{rows} (columns/rows, at most {max_cells} cells)")
    return Decoded(rows, cols, decode_body(match["body"], rows, cols, name), name)


def decode_body(body: str, rows: int, cols: int, name: str) -> list[Clue]:
    """The clues of a number16 body, row-major; a body that covers more or fewer cells is refused."""
    clues: list[Clue] = []
    cell, i = 0, 0
    while i < len(body) and cell < rows * cols:
        ch = body[i].lower()  # one letter may lower to two ('İ'): such a one is no run, nor a clue
        if ch in RUNS:
            cell, i = cell + int(ch, 36) - 15, i + 1
            continue
        where = f"{name}: character {i + 1}"
        if ch == ".":
            raise InvalidInstance(f"{where}: the clue at row {cell // cols + 1}, column {cell % cols + 1} is '?' "
                                  "(a rectangle of unknown area), which gridsat's Shikaku does not take")
        value, i = read_clue(body, i, where)
        clues.append((cell // cols, cell % cols, value))
        cell += 1
    if cell != rows * cols:
        raise InvalidInstance(f"{name}: the clues {'cover' if cell < rows * cols else 'and blanks run to'} {cell} "
                              f"cells, but {cols} columns x {rows} rows have {rows * cols}")
    if i < len(body) and body[i:] != "/":  # pzprjs ends some URLs with a slash
        raise InvalidInstance(f"{name}: {len(body) - i} characters after the last cell ({excerpt(body[i:])})")
    return clues


def read_clue(body: str, i: int, where: str) -> tuple[int, int]:
    """The clue written at ``body[i]`` and the index after it."""
    ch = body[i].lower()
    if ch in HEX:
        return int(ch, 16), i + 1
    if ch in WIDE:
        width, base = WIDE[ch]
        digits = body[i + 1:i + 1 + width]
        if len(digits) != width or not set(digits.lower()) <= HEX:
            raise InvalidInstance(f"{where}: {ch!r} must be followed by {width} hexadecimal digits")
        return base + int(digits, 16), i + 1 + width
    raise InvalidInstance(f"{where} is {body[i]!r}; expected 0-9, a-z, '-', '+', '=', '%', '*', '$' or '.'")


def to_url(rows: int, cols: int, clues: Iterable[Clue], host: str = "https://puzz.link/p") -> str:
    """The puzz.link URL of a grid and its clues, as pzprjs writes it (so that the two read each other)."""
    at = {(r, c): n for r, c, n in clues}
    parts: list[str] = []
    run = 0
    for r in range(rows):
        for c in range(cols):
            if (r, c) not in at:
                run += 1
                if run == MAX_RUN:
                    parts.append(blanks(run))
                    run = 0
                continue
            parts.append(blanks(run) + clue_code(at[(r, c)]))
            run = 0
    parts.append(blanks(run))
    return f"{host}?shikaku/{cols}/{rows}/{''.join(parts)}"


def blanks(run: int) -> str:
    """A run of 0..20 blank cells: nothing, or one letter g..z."""
    return chr(ord("g") + run - 1) if run else ""


def clue_code(value: int) -> str:
    """A clue in number16: one hexadecimal digit, or a prefix and a fixed number of digits."""
    if value < 16:
        return format(value, "x")
    # pzprjs's writer: the first prefix whose range holds the value ('%' stops where '*' starts).
    for prefix, top in (("-", 256), ("+", 4096), ("=", 8192), ("%", 12240), ("*", 77776), ("$", 77776 + 16**5)):
        width, base = WIDE[prefix]
        if value < top:
            return prefix + format(value - base, f"0{width}x")
    raise ValueError(f"clue {value} is too large for a puzz.link URL")
