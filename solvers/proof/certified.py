"""A certified search (``--certify``): what the sat backend keeps while it enumerates, and the proof and check at
its end.

On CaDiCaL 1.9.5, a whole run's search writes its own LRAT proof, one solver call per slice of time, each
model blocked from inside the call (``solvers.proof.blocker``): no second solver. What follows is the way of
the other solvers, of a split run's parts and probe, and the fallback when that proof cannot be used.

The search enumerates as an uncertified one does, in one incremental solver that writes no proof. Each
model it reports is blocked by a clause that rules out exactly that model's projection and nothing else:
over every projection variable, or, where the encoding blocks by the true variables (an uncertified
search's way, much faster on knight's tours), over those and the false ones unit propagation does not set
false from them (``solvers.proof.models.short_clause``; the checker propagates again); each cut clause a
lazy encoding adds is kept with its witness. When the solver answers "no more models", a fresh solver
of the same name, writing a DRAT proof (PySAT's ``with_proof``), is given formula, cube, blocking and cut
clauses all at once and refutes them (``refute``; a model it finds that needs a cut gets one, kept with
its witness like the search's; a model that needs none is a solution the search did not block, and the
certificate is refused).

Why not the proof of the enumerating solver itself: CaDiCaL 1.9.5 (PySAT's) visits every clause it holds
at the end of each call while it writes a proof (``Internal::finalize``), so an enumeration of n
solutions pays n passes over a database that grows with them: on knights-tour 6x6 closed (19,724 tours)
its search took 17 CPU seconds against 2.1 for the same search without a proof, with the same conflicts
(a loaded machine; ``perf``: ``Proof::finalize_clause`` above ``propagate``). One refutation of the whole
clause set at the end costs about what the enumeration's own search costs (2.5 s there), and its proof,
without CaDiCaL's inprocessing (``REFUTING``), is smaller: 107,772 steps against 130,392
(benchmarks/compare/certify.py; docs/measurements/certify.md).
The certificate is then judged (``solvers.proof.certificate.judge``) and, when asked, written to a folder.
"""
from __future__ import annotations

import functools
import gc
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from gridsat.models.encoding import Encoding
from gridsat.models.formulation import CnfFormulation
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import dumps
from gridsat.solvers.proof.certificate import (
    LRAT,
    Certificate,
    Identity,
    Judgement,
    judge,
    orbit_count,
    proof_format,
    write,
)
from gridsat.solvers.proof.claim import Certify
from gridsat.solvers.proof.heap import uncollected
from gridsat.solvers.proof.orbits import OrbitCount, Unbroken, unbroken_of
from gridsat.solvers.proof.prover import refutation
from gridsat.solvers.stop import Stop

STOPPED = "a time limit or Ctrl-C came before the proof was made"  # why ``prove`` made none, when stopped

# Solvers PySAT builds with a proof whose proofs cannot certify a count, and why (seen with PySAT 1.8).
UNUSABLE_PROOFS = {
    "maplesat": "writes DRAT proofs naming variables the formula does not have (the checker refuses them)",
    "mergesat3": "gives no proof back (PySAT: proof tracing is unsupported by MergeSat 3)",
}


@functools.cache
def proves(solver: str) -> bool:
    """Whether PySAT's ``solver`` writes DRAT proofs (``with_proof``), asked of the solver itself."""
    from pysat.solvers import Solver

    hook = sys.unraisablehook
    # A solver that refuses with_proof is left half-built, and its __del__ then fails: nothing to report.
    sys.unraisablehook = lambda unraisable: None
    try:
        Solver(name=solver, with_proof=True).delete()
        return True
    except NotImplementedError:
        return False
    finally:
        gc.collect()
        sys.unraisablehook = hook


