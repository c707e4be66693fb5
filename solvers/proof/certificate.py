"""A certified answer: the claim "these solutions, and no more", with what proves it, checked and kept as files.

A certificate holds the formula (the puzzle's CNF, plus a part's cube when the run was split), one blocking
clause per solution found, the cut clauses a lazy encoding added while solving, and the solver's proof
(LRAT from CaDiCaL 1.9.5, DRAT from the others) that all of them together are unsatisfiable. It is accepted when

1. every blocking clause names every projection variable once (or some of them, the others set false by
   unit propagation on the formula from the assignment it names), so that it rules out exactly one
   assignment of the projection, and that assignment decodes to a solution the puzzle's own rule
   verifier accepts, the one written beside it; no two blocking clauses are the same;
2. every cut clause is what its witness says: the arcs leaving (or entering) a proper, non-empty set of
   squares, which every tour must leave (or enter);
3. gridsat's LRAT checker (``solvers.proof.lrat``) or DRAT checker (``solvers.proof.drat``) accepts the
   proof against formula, cube, blocking and cut clauses.

Then the solutions blocked are all the solutions of the formula within the cube: any other would satisfy
all those clauses. Under symmetry breaking the orbits are expanded and checked, and the count is the sum of
their sizes: where the breaking is recognised as keeping every orbit's leader (``Certificate.keeps_leaders``,
``solvers.proof.leaders``), ``proof.lrat`` proves it with them; else, with the orbits proved
(``Certificate.proves_orbits``), the proof is ``orbits.lrat`` (``orbits.drat``), over the formula without the
breaking and every orbit member (``solvers.proof.orbits``), which proves the count by itself: there is then
no ``proof.lrat``. What is
assumed: that the CNF is faithful to the puzzle (its models, projected, are exactly the solutions), which
the cross-checks and mutation tests are for, and the checker itself.

Files (``write``; docs/howto/certify.md has the format): ``formula.cnf`` (DIMACS with ``c gridsat`` lines
naming the puzzle, instance, parameters and encoding, ``c p show`` lines for the projection, a
``c gridsat cube-literals`` line holding the cube's literals, and the cube's clauses last: a unit clause
for each of its literals, then the blocking clauses of solutions counted before), ``blocking.cnf`` (each
clause after a ``c gridsat solution JSON`` line), ``cuts.cnf`` (each after ``c gridsat cut out|in NODES``)
and ``proof.lrat`` with ``proof.cnf`` (the clauses it refutes, numbered as it numbers them: ``lrat.numbered``),
or ``proof.drat`` (DRAT as the solver wrote it, binary from CaDiCaL 1.5.3, text from the others, with an empty
clause added at its end: see ``solvers.proof.certified``); or, with the orbits proved, ``orbits.cnf`` and
``orbits.lrat`` (``orbits.drat``) in their place.
"""
from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gridsat.models.encoding import Encoding
from gridsat.models.errors import InvalidOption
from gridsat.models.formulation import CnfFormulation
from gridsat.models.params import excerpt
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import dumps, freeze
from gridsat.solvers.proof.heap import uncollected
from gridsat.solvers.proof.orbits import (
    ASSUMED,
    Decoded,
    OrbitCount,
    Unbroken,
    decoded,
    expand,
    unbroken_of,
)

if TYPE_CHECKING:
    import numpy as np

    from gridsat.solvers.proof.clausal import Clauses  # numba: imported only when a certificate is checked

Proof = bytes | Path  # a proof's bytes, or the file holding it
DRAT, LRAT = "drat", "lrat"  # the proof formats, and the suffixes of their files
BESIDE = 1000  # blocking clauses from which a judge checks its proof and models on threads beside the rest
LRAT_WRITERS = ("cadical195",)  # PySAT's solvers whose proofs gridsat takes in LRAT (solvers.proof.prover.prover)


def proof_format(solver: str) -> str:
    """The format of the proofs gridsat asks ``solver`` for: LRAT where it can write it, else DRAT."""
    return LRAT if solver in LRAT_WRITERS else DRAT
SOLUTION, CUT, LITERALS = "c gridsat solution ", "c gridsat cut ", "c gridsat cube-literals "


@dataclass(frozen=True)
class Identity:
    """What the formula was built from, so that ``gridsat check-proof`` can build it again."""

    puzzle: str
    instance: str
    params: dict[str, str]
    encoding: str
    solver: str

    def lines(self) -> list[str]:
        return [f"puzzle {self.puzzle}", f"instance {self.instance}",
                *(f"param {key}={value}" for key, value in self.params.items()),
                f"encoding {self.encoding}", f"solver {self.solver}"]


