"""SVG pictures: the pieces every puzzle's ``draw`` shares, and the page layouts around them.

Each puzzle draws its board with ``draw(instance, solution, cell)`` into a ``Figure`` (its own
pixel coordinates: ``body`` under anything an animation adds, ``top`` above it) and draws a search
event with ``sketch`` into a ``Sketch``. This module turns figures into a picture with a title
line, or a sheet of small multiples. The elements are built with the standard library's
ElementTree, which escapes text and writes well-formed XML, so pictures need no dependency.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

Element = ET.Element
Cell = tuple[int, int]

SVG_NS = "http://www.w3.org/2000/svg"
INK, MUTED, PAPER = "#222222", "#666666", "#ffffff"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
# Light fills that dark ink reads well on, far enough apart that two neighbours are told apart.
PALETTE = ("#f4c27a", "#9ecae1", "#b5dfa0", "#f2a7a0", "#cdb5e3", "#f7e08b", "#a8ddd6", "#e0c3a5")
MIN_FONT = 7.0  # px: smaller text is dropped, and the picture says so
MIN_CELL, MAX_CELL = 14.0, 48.0
TARGET = 720.0  # px: the larger side of a board at the default cell size
MARGIN = 12.0


@dataclass(frozen=True)
class Layout:
    """A grid of ``rows`` x ``cols`` square cells of ``cell`` pixels, origin at the top-left corner."""

    rows: int
    cols: int
    cell: float

    @property
    def width(self) -> float:
        return self.cols * self.cell

    @property
    def height(self) -> float:
        return self.rows * self.cell

    def x(self, col: float) -> float:
        return col * self.cell

    def y(self, row: float) -> float:
        return row * self.cell

    def centre(self, row: int, col: int) -> tuple[float, float]:
        return (col + 0.5) * self.cell, (row + 0.5) * self.cell

    def font(self, chars: int, share: float = 0.8, cap: float = 0.4) -> float | None:
        """A font size that fits ``chars`` digits in ``share`` of a cell's width, at most ``cap`` of
        its height; None when that would be too small to read."""
        size = min(self.cell * cap, self.cell * share / (0.62 * max(1, chars)))
        return size if size >= MIN_FONT else None


def layout(rows: int, cols: int, cell: float | None = None) -> Layout:
    """The layout of a board, at ``cell`` pixels or else at a size that keeps big boards on a page."""
    if cell is None:
        cell = max(MIN_CELL, min(MAX_CELL, math.floor(TARGET / max(rows, cols))))
    return Layout(rows, cols, float(cell))


@dataclass
class Figure:
    """A board drawn in its own coordinates; ``top`` goes above an animation's pieces."""

    width: float
    height: float
    body: list[Element] = field(default_factory=list)
    top: list[Element] = field(default_factory=list)
    legend: str | None = None  # what the colours and marks mean
    note: str | None = None  # what was left out, e.g. numbers too small to read
    layout: Layout | None = None  # the cell grid, for pieces drawn onto the figure later


@dataclass
class Sketch:
    """What one search event adds: SVG pieces on the board, and cell labels for a console frame."""

    pieces: list[Element] = field(default_factory=list)
    labels: dict[Cell, str] = field(default_factory=dict)
    under: list[Element] = field(default_factory=list)  # below every other event's pieces (e.g. lines under discs)


def number(value: float) -> str:
    """A coordinate as short text: integers without a decimal point, others to two places."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0")


def element(tag: str, text: str | None = None, **attrs: object) -> Element:
    """An SVG element; ``class_`` becomes ``class`` and other underscores hyphens."""
    node = ET.Element(tag, {
        name.rstrip("_").replace("_", "-"): number(v) if isinstance(v, (int, float)) else str(v)
        for name, v in attrs.items() if v is not None
    })
    if text is not None:
        node.text = text
    return node


def rect(x: float, y: float, width: float, height: float, **attrs: object) -> Element:
    return element("rect", x=x, y=y, width=width, height=height, **attrs)


def line(a: tuple[float, float], b: tuple[float, float], **attrs: object) -> Element:
    return element("line", x1=a[0], y1=a[1], x2=b[0], y2=b[1], **attrs)


def circle(centre: tuple[float, float], radius: float, **attrs: object) -> Element:
    return element("circle", cx=centre[0], cy=centre[1], r=radius, **attrs)


def label(centre: tuple[float, float], text: str, size: float, **attrs: object) -> Element:
    """Text centred on a point (``dominant-baseline: central`` puts its middle there)."""
    return element("text", text, x=centre[0], y=centre[1], font_size=size, text_anchor="middle",
                   dominant_baseline="central", **attrs)


def group(children: Sequence[Element], **attrs: object) -> Element:
    node = element("g", **attrs)
    node.extend(children)
    return node


def grid_lines(lay: Layout, **attrs: object) -> list[Element]:
    """The lines between cells (not the border)."""
    lines = [line((lay.x(c), 0), (lay.x(c), lay.height), **attrs) for c in range(1, lay.cols)]
    return lines + [line((0, lay.y(r)), (lay.width, lay.y(r)), **attrs) for r in range(1, lay.rows)]


def greedy_colours(touching: Sequence[set[int]], colours: int = len(PALETTE)) -> list[int]:
    """A palette index per region, differing from every earlier touching region while colours last."""
    out: list[int] = []
    for i, others in enumerate(touching):
        taken = {out[j] for j in others if j < i}
        out.append(next((k for k in range(colours) if k not in taken), i % colours))
    return out


def text_width(text: str, size: float) -> float:
    """A generous estimate of a line's width (no font metrics here)."""
    return 0.62 * size * len(text)


