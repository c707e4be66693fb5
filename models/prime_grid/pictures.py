"""Pictures of fillings: values coloured by parity, each neighbour sum on its edge; the search's sketches."""

from __future__ import annotations

from gridsat.models import svg
from gridsat.models.prime_grid.grid import Filling, Grid
from gridsat.models.prime_grid.rules import colour, edges

PARITY_FILLS = ("#a9cbee", "#f6c08f")  # even (blue), odd (orange)


BLANK_FILLS = ("#f4f4f4", "#e6e6e6")  # the two checkerboard colours of an empty grid


def value_shape(grid: Grid, lay: svg.Layout, r: int, c: int, value: int) -> list[svg.Element]:
    """A filled cell: coloured by the value's parity, the value in the middle."""
    shapes = [svg.rect(lay.x(c), lay.y(r), lay.cell, lay.cell, fill=PARITY_FILLS[value % 2],
                       class_="odd" if value % 2 else "even")]
    size = lay.font(len(str(grid.high)))
    if size:
        shapes.append(svg.label(lay.centre(r, c), str(value), size, fill=svg.INK, class_="value"))
    return shapes


def sum_labels(grid: Grid, filling: Filling, lay: svg.Layout) -> list[svg.Element]:
    """Each neighbour sum on the edge between the two cells, when it can be read."""
    size = lay.font(len(str(2 * grid.high)), share=0.4, cap=0.22)
    if not size:
        return []
    out = []
    for (r1, c1), (r2, c2) in edges(grid):
        x1, y1 = lay.centre(r1, c1)
        x2, y2 = lay.centre(r2, c2)
        out.append(svg.label(((x1 + x2) / 2, (y1 + y2) / 2), str(filling[r1][c1] + filling[r2][c2]), size,
                             fill="#7a1f1f", stroke="#ffffff", stroke_width=3, paint_order="stroke", class_="sum"))
    return out


def draw(grid: Grid, filling: Filling | None, cell: float | None = None) -> svg.Figure:
    """The numbers in their cells, even ones blue and odd ones orange, each neighbour sum on its edge."""
    lay = svg.layout(grid.rows, grid.cols, cell)
    body = [svg.rect(lay.x(c), lay.y(r), lay.cell, lay.cell, fill=BLANK_FILLS[colour((r, c))], class_="cell")
            for r, c in grid.cells()]
    top = [*svg.grid_lines(lay, stroke="#555555", stroke_width=1),
           svg.rect(0, 0, lay.width, lay.height, fill="none", stroke=svg.INK, stroke_width=2, class_="border")]
    figure = svg.Figure(lay.width, lay.height, body, top, layout=lay)
    if filling is None:
        return figure
    figure.body += [shape for r, c in grid.cells() for shape in value_shape(grid, lay, r, c, filling[r][c])]
    sums = sum_labels(grid, filling, lay)
    figure.top += sums
    figure.legend = "blue: even, orange: odd (neighbours always differ)" + ("; red: each neighbour sum, a prime"
                                                                              if sums else "")
    if not lay.font(len(str(grid.high))):
        figure.note = "numbers left out at this size: the colours show the parities"
    return figure


def sketch(grid: Grid, lay: svg.Layout, kind: str, depth: int, what: list[int], path: list[list[int]]) -> svg.Sketch:
    """A value placed in its cell; other events add nothing."""
    if kind != "place":
        return svg.Sketch()
    r, c, value = what
    return svg.Sketch(value_shape(grid, lay, r, c, value), {(r, c): str(value)})
