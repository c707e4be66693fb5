"""A certified search in one solver call: CaDiCaL checks each model with gridsat, which blocks it there.

An enumeration that calls the solver once per solution cannot write its own proof cheaply: CaDiCaL 1.9.5
visits every clause it holds at the end of each call while it traces a proof (``Internal::finalize``), so n
solutions cost n passes over a growing database (knights-tour 6x6 closed: 11.0 CPU s of search against 2.1
without a proof, in a bare PySAT loop). So a certified search used to enumerate without a proof and have a
fresh solver refute formula and blocking clauses at its end (2.5 s more there).

Here the search is one call. CaDiCaL's external propagator interface (IPASIR-UP: Fazekas, Niemetz,
Preiner, Kirchweger, Szeider, Biere, "IPASIR-UP: User Propagators for CDCL", SAT 2023), which PySAT
exposes for CaDiCaL 1.9.5, asks a *lazy*, passive propagator to check every complete assignment
(``check_model``) before the solver reports it. gridsat reports the model's solutions, answers "not a
model", and gives the solver the model's blocking clause (or a lazy encoding's cut clauses) as an external
clause; the solver goes on, and its one call ends "unsatisfiable" when no model is left. Its LRAT proof,
written as it searched, refutes formula, blocking and cut clauses: the certificate's proof, with no second
solver. Measured (knights-tour 6x6 closed, a bare loop against this, quiet): 2.83 CPU s with the proof
against 2.07 for the loop without one. The clauses given during the call have numbers CaDiCaL writes no
line for; ``solvers.proof.external`` renumbers the proof so they follow the formula.

The propagator observes the projection variables only (its model holds those) and is passive, so CaDiCaL
does not call it on each assignment. Used for a certified run's whole search on CaDiCaL 1.9.5, not for a
split run's parts or probe (their searches stop between models to be split again), and not under proved
orbits (whose proof is the orbits refutation: ``solvers.proof.certified.prove``); under leaders recognised by
rule (``solvers.proof.leaders``) it is.
"""
from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

from gridsat.models.formulation import CnfFormulation
from gridsat.solvers.proof.certified import Recorder
from gridsat.solvers.proof.external import renumbered
from gridsat.solvers.proof.heap import uncollected
from gridsat.solvers.proof.lrat import numbered
from gridsat.solvers.proof.prover import ONE_CALL, Passive, numbered_as_given, proof_of, prover
from gridsat.solvers.stop import Stop

BLOCK, CUT = 0, 1  # what a clause given during the call is, for its place in the certificate's list
# Seconds of search per call, first and at most: a call's solutions reach the reader when it ends, and each
# call costs a pass over every clause (``Internal::finalize``) and a restart (knights-tour 6x6 closed: about 2
# CPU s more with calls of 0.05 s throughout than in one call, loaded); the slices double from first to last.
FIRST_SLICE, LAST_SLICE = 0.05, 1.0
FIRST_BUDGET, LEAST_BUDGET = 2000, 100  # conflicts per call, before the rate is known and at least
MEASURED = 0.01  # seconds: a shorter call says little about the rate of conflicts


def fits(recorder: Recorder | None, solver: str, recording: bool) -> bool:
    """Whether a certified search proves its own count, blocking each model inside its calls (see the module
    docstring)."""
    if recorder is None or solver not in ONE_CALL or recording:
        return False
    certificate = recorder.certificate
    return not certificate.proves_orbits and not getattr(certificate.formulation.cnf, "atmosts", None)


