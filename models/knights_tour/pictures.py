"""Pictures of knight's tours: the checkered board, the moves, the step numbers; the search's sketches."""

from __future__ import annotations

from gridsat.models import svg
from gridsat.models.knights_tour.board import Board, Tour

LIGHT, DARK = "#f0e2c4", "#c9a877"  # the checkered squares


PATH, START, END = "#1f4e9c", "#2ca02c", "#d62728"


def move_shape(lay: svg.Layout, a: list[int], b: list[int], closing: bool = False) -> svg.Element:
    """A knight's move as a segment between the squares' centres (the closing move dashed)."""
    return svg.line(lay.centre(*a), lay.centre(*b), stroke=END if closing else PATH,
                    stroke_width=max(1.2, lay.cell / (10 if closing else 16)),
                    stroke_linecap="round", stroke_dasharray="5,4" if closing else None,
                    class_="move closing" if closing else "move")


def step_shape(
    board: Board, lay: svg.Layout, square: list[int], step: int, mark: str | None = None
) -> list[svg.Element]:
    """A square's step number in a disc; the start's disc green, the end's red."""
    size = lay.font(len(str(board.area)), share=0.56, cap=0.36)
    colour = {"start": START, "end": END}.get(mark or "")
    if not size:  # too small for numbers: only the start and the end, as large discs
        return [svg.circle(lay.centre(*square), max(5.0, lay.cell * 0.45), fill=colour, stroke="#ffffff",
                           stroke_width=1.5, class_=mark)] if colour else []
    shapes = [svg.circle(lay.centre(*square), lay.cell * 0.32, fill=colour or "#ffffff", stroke=PATH,
                         stroke_width=1, class_=mark or "stop"),
              svg.label(lay.centre(*square), str(step), size, fill="#ffffff" if colour else svg.INK, class_="step")]
    return shapes


def draw(board: Board, tour: Tour | None, cell: float | None = None) -> svg.Figure:
    """The checkered board, the tour as one segment per move, each square's step number, start and end."""
    lay = svg.layout(board.rows, board.cols, cell)
    body = [svg.rect(lay.x(c), lay.y(r), lay.cell, lay.cell, fill=DARK if (r + c) % 2 else LIGHT, class_="square")
            for r, c in board.squares()]
    top = [svg.rect(0, 0, lay.width, lay.height, fill="none", stroke=svg.INK, stroke_width=2, class_="border")]
    figure = svg.Figure(lay.width, lay.height, body, top, layout=lay)
    if not tour:
        return figure
    figure.body += [move_shape(lay, a, b) for a, b in zip(tour, tour[1:], strict=False)]
    if board.closed and len(tour) > 1:
        figure.body.append(move_shape(lay, tour[-1], tour[0], closing=True))
    marks = {0: "start", len(tour) - 1: "end"} if not board.closed else {0: "start"}
    for i, square in enumerate(tour):
        figure.body += step_shape(board, lay, square, i + 1, marks.get(i))
    ends = "green: the start" + (", the red dashed line closes the tour" if board.closed else ", red: the end")
    figure.legend = f"{ends}; numbers: the order of the squares"
    if not lay.font(len(str(board.area)), share=0.56, cap=0.36):
        figure.note = "step numbers left out at this size: the path runs from the green disc to the red one"
        figure.legend = None
    return figure


def sketch(board: Board, lay: svg.Layout, kind: str, depth: int, what: object, path: list[list[int]]) -> svg.Sketch:
    """The knight's next square: the move from the last one and its step number (like the seed's
    animation); a closed tour's closing move; divide's block outline and join."""
    if kind == "place":
        square = what
        moves = [move_shape(lay, path[-1], square)] if path else []
        marks = step_shape(board, lay, square, depth, "start" if depth == 1 else None)
        return svg.Sketch(marks, {(square[0], square[1]): str(depth)}, under=moves)
    if kind == "solution" and what != path:  # Warnsdorff closed the path by rotations: draw the new tour over it
        labels = {(r, c): str(i + 1) for i, (r, c) in enumerate(what)}
        return svg.Sketch(draw(board, what, lay.cell).body, labels)
    if kind == "solution" and board.closed and len(what) > 1:
        return svg.Sketch(under=[move_shape(lay, what[-1], what[0], closing=True)])
    if kind == "block":
        top, left, height, width = what["block"]
        return svg.Sketch(under=[svg.rect(lay.x(left), lay.y(top), lay.x(width), lay.y(height), fill="#ffffff",
                                          fill_opacity=0.35, stroke=END, stroke_width=3, stroke_dasharray="8,5",
                                          class_="block")])
    if kind == "join":
        return svg.Sketch(under=[svg.line(lay.centre(*what["from"]), lay.centre(*what["to"]), stroke=END,
                                          stroke_width=max(4.0, lay.cell / 5), class_="join")])
    return svg.Sketch()
