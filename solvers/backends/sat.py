"""The PySAT backend: any PySAT solver, enumeration by blocking clauses over the projection only.

One loop (``SatSearch.search``) serves solve, count and enumerate: solve; hand the model to the
formulation's ``refine`` (a lazy formulation returns clauses, which go into the same incremental
solver, and the loop solves again); report the solution; block its projection. A part's fixed
literals (``units``, unit clauses loaded with the CNF) change nothing in the loop.

Time limits (the 40x40 rows of benchmarks/compare/knights_tour.py check that they hold):

- MiniSat-like solvers release the GIL in ``solve_limited(expect_interrupt=True)`` and can be
  interrupted from another thread: the loop runs on a worker thread, and the reading thread
  interrupts the solver at the deadline or on Ctrl-C.
- CaDiCaL holds the GIL and has no interrupt. Without a deadline a call runs unbudgeted (Ctrl-C
  still works, through PySAT's own SIGINT handler). With one, every call gets a conflict budget
  sized from the conflict rate measured so far, a share of the time left, so that the last call
  ends near the deadline. Small fixed budgets would cost more: each call restarts the search, so a
  hard instance cut into many small calls needs many times the conflicts of one long call.
- lingeling and kissat have neither a usable budget nor an interrupt, so a time limit is refused.
"""

from __future__ import annotations

import functools
import importlib.util
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gridsat.models.encoding import Encoding
from gridsat.models.errors import BackendUnavailable, InvalidOption, UnknownName
from gridsat.models.formulation import CnfFormulation, Key
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import (
    CERTIFY,
    CNF,
    ENUMERATORS,
    Backend,
    Request,
    bound_choice,
    bound_encoding,
    formulate,
    join_or,
    part_formulation,
)
from gridsat.solvers.cubes import Handback, Part, interrupted_split, split_prefix
from gridsat.solvers.stop import Stop
from gridsat.solvers.threaded import Emit, generate

if TYPE_CHECKING:
    from gridsat.solvers.proof.certified import Recorder
    from gridsat.solvers.proof.claim import Certify

DEFAULT_SOLVER = "cadical195"
# lingeling cannot solve with a budget, and kissat cannot solve twice (so it finds one solution,
# and a budget would end its only call): neither can honour a time limit.
UNSTOPPABLE = frozenset({"lingeling", "kissat404"})
ONE_SHOT = frozenset({"kissat404"})
# The PySAT solvers that take CNF+ (native at-most-k constraints): the only ones an encoding that needs it runs on.
CNF_PLUS_SOLVERS = ("minicard", "gluecard3", "gluecard4")
# The counters of PySAT's accum_stats() a run reports (MiniSat-family solvers and CaDiCaL keep all four).
STATISTICS = ("conflicts", "decisions", "propagations", "restarts")
# The solver that propagates a split's prefixes (``propagated_projections``): MiniSat's propagation answers in
# about 4 us on prime-grid 5x5, CaDiCaL's in 60 us; minicard reads an encoding's native at-most-k constraints too.
PROPAGATOR = "minicard"
# Clauses handed to the solver per call while loading, so that loading a large CNF stops at the deadline.
LOAD_CHUNK = 200_000


@functools.cache
def solver_names() -> list[str]:
    """The solvers this PySAT build can start, default first (SolverNames lists some it lacks)."""
    from pysat.solvers import NoSuchSolverError, Solver, SolverNames

    names = []
    for name in sorted(n for n in vars(SolverNames) if not n.startswith("_")):
        try:
            Solver(name=name).delete()
        except NoSuchSolverError:
            continue
        names.append(name)
    names.remove(DEFAULT_SOLVER)
    return [DEFAULT_SOLVER, *names]


@functools.cache
def interruptible(name: str) -> bool:
    """Whether PySAT can interrupt this solver's ``solve_limited`` from another thread."""
    from pysat.solvers import Solver

    with Solver(name=name) as oracle:
        try:
            oracle.interrupt()
            oracle.clear_interrupt()
        except NotImplementedError:
            return False
    return True