@dataclass
class Recorder:
    """The evidence of one certified search as it runs; ``verdict`` once the solver said "no more"."""

    wish: Certify
    puzzle: Puzzle
    instance: Instance
    certificate: Certificate
    header: list[str] = field(default_factory=list)
    verdict: Judgement | None = None
    finder: Any = None  # the formula's unit propagation, which makes blocking clauses short
    projection: Any = None  # the formula's projection as an array, once a model is blocked

    @classmethod
    def start(cls, wish: Certify, puzzle: Puzzle, instance: Instance, f: CnfFormulation, encoding: Encoding,
              solver: str, header: list[str]) -> Recorder:
        ident = Identity(puzzle.name, wish.instance, dict(wish.params), encoding.name, solver)
        unbroken = unbroken_of(puzzle, instance, f, encoding)
        return cls(wish, puzzle, instance, Certificate(ident, f, unbroken=unbroken), header)

    def block(self, model: list[int], solution: Any) -> list[int]:
        """The clause that rules out exactly this model's projection, kept with the solution it blocks."""
        import numpy as np

        f = self.certificate.formulation
        if self.projection is None:
            self.projection = np.asarray(f.projection, np.int64)
        values = np.asarray(model, np.int64)[self.projection - 1]  # one C pass: this runs for every model
        on = values > 0
        true = self.projection[on]
        if f.block_true_only:  # short, as the uncertified search blocks (knight's tours 6x6 closed: 4x faster)
            from gridsat.solvers.proof.models import short_clause
            from gridsat.solvers.proof.propagation import Propagation

            if self.finder is None:
                self.finder = Propagation(f.cnf.clauses, max(f.projection, default=0))
            clause = short_clause(true, self.projection[~on], self.finder)
        else:
            clause = (-values).tolist()
        self.certificate.block(clause, solution, tuple(np.sort(true).tolist()))
        return clause

    @uncollected(settled=True)  # over the whole certificate, which the run keeps (solvers.proof.heap)
    def finish(self, proof: bytes | None = None, stop: Stop | None = None) -> Judgement | None:
        """Judge the certificate and keep it, once the search's final answer was "unsatisfiable": with the
        search's own ``proof`` (LRAT: ``solvers.proof.blocker``), else refuting the clause set now. The
        one-call search blocks by true variables only, as an uncertified search does; where unit propagation
        does not fix the rest of a projection from them, those clauses rule out more than one projection:
        they are made short (``block``'s way) and a fresh solver refutes the clause set instead. ``stop``: a
        time limit or Ctrl-C that comes first leaves no verdict (None) and writes no folder (``stopped``)."""
        if stopped(stop):
            return None
        if proof:
            self.certificate.proof_format, self.certificate.proof = LRAT, proof
            self.verdict = judge(self.certificate, self.puzzle, self.instance)
            if self.verdict.certified or not self.shortened():
                return self.kept(self.verdict)
            self.verdict, self.certificate.proof = None, b""
        failure, counted = prove(self.certificate, self.puzzle, self.instance,
                                 "the proof's solver found a model the search did not block", stop)
        if stopped(stop):
            return None
        return self.kept(ranked(judge(self.certificate, self.puzzle, self.instance, counted), failure))

    def kept(self, verdict: Judgement) -> Judgement:
        """``verdict``, the run's, with its certificate written to the folder asked for."""
        self.verdict = verdict
        if self.wish.folder is not None:
            write(self.certificate, self.wish.folder, self.header)
        return verdict

    def shortened(self) -> bool:
        """Whether blocking clauses named too few variables (``models.first_unjustified``'s ``NOT_ONE``): then
        each is made short as ``block`` makes it, from the true variables it names."""
        from gridsat.solvers.proof.models import NOT_ONE, first_unjustified

        certificate, f = self.certificate, self.certificate.formulation
        blocking = [clause for clause, _ in certificate.blocking]
        found = first_unjustified(f.cnf.clauses, blocking, f.projection, models=False)
        if found is None or found[0] != NOT_ONE:
            return False
        found_first, certificate.blocking = certificate.blocking, []
        for clause, solution in found_first:
            self.block(model_of(f.projection, clause), solution)
        return True


def stopped(stop: Stop | None) -> bool:
    """Whether a time limit or Ctrl-C came before a certificate was judged: the run's answer is then cut short
    (``solvers.run`` says nothing certified of it), and neither its verdict nor its folder is made."""
    return stop is not None and stop.expired()


def model_of(projection: list[int], clause: list[int]) -> list[int]:
    """The projection a blocking clause rules out, as a model's literals (indexed by variable - 1; the
    variables outside the projection false, which ``Recorder.block`` does not read)."""
    true = {-lit for lit in clause if lit < 0}
    top = max(projection, default=0)
    return [v if v in true else -v for v in range(1, top + 1)]


