"""Knight's tours: visit every square of an R x C board once with chess knight moves.

Seed: the knight's-tour write-up (the 9x10 Chinese-chess board; backtracking, Warnsdorff, divide and conquer).
Counting convention: an open tour is a directed path (a sequence of squares), a closed tour a
directed cycle: each undirected closed tour counts twice and is not multiplied by its starting
square. A solution is the list of ``[row, col]`` squares in visiting order; a closed tour begins
at ``start`` (or at [0, 0]) and keeps its direction.

Variables (every formulation): ``("arc", u, v)`` is the move u -> v; open tours add ``("first", u)``
and ``("last", u)``. The CNF ``position`` encoding instead has ``("at", u, t)``: square u is step t.
"""

from __future__ import annotations

from collections.abc import Mapping

from gridsat.models import cardinality, golden, svg
from gridsat.models.encoding import Axis, Encoding, EncodingSpace
from gridsat.models.families import family
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key
from gridsat.models.frontier import FrontierSpec
from gridsat.models.knights_tour import reference
from gridsat.models.knights_tour.board import (
    JUMPS,
    MAX_SQUARES,
    PARAMS,
    Arc,
    Board,
    Square,
    Tour,
    arcs,
    decode,
    decoder,
    describe,
    ends,
    knight_move,
    note,
    parse,
    render,
    rooted,
    verify,
)
from gridsat.models.puzzle import Case, Puzzle
from gridsat.models.symmetry import Element, Group, Motion, NotPermutable, motions

__all__ = ["JUMPS", "MAX_SQUARES", "PARAMS", "Arc", "Board", "Square", "Tour", "arcs", "decode", "decoder",
           "describe", "ends", "knight_move", "note", "parse", "render", "rooted", "verify", "PUZZLE"]

def cpsat(board: Board, encoding: Encoding) -> CpsatFormulation:
    """``AddCircuit`` over the squares; an open tour closes through a dummy node."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    index = {square: i for i, square in enumerate(board.squares())}
    primary: dict[Key, cp_model.IntVar] = {}
    circuit = []
    for u, v in arcs(board):
        primary[("arc", u, v)] = literal = model.NewBoolVar(f"arc_{u}_{v}")
        circuit.append((index[u], index[v], literal))
    firsts, lasts = ends(board)
    dummy = board.area
    for kind, squares in (("first", firsts), ("last", lasts)):
        for square in squares:
            primary[(kind, square)] = literal = model.NewBoolVar(f"{kind}_{square}")
            circuit.append((dummy, index[square], literal) if kind == "first" else (index[square], dummy, literal))
    if board.closed and board.area < 2:
        with family("no closed tour of one square"):
            model.AddBoolOr([])  # one square cannot jump back to itself
    elif circuit:
        with family("one circuit through every square"):
            model.AddCircuit(circuit)
    return CpsatFormulation(model=model, primary=primary, decode=decoder(board))


OTHER_END = {"first": "last", "last": "first"}
MOVES_START = "move the start square"
REVERSES = "reverse the tour (an open tour reversed begins where it ended, not at the start)"


def group(board: Board, moves: tuple[Motion, ...]) -> Group:
    """The board motions in ``moves``, each also with the tour reversed, that map the instance onto itself.

    A closed tour passes every square, so its root is only where it is written: every motion and
    its reversal maps closed tours to closed tours (re-rooted). An open tour with a start keeps only
    the motions that fix the start square, and never its reversal (that begins where the tour ended).
    A one-square tour is its own reverse, so there reversal is the identity and is listed once.
    """
    kept, left_out, why = [], [], set()
    for move in moves:
        for reverse in (False, True) if board.area > 1 else (False,):
            name = ("reverse" if move.is_identity else f"{move.name}+reverse") if reverse else move.name
            if board.start and not board.closed and move(board.start) != board.start:
                left_out.append(name)
                why.add(MOVES_START)
            elif board.start and not board.closed and reverse:
                left_out.append(name)
                why.add(REVERSES)
            else:
                kept.append(tour_element(board, move, reverse, name))
    return Group(tuple(kept), tuple(left_out), " or ".join(r for r in (MOVES_START, REVERSES) if r in why))


def tour_element(board: Board, move: Motion, reverse: bool, name: str) -> Element:
    """A motion, then optionally the reversal, on tours (re-rooted when closed) and on every formulation's keys."""
    n, table = board.area, move.table

    def tour(t: Tour) -> Tour:
        return rooted(board, [list(table[r][c]) for r, c in (reversed(t) if reverse else t)])

    def key(k: Key) -> Key:
        kind = k[0]
        if kind == "arc":
            u, v = move(k[1]), move(k[2])
            return ("arc", v, u) if reverse else ("arc", u, v)
        if kind in OTHER_END:
            return (OTHER_END[kind] if reverse else kind, move(k[1]))
        if kind == "at":  # square k[1] is step k[2]
            step = k[2]
            if board.closed and move(board.root) != board.root:
                raise NotPermutable(f"the position encoding numbers a closed tour's steps from the root square "
                                    f"{list(board.root)}, which {name} moves, so Burnside's lemma cannot use it "
                                    "(choose rank, ordering or binary)")
            if reverse:
                step = (n - step) % n if board.closed else n - 1 - step
            return ("at", move(k[1]), step)
        raise NotPermutable(f"{name} has no image for the variable {k!r}")

    return Element(name, tour, key)


