"""The backend protocol and its registry.

A backend turns (puzzle, instance, request) into a ``Search``: a built formulation, ready to stream
canonical solutions. Solving, enumerating and counting all read that stream, cut short by a limit
(see ``gridsat.solvers.run``). A counting backend answers with a ``Tally`` instead, and says so in
``can``: the API and the command line ask a backend what it can do, never which one it is.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from gridsat.models.errors import BackendUnavailable, InvalidOption, UnknownName
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.parts import Part
from gridsat.solvers.stop import Stop


@dataclass(frozen=True)
class Request:
    """What the user chose; each backend reads the fields that apply to it."""

    encoding: str | None = None
    solver: str | None = None
    algorithm: str | None = None
    limit: int | None = None  # a hint: with 1 a backend may search for one solution, not enumerate
    part: Part | None = None  # search only this part of the solution space (see solvers.parts)
    memory: int | None = None  # megabytes a counting backend may hold (None: its default cap)


class Search(Protocol):
    """A formulation built and ready to stream solutions."""

    label: str  # the full encoding / solver / algorithm name, for reports
    exhaustive: bool  # False when the method never sees every solution

    def size(self) -> dict[str, int]: ...

    def solutions(self, stop: Stop) -> Iterator[Any]: ...

    def split(self, target: int, cap: int, stop: Stop, within: Part | None = None) -> list[Part]:
        """Disjoint parts that together hold every solution (see ``solvers.parts``); ``within``: disjoint
        sub-parts that together hold every solution of that part (its indices numbered from 0)."""
        ...


# What a backend can do, asked of it (``Backend.can``) so the API and CLI never name a backend.
SOLVE, ENUMERATE, COUNT, SPLIT, TIME_LIMIT, UP_TO = "solve", "enumerate", "count", "split", "time-limit", "up-to"
ENUMERATORS = frozenset({SOLVE, ENUMERATE, COUNT, SPLIT, TIME_LIMIT, UP_TO})


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


class Backend(Protocol):
    """A way to find solutions: ``supported`` says whether it can run here at all.

    An enumerating backend (``can`` holds ``enumerate``) prepares a ``Search`` that streams solutions;
    a counting backend (``can`` holds ``count`` only) implements ``tally`` instead.
    """

    name: str
    summary: str
    takes: tuple[str, ...]  # the Request fields it reads: "encoding", "solver", "algorithm"
    can: frozenset[str]  # SOLVE, ENUMERATE, COUNT, SPLIT, TIME_LIMIT, UP_TO
    install: str  # one line: how to install what it needs (said when it is not installed)

    def supported(self) -> bool: ...

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]: ...

    def refusal(self, puzzle: Puzzle) -> str | None:
        """Why this backend cannot run ``puzzle`` at all (one line naming what can), or None."""
        ...

    def vet(self, puzzle: Puzzle, request: Request, *, counting: bool) -> None:
        """Refuse, before any run starts, a request this backend cannot serve (``counting``: for a count)."""
        ...

    def listing(self) -> dict[str, Any]:
        """What ``gridsat list --json`` adds about this backend's own choices (e.g. its solvers)."""
        ...

    def prepare(self, puzzle: Puzzle, instance: Instance, request: Request) -> Search: ...


class Counter(Backend, Protocol):
    """A backend that counts without enumerating (``can`` has COUNT but not ENUMERATE)."""

    def tally(
        self,
        puzzle: Puzzle,
        instance: Instance,
        request: Request,
        stop: Stop,
        *,
        up_to: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> Tally:
        """The exact count (``up_to``: of orbits), or ``Tally(None, ...)`` when ``stop`` ended it first."""
        ...


BACKENDS: dict[str, str] = {
    "cpsat": "gridsat.solvers.cpsat:CpsatBackend",
    "sat": "gridsat.solvers.sat:SatBackend",
    "reference": "gridsat.solvers.reference.backend:ReferenceBackend",
    "frontier": "gridsat.solvers.frontier:FrontierBackend",
    "d4": "gridsat.solvers.counters:D4Backend",
    "ganak": "gridsat.solvers.counters:GanakBackend",
}


def backend_class(name: str) -> Any:
    """The class behind a registered backend name (imports only gridsat's own module)."""
    module, _, cls = BACKENDS[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def get_backend(name: str) -> Backend:
    """The registered backend called ``name``; one whose package is missing says so."""
    if name not in BACKENDS:
        raise UnknownName("backend", name, list(BACKENDS))
    backend = backend_class(name)()
    if not backend.supported():
        raise BackendUnavailable(f"backend {name!r} is not installed: {backend.install}")
    return backend


def counts_only(backend: Backend) -> bool:
    """Whether ``backend`` counts without enumerating (it answers through ``tally``, never lists)."""
    return COUNT in backend.can and ENUMERATE not in backend.can


def listing_refused(backend: Backend) -> InvalidOption:
    """The error for asking a counting backend for solutions."""
    return InvalidOption(f"backend {backend.name!r} counts without listing solutions: use it with count or crosscheck")


def refuse_listing(backend: Backend) -> None:
    """``solve`` and ``enumerate`` need solutions, which a counting backend never lists."""
    if ENUMERATE not in backend.can:
        raise listing_refused(backend)


def check_countable(backend: Backend, puzzle: Puzzle, request: Request, up_to: str | None) -> None:
    """Refuse, in one line, what a counting backend cannot count at all."""
    check_request(backend, request)
    refusal = backend.refusal(puzzle)
    if refusal:
        raise InvalidOption(refusal)
    if up_to is not None and UP_TO not in backend.can:
        raise InvalidOption(f"backend {backend.name!r} cannot count up to {up_to}: count with cpsat, sat or reference")


def check_request(backend: Backend, request: Request) -> None:
    """Reject options the backend would silently ignore."""
    flags = {"encoding": request.encoding, "solver": request.solver, "algorithm": request.algorithm,
             "memory": request.memory}
    for option, value in flags.items():
        if value is not None and option not in backend.takes:
            takers = [n for n in BACKENDS if option in backend_class(n).takes]
            raise InvalidOption(
                f"--{option} {value!r} does not apply to backend {backend.name!r} (only {', '.join(takers)})")
