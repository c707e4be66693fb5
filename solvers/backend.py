"""The backend base class and its registry.

A backend turns (puzzle, instance, request) into a ``Search``: a built formulation, ready to stream
canonical solutions. Solving, enumerating and counting all read that stream, cut short by a limit
(see ``gridsat.solvers.run``). A counting backend answers with a ``Tally`` instead, and says so in
``can``: the API and the command line ask a backend what it can do, never which one it is, and
``gridsat.solvers.gate`` refuses in one place what it cannot run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from gridsat.models.encoding import Encoding
from gridsat.models.errors import BackendUnavailable, InvalidOption, UnknownName
from gridsat.models.formulation import Formulation
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.cubes import Part
from gridsat.solvers.stop import Stop

if TYPE_CHECKING:
    from gridsat.solvers.proof.claim import Certify


@dataclass(frozen=True)
class Choice:
    """What the gate (solvers/gate.py) decided for a run, once: the backend's name, the encoding resolved for
    its formulation (None for a backend with none), the solver that runs (its default filled in; None for a
    backend with no choice of solver), and what the run needs of them: CNF+ (``cnf_plus``: an encoding of
    native cardinality constraints), a DRAT proof (``proof``: a certified run), its threads and, for a
    certified CP-SAT run, the CNF encoding it is replayed in. Backends read it instead of deriving any of
    these from the request's text again."""

    backend: str
    encoding: Encoding | None = None
    solver: str | None = None
    cnf_plus: bool = False
    proof: bool = False
    # The threads a backend that partitions its own work (LAYERS) runs its layers on (None: one, or its default)
    threads: int | None = None
    # A certified run of a CP-SAT model: the CNF encoding its solutions are blocked in and proved complete
    # (solvers.proof.replay), breaking the symmetry the model breaks (None: no certified CP-SAT run)
    replay: Encoding | None = None


@dataclass(frozen=True)
class Request:
    """What the user chose; each backend reads the fields that apply to it."""

    encoding: str | None = None
    solver: str | None = None
    algorithm: str | None = None
    limit: int | None = None  # a hint: with 1 a backend may search for one solution, not enumerate
    part: Part | None = None  # search only this part of the solution space (see solvers.splitting.cubes)
    memory: int | None = None  # megabytes a counting backend may hold (None: its default cap)
    spill: str | None = None  # the folder a counting backend's spill files go under (None: the temporary folder)
    # A split handed to a backend that partitions its own work (LAYERS): its threads, Dask scheduler, checkpoint
    threads: int | None = None
    scheduler: str | None = None
    checkpoint: Path | None = None
    # A benchmark's spread and fairness: CP-SAT's random seed (variables permuted) and its workers; the sat
    # backend solves the formula scrambled from the seed (models/scramble.py).
    seed: int | None = None
    workers: int | None = None
    certify: Certify | None = None  # prove the final "no more solutions" with a checked DRAT proof (CERTIFY)
    # What the gate (solvers/gate.py) decided, once: the encoding resolved for the backend's formulation (what
    # a backend builds), the solver and what the run needs. None until the gate binds the request.
    choice: Choice | None = None

    @property
    def resolved(self) -> Encoding | None:
        """The encoding the gate resolved (None before it binds the request, and for a backend with none)."""
        return None if self.choice is None else self.choice.encoding


class Search(Protocol):
    """A formulation built and ready to stream solutions."""

    label: str  # the full encoding / solver / algorithm name, for reports
    exhaustive: bool  # False when the method never sees every solution

    def size(self) -> dict[str, int]: ...

    def solutions(self, stop: Stop) -> Iterator[Any]: ...

    def split(self, target: int, cap: int, stop: Stop, within: Part | None = None) -> list[Part]:
        """Disjoint parts that together hold every solution (see ``solvers.splitting.cubes``); ``within``: disjoint
        sub-parts that together hold every solution of that part (its indices numbered from 0)."""
        ...


# What a backend can do, asked of it (``Backend.can``) so the API and CLI never name a backend.
SOLVE, ENUMERATE, COUNT, SPLIT, TIME_LIMIT, UP_TO = "solve", "enumerate", "count", "split", "time-limit", "up-to"
# A counting backend that splits its own work (the frontier's layer partitions): it takes a Split's jobs,
# scheduler and checkpoint through its Request instead of being run in parts.
LAYERS = "layers"
# A backend whose "no more solutions" comes with a DRAT proof that gridsat checks (--certify).
CERTIFY = "certify"
ENUMERATORS = frozenset({SOLVE, ENUMERATE, COUNT, SPLIT, TIME_LIMIT, UP_TO})
# The formulation kinds a backend may run (``Backend.formulation``; ``Puzzle.encodings`` takes them).
CPSAT, CNF = "cpsat", "cnf"
FORMULATIONS = (CPSAT, CNF)
SLOW = 1  # the ``Backend.cost_rank`` of a plain backtracking search