def up_to_symmetry(board: Board) -> Group:
    """The board's rotations and reflections, each with and without reversing the tour."""
    return group(board, motions(board.rows, board.cols))


def up_to_reversal(board: Board) -> Group:
    """A tour and its reverse: undirected tours."""
    return group(board, motions(board.rows, board.cols)[:1])
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


def cnf(board: Board, encoding: Encoding) -> CnfFormulation:
    """The tour as clauses, in the named encoding (see models/knights_tour/cnf.py)."""
    from gridsat.models.knights_tour.cnf import formulate  # imported on first use: pysat is not needed to list

    return formulate(board, encoding)


# ``cutset`` (lazy cut-set refinement) is the default: the fastest CNF in
# python -m gridsat.benchmarks.compare.knights_tour, for one tour and for a count.
CNF_ENCODINGS = EncodingSpace(
    (Axis("tour", ("cutset", "crt", "rank", "ordering", "binary", "position"), exact="crt"), cardinality.axis()))

def frontier_spec(board: Board) -> FrontierSpec:
    """The tours as a frontier spec, for the frontier backend (imports numba, so only when asked)."""
    from gridsat.models.knights_tour.frontier import build

    return build(board)


def corpus() -> list[Case]:
    """The golden counts that take under a few seconds."""
    return golden.cases("knights_tour", "board")


def ladder() -> list[tuple[str, Mapping[str, str]]]:
    """Open and closed tours on boards up to 4x5, and 5x5 from a corner."""
    out: list[tuple[str, Mapping[str, str]]] = []
    for size in ("1x1", "2x2", "3x3", "3x4", "4x4", "3x5", "3x6", "4x5", "3x7", "3x8"):
        out += [(size, {}), (size, {"closed": "true"})]
    return [*out, ("5x5", {"start": "0,0"}), ("3x4", {"start": "0,0"}), ("3x4", {"closed": "true", "start": "1,1"})]


PUZZLE = Puzzle(
    name="knights-tour",
    summary="visit every square of an RxC board once with knight moves (open or closed tours)",
    instance_help="RxC board size, e.g. 9x10 (rows x columns)",
    params=PARAMS,
    parse=parse,
    cpsat=cpsat,
    cnf=cnf,
    verify=verify,
    render=render,
    describe=describe,
    cnf_encodings=CNF_ENCODINGS,
    count_meta={"tours": "directed"},
    reference=reference.ALGORITHMS,
    example="3x4",
    symmetries={"symmetry": up_to_symmetry, "reversal": up_to_reversal},
    draw=draw,
    sketch=sketch,
    frontier=frontier_spec,
    note=note,
    corpus=corpus,
    ladder=ladder,
)
