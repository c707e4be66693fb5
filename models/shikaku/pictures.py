"""Pictures of divisions: the rectangles coloured apart, the clues on top; the search's sketches."""

from __future__ import annotations

from gridsat.models import svg
from gridsat.models.shikaku.formats import Board
from gridsat.models.shikaku.formulations import Cell, Rect, Solution, cells
from gridsat.models.shikaku.solution import LETTERS, regions, touching


def region_shape(lay: svg.Layout, rect: Rect | list[int], fill: str, **attrs: object) -> svg.Element:
    """A clue's rectangle, filled, with a dark outline."""
    top, left, height, width = rect
    return svg.rect(lay.x(left), lay.y(top), lay.x(width), lay.y(height), fill=fill, stroke=svg.INK,
                    stroke_width=max(1.5, lay.cell / 16), **attrs)


def draw(board: Board, solution: Solution | None, cell: float | None = None) -> svg.Figure:
    """The clues, and each rectangle filled so that touching rectangles get different colours."""
    lay = svg.layout(board.rows, board.cols, cell)
    body = [svg.rect(0, 0, lay.width, lay.height, fill=svg.PAPER, class_="grid"),
            *svg.grid_lines(lay, stroke="#cccccc", stroke_width=1)]
    if solution:
        colours = svg.greedy_colours(touching(board, regions(board, solution)))
        body += [region_shape(lay, rect, svg.PALETTE[colours[i]], class_="region") for i, rect in enumerate(solution)]
    size = lay.font(max([1, *(len(str(n)) for _, _, n in board.clues)]))
    top = [svg.label(lay.centre(r, c), str(n), size, font_weight="bold", fill=svg.INK, class_="clue")
           for r, c, n in board.clues] if size else []
    top.append(svg.rect(0, 0, lay.width, lay.height, fill="none", stroke=svg.INK, stroke_width=2, class_="border"))
    note = None if size else "clue numbers left out at this size"
    return svg.Figure(lay.width, lay.height, body, top, note=note, layout=lay)


def sketch(board: Board, lay: svg.Layout, kind: str, depth: int, what: dict, path: list[dict]) -> svg.Sketch:
    """A decision: the rectangle a clue takes (solid) or gives up (dashed red); a propagation: the
    rectangles it fixed (a dead end: a red frame)."""
    def fill(i: int) -> str:
        return svg.PALETTE[i % len(svg.PALETTE)]

    def cells_of(i: int, rect: list[int]) -> dict[Cell, str]:
        return {cell: LETTERS[i % len(LETTERS)] for cell in cells(tuple(rect))}

    if kind == "place" and "rect" in what:
        i = what["clue"]
        return svg.Sketch([region_shape(lay, what["rect"], fill(i), class_="choice")], cells_of(i, what["rect"]))
    if kind == "place":
        refusal = region_shape(lay, what["not"], "none", class_="refusal")
        refusal.set("stroke", "#d62728")
        refusal.set("stroke-dasharray", "6,4")
        return svg.Sketch([refusal])
    if kind == "prune":
        sketch_ = svg.Sketch()
        for fix in what["fixed"]:
            sketch_.pieces.append(region_shape(lay, fix["rect"], fill(fix["clue"]), class_="fixed"))
            sketch_.labels.update(cells_of(fix["clue"], fix["rect"]))
        if what["dead"]:
            sketch_.pieces.append(svg.rect(0, 0, lay.width, lay.height, fill="none", stroke="#d62728",
                                           stroke_width=4, class_="dead"))
        return sketch_
    return svg.Sketch()