class Blocker(Passive):
    """The lazy, passive propagator of a certified search: each model blocked (or cut, where the lazy
    encoding rejects it) by a clause given back to the solver, its solutions kept for the reader. It ends
    the call (accepting a model, which the search then blocks between calls) once its slice of seconds has
    passed (``search``): the reader gets the solutions between calls."""

    def __init__(self, f: CnfFormulation, recorder: Recorder) -> None:
        super().__init__(max([f.cnf.nv, *f.projection]))
        self.f, self.recorder = f, recorder
        self.given: list[tuple[int, int]] = []  # (BLOCK or CUT, its index among them), in the order given
        self.found: list[Any] = []  # solutions found in this call, for the reader
        # the model that ended the call, its solution, the solutions that stands for and its true variables
        self.held: tuple[list[int], Any, list[Any], tuple[int, ...]] | None = None
        self.rounds = self.refinements = 0
        self.until = 0.0

    def check_model(self, model: list[int]) -> bool:
        """Block a model and go on (False), or end the call with it (True: the slice is over)."""
        try:
            return self._checked(model)
        except BaseException as error:  # raised again after the call: never inside CaDiCaL
            self.error = error
            return True

    def _checked(self, model: list[int]) -> bool:
        true = tuple(sorted(lit for lit in model if lit > 0))  # the model's true projection variables
        full = self.full(true)
        f, certificate = self.f, self.recorder.certificate
        cuts = f.refine(full) if f.refine is not None else []
        if cuts:  # not a solution: the formulation's missing rules, learnt from this model
            self.rounds += 1
            self.refinements += len(cuts)
            self.given += [(CUT, len(certificate.cuts) + j) for j in range(len(cuts))]
            certificate.cut(cuts)
            self.pending += cuts
            return False
        solution = f.decode(f.values(full))
        orbit = f.stands_for(solution)
        self.found += orbit
        if time.monotonic() >= self.until:
            self.held = full, solution, orbit, true
            return True
        self.pending.append(self.block(full, solution, orbit, true))
        return False

    def block(self, model: list[int], solution: Any, orbit: list[Any], true: tuple[int, ...]) -> list[int]:
        """The clause that blocks ``model``, kept in the certificate with the model's true projection variables
        (``true``, sorted), its solution and the solutions that stands for (``Certificate.adopt_searched``,
        which compares ``true`` with the clause before it takes them from the search): the uncertified
        search's clause (by the true variables alone where the encoding blocks so; ``Recorder.finish`` makes
        them short if need be)."""
        certificate = self.recorder.certificate
        clause = self.f.blocking_clause(model)
        self.given.append((BLOCK, len(certificate.blocking)))
        certificate.block(clause, solution, true, orbit)
        return clause

    def block_held(self, oracle: Any) -> None:
        """Block the model that ended the call, given to the solver between calls."""
        assert self.held is not None
        oracle.add_clause(self.block(*self.held))
        self.held = None


def searcher(recorder: Recorder, solver: str) -> tuple[Any, list[list[int]]]:
    """A proof-writing ``solver`` (``prover``) holding the certificate's formula and cube, and the clauses
    it was given (as ``lrat.numbered`` numbers them)."""
    certificate = recorder.certificate
    base = numbered([*certificate.formulation.cnf.clauses, *certificate.cube])
    return prover(solver, base, numbered_already=True), base


def search(oracle: Any, blocker: Blocker, stop: Stop) -> Generator[Any, None, bool | None]:
    """The search as calls of a slice of seconds each (``FIRST_SLICE`` doubling to ``LAST_SLICE``), each
    model blocked inside a call and its solutions yielded after it; returns False when no model is left,
    None when stopped. A call ends at the first model after its slice (``Blocker.until``) or at its
    conflict budget, the slice at the last call's rate: so a deadline is met, and a Ctrl-C is raised
    within about a slice (Python's: the call is made without PySAT's SIGINT handler, whose jump out of
    the solver could leave a Python callback half run)."""
    from pysat.solvers import pysolvers

    handle = oracle.solver.cadical
    budget, conflicts, slice_ = FIRST_BUDGET, 0, FIRST_SLICE
    while not stop.expired():
        blocker.until = min(time.monotonic() + slice_, stop.deadline or float("inf"))
        pysolvers.cadical195_cbudget(handle, budget)
        started = time.monotonic()
        # the models' callbacks run inside, none of the caller's code; what they keep (solutions, clauses)
        # lives to the run's end (solvers.proof.heap)
        with uncollected(settled=True):
            status = pysolvers.cadical195_solve_lim(handle, [], 0)  # 1 a model, -1 none, 0 budget spent
        if blocker.error is not None:
            raise blocker.error
        seconds, before = time.monotonic() - started, conflicts
        conflicts = oracle.accum_stats().get("conflicts", 0)
        slice_ = min(LAST_SLICE, 2 * slice_)
        if seconds >= MEASURED:
            budget = max(LEAST_BUDGET, int((conflicts - before) / seconds * slice_))
        yield from blocker.found
        blocker.found.clear()
        if status == -1:
            return False
        if status == 1:
            blocker.block_held(oracle)
    return None


def proof(oracle: Any, blocker: Blocker, base: list[list[int]]) -> bytes | None:
    """The search's LRAT proof over the certificate's clauses (``Certificate.clauses``, numbered), or None
    when its numbers cannot be matched to them (then a fresh solver refutes them: ``certified.refute``)."""
    certificate = blocker.recorder.certificate
    if blocker.pending:
        return None  # a clause the solver never took: the numbers would not be the ones given
    given = [c for c, _ in certificate.blocking] + [c for c, _ in certificate.cuts]
    if not numbered_as_given(given, [*certificate.formulation.cnf.clauses, *certificate.cube]):
        return None
    formula = len(base)
    blocked = len(certificate.blocking)
    places = [formula + 1 + (i if kind == BLOCK else blocked + i) for kind, i in blocker.given]
    if sorted(places) != list(range(formula + 1, formula + len(given) + 1)):
        return None  # the solver was given a clause the certificate does not hold, or the other way round
    return renumbered(proof_of(oracle), formula, places)
