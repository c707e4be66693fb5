"""Prime-sum grids: fill an R x C grid with distinct numbers from L..M so that every two
orthogonally adjacent numbers sum to a prime.

Seed: the prime-sum grid write-up (3x3 from 1..10 has 128 fillings, counted by a row-major DFS).
Variables: ``(r, c)`` is cell (r, c)'s value (CP-SAT integers); ``("x", r, c, v)`` says cell (r, c)
holds v (the one-hot models, CP-SAT Booleans and the CNF's ``direct`` domain); ``("ge", r, c, v)`` says
its value is at least v (``order``, ``hall``) and ``("bit", r, c, k)`` is bit k of its value minus
the smallest (``log``): models/prime_grid/numbers.py.

Two pieces of redundant knowledge, each an encoding choice that never changes a count:

* Parity: two distinct positive numbers sum to at least 3, and a prime that large is odd, so two
  adjacent numbers have opposite parity and the grid is a checkerboard of odd and even values.
  Which colour is odd is a "phase"; a phase whose colour classes outnumber the values of their
  parity is impossible and is dropped before the solver sees it.
* Symmetry: a rotation or reflection that moves at least one cell moves a value onto a cell that
  held a different value (the values are distinct), so no filling is its own image, every orbit
  has exactly as many fillings as the board has distinct cell permutations, and keeping one filling
  per orbit then listing its images counts exactly. The one kept is the lexicographic leader in
  row-major order: for a permutation g whose first moved cell is q, a filling x and its image
  (x[g^-1(q')] at q') first differ at q, so "x is at most its image" is the single strict
  inequality x[q] < x[g^-1(q)].

Counting up to symmetry (``--up-to symmetry``, solvers/orbits/counting.py) uses that structure. The group is
the same set of board permutations (a moved filling keeps its values, so the range L..M is always
preserved), the representative an orbit count prints is the smallest filling read row by row, and
that is exactly the leader the ``symmetry`` encoding keeps. So with that encoding the orbits are
counted as the leaders themselves: one solver solution per orbit, no images listed and filtered
again (no orbit may be kept twice). Burnside's lemma agrees
without the argument: the solutions a non-identity g fixes are counted on the ``nosymmetry`` model
with x == g(x) added, which AllDifferent makes infeasible.

The package: ``grid`` (the instance), ``rules`` (neighbours, colours, candidates), ``formulations``,
``solution`` (verify, render), ``reference`` (the search), and the parts ``symmetry``, ``pictures``
and ``mutation``. This file assembles them.
"""

from __future__ import annotations

from gridsat.models.parts import MutationCorpus, Oracle, Pictures, Symmetry
from gridsat.models.prime_grid import mutation, oracle, pictures, reference, symmetry
from gridsat.models.prime_grid.formulations import CNF_ENCODINGS, CPSAT_ENCODINGS, cnf, cpsat
from gridsat.models.prime_grid.grid import PARAMS, describe, parse
from gridsat.models.prime_grid.solution import render, verify
from gridsat.models.puzzle import Puzzle

__all__ = ["PUZZLE"]

PUZZLE = Puzzle(
    name="prime-grid",
    summary="fill an RxC grid with distinct numbers min..max, adjacent numbers summing to primes",
    instance_help="RxC grid size, e.g. 3x3 (values 1..R*C+1 unless -p max/min say otherwise)",
    params=PARAMS,
    parse=parse,
    cpsat=cpsat,
    cnf=cnf,
    verify=verify,
    render=render,
    describe=describe,
    cpsat_encodings=CPSAT_ENCODINGS,
    cnf_encodings=CNF_ENCODINGS,
    reference=reference.ALGORITHMS,
    example="3x3",
    symmetry=Symmetry({"symmetry": symmetry.group}),
    pictures=Pictures(pictures.draw, pictures.sketch),
    mutation=MutationCorpus(mutation.corpus, mutation.ladder),
    oracle=Oracle(oracle.solutions, oracle.draw),
)