class Pace:
    """Conflict budgets for a solver that cannot be interrupted, so that its calls end near the deadline.

    A call gets ``SHARE`` of the time left at the conflict rate of the last call, and at most
    ``GROWTH`` times the last budget: the rate falls as a search goes on (a large ordering CNF can
    halve its conflicts a second), so budgets grow step by step and every step
    measures the rate again. The budgets grow geometrically and the time left shrinks with every
    call, so a run makes a few dozen calls at most.

    The rate is measured over a window of at least ``MEASURED`` seconds, one call or many, and the time between
    the calls counts in it (so the rate is if anything low, and a budget short): the solver's counters are read
    once a window, not twice a call (a count of many short calls, prime-grid 4x5's 12,697 in about 2.5 s, spent
    about 2% of its time reading them).
    """

    FIRST = 200  # conflicts, before any rate is known
    LEAST = 100
    GROWTH = 2
    SHARE = 0.5
    MEASURED = 0.01  # seconds: shorter windows say little about the rate

    def __init__(self, oracle: Any) -> None:
        self.oracle = oracle
        self.rate: float | None = None
        self.ceiling = self.FIRST  # grows only when a call used up its whole budget
        self.window: tuple[int, float] | None = None  # the conflicts counted and the clock when it began

    def solve(self, assumptions: list[int], remaining: float) -> bool | None:
        budget = self.ceiling
        if self.rate is not None:
            budget = min(budget, int(self.rate * remaining * self.SHARE))
        budget = max(self.LEAST, budget)
        if self.window is None:
            self.window = (self.conflicts(), time.monotonic())
        self.oracle.conf_budget(budget)
        answer = _interruptible(lambda: self.oracle.solve_limited(assumptions))
        now = time.monotonic()
        before, started = self.window
        if now - started >= self.MEASURED:
            conflicts = self.conflicts()
            if conflicts > before:
                self.rate = (conflicts - before) / (now - started)
            self.window = (conflicts, now)
        if answer is None and budget == self.ceiling:
            self.ceiling *= self.GROWTH
        return answer

    def conflicts(self) -> int:
        """The conflicts the solver has counted so far."""
        return self.oracle.accum_stats().get("conflicts", 0)


