"""Pictures of tilings: one rectangle per mat, the T junctions marked; the search's sketches."""

from __future__ import annotations

from gridsat.models import svg
from gridsat.models.tatami.room import Mat, Room, Tiling

SEAM = "#3b3025"


FILLS = {"h": "#e9d8a6", "v": "#c5d89d"}  # straw for horizontal mats, green for vertical ones


def mat_shape(lay: svg.Layout, mat: Mat, **attrs: object) -> svg.Element:
    """A mat as one rectangle over its two cells; its outline is the seam."""
    (r1, c1), (r2, c2) = mat
    top, left = min(r1, r2), min(c1, c2)
    kind = "h" if r1 == r2 else "v"
    return svg.rect(lay.x(left), lay.y(top), lay.x(abs(c2 - c1) + 1), lay.y(abs(r2 - r1) + 1), fill=FILLS[kind],
                    stroke=SEAM, stroke_width=max(1.5, lay.cell / 14), class_="mat", **attrs)


def junctions(room: Room, tiling: Tiling, lay: svg.Layout) -> list[svg.Element]:
    """A dot where three mats meet, and a red ring where four do (the rule broken)."""
    owner = {tuple(cell): i for i, mat in enumerate(tiling) for cell in mat}
    marks = []
    for r in range(1, room.rows):
        for c in range(1, room.cols):
            meeting = {owner.get(cell) for cell in ((r - 1, c - 1), (r - 1, c), (r, c - 1), (r, c))}
            if None in meeting or len(meeting) < 3:
                continue
            at = (lay.x(c), lay.y(r))
            if len(meeting) == 3:
                marks.append(svg.circle(at, max(1.5, lay.cell / 11), fill=SEAM, class_="junction"))
            else:
                marks.append(svg.circle(at, lay.cell / 4, fill="none", stroke="#d62728", stroke_width=2,
                                        class_="four"))
    return marks


def draw(room: Room, tiling: Tiling | None, cell: float | None = None) -> svg.Figure:
    """The room with one rectangle per mat; the seams meet in T's, marked by dots, never in a cross."""
    lay = svg.layout(room.rows, room.cols, cell)
    body = [svg.rect(0, 0, lay.width, lay.height, fill="#f7f3e8", class_="room"),
            *svg.grid_lines(lay, stroke="#d8d0bc", stroke_width=1, stroke_dasharray="2,3")]
    mats = [mat_shape(lay, mat) for mat in tiling or []]
    walls = svg.rect(0, 0, lay.width, lay.height, fill="none", stroke=SEAM, stroke_width=max(2.5, lay.cell / 8),
                     class_="wall")
    legend = "straw: horizontal mats; green: vertical mats; dots: three mats meet (never four)" if tiling else None
    return svg.Figure(lay.width, lay.height, body + mats + junctions(room, tiling or [], lay), [walls], legend,
                      layout=lay)


def sketch(room: Room, lay: svg.Layout, kind: str, depth: int, what: Mat, path: list[Mat]) -> svg.Sketch:
    """A placed mat with the seed's number (the n-th mat of the path); other events add nothing."""
    if kind != "place":
        return svg.Sketch()
    (r1, c1), (r2, c2) = what
    pieces = [mat_shape(lay, what)]
    size = lay.font(len(str(depth)), share=0.9)
    if size:
        centre = ((lay.x(c1) + lay.x(c2 + 1)) / 2, (lay.y(r1) + lay.y(r2 + 1)) / 2)
        pieces.append(svg.label(centre, str(depth), size, fill=SEAM, class_="number"))
    return svg.Sketch(pieces, {(r1, c1): str(depth), (r2, c2): str(depth)})