@dataclass
class Certificate:
    """A run's claim and its evidence (see the module docstring)."""

    identity: Identity
    formulation: CnfFormulation
    cube: list[list[int]] = field(default_factory=list)  # a unit clause for each of ``fixed``, then blocked ones
    # (clause, its solution: as the search found it, or as JSON text read from blocking.cnf; ``written``)
    blocking: list[tuple[list[int], Any]] = field(default_factory=list)
    cuts: list[tuple[list[int], str]] = field(default_factory=list)  # (clause, its witness)
    proof: Proof = b""  # as the solver wrote it, or the file check-proof reads it from
    proof_format: str = DRAT  # ``proof``'s, and that of the orbits proof (``unbroken.proof``): DRAT or LRAT
    unbroken: Unbroken | None = None  # a formula keeping one solution per orbit: see solvers.proof.orbits
    fixed: list[int] = field(default_factory=list)  # the cube's literals (a part's fixed projection variables)
    # the solutions (frozen) the rule verifier accepted: while this certificate was judged, or, in a run, as
    # the run verified each solution it reported (``accept``); asked once each
    accepted: set[Hashable] = field(default_factory=set, repr=False)
    decoded: Decoded = field(default_factory=dict, repr=False)  # each blocking clause decoded once: orbits.decoded
    # in a run: each solution ``accept`` was told of, by its object's id -> the object and its frozen form; the
    # object held here keeps its id its own (``orbits.expand`` takes the frozen form of that very object)
    frozen: dict[int, tuple[Any, Hashable]] = field(default_factory=dict, repr=False)
    # in a run: each blocking clause -> the true projection variables of the model it was made from, the
    # solution the search decoded from that model, and the solutions the search said it stands for
    # (``stands_for``; None: not kept) (``adopt_searched``)
    searched: dict[tuple[int, ...], tuple[tuple[int, ...], Any, list[Any] | None]] = \
        field(default_factory=dict, repr=False)
    imaged: Decoded = field(default_factory=dict, repr=False)  # each blocking clause -> its orbit: adopt_searched

    @property
    def checks_orbits(self) -> bool:
        """Whether the blocked assignments' orbits are expanded on the variables of the formula without the
        breaking and their count proved exact: not within a cube (a part's orbits leave it)."""
        return self.unbroken is not None and not self.cube

    @property
    def keeps_leaders(self) -> bool:
        """Whether the breaking is recognised as keeping every orbit's leader (``solvers.proof.leaders``): then
        ``proof.lrat``, over the formula with the breaking, proves the count with the orbits checked."""
        return self.checks_orbits and self.unbroken is not None and self.unbroken.keeps_leaders(self.formulation)

    @property
    def proves_orbits(self) -> bool:
        """Whether the orbits are proved to hold every solution by a refutation of their own (``orbits.lrat``):
        where the orbits are checked and the breaking is not recognised as keeping every leader."""
        return self.checks_orbits and not self.keeps_leaders

    def within(self, fixed: list[int], blocked: list[list[int]]) -> None:
        """A part's cube: its literals, and the blocking clauses of the solutions counted before it."""
        self.fixed = list(fixed)
        self.cube = [*([lit] for lit in fixed), *blocked]

    @property
    def cube_blocked(self) -> list[list[int]]:
        """The cube's blocking clauses (a clause of one literal among them is no literal of the cube)."""
        return self.cube[len(self.fixed):]

    def block(self, clause: list[int], solution: Any, true: tuple[int, ...] | None = None,
              orbit: list[Any] | None = None) -> None:
        """Keep a blocking clause and its solution (as JSON only when written: ``written``). ``true``: the
        sorted true projection variables of the model the search decoded ``solution`` from, and ``orbit``:
        the solutions the search said it stands for (``stands_for``), for ``adopt_searched``."""
        self.blocking.append((clause, solution))
        if true is not None:
            self.searched[tuple(clause)] = true, solution, orbit

    def adopt_searched(self) -> None:
        """The search's decoding of each blocking clause's model, taken into ``decoded`` (afresh) where the
        clause rules out exactly that model's projection (its negative literals are the model's true projection
        variables: ``orbits.blocked_values`` of the clause is then the model's projection, and decoding it
        again, as the judge otherwise would, gives the same solution); and the solutions the search expanded it
        to, into ``imaged`` (``stands_for`` of that same solution, which the judge would compute again). A
        clause that does not is decoded and expanded by the judge."""
        self.decoded.clear()
        self.imaged.clear()
        for clause, _ in self.blocking:
            key = tuple(clause)
            found = self.searched.get(key)
            if found is not None and tuple(sorted(-lit for lit in clause if lit < 0)) == found[0]:
                self.decoded[key] = found[1]
                if found[2] is not None:
                    self.imaged[key] = found[2]

    def accept(self, solution: Any, frozen: Hashable = None) -> None:
        """``solution`` was accepted by the rule verifier (the run's, as it reported it): the judge will not
        ask the verifier again, though it still decodes every blocking clause and compares. ``frozen``: its
        ``freeze``, when the run made it already."""
        frozen = freeze(solution) if frozen is None else frozen
        self.accepted.add(frozen)
        self.frozen[id(solution)] = solution, frozen

    def cut(self, clauses: list[list[int]]) -> None:
        witness = self.formulation.witness
        self.cuts += [(clause, witness(clause) if witness else "") for clause in clauses]

    def clauses(self) -> list[list[int]]:
        """Everything the proof refutes: formula, cube, blocking and cut clauses."""
        return [*self.formulation.cnf.clauses, *self.cube, *(c for c, _ in self.blocking), *(c for c, _ in self.cuts)]