def svg_root(width: float, height: float) -> Element:
    root = element("svg", xmlns=SVG_NS, width=math.ceil(width), height=math.ceil(height),
                   viewBox=f"0 0 {math.ceil(width)} {math.ceil(height)}", font_family=FONT)
    root.append(rect(0, 0, math.ceil(width), math.ceil(height), fill=PAPER, class_="paper"))
    return root


def picture(figure: Figure, title: str, between: Element | None = None) -> Element:
    """One figure under a title line (and its note), with its legend below; ``between`` goes over
    the figure's body and under its top (an animation's pieces)."""
    lines = [(title, 16.0, "title", "bold")] + ([(figure.note, 12.0, "note", None)] if figure.note else [])
    head = sum(size * 1.5 for _, size, _, _ in lines)
    foot = 12.0 * 1.6 if figure.legend else 0.0
    width = max(figure.width, *(text_width(t, s) for t, s, _, _ in lines), text_width(figure.legend or "", 11.0))
    root = svg_root(width + 2 * MARGIN, head + figure.height + foot + 2 * MARGIN)
    y = MARGIN
    for text, size, kind, weight in lines:
        root.append(element("text", text, x=MARGIN, y=y + size, font_size=size, font_weight=weight,
                            fill=INK if kind == "title" else MUTED, class_=kind))
        y += size * 1.5
    middle = [] if between is None else [between]
    board = group([*figure.body, *middle, *figure.top], class_="board",
                  transform=f"translate({number(MARGIN)},{number(y)})")
    root.append(board)
    if figure.legend:
        root.append(element("text", figure.legend, x=MARGIN, y=y + figure.height + 15, font_size=11, fill=MUTED,
                            class_="legend"))
    return root


def sheet(figures: Sequence[Figure], captions: Sequence[str], title: str, max_width: float = 1200.0) -> Element:
    """Small multiples: each figure with its caption above it, in rows, under one title line."""
    gap, caption = 14.0, 14.0
    tile_w = max([f.width for f in figures] + [text_width(c, 11.0) for c in captions] + [1.0])
    tile_h = max([f.height for f in figures] + [1.0]) + caption
    notes = sorted({f.note for f in figures if f.note})
    columns = max(1, min(len(figures), int((max_width + gap) // (tile_w + gap))))
    rows = math.ceil(len(figures) / columns)
    head = 16.0 * 1.5 + 12.0 * 1.5 * len(notes)
    width = max(columns * (tile_w + gap) - gap, text_width(title, 16.0), *(text_width(n, 12.0) for n in notes))
    root = svg_root(width + 2 * MARGIN, head + rows * (tile_h + gap) + 2 * MARGIN)
    root.append(element("text", title, x=MARGIN, y=MARGIN + 16, font_size=16, font_weight="bold", fill=INK,
                        class_="title"))
    for i, note in enumerate(notes):
        root.append(element("text", note, x=MARGIN, y=MARGIN + 24 + 12 * 1.5 * i + 12, font_size=12, fill=MUTED,
                            class_="note"))
    for i, (figure, text) in enumerate(zip(figures, captions, strict=True)):
        x = MARGIN + (i % columns) * (tile_w + gap)
        y = MARGIN + head + (i // columns) * (tile_h + gap)
        board = group([*figure.body, *figure.top], transform=f"translate(0,{number(caption)})")
        tile = group([element("text", text, x=0, y=11, font_size=11, fill=MUTED, class_="caption"), board],
                     class_="tile", transform=f"translate({number(x)},{number(y)})")
        root.append(tile)
    return root


def to_text(root: Element) -> str:
    """The SVG document as text (no XML declaration, so it can also go inline in HTML)."""
    return ET.tostring(root, encoding="unicode") + "\n"