@dataclass
class SatSearch:
    """A CNF and a solver name, ready to enumerate."""

    formulation: CnfFormulation
    solver: str
    label: str
    exhaustive: bool = True
    units: list[list[int]] = field(default_factory=list)  # a part's fixed projection variables
    rounds: int = 0  # refinement rounds: models the formulation's refine rejected
    refinements: int = 0  # the clauses those rounds added
    handback: Handback = field(default_factory=Handback)
    # (prefix length of the part split, sub-parts asked) -> the prefix length the last such split chose
    prefixes: dict[tuple[int, int], int] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)  # accum_stats() of the solvers this search ran
    # Ctrl-C came inside a CaDiCaL call: asked for its counters then, it aborts the process (MiniSat's family does not)
    cut_short: bool = False
    splitter: Any = field(default=None, repr=False)  # the solver propagating parts' prefixes, kept from split to split

    def __post_init__(self) -> None:  # a recording search keeps each model's blocking clause, a row if handed back
        self.handback.row, self.handback.prefix = self.formulation.row_of, self.formulation.prefix_of

    @property
    def threaded(self) -> bool:
        """Whether it searches in a thread of its own (``solutions``): not on a solver PySAT cannot interrupt."""
        return self.recorder is not None or interruptible(self.solver)

    def statistics(self) -> dict[str, int | None]:
        """What the PySAT solver counted (None for a counter it does not keep, e.g. Lingeling's)."""
        return {name: self.counters.get(name) for name in STATISTICS}

    def add_counters(self, oracle: Any) -> None:
        """Add a solver's accum_stats() to this search's (Kissat exposes none in PySAT)."""
        try:
            counted = oracle.accum_stats() or {}
        except NotImplementedError:
            return
        for name, value in counted.items():
            self.counters[name] = self.counters.get(name, 0) + value
    recorder: Recorder | None = None  # a certified search's evidence (--certify; solvers.proof.certified)

    def certification(self) -> dict[str, Any]:
        """What ``count --json`` says of the certificate: nothing when none was asked for, ``certified``
        None when the run ended before the solver's final "no more" (a limit, a solution for ``solve``)."""
        if self.recorder is None:
            return {}
        verdict = self.recorder.verdict
        return {"certified": None} if verdict is None else verdict.summary()

    def accept(self, solution: Any, frozen: Any = None) -> None:
        """The run's verifier accepted ``solution`` (``solvers.run``): a certificate's judge need not ask again."""
        if self.recorder is not None:
            self.recorder.certificate.accept(solution, frozen)

    def size(self) -> dict[str, int]:
        size = self.formulation.size()
        if self.formulation.refine is not None:
            size |= {"refinement_rounds": self.rounds, "refinement_clauses": self.refinements}
        return size

    def restrict(self, part: Part) -> None:
        """Search one part only: its fixed projection variables become unit clauses in a fresh solver,
        not assumptions to one solver kept from part to part: a solver simplifies with units, and a
        small part is then a simpler problem (python -m gridsat.benchmarks.compare.parallel)."""
        self.units = [[self.formulation.literal(key, value)] for key, value in part.fixed]
        # models a run split again already counted, blocked as the search blocks a model it found
        self.units += [self.formulation.blocking_of(row) for row in part.blocked]
        self.handback.recording = True
        if self.recorder is not None:
            self.recorder.certificate.within([u[0] for u in self.units[:len(part.fixed)]],
                                             self.units[len(part.fixed):])

    def split(self, target: int, cap: int, stop: Stop, within: Part | None = None) -> list[Part]:
        """Parts on a prefix of the projection (``within``: sub-parts of that part, on a longer prefix).

        A prefix's assignments are those of a relaxation: every assignment of the prefix variables that
        unit propagation through the CNF does not refute (``propagated_projections``), found by a
        backtracker over the prefix that asks a propagating solver at each step, never a search. Every
        solution's prefix survives propagation, so the parts are exhaustive; they are distinct
        assignments, so disjoint; a few may hold no solution (prime-grid 5x5, 50 variables: 1,850
        parts against 1,249 exact projections). The exact projections cost a CaDiCaL call per part,
        about 100 times as long (4.9 s against 0.06 s there), all of it in the parent while the workers
        waited. The propagating solver is loaded once and kept from split to split (``splitter``); a lazy
        formulation's cuts are left out of it, which only widens the relaxation.
        """
        f = self.formulation
        oracle = self.splitter if self.splitter is not None else self._load(stop, PROPAGATOR)
        if oracle is None:
            raise interrupted_split(stop)
        self.splitter = oracle
        assumed = [f.literal(key, value) for key, value in (within.fixed if within else ())]

        def projections(onto: list[Key], limit: int) -> list[tuple[int, ...]] | None:
            # the literal that makes each key true (a scramble flips some)
            return propagated_projections(oracle, [f.literal(key, 1) for key in onto], assumed, limit, stop)

        fixed = len(within.fixed) if within else 0
        parts = split_prefix([f.pool.obj(v) for v in f.projection], projections, target, cap, within,
                             self.prefixes.get((fixed, target)))
        if parts:
            self.prefixes[(fixed, target)] = len(parts[0].fixed)
        return parts

    def solutions(self, stop: Stop) -> Iterator[Any]:
        if stop.deadline is not None and self.solver in UNSTOPPABLE:
            raise InvalidOption(f"solver {self.solver!r} cannot be stopped at a time limit (PySAT gives it no "
                               "budget or interrupt): drop time_limit= or choose another solver")
        if self.recorder is not None:
            from gridsat.solvers.proof import blocker

            if blocker.fits(self.recorder, self.solver, self.handback.recording):
                yield from self._certified_in_one_call(stop)
                return
        oracle = self._load(stop)
        if oracle is None:
            return
        with oracle:
            try:
                if not interruptible(self.solver):
                    yield from self.search(oracle, stop, threaded=False)
                    return

                def produce(emit: Emit) -> None:
                    for solution in self.search(oracle, stop, threaded=True):
                        if not emit(solution):
                            return

                yield from generate(produce, oracle.interrupt, stop)
            finally:
                if not self.cut_short:  # the counters of a run cut short by a limit or Ctrl-C too
                    self.add_counters(oracle)

    def _certified_in_one_call(self, stop: Stop) -> Iterator[Any]:
        """A certified search that writes its own proof, a model blocked inside each solver call
        (``solvers.proof.blocker``)."""
        from gridsat.solvers.proof import blocker
        from gridsat.solvers.proof.prover import connect

        recorder = self.recorder
        assert recorder is not None
        oracle, base = blocker.searcher(recorder, self.solver)
        with oracle:
            found = blocker.Blocker(self.formulation, recorder)
            connect(oracle, found, found.f.projection)
            try:
                if (yield from blocker.search(oracle, found, stop)) is False:
                    recorder.finish(blocker.proof(oracle, found, base), stop)
            finally:
                self.rounds, self.refinements = self.rounds + found.rounds, self.refinements + found.refinements
                self.add_counters(oracle)

    def _load(self, stop: Stop, name: str | None = None) -> Any:
        """A solver (``name``, else the search's) holding the CNF, or None when the deadline passed while loading
        it. It writes no proof: a certified search that proves its own count loads its solver itself
        (``_certified_in_one_call``); any other gets its proof at the end (``solvers.proof.certified``)."""
        from pysat.solvers import NoSuchSolverError, Solver

        f = self.formulation
        name = name or self.solver
        try:
            oracle = Solver(name=name)
        except NoSuchSolverError:
            raise BackendUnavailable(f"PySAT solver {name!r} is not built into this python-sat") from None
        # A part's units go in first, so that the solver can simplify the CNF with them as it goes in (CaDiCaL,
        # prime-grid 5x5/1..25, 545 and 257 parts one after another: 3.5 to 5.3% less processor time a part, loading
        # and searching; python -m gridsat.benchmarks.compare.part_start).
        oracle.append_formula(self.units)
        clauses = f.cnf.clauses
        for begin in range(0, len(clauses), LOAD_CHUNK):
            if stop.expired():
                oracle.delete()
                return None
            oracle.append_formula(clauses[begin:begin + LOAD_CHUNK])
        for lits, bound in getattr(f.cnf, "atmosts", ()):  # native constraints (the vet let only CNF+ solvers here)
            oracle.add_atmost(lits, bound)
        if f.projection:
            # Mention the highest projection variable, so that the solver's model covers every
            # projection variable, including any that no clause constrains.
            top = max(f.projection)
            oracle.add_clause([top, -top])
        return oracle

    def search(self, oracle: Any, stop: Stop, threaded: bool) -> Iterator[Any]:
        """Solve, refine, report, block, until no model is left or the stop comes."""
        pace = Pace(oracle)
        handback = self.handback
        if threaded:
            handback.halt = oracle.interrupt
        try:
            yield from self._models(oracle, stop, pace, threaded, handback)
        finally:
            handback.halt = None  # the solver is deleted after this: nobody may interrupt it then

    def _models(self, oracle: Any, stop: Stop, pace: Pace, threaded: bool, handback: Handback) -> Iterator[Any]:
        f = self.formulation
        while True:
            if handback.draining:
                handback.cut = True  # stopped between models to be split again
                return
            answer = self._solve(oracle, stop, pace, threaded)
            if answer is None and handback.draining:
                handback.cut = True
                return
            if not answer:  # None (stopped) or False (no more solutions)
                if answer is False and self.recorder is not None:
                    self.recorder.finish(stop=stop)
                return
            model = oracle.get_model()
            cuts = f.refine(model) if f.refine is not None else []
            if cuts:
                # Not a solution: the formulation's missing rules, learnt from this model.
                self.rounds += 1
                self.refinements += len(cuts)
                oracle.append_formula(cuts)
                if self.recorder is not None:
                    self.recorder.certificate.cut(cuts)
                continue
            solution = f.decode(f.values(model))  # decoded once, also for a certified search's record
            yield from f.stands_for(solution)
            # Block this assignment of the projection, never of the auxiliaries, so that the
            # auxiliaries of an encoding cannot multiply the count.
            # A certified search blocks every projection variable, so that the clause rules out this one
            # assignment only, as its certificate shows.
            recorder = self.recorder
            clause = f.blocking_clause(model) if recorder is None else recorder.block(model, solution)
            if handback.recording:
                handback.found.append(clause)
            if self.solver in ONE_SHOT:
                stop.request(f"{self.solver} cannot solve incrementally, so it finds one solution")
                return
            oracle.add_clause(clause)

    def _solve(self, oracle: Any, stop: Stop, pace: Pace, threaded: bool, extra: list[int] | None = None
               ) -> bool | None:
        """One satisfiability question, assuming ``extra``; None when the stop came first."""
        if stop.expired():
            return None
        assumed = extra or []
        if threaded:  # the reading thread interrupts this call at the deadline or on Ctrl-C
            return oracle.solve_limited(assumed, expect_interrupt=True)
        try:
            if stop.deadline is None or self.solver in UNSTOPPABLE:
                return _interruptible(lambda: oracle.solve(assumed))
            while not stop.expired():
                answer = pace.solve(assumed, stop.remaining() or 0.0)
                if answer is not None:
                    return answer
            return None
        except KeyboardInterrupt:
            self.cut_short = True  # Ctrl-C inside the call (PySAT's SIGINT handler) left the solver mid-search
            raise