@dataclass(frozen=True)
class Judgement:
    """A certificate checked: ``failure`` names the first thing that fails (empty when certified)."""

    certified: bool
    failure: str
    solutions: int  # the solutions the blocking clauses stand for (the sum of their orbits' sizes, if reduced)
    proof_bytes: int
    proof_steps: int
    check_seconds: float
    blocking: int = 0
    cuts: int = 0
    cube: int = 0  # clauses: a part's cube (0: the whole run)
    assumed: str = ""  # what the count assumes, in words (empty: ``solutions`` is proved exact)
    kept: frozenset[Any] = field(default=frozenset(), repr=False)  # the solutions counted, frozen
    parts: int = 0  # a split run's part certificates checked as one (0: one certificate)
    left_out: int = 0  # a split run's: the assignments the parts' cubes leave out, counted by the probe
    counts: str = ""  # what a solution is, in the puzzle's words, as a count line says it ("tours: directed")

    def summary(self) -> dict[str, Any]:
        return {"certified": self.certified, "proof_bytes": self.proof_bytes, "proof_steps": self.proof_steps,
                "check_seconds": round(self.check_seconds, 6),
                **({"certificate_failure": self.failure} if self.failure else {}),
                **({"certificate_assumes": self.assumed} if self.assumed and not self.failure else {})}


def written(solution: Any) -> str:
    """A blocking clause's solution as blocking.cnf holds it: JSON (text read from the file stays as it is)."""
    return solution if isinstance(solution, str) else dumps(solution)


def blocking_problem(f: CnfFormulation, puzzle: Puzzle, instance: Instance, clause: list[int], text: Any,
                     accepted: set[Hashable] | None = None, memo: Decoded | None = None,
                     shown: set[int] | None = None) -> str | None:
    """Why a blocking clause is not justified by the solution ``text`` (JSON, or the solution the search
    kept beside it), or None when it is.
    ``accepted``: the solutions (frozen) the rule verifier accepted already, which it is not asked again;
    ``memo``: clauses decoded already (``orbits.decoded``); ``shown``: the projection's variables."""
    if not names_some(clause, set(f.projection) if shown is None else shown):
        return "it does not name every projection variable exactly once"
    solution = decoded(f, clause, memo)  # the one projection assignment the clause rules out, decoded
    frozen = freeze(solution)
    if accepted is None or frozen not in accepted:
        if problems := puzzle.verify(instance, solution):
            return f"the assignment it rules out is not a solution: {problems[0]}"
        if accepted is not None:
            accepted.add(frozen)
    try:
        if text is solution:  # the search kept the very object it decoded (``Certificate.adopt_searched``)
            beside = frozen
        else:
            beside = freeze(json.loads(text)) if isinstance(text, str) else freeze(text)
    except (ValueError, RecursionError):  # RecursionError: arrays nested deeper than the parser's stack
        return f"the solution beside it is unreadable: {text[:60]!r}"
    if beside != frozen:
        return "the assignment it rules out is not the solution written beside it"
    return None


def names_some(clause: list[int], shown: set[int]) -> bool:
    """Whether ``clause`` names projection variables (``shown``) only, each once: all of them, or some (a
    short blocking clause: the others are false in the assignment it rules out, and ``evidence_failure``
    requires unit propagation to set them so: ``solvers.proof.models.short_clause``)."""
    named = {abs(lit) for lit in clause}
    return len(named) == len(clause) and named <= shown


