"""Tatami tilings: cover an H x W room with 1x2 mats so that no four mats meet at one point.

Seed: the tatami write-up (3x4 has 4 tilings; the question is the 4x7 room, 14 mats).
Variables: ``("h", r, c)`` is a mat on (r, c)-(r, c+1); ``("v", r, c)`` a mat on (r, c)-(r+1, c).
Four mats meet at the corner shared by (r, c), (r, c+1), (r+1, c), (r+1, c+1) exactly when no
mat crosses that corner's four half-edges, so the rule is one clause per interior corner:
``h(r,c) | h(r+1,c) | v(r,c) | v(r,c+1)``.

The package: ``room`` (the instance), ``formulations`` (the ``model`` axis: ``mats`` here, ``directions`` in
``directions``), ``frontier`` (the frontier spec), ``solution``
(verify, render), ``reference`` (the searches), and the parts ``symmetry``, ``pictures`` and
``mutation``. This file assembles them.
"""

from __future__ import annotations

from gridsat.models.breaking import axis, breaking
from gridsat.models.constraints import amo
from gridsat.models.encoding import EncodingSpace
from gridsat.models.parts import Frontier, MutationCorpus, Oracle, Pictures, Symmetry
from gridsat.models.puzzle import Puzzle
from gridsat.models.tatami import mutation, oracle, pictures, reference, symmetry
from gridsat.models.tatami.formulations import MODEL, cnf, cpsat, frontier_fixed, frontier_spec
from gridsat.models.tatami.room import describe, parse
from gridsat.models.tatami.solution import render, verify

__all__ = ["PUZZLE"]

GROUPS = {"symmetry": symmetry.group}

PUZZLE = Puzzle(
    name="tatami",
    summary="tile an RxC room with 1x2 mats, no four mats meeting at a point",
    instance_help="RxC room size, e.g. 4x7",
    params={},
    parse=parse,
    cpsat=breaking(cpsat, GROUPS),
    cnf=breaking(cnf, GROUPS),
    verify=verify,
    render=render,
    describe=describe,
    cpsat_encodings=EncodingSpace((MODEL, axis(GROUPS))),
    cnf_encodings=EncodingSpace((MODEL, amo.axis(), axis(GROUPS))),
    reference=reference.ALGORITHMS,
    example="4x7",
    symmetry=Symmetry(GROUPS),
    pictures=Pictures(pictures.draw, pictures.sketch),
    frontier=Frontier(frontier_spec, frontier_fixed),
    mutation=MutationCorpus(mutation.corpus, mutation.ladder),
    oracle=Oracle(oracle.solutions, oracle.draw),
)