def ranked(verdict: Judgement, failure: str) -> Judgement:
    """The verdict with ``failure``, why ``prove`` made no proof, named in the proof's place: the check then
    found the proof missing, unless it failed before that (on the evidence: ``judge``'s order)."""
    if not failure:
        return verdict
    missing = verdict.failure.endswith((".drat is missing", ".lrat is missing"))
    first = verdict.failure if verdict.failure and not missing else failure
    return replace(verdict, certified=False, failure=first)


def refute(certificate: Certificate, solver: str, missed: str, stop: Stop | None = None) -> str:
    """The proof, by a fresh ``solver`` given them all at once, that the certificate's formula, cube,
    blocking and cut clauses are unsatisfiable (into ``certificate.proof``); why not (``missed``, with the
    solution) when it finds a model that needs no cut. A model that needs cuts gets them, each kept with
    its witness, as the search's own cuts are. ``stop``: as ``refutation``'s (then no proof, and why)."""
    f = certificate.formulation
    if getattr(f.cnf, "atmosts", None):
        return "the formula holds native at-most constraints (CNF+), which a clausal proof of its clauses cannot use"

    def cuts_for(model: list[int]) -> list[list[int]]:
        cuts = f.refine(model) if f.refine is not None else []
        certificate.cut(cuts)
        return cuts

    certificate.proof_format = proof_format(solver)
    done = refutation(solver, certificate.clauses(), cuts_for, f.projection if f.refine is not None else None, stop)
    if done.stopped:
        return STOPPED
    if done.model is not None:
        return f"{missed}: {dumps(f.decode(f.values(done.model)))[:80]}"
    certificate.proof = done.proof
    return ""


def prove(certificate: Certificate, puzzle: Puzzle, instance: Instance, missed: str,
          stop: Stop | None = None) -> tuple[str, OrbitCount | None]:
    """The proof a certificate's count rests on, made now by a fresh proof-writing solver, and why it could
    not be made (empty: made), in the solver's format (``proof_format``). Where the orbits are proved
    (``Certificate.proves_orbits``), the orbits proof alone (``orbits.lrat``): the orbits' members are every
    solution of the formula without the breaking, which proves the count by itself, so the formula with the
    breaking is not refuted too (``proof.lrat``: one refutation and one check fewer). Else ``proof.lrat``
    (``refute``), which proves the count with the orbits checked where the breaking keeps every leader
    (``Certificate.keeps_leaders``). The orbits as expanded, for ``judge`` (None: none). ``stop``: as
    ``refutation``'s."""
    certificate.proof_format = proof_format(certificate.identity.solver)
    if certificate.proves_orbits and certificate.unbroken is not None:
        return prove_orbits(certificate, certificate.unbroken, puzzle, instance, missed, stop)
    return refute(certificate, certificate.identity.solver, missed, stop), None


def prove_orbits(certificate: Certificate, unbroken: Unbroken, puzzle: Puzzle, instance: Instance,
                 missed: str, stop: Stop | None = None) -> tuple[str, OrbitCount]:
    """Prove that the orbits of the solutions blocked hold every solution of the formula without symmetry
    breaking (``solvers.proof.orbits``): a proof-writing solver refutes it with every member blocked. If it
    finds a model instead, a solution lies in no orbit (``missed``, with the solution; the breaking lost an
    orbit, or the search a leader): no proof. The orbits as expanded, for ``judge``."""
    certificate.adopt_searched()  # the search's decodings, where they are the clauses' (as ``judge`` adopts them)
    counted = orbit_count(certificate, puzzle, instance)
    if counted.failure:
        return "", counted  # judged and named next
    full = unbroken.formulation
    done = refutation(certificate.identity.solver, [*full.cnf.clauses, *counted.members], stop=stop)
    if done.stopped:
        return STOPPED, counted
    if done.model is not None:
        solution = full.decode(full.values(done.model))
        return f"{missed} (in no orbit of the solutions blocked): {dumps(solution)[:80]}", counted
    unbroken.proof, unbroken.members = done.proof, counted.members
    return "", counted