@uncollected()  # it reads the whole certificate and runs none of the caller's code (solvers.proof.heap)
def judge(certificate: Certificate, puzzle: Puzzle, instance: Instance, counted: OrbitCount | None = None) -> Judgement:
    """Check a certificate (see the module docstring). The proof is checked on a second thread, from the
    start (the checker's loop runs without the GIL), beside the checks of blocking and cut clauses, models
    and orbits: on two cores the run waits for the longer, not the sum. The first failure in the module
    docstring's order is the one named, as when they ran in turn. ``counted``: its orbits as
    ``orbit_count`` expanded them already (a run that just proved them). Where the orbits are proved, the
    proof is ``orbits.lrat``, which proves the count alone (``solvers.proof.orbits``); else ``proof.lrat``
    (``.drat`` from a solver that writes DRAT)."""
    started = time.perf_counter()
    f = certificate.formulation
    if counted is None:  # decoded afresh, unless the orbits a run expanded just now decoded them (the memo's use)
        certificate.adopt_searched()
    unbroken = certificate.unbroken if certificate.checks_orbits else None
    own = certificate.proves_orbits  # the orbits refuted on their own: orbits.lrat (their unbroken is set)
    # threads for the proof's check, the models' (``evidence_failure``) and the orbit members' (numba, no GIL);
    # none for a small certificate, whose checks take less than the threads' hand-overs of the GIL
    with ThreadPoolExecutor(3) if len(certificate.blocking) >= BESIDE else Inline() as pool:
        form = certificate.proof_format
        main = pool.submit(proved, certificate.clauses(), certificate.proof, f"proof.{form}", form) \
            if not own else None
        counted = counted or orbit_count(certificate, puzzle, instance)
        if unbroken is not None and own and not counted.failure:
            main = pool.submit(proved, [*unbroken.formulation.cnf.clauses, *counted.members], unbroken.proof,
                               f"orbits.{form}", form)
        # under the leaders rule, a member that is a blocked leader is a model of the formula without the
        # breaking once it is one of the formula with it (``members_failure``)
        blocked = {tuple(sorted(c)) for c, _ in certificate.blocking} if certificate.keeps_leaders else None
        members = pool.submit(members_failure, unbroken, counted, blocked)
        failure = evidence_failure(certificate, puzzle, instance, pool)
        failure = failure or counted.failure or members.result()
        steps, proof_failure = main.result() if main is not None else (0, "")
    steps = 0 if failure else steps  # the steps read as when the checks ran in turn: none after a failure
    failure = failure or proof_failure
    assumed = ASSUMED if f.images is not None and unbroken is None else ""
    proof = unbroken.proof if unbroken is not None and own else certificate.proof
    return Judgement(not failure, failure, counted.solutions, size_of(proof), steps,
                     time.perf_counter() - started, len(certificate.blocking), len(certificate.cuts),
                     len(certificate.cube), assumed, frozenset(counted.seen))