def propagated_projections(oracle: Any, trues: list[int], assumed: list[int], limit: int, stop: Stop
                           ) -> list[tuple[int, ...]] | None:
    """Every assignment of the variables of ``trues`` (as 1 where the literal is true) that unit propagation,
    with ``assumed`` and the assignment's own literals, leaves without a conflict (None: more than ``limit``).

    A backtracker over ``trues`` in order: at each step ``oracle.propagate`` says which of them are implied,
    and the first one left open is tried true, then false. Each assignment is reached once (the two branches
    differ on it), and a real solution's never meets a conflict, so no solution's prefix is left out. A branch
    takes over its parent's values (propagation only adds to them) and reads only the literals propagation set of
    ``trues`` (a set intersection), not every variable of a long prefix at each of its nodes: a one-hot prefix is
    hundreds of variables, nearly all implied."""
    found: list[tuple[int, ...]] = []
    value_of = {lit: (i, 1) for i, lit in enumerate(trues)} | {-lit: (i, 0) for i, lit in enumerate(trues)}
    # the assumptions too: a solver's propagate names only what it set after them, never a literal the formula fixes
    # at the root (a unit clause) even when assumed, which would otherwise be branched on again and again
    root: list[int | None] = [None] * len(trues)
    for lit in value_of.keys() & set(assumed):
        i, value = value_of[lit]
        root[i] = value
    branches: list[tuple[list[int], list[int | None], int]] = [([], root, 0)]  # (decided, values, first open)
    while branches:
        if stop.expired():
            raise interrupted_split(stop)
        decided, values, at = branches.pop()
        consistent, implied = oracle.propagate(assumptions=assumed + decided)
        if not consistent:
            continue
        for lit in value_of.keys() & implied:
            i, value = value_of[lit]
            values[i] = value
        try:
            at = values.index(None, at)
        except ValueError:  # every variable of ``trues`` has its value
            found.append(tuple(values))  # type: ignore[arg-type]  # no None left
            if len(found) > limit:
                return None
            continue
        lit = trues[at]
        false, true = values.copy(), values  # this branch's list, handed on
        false[at], true[at] = 0, 1
        branches += [([*decided, -lit], false, at + 1), ([*decided, lit], true, at + 1)]  # true first
    return found


