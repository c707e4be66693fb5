"""The knight's tours formulated for CP-SAT (a circuit), CNF (models/knights_tour/cnf.py, imported on first
use) and the frontier backend (models/knights_tour/frontier.py, which needs numba)."""

from __future__ import annotations

from gridsat.models.constraints import Model, amo
from gridsat.models.constraints.tours import CNF_TOURS, CPSAT_TOURS
from gridsat.models.encoding import Axis, Encoding, EncodingSpace
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Key
from gridsat.models.frontier import Fixed, FrontierSpec
from gridsat.models.knights_tour.board import Board, arcs, decoder, ends


def cpsat(board: Board, encoding: Encoding) -> CpsatFormulation:
    """The tour on the squares (and a dummy node that closes an open tour) as ``AddCircuit`` (``circuit``),
    as successor Booleans with Miller-Tucker-Zemlin ranks (``mtz``, models/constraints/mtz.py), or in
    another CP-SAT tour encoding registered (models/constraints/tours.py)."""
    from ortools.sat.python import cp_model

    model = Model("knights_tour:cpsat")
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
        with model.family("no closed tour of one square"):
            model.AddBoolOr([])  # one square cannot jump back to itself
    elif board.closed and any(not board.jumps(square) for square in board.squares()):
        # AddCircuit only knows the nodes its arcs name, so it would close a tour that skips a square no
        # knight move reaches (the centre of 3x3; every square of 1xN): there is no closed tour.
        with model.family("no closed tour past a square without moves"):
            model.AddBoolOr([])
    elif circuit:  # the tour encoding named (models/constraints/tours.py: circuit, mtz, or a plugin's)
        root = index[board.root] if board.closed else dummy
        CPSAT_TOURS[encoding["tour"]](model, circuit, board.area + (0 if board.closed else 1), root)
    return CpsatFormulation(**model.parts(), primary=primary, decode=decoder(board))


def cnf(board: Board, encoding: Encoding) -> CnfFormulation:
    """The tour as clauses, in the named encoding (see models/knights_tour/cnf.py)."""
    from gridsat.models.knights_tour.cnf import formulate  # imported on first use: pysat is not needed to list

    return formulate(board, encoding)


# The CNF tour encodings written in models/knights_tour/cnf.py.
BUILT_IN = ("cutset", "crt", "rank", "ordering", "binary", "position", "transitive", "distance")
# ``cutset`` (lazy cut-set refinement) is the default: the fastest CNF in
# python -m gridsat.benchmarks.compare.knights_tour, for one tour and for a count. ``bitwise`` is the
# default at-most-one: the fastest on the position encoding's 8x8 tour in every run of python -m
# gridsat.benchmarks.compare.amo (5 to 8 times pairwise), and linear in a dummy node's n arcs, where
# pairwise writes n^2/2 clauses (2.7 million on 40x40). Counting the 6x6 closed tours with cutset (groups
# of at most eight arcs), pairwise is the faster: 8.7 s against bitwise's 10.9 s.
# Then every CNF tour encoding registered (an open axis: models/constraints/tours.py).
CNF_ENCODINGS = EncodingSpace((
    Axis("tour", BUILT_IN, exact="crt", registry=CNF_TOURS),
    amo.axis(default="bitwise")))
# ``circuit`` (CP-SAT's AddCircuit) is the default: it finds one tour on large boards where ``mtz`` does not
# (python -m gridsat.benchmarks.compare.tour_encodings; ``mtz`` counts the 6x6 closed tours faster).
# Open: every CP-SAT tour encoding registered (models/constraints/tours.py), ``circuit`` and ``mtz`` first.
CPSAT_ENCODINGS = EncodingSpace((CPSAT_TOURS.axis("circuit"),))


def frontier_spec(board: Board) -> FrontierSpec:
    """The tours as a frontier spec, for the frontier backend (imports numba, so only when asked)."""
    from gridsat.models.knights_tour.frontier import build

    return build(board)


def frontier_fixed(board: Board, up_to: str) -> list[Fixed]:
    """The group's elements with the tours each fixes, counted on folds of the board (imports numba)."""
    from gridsat.models.knights_tour.folded import fixed_points

    return fixed_points(board, up_to)