@dataclass
class Tally:
    """A count made without listing the solutions: a counting backend's answer.

    ``count`` is None when no count is known (a time limit or Ctrl-C came first: a counter has no
    partial count). ``details`` go into ``count --json`` as they are (peak states, counter version...).
    """

    count: int | None
    label: str  # the method, for reports (as ``Search.label``)
    size: dict[str, int] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0  # counting, after the formulation was built
    build_seconds: float = 0.0


class Backend:
    """A way to find solutions; the defaults describe a backend that can do nothing (as CPMpy's
    ``SolverInterface``), and each backend overrides only what it supports.

    An enumerating backend (``can`` holds ``enumerate``) prepares a ``Search`` that streams solutions;
    a counting backend (``can`` holds ``count`` only) implements ``tally`` instead. What a backend
    can run is decided in one place, ``gridsat.solvers.gate.check``, which reads these answers.
    """

    name = "unnamed"
    summary = ""
    takes: tuple[str, ...] = ()  # the Request fields it reads: "encoding", "solver", "algorithm", "memory"
    can: frozenset[str] = frozenset()  # SOLVE, ENUMERATE, COUNT, SPLIT, TIME_LIMIT, UP_TO
    # Which of a puzzle's formulations it runs: CPSAT, CNF, or None (a search of its own). Asked
    # of the backend, so no caller maps backend names to formulations.
    formulation: str | None = None
    install = ""  # one line: how to install what it needs (said when it is not installed)
    # Where a cross-check that names no backends runs it: lower first, registry order within a rank.
    # A search that tries every choice cell by cell may run for hours where a solver or counter takes
    # seconds, so it ranks higher (``SLOW``) and waits behind them.
    cost_rank = 0
    # The solvers it runs that take CNF+ (native at-most-k constraints): an encoding that needs CNF+ runs on
    # them only (models/registries.py); none, for a backend that takes no CNF+ at all.
    cnf_plus_solvers: tuple[str, ...] = ()

    # A backend holds no state: its class says all, so two of one class are equal (a configuration or a
    # bound job sent to a worker process compares equal to the parent's) and its repr keys caches by text.
    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))

    def supported(self) -> bool:
        """Whether it can run here at all (its package is installed)."""
        return True

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        """The values each Request field it takes may have for ``puzzle``."""
        return {}

    def refusal(self, puzzle: Puzzle) -> str | None:
        """Why this backend cannot run ``puzzle`` at all (one line naming what can), or None."""
        return None

    def counts_orbits(self, puzzle: Puzzle) -> bool:
        """Whether this backend counts ``puzzle``'s solutions up to symmetry (a lister does, by canonical
        representatives or Burnside's lemma; a counter only where it says so)."""
        return UP_TO in self.can and self.refusal(puzzle) is None

    def vet(self, puzzle: Puzzle, request: Request, *, counting: bool) -> None:
        """The backend's own refusals of a request (``counting``: for a count), in one line; the gate
        (``gridsat.solvers.gate``) calls this after its own checks."""
        if not counting and ENUMERATE not in self.can:
            raise listing_refused(self) if COUNT in self.can else cannot(self, ENUMERATE)

    def refuses_cnf_plus(self, request: Request) -> str | None:
        """Who, in a one-line refusal, cannot take CNF+ in a run of ``request`` (None: it takes it)."""
        return f"backend {self.name!r}"

    def solver_of(self, request: Request) -> str | None:
        """The solver a run of ``request`` uses, its default filled in (None: this backend has no choice)."""
        return None

    def stops(self, request: Request) -> bool:
        """Whether a run of ``request`` can be stopped at a time limit (a cross-check's default budget
        is given only to those that can)."""
        return TIME_LIMIT in self.can

    def listing(self) -> dict[str, Any]:
        """What ``gridsat list --json`` adds about this backend's own choices (e.g. its solvers)."""
        return {}

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> Search:
        """The built formulation, ready to stream solutions."""
        raise listing_refused(self) if COUNT in self.can else cannot(self, ENUMERATE)

    def tally(self, puzzle: Puzzle, instance: Instance, request: Request, stop: Stop, *, up_to: str | None = None,
              progress: Callable[[str], None] | None = None) -> Tally:
        """The exact count (``up_to``: of orbits), or ``Tally(None, ...)`` when ``stop`` ended it first."""
        raise cannot(self, COUNT) if COUNT not in self.can else InvalidOption(
            f"backend {self.name!r} has no count of its own: it counts the solutions it lists")


BACKENDS: dict[str, str] = {
    "cpsat": "gridsat.solvers.backends.cpsat:CpsatBackend",
    "sat": "gridsat.solvers.backends.sat:SatBackend",
    "reference": "gridsat.solvers.backends.reference:ReferenceBackend",
    "frontier": "gridsat.solvers.backends.frontier_dp:FrontierBackend",
    "d4": "gridsat.solvers.backends.counters:D4Backend",
    "ganak": "gridsat.solvers.backends.counters:GanakBackend",
}