class Inline(Executor):
    """An executor that runs what it is given at once, in the caller's thread."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        done: Future[Any] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except Exception as error:  # raised again by result(), as a thread's would be
            done.set_exception(error)
        return done


def orbit_count(certificate: Certificate, puzzle: Puzzle, instance: Instance) -> OrbitCount:
    """The blocked assignments' orbits expanded and checked (``solvers.proof.orbits.expand``); on the
    variables of the formula without symmetry breaking too when the orbits are proved."""
    unbroken = certificate.unbroken if certificate.checks_orbits else None
    return expand(certificate.formulation, unbroken, [c for c, _ in certificate.blocking], puzzle, instance,
                  certificate.accepted, certificate.decoded, certificate.imaged, certificate.frozen)


def evidence_failure(certificate: Certificate, puzzle: Puzzle, instance: Instance, pool: Executor) -> str:
    """The first blocking or cut clause that is not what it says, or blocked assignment that is no model
    of the formula, cube and cuts (empty when there is none). ``pool``: a thread for the models' check (one
    numba call, without the GIL), which then runs beside the checks of the clauses here."""
    from gridsat.solvers.proof.models import first_unjustified

    f = certificate.formulation
    blocking = [c for c, _ in certificate.blocking]
    # models of the formula, cube and cuts, the cube's and cut clauses evaluated on the model propagation on
    # the formula finds (and searched for with all of them where it fails one)
    models = pool.submit(first_unjustified, f.cnf.clauses, blocking, f.projection,
                         extra=[*certificate.cube, *(c for c, _ in certificate.cuts)])
    if problem := cube_problem(certificate.fixed, certificate.cube) or \
            cube_blocked_problem(certificate, puzzle, instance):
        return problem
    seen: set[tuple[int, ...]] = set()
    shown = set(f.projection)
    for i, (clause, text) in enumerate(certificate.blocking, 1):
        problem = blocking_problem(f, puzzle, instance, clause, text, certificate.accepted, certificate.decoded, shown)
        ordered = tuple(sorted(clause))
        if problem is None and ordered in seen:
            problem = "it repeats an earlier blocking clause"
        seen.add(ordered)
        if problem:
            return f"blocking clause {i}: {problem}"
    for i, (clause, witness) in enumerate(certificate.cuts, 1):
        problem = f.vouch(clause, witness) if f.vouch else "the encoding adds no cut clauses"
        if problem:
            return f"cut clause {i}: {problem}"
    return unjustified(models.result(), "blocking clause", "the formula", "the formula, cube and cuts")


def cube_problem(fixed: list[int], cube: list[list[int]]) -> str:
    """Why a cube is no cube (empty when it is one): its literals must come first, each as its unit clause,
    and must not hold a literal and its negation. Only its literals are read as the cube's: a blocking
    clause of one literal after them is a blocking clause, not a literal."""
    if cube[:len(fixed)] != [[lit] for lit in fixed]:
        return "the cube's clauses do not begin with a unit clause for each of its literals (cube-literals)"
    units = set(fixed)
    if clash := next((lit for lit in fixed if -lit in units), None):
        return f"the cube contradicts itself: it holds both {abs(clash)} and -{abs(clash)}"
    return ""


def cube_blocked_problem(certificate: Certificate, puzzle: Puzzle, instance: Instance) -> str:
    """Why a clause of the cube after its literals is not the blocking clause of a solution (empty: none is),
    so that a cube rules out only solutions counted elsewhere (``solvers.proof.whole`` checks where)."""
    f = certificate.formulation
    for i, clause in enumerate(certificate.cube_blocked, len(certificate.fixed) + 1):
        row = f.row_of(clause) if {abs(lit) for lit in clause} <= set(f.projection) else None
        if row is None or sorted(clause) != sorted(f.blocking_of(row)):
            return f"cube clause {i}: it is neither a literal of the cube nor the blocking clause of a projection"
        values = {f.pool.obj(v): value for v, value in zip(f.projection, row, strict=True)}
        if problems := puzzle.verify(instance, f.decode(values)):
            return f"cube clause {i}: the assignment it rules out is not a solution: {problems[0]}"
    return ""


def members_failure(unbroken: Unbroken | None, counted: OrbitCount, blocked: set[tuple[int, ...]] | None = None) -> str:
    """The first orbit member that is no model of the formula without symmetry breaking, or whose blocking
    clause (over its true variables only) rules out more than its own projection (empty: none). Where the
    group acts on that formula by automorphisms, each member is an automorphism's image of its orbit's first
    one (``solvers.proof.automorphism``), and only the first members are checked. ``blocked``: under the
    leaders rule (``solvers.proof.leaders``: every clause of the formula without the breaking is one of the
    formula with it, over the same projection variables), the blocking clauses (sorted) whose assignments
    ``evidence_failure`` checks to be models of the formula with the breaking: a member blocked by one of
    them is a model of the formula without it too, and only its projection's propagation is checked again
    (a short clause's propagation on fewer clauses may fix less)."""
    from gridsat.solvers.proof.models import first_unjustified

    if unbroken is None:
        return ""
    full = unbroken.formulation
    if unbroken.acts_by_automorphisms():
        numbers = counted.firsts
        members = counted.chosen(numbers)
    else:
        members = counted.members
        numbers = list(range(len(members)))
    models = [blocked is None or tuple(sorted(member)) not in blocked for member in members]
    found = first_unjustified(full.cnf.clauses, members, full.projection, models=models)
    if found is not None:
        found = found[0], numbers[found[1] - 1] + 1
    unbroken_formula = "the formula without symmetry breaking"
    return unjustified(found, "orbit member", unbroken_formula, unbroken_formula)


def unjustified(found: tuple[str, int] | None, what: str, propagated: str, models: str) -> str:
    """Why ``first_unjustified`` refused (empty when it did not): the ``what`` it names (a blocking clause, an
    orbit member), short and not fixing the projection by propagation on ``propagated``, or no model of
    ``models``."""
    from gridsat.solvers.proof.models import NOT_ONE

    if found is None:
        return ""
    kind, i = found
    if kind == NOT_ONE:
        return f"{what} {i}: it names only some projection variables, and unit propagation on {propagated} " \
               "does not set the others false (it may rule out more than one assignment)"
    return f"{what} {i}: the assignment it rules out is no model of {models}"


def proved(clauses: list[list[int]], proof: Proof, name: str, form: str = DRAT) -> tuple[int, str]:
    """The steps of a ``proof`` (in ``form``, DRAT or LRAT) that ``clauses`` are unsatisfiable, and why it
    fails (empty: it holds). A DRAT proof in a file is read a chunk at a time (``clausal.read_drat_file``);
    an LRAT one whole, with ``clauses`` numbered as the solver was given them (``lrat.numbered``)."""
    if not size_of(proof):
        return 0, f"{name} is missing"
    if form == LRAT:
        from gridsat.solvers.proof import lrat  # numba: only when checked

        data = proof.read_bytes() if isinstance(proof, Path) else proof
        found = lrat.check(as_numbered(clauses, LRAT), data)
        return found.steps, "" if found.accepted else f"{name}: {found.failure}"
    from gridsat.solvers.proof.clausal import from_lists, read_drat, read_drat_file
    from gridsat.solvers.proof.drat import check

    steps = read_drat_file(proof) if isinstance(proof, Path) else read_drat(proof)
    # keep_original: CaDiCaL restores eliminated clauses unwritten (solvers.proof.drat)
    verdict = check(from_lists(clauses), steps, keep_original=True)
    return verdict.steps, "" if verdict.accepted else f"{name}: {verdict.failure}"


def size_of(proof: Proof) -> int:
    """A proof's size in bytes (0: a file that is missing)."""
    if isinstance(proof, Path):
        return proof.stat().st_size if proof.exists() else 0
    return len(proof)


def check_folder(folder: Path) -> None:
    """Refuse, before any work, a certificate folder that cannot be written or holds anything already (an
    earlier run's parts beside this run's would read as one certificate): it must be new or empty."""
    where = excerpt(str(folder))
    try:  # stat can fail too: a name too long, a folder the user may not search
        if folder.exists() and not folder.is_dir():
            raise InvalidOption(f"cannot keep a certificate in {where}: it is not a folder")
        if not folder.exists() and not folder.resolve().parent.is_dir():
            raise InvalidOption(f"cannot keep a certificate in {where}: its parent folder does not exist")
        if folder.is_dir() and any(folder.iterdir()):
            raise InvalidOption(f"cannot keep a certificate in {where}: it is not empty")
        if folder.is_dir():  # a file made and removed again: the folder takes the certificate's files
            fd, probe = tempfile.mkstemp(dir=folder, prefix=".probe.")
            os.close(fd)
            os.unlink(probe)
        else:  # the folder made and removed again: the name is one this file system takes, here
            folder.mkdir()
            folder.rmdir()
    except OSError as error:
        raise InvalidOption(f"cannot keep a certificate in {where}: {error.strerror or error}") from None


def write(certificate: Certificate, folder: Path, header: list[str]) -> None:
    """The certificate as files in ``folder`` (made if missing), each file whole or not at all."""
    folder.mkdir(parents=True, exist_ok=True)
    f = certificate.formulation
    shown = " ".join(map(str, f.projection))
    lines = [*(f"c {line}" for line in header), "c gridsat certificate",
             *(f"c gridsat {line}" for line in certificate.identity.lines()),
             f"c gridsat cube {len(certificate.cube)}", LITERALS + _line(certificate.fixed),
             f"c p show {shown} 0",
             f"p cnf {max(f.cnf.nv, f.pool.top)} {len(f.cnf.clauses) + len(certificate.cube)}",
             *(_line(c) for c in [*f.cnf.clauses, *certificate.cube])]
    replace_file(folder / "formula.cnf", ("\n".join(lines) + "\n").encode())
    replace_file(folder / "blocking.cnf", "".join(f"{SOLUTION}{written(solution)}\n{_line(c)}\n"
                                                         for c, solution in certificate.blocking)
             .encode())
    replace_file(folder / "cuts.cnf",
                 "".join(f"{CUT}{witness}\n{_line(c)}\n" for c, witness in certificate.cuts).encode())
    form = certificate.proof_format
    if not certificate.proves_orbits:  # else the orbits proof proves the count alone (``judge``)
        replace_file(folder / f"proof.{form}", certificate.proof)
        if form == LRAT:  # proof.cnf, orbits.cnf: for other checkers; check-proof builds them again, reads neither
            write_dimacs(folder / "proof.cnf", as_numbered(certificate.clauses(), form),
                         "c gridsat formula, cube, blocking and cut clauses, numbered as proof.lrat numbers them "
                         "(each unit clause u as u a and u -a, a a fresh variable)")
    if certificate.proves_orbits and certificate.unbroken is not None:
        full = certificate.unbroken.formulation
        write_dimacs(folder / "orbits.cnf", as_numbered([*full.cnf.clauses, *certificate.unbroken.members], form),
                     "c gridsat the formula without symmetry breaking, every orbit member blocked" +
                     (", numbered as orbits.lrat numbers it" if form == LRAT else ""), max(full.cnf.nv, full.pool.top))
        replace_file(folder / f"orbits.{form}", certificate.unbroken.proof)


def as_numbered(clauses: list[list[int]], form: str) -> list[list[int]]:
    """The clauses as a proof in ``form`` numbers them (``lrat.numbered``; DRAT numbers nothing)."""
    if form != LRAT:
        return clauses
    from gridsat.solvers.proof.lrat import numbered

    return numbered(clauses)


def write_dimacs(path: Path, clauses: list[list[int]], comment: str, variables: int = 0) -> None:
    """A whole DIMACS file (one header, then the clauses), written whole or not at all."""
    top = max(variables, max((abs(lit) for c in clauses for lit in c), default=0))
    header = f"{comment}\np cnf {top} {len(clauses)}\n"
    replace_file(path, (header + "".join(f"{_line(c)}\n" for c in clauses)).encode())


def replace_file(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _line(clause: list[int]) -> str:
    return " ".join(map(str, [*clause, 0]))


def identity(folder: Path) -> Identity:
    """The puzzle, instance, parameters and encoding a certificate's formula.cnf names."""
    found: dict[str, Any] = {"params": {}}
    for line in _lines(folder / "formula.cnf", required=True):
        if not line.startswith("c gridsat "):
            if line.startswith("p "):
                break
            continue
        key, _, value = line.removeprefix("c gridsat ").partition(" ")
        if key == "param":
            name, _, text = value.partition("=")
            found["params"][name] = text
        elif key in ("puzzle", "instance", "encoding", "solver"):
            found[key] = value
    missing = [key for key in ("puzzle", "instance", "encoding", "solver") if key not in found]
    if missing:
        raise ValueError(f"formula.cnf: no 'c gridsat {missing[0]}' line (not a gridsat certificate)")
    return Identity(**found)


def read(folder: Path, ident: Identity, formulation: CnfFormulation) -> tuple[Certificate, str]:
    """The certificate in ``folder`` for the formulation built again from ``ident``, and the first way
    formula.cnf differs from that formulation (empty when it does not)."""
    from gridsat.solvers.proof.clausal import read_cnf

    # the format its solver writes (formula.cnf names it), or DRAT where only a DRAT proof is there (CaDiCaL
    # 1.9.5's certificates before it wrote LRAT)
    form = proof_format(ident.solver)
    if not any((folder / f"{name}.{form}").exists() for name in ("proof", "orbits")) and \
            any((folder / f"{name}.{DRAT}").exists() for name in ("proof", "orbits")):
        form = DRAT
    text = (folder / "formula.cnf").read_bytes()
    written = read_cnf(text)
    cube_size = next((_count(line) for line in _lines(folder / "formula.cnf") if line.startswith("c gridsat cube ")), 0)
    fixed = cube_literals(folder / "formula.cnf")
    encoding = max(len(written) - cube_size, 0)  # the clauses before the cube
    cube = [written.clause(i) for i in range(encoding, len(written))]
    certificate = Certificate(ident, formulation, cube, list(_commented(folder / "blocking.cnf", SOLUTION)),
                              list(_commented(folder / "cuts.cnf", CUT)), folder / f"proof.{form}",
                              form, fixed=fixed or [])
    missing = "formula.cnf has a cube but no 'c gridsat cube-literals' line" if fixed is None and cube else ""
    return certificate, (_difference(written, encoding, formulation.cnf.clauses) or missing or written.error
                         or stray_literal(certificate, formulation))


def stray_literal(certificate: Certificate, f: CnfFormulation) -> str:
    """The first literal of the cube, blocking or cut clauses that names no variable of the formula (empty:
    none does). Read as 64-bit integers, such a literal could wrap onto a real variable, or index past an
    array in the checker's kernels (a blocking clause's -1 written as -2**63 crashed the LRAT check)."""
    top = max(f.cnf.nv, f.pool.top, max(f.projection, default=0))
    named = [("formula.cnf's cube-literals line", certificate.fixed),
             *((f"formula.cnf's cube, clause {i}", c) for i, c in enumerate(certificate.cube, 1)),
             *((f"blocking.cnf, clause {i}", c) for i, (c, _) in enumerate(certificate.blocking, 1)),
             *((f"cuts.cnf, clause {i}", c) for i, (c, _) in enumerate(certificate.cuts, 1))]
    for where, clause in named:
        if lit := next((lit for lit in clause if not 0 < abs(lit) <= top), None):
            return f"{where}: the literal {lit} names no variable of the formula (1 to {top})"
    return ""


def _count(line: str) -> int:
    """The number of clauses a ``c gridsat cube N`` line gives the cube."""
    try:
        return int(line.split()[-1])
    except ValueError:
        raise ValueError(f"formula.cnf: unreadable 'c gridsat cube' line: {line[:60]!r}") from None


def cube_literals(path: Path) -> list[int] | None:
    """The literals of a certificate's cube (its ``c gridsat cube-literals`` line), None when it has none."""
    for line in _lines(path):
        if line.startswith(LITERALS):
            words = line.removeprefix(LITERALS).split()
            if not words or words[-1] != "0":
                raise ValueError("formula.cnf: its 'c gridsat cube-literals' line does not end with 0")
            try:
                return [int(word) for word in words[:-1]]
            except ValueError:
                raise ValueError("formula.cnf: unreadable 'c gridsat cube-literals' line") from None
        if line.startswith("p "):
            break
    return None


def _difference(written: Clauses, count: int, built: list[list[int]]) -> str:
    """The first way the first ``count`` clauses of ``written`` differ from ``built``, each clause read as a
    set of literals (empty: they do not). Compared as arrays (a split run's whole check reads every part's
    formula: prime-grid 4x4's 6,000 clauses, 38 times, were 227,000 Python lists); where they differ, the
    first clause that does is found clause by clause."""
    import numpy as np

    from gridsat.solvers.proof.clausal import from_lists

    if count != len(built):
        return f"formula.cnf has {count} clauses before its cube, the puzzle's encoding {len(built)}"
    if all(np.array_equal(a, b) for a, b in zip(_as_sets(written, count), _as_sets(from_lists(built), count),
                                                   strict=True)):
        return ""
    for i, clause in enumerate(built):
        if sorted(set(written.clause(i))) != sorted(set(clause)):
            return f"formula.cnf clause {i + 1} is not clause {i + 1} of the puzzle's encoding"
    return ""


def _as_sets(clauses: Clauses, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``count`` clauses as sets: each one's distinct literal codes in order, one after another,
    and how many each has."""
    import numpy as np

    sizes = np.diff(clauses.starts[:count + 1])
    owner = np.repeat(np.arange(count), sizes)
    lits = clauses.lits[:int(clauses.starts[count])]
    order = np.lexsort((lits, owner))
    lits, owner = lits[order], owner[order]
    first = np.ones(len(lits), np.bool_)  # a literal's first copy within its clause
    first[1:] = (lits[1:] != lits[:-1]) | (owner[1:] != owner[:-1])
    return lits[first], np.bincount(owner[first], minlength=count)


def _commented(path: Path, mark: str) -> Iterator[tuple[list[int], str]]:
    """The clauses of blocking.cnf or cuts.cnf, each with the text of the comment line before it (none for a
    missing file, which ``load`` names)."""
    note = None
    for number, line in enumerate(_lines(path), 1):
        if line.startswith(mark):
            note = line.removeprefix(mark)
        elif line.strip() and not line.startswith("c"):
            words = line.split()
            if note is None or words[-1] != "0":
                raise ValueError(f"{path.name} line {number}: a clause needs a '{mark.strip()}' line before it "
                                 "and a closing 0")
            try:
                yield [int(word) for word in words[:-1]], note
            except ValueError:
                raise ValueError(f"{path.name} line {number}: unreadable clause") from None
            note = None


def _lines(path: Path, required: bool = False) -> list[str]:
    if not path.exists():
        if required:
            raise ValueError(f"{path.name} is missing")
        return []
    return path.read_text().splitlines()


Build = Callable[[Identity], tuple[Puzzle, Instance, CnfFormulation, Encoding]]


def load(folder: Path, build: Build) -> tuple[Certificate, Puzzle, Instance, str]:
    """The certificate in ``folder``, its puzzle and instance built again by ``build`` from what formula.cnf
    names (a ``ValueError`` when it cannot), and the first way its files differ from what they must be."""
    ident = identity(folder)
    puzzle, instance, formulation, encoding = build(ident)
    certificate, difference = read(folder, ident, formulation)
    certificate.unbroken = unbroken_of(puzzle, instance, formulation, encoding)
    form = certificate.proof_format
    if certificate.unbroken is not None and (folder / f"orbits.{form}").exists():
        certificate.unbroken.proof = folder / f"orbits.{form}"
    needed = f"orbits.{form}" if certificate.proves_orbits else f"proof.{form}"  # the proof the count rests on
    # Both are always written, empty when there is none: one missing is named, not read as empty (the proof
    # would then fail at a step that names neither).
    if lost := next((name for name in ("blocking.cnf", "cuts.cnf") if not (folder / name).exists()), None):
        difference = difference or f"{lost} is missing"
    if not (folder / needed).exists():
        difference = difference or f"{needed} is missing"
    elif (folder / f"proof.{DRAT}").exists() and form == LRAT:
        difference = difference or "the folder holds both proof.drat and proof.lrat: which one is the proof?"
    return certificate, puzzle, instance, difference


def recheck(folder: Path, build: Build) -> Judgement:
    """Check the certificate in ``folder`` from its files, the formula built again (``build``: see ``load``)."""
    certificate, puzzle, instance, difference = load(folder, build)
    if difference:
        return Judgement(False, difference, 0, size_of(certificate.proof), 0, 0.0)
    return judge(certificate, puzzle, instance)
