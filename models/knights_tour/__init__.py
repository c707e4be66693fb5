"""Knight's tours: visit every square of an R x C board once with chess knight moves.

Seed: the knight's-tour write-up (the 9x10 Chinese-chess board; backtracking, Warnsdorff, divide and conquer).
Counting convention: an open tour is a directed path (a sequence of squares), a closed tour a
directed cycle: each undirected closed tour counts twice and is not multiplied by its starting
square. A solution is the list of ``[row, col]`` squares in visiting order; a closed tour begins
at ``start`` (or at [0, 0]) and keeps its direction.

Variables (every formulation): ``("arc", u, v)`` is the move u -> v; open tours add ``("first", u)``
and ``("last", u)``. The CNF ``position`` encoding instead has ``("at", u, t)``: square u is step t.

The package: ``board`` (the instance, parse, verify, render), ``formulations`` and ``cnf`` (the
models), ``frontier`` (the frontier spec), ``reference`` (the searches), and the parts ``symmetry``,
``pictures`` and ``mutation``. This file assembles them.
"""

from __future__ import annotations

from gridsat.models.breaking import axis, breaking
from gridsat.models.encoding import EncodingSpace
from gridsat.models.knights_tour import mutation, oracle, pictures, reference, symmetry
from gridsat.models.knights_tour.board import PARAMS, describe, note, parse, render, verify
from gridsat.models.knights_tour.formulations import (
    CNF_ENCODINGS,
    CPSAT_ENCODINGS,
    cnf,
    cpsat,
    frontier_fixed,
    frontier_spec,
)
from gridsat.models.parts import Frontier, MutationCorpus, Oracle, Pictures, Symmetry
from gridsat.models.puzzle import Puzzle

__all__ = ["PUZZLE"]

GROUPS = {"symmetry": symmetry.up_to_symmetry, "reversal": symmetry.up_to_reversal}

PUZZLE = Puzzle(
    name="knights-tour",
    summary="visit every square of an RxC board once with knight moves (open or closed tours)",
    instance_help="RxC board size, e.g. 9x10 (rows x columns)",
    params=PARAMS,
    parse=parse,
    cpsat=breaking(cpsat, GROUPS),
    cnf=breaking(cnf, GROUPS),
    verify=verify,
    render=render,
    describe=describe,
    cpsat_encodings=EncodingSpace((*CPSAT_ENCODINGS.axes, axis(GROUPS))),
    cnf_encodings=EncodingSpace((*CNF_ENCODINGS.axes, axis(GROUPS))),
    count_meta={"tours": "directed"},
    reference=reference.ALGORITHMS,
    example="3x4",
    note=note,
    symmetry=Symmetry(GROUPS),
    pictures=Pictures(pictures.draw, pictures.sketch),
    frontier=Frontier(frontier_spec, frontier_fixed),
    mutation=MutationCorpus(mutation.corpus, mutation.ladder),
    oracle=Oracle(oracle.solutions, oracle.draw),
)