def backend_class(name: str) -> Any:
    """The class behind a registered backend name (imports only gridsat's own module)."""
    module, _, cls = BACKENDS[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def get_backend(name: str) -> Backend:
    """The registered backend called ``name``; one whose package is missing says so. Called by the gate's
    ``bind`` only: below it, a backend travels as the object it binds."""
    if name not in BACKENDS:
        raise UnknownName("backend", name, list(BACKENDS))
    return available(backend_class(name)())


def available(backend: Backend) -> Backend:
    """``backend``, when it can run here; one whose package is missing says so, naming what to install."""
    if not backend.supported():
        raise BackendUnavailable(f"backend {backend.name!r} is not installed: {backend.install}")
    return backend


DEFAULT_BACKEND = next(iter(BACKENDS))  # the first registered: what a call that names none runs


def backends_where(test: Callable[[type[Backend]], bool]) -> list[str]:
    """The registered backends whose class passes ``test``, in registry order (their modules are
    imported, never their packages: a class answers ``can``, ``takes`` and ``formulation`` itself)."""
    return [name for name in BACKENDS if test(backend_class(name))]


def searches_formulation(backend: type[Backend] | Backend) -> bool:
    """Whether ``backend`` lists the solutions of one of the puzzle's formulations (CP-SAT or CNF): what
    Burnside's lemma (a constrained formulation per group element) and mutation testing need."""
    return backend.formulation in FORMULATIONS and ENUMERATE in backend.can


def reference_backend() -> str:
    """The registered backend that runs the puzzles' own reference searches: it lists solutions with
    no formulation (the one that counts a mutation corpus)."""
    return next(iter(backends_where(lambda b: b.formulation is None and ENUMERATE in b.can)))


def searcher_of(kind: str) -> str:
    """The first registered backend that searches formulations of ``kind`` (``cpsat`` or ``cnf``): the one
    a message about an encoding of that kind tells the user to pick."""
    return next(iter(backends_where(lambda b: b.formulation == kind and searches_formulation(b))))


def bound_choice(request: Request) -> Choice:
    """What the gate decided for ``request``: its encoding, solver and needs, never derived again."""
    if request.choice is None:
        raise ValueError("a request reaches a backend through the gate (solvers/gate.py), which resolves its "
                         "encoding: bind it first")
    return request.choice


def bound_encoding(request: Request) -> Encoding:
    """The encoding the gate resolved for ``request``: what a backend builds, never text parsed again."""
    encoding = bound_choice(request).encoding
    if encoding is None:
        raise ValueError("a request reaches a backend through the gate (solvers/gate.py), which resolves its "
                         "encoding: bind it first")
    return encoding


def formulate(puzzle: Puzzle, instance: Instance, kind: str, encoding: Encoding) -> Formulation:
    """The formulation of ``kind`` (``cnf`` or ``cpsat``) built with ``encoding`` (its name in ``.encoding``):
    the one object that export writes, mutation changes and the backends solve."""
    if kind not in ("cnf", "cpsat"):
        raise ValueError(f"no formulation of kind {kind!r} (cnf or cpsat)")
    built = puzzle.cnf(instance, encoding) if kind == "cnf" else puzzle.cpsat(instance, encoding)
    built.encoding = built.encoding or encoding.name
    return built


# The formulation the last part in this process was searched with: (puzzle, its kind, instance and encoding,
# formulation), per kind.
_last_part: dict[str, tuple[Puzzle, tuple[str, Encoding], Formulation]] = {}


def part_formulation(puzzle: Puzzle, instance: Instance, kind: str, encoding: Encoding) -> Formulation:
    """The formulation of ``kind`` for a part of a split run, built once per worker process: a worker searches a
    run's parts one after another, and rebuilding the same CNF for each cost prime-grid 5x5 18 ms of a 50 ms median
    part (its CP-SAT model 5 to 6 ms of a 0.1 s part). A CNF is shared as it is: a search never changes it (a part's
    units, the models it blocks and a lazy formulation's cuts all go into the part's own solver); a CP-SAT part adds
    its constraints to a copy of the model (solvers.backends.cpsat). The puzzle is held, so ``is`` compares it
    soundly (a puzzle built per run, such as an orbit count's, never matches)."""
    key = (repr(instance), encoding)
    last = _last_part.get(kind)
    if last is not None and last[0] is puzzle and last[1] == key:
        return last[2]
    formulation = formulate(puzzle, instance, kind, encoding)
    _last_part[kind] = (puzzle, key, formulation)
    return formulation


def counts_only(backend: Backend) -> bool:
    """Whether ``backend`` counts without enumerating (it answers through ``tally``, never lists)."""
    return COUNT in backend.can and ENUMERATE not in backend.can


def listing_refused(backend: Backend) -> InvalidOption:
    """The error for asking a counting backend for solutions."""
    return InvalidOption(f"backend {backend.name!r} counts without listing solutions: use it with count or crosscheck")


def cannot(backend: Backend, verb: str) -> InvalidOption:
    """The error for asking ``backend`` to ``verb`` (solve, enumerate, count), naming the backends that can."""
    able = backends_where(lambda b: verb in b.can)
    return InvalidOption(f"backend {backend.name!r} cannot {verb}" + (f": {verb} with {join_or(able)}" if able else ""))


def join_or(names: list[str]) -> str:
    """``a, b or c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