def _interruptible(call: Callable[[], bool | None]) -> bool | None:
    """Make a Ctrl-C caught inside PySAT's C code a KeyboardInterrupt again.

    PySAT installs its own SIGINT handler around a call from the main thread and raises its
    ``pysolvers.error("Caught keyboard interrupt")``, which is not a KeyboardInterrupt.
    """
    try:
        return call()
    except Exception as error:
        if "keyboard interrupt" in str(error).lower():
            raise KeyboardInterrupt from None
        raise


class SatBackend(Backend):
    """PySAT with a solver of the user's choice."""

    name = "sat"
    summary = "PySAT (default cadical195); enumerates with blocking clauses on the projection"
    takes = ("encoding", "solver")
    can = ENUMERATORS | {CERTIFY}
    formulation = CNF
    install = "pip install python-sat (a dependency of gridsat)"
    cnf_plus_solvers = CNF_PLUS_SOLVERS

    def supported(self) -> bool:
        return importlib.util.find_spec("pysat") is not None  # without importing it: listing stays fast

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        return {"encoding": puzzle.cnf_encodings.tokens(), "solver": solver_names()}

    def solver_of(self, request: Request) -> str:
        return request.solver or DEFAULT_SOLVER

    def stops(self, request: Request) -> bool:
        return self.solver_of(request) not in UNSTOPPABLE

    def vet(self, puzzle: Puzzle, request: Request, *, counting: bool) -> None:
        """The solver must exist and, to find more than one solution (``counting``), solve incrementally
        (blocking clauses need that). Every puzzle has a CNF."""
        solver = self.solver_of(request)
        if solver not in solver_names():
            raise UnknownName("solver", solver, solver_names())
        if counting and solver in ONE_SHOT:
            raise InvalidOption(f"solver {solver!r} cannot solve incrementally: use it with 'solve' only")
        if request.certify is not None:
            vet_prover(solver)
            if request.seed is not None:
                raise InvalidOption("certify=True keeps the formula as gridsat builds it: a scrambled one (seed) has "
                                    "no certificate check-proof could build again")

    def refuses_cnf_plus(self, request: Request) -> str | None:
        solver = self.solver_of(request)
        return None if solver in CNF_PLUS_SOLVERS else f"solver {solver!r}"

    def listing(self) -> dict[str, Any]:
        """The PySAT solvers this installation can start, and which of them only solve."""
        return {"sat_solvers": [{"name": n, "default": n == DEFAULT_SOLVER, "solve_only": n in ONE_SHOT}
                                for n in solver_names()]}

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> SatSearch:
        choice = bound_choice(request)  # the gate vetted the request: its encoding and solver, resolved once
        encoding, solver = bound_encoding(request), choice.solver or DEFAULT_SOLVER
        label = f"{encoding.name}/{solver}"
        formulation = formulate(puzzle, instance, CNF, encoding) if request.part is None else part_formulation(
            puzzle, instance, CNF, encoding)
        if solver in ONE_SHOT and formulation.refine is not None:
            raise InvalidOption(f"solver {solver!r} cannot solve incrementally, which the lazy {encoding.name} "
                                "encoding needs: choose another solver")
        if request.seed is not None:
            from gridsat.models.scramble import scramble

            formulation = scramble(formulation, request.seed)
        job = SatSearch(formulation, solver, label)
        if choice.proof and request.certify is not None:
            wish = request.certify.into(request.part.index if request.part is not None else None)
            job.recorder = recorder_for(puzzle, instance, wish, formulation, encoding, solver)
        if request.part is not None:
            job.restrict(request.part)
        return job


def vet_prover(solver: str) -> None:
    """A certified run needs numba (the checker) and a solver that writes DRAT proofs."""
    if importlib.util.find_spec("numba") is None:
        raise BackendUnavailable("certify=True checks proofs with numba-compiled code: pip install 'gridsat[certify]'")
    from gridsat.solvers.proof.certified import UNUSABLE_PROOFS, proves

    if not proves(solver) or solver in UNUSABLE_PROOFS:
        able = [name for name in solver_names() if proves(name) and name not in UNUSABLE_PROOFS]
        why = UNUSABLE_PROOFS.get(solver, "writes no DRAT proof")
        raise InvalidOption(f"solver {solver!r} {why}: certify=True needs a solver whose proofs the checker reads; "
                            f"choose {join_or(able)}")


def recorder_for(puzzle: Puzzle, instance: Instance, wish: Certify, f: CnfFormulation, encoding: Encoding,
                 solver: str) -> Recorder:
    """A certified search's recorder, its certificate headed as an export is (the checker is compiled, or
    loaded from numba's cache, now: before the run's clock starts)."""
    from gridsat.solvers.export import header
    from gridsat.solvers.proof.certified import Recorder
    from gridsat.solvers.proof.drat import warm_up

    warm_up()
    return Recorder.start(wish, puzzle, instance, f, encoding, solver,
                          header(puzzle, instance, encoding, puzzle.cnf_encodings, f))
