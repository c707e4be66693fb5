"""The one gate: whether a backend can run a job, decided in one place before any work starts.

A ``Job`` says what a caller asks (solve, enumerate or count; a limit, a time limit, orbits by which
method, split into parts or not); ``check`` refuses, in one line naming the bad value, what the
backend cannot run, and then lets the backend add its own refusals (``Backend.vet``). The API calls
it before it chooses a route; the run loop, the split runner and the orbit counts call it too, so a
caller that starts them directly is refused the same way. Lists of backends a refusal suggests come
from the registry, never from a list written here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from gridsat.models import get_puzzle
from gridsat.models.breaking import NO as UNBROKEN
from gridsat.models.encoding import Encoding, HasEncodings, resolve_for
from gridsat.models.errors import GridsatError, InvalidOption, UnknownName
from gridsat.models.puzzle import Puzzle
from gridsat.models.registries import CNF_PLUS
from gridsat.solvers.backend import (
    BACKENDS,
    CERTIFY,
    COUNT,
    ENUMERATE,
    FORMULATIONS,
    LAYERS,
    SPLIT,
    TIME_LIMIT,
    UP_TO,
    Backend,
    Choice,
    Request,
    available,
    backend_class,
    backends_where,
    bound_choice,
    cannot,
    counts_only,
    get_backend,
    join_or,
    listing_refused,
    searcher_of,
    searches_formulation,
)
from gridsat.solvers.splitting.checkpoint import check_writable

SYMMETRIES = ("symmetry", "reversal")  # what ``up_to`` takes (a puzzle declares which of them it has)
METHODS = ("canonical", "burnside")  # how orbits are counted (see solvers.orbits)
BURNSIDE = "burnside"
# The Request fields a backend must take to be given them (a backend would ignore the others silently).
OPTIONS = ("encoding", "solver", "algorithm", "memory", "spill")


class Splitting(Protocol):
    """What the gate reads of a ``solvers.splitting.parallel.Split`` (typed here: parallel imports this module)."""

    jobs: int
    scheduler: str | None
    checkpoint: Path | str | None
    parts: int | None


@dataclass(frozen=True)
class Job:
    """What a caller asks of a backend: the verb (``SOLVE``, ``ENUMERATE`` or ``COUNT``) and its options."""

    verb: str = COUNT
    request: Request = Request()
    limit: int | None = None  # a solution limit
    time_limit: float | None = None
    up_to: str | None = None  # count orbits under this group instead of solutions
    method: str | None = None  # how orbits are counted: canonical or burnside
    split: Splitting | None = None  # None: one search in this process
    keep: bool = False  # the solutions are kept for the caller (a cross-check compares them)


@dataclass(frozen=True)
class Bound:
    """A backend bound to a job, gated once (``bind``, ``admit``): what the run loop, the split runner, orbit
    counts, cross-checks and mutation take in place of a backend's name. Plain data, so it crosses to a
    worker process as it is; the narrower runs a job is made of (a part, the time left, one orbit
    element's fixed points) are derived from it (``narrowed``) without a second gate."""

    backend: Backend
    job: Job

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def choice(self) -> Choice:
        """What the gate decided: the encoding resolved, the solver and what the run needs."""
        return bound_choice(self.job.request)

    @property
    def request(self) -> Request:
        return self.job.request

    @property
    def label(self) -> str:
        """``backend:choice``, what a progress line names before the run (its outcome's label, known once
        the formulation is built, names the encoding in full)."""
        r = self.request
        choice = r.encoding or r.algorithm or "default"
        return f"{self.backend.name}:{choice}" + (f"/{r.solver}" if r.solver else "")

    def narrowed(self, **changes: object) -> Bound:
        """The same backend on a part of its job (another ``Job`` field value each): not gated again."""
        return Bound(self.backend, replace(self.job, **changes))  # type: ignore[arg-type]


def bind(name: str, puzzle: Puzzle, job: Job) -> Bound:
    """The registered backend ``name`` bound to ``job`` on ``puzzle``: the one place a name is looked up."""
    return admit(get_backend(name), puzzle, job)


def admit(backend: Backend, puzzle: Puzzle, job: Job) -> Bound:
    """``backend`` bound to ``job`` on ``puzzle``, refused in one line when it is not installed or cannot run it;
    the request carries the gate's ``Choice`` (its encoding resolved, its solver, threads and needs), made
    once. A split given to a backend that partitions its own work (``LAYERS``) is handed to it in the
    request: its threads, Dask scheduler and checkpoint."""
    encoding = check(available(backend), puzzle, job)
    if job.split is not None and LAYERS in backend.can:
        job = layered(job, job.split)
    return Bound(backend, replace(job, request=with_choice(backend, puzzle, job.request, encoding)))


def layered(job: Job, split: Splitting) -> Job:
    """``job`` of a backend that partitions its own work: its split handed to it in the request."""
    checkpoint = None if split.checkpoint is None else Path(split.checkpoint)
    request = replace(job.request, threads=split.jobs, scheduler=split.scheduler, checkpoint=checkpoint)
    return replace(job, split=None, request=request)


def with_choice(backend: Backend, puzzle: Puzzle, request: Request, encoding: Encoding | None) -> Request:
    """``request`` with the choice made for it: ``encoding`` (resolved for the backend's formulation), the
    solver that runs, its threads, and what they need."""
    needs = {} if encoding is None else puzzle.encodings(backend.formulation).needs(encoding)
    certified = request.certify is not None
    replay = replayed_in(puzzle, encoding) if certified and backend.formulation == "cpsat" else None
    return replace(request, choice=Choice(backend.name, encoding, backend.solver_of(request),
                                          cnf_plus=CNF_PLUS in needs, proof=certified, threads=request.threads,
                                          replay=replay))


def replayed_in(puzzle: Puzzle, encoding: Encoding | None) -> Encoding:
    """The CNF encoding a certified CP-SAT run's solutions are blocked in, breaking the symmetry that
    ``encoding`` breaks (the models of both are then one per orbit, the same orbits): where it breaks
    none, the CNF's default choices on the other axes, lazy ones included (the replay takes their cuts
    inside one call: ``solvers.proof.blocker.refuted_in_one_call``); where it breaks one, the exact choices,
    since the orbits are proved over an eager formula only (``solvers.proof.orbits.unbroken_of``)."""
    breaking = dict(encoding.choices).get("symmetry") if encoding is not None else None
    if breaking not in (None, UNBROKEN):
        return resolve_encoding(puzzle, "cnf", breaking, exact=True)
    exact = resolve_encoding(puzzle, "cnf", None, exact=True)
    default = dict(resolve_encoding(puzzle, "cnf", None).choices)
    return Encoding(tuple((axis, choice if axis == "symmetry" else default[axis]) for axis, choice in exact.choices))


def resolve_encoding(puzzle: HasEncodings, kind: str, text: str | None, exact: bool = False) -> Encoding:
    """``text`` resolved in the puzzle's ``kind`` space; a name only the other kind offers names its backend.
    The one place below the API where encoding text is read: a run's through ``bind``, an export's, a
    strength case's and a mutant's here."""
    return resolve_for(puzzle, kind, text, exact, searcher=searcher_of)


def solver_taking(backend: Backend, needs: Mapping[str, object], solver: str | None) -> str | None:
    """``solver``, or when none is named and the encoding needs CNF+ (``needs``), the backend's first solver
    that takes it: where a cross-check or a mutant runs such an encoding unasked."""
    if solver is None and CNF_PLUS in needs and backend.cnf_plus_solvers:
        return backend.cnf_plus_solvers[0]
    return solver


def check(backend: Backend, puzzle: Puzzle, job: Job) -> Encoding | None:
    """Refuse, in one line, a job ``backend`` cannot run on ``puzzle``; when it can, the job's encoding
    resolved for the backend's formulation (None for a backend with none)."""
    if job.method is not None and job.method not in METHODS:
        raise UnknownName("orbit counting method", job.method, METHODS)
    check_verb(backend, job)
    check_listing(backend, job)
    if job.up_to is not None:
        check_up_to(puzzle, job.up_to)
    check_orbit_method(backend, job)
    check_options(backend, job.request)
    check_capabilities(backend, puzzle, job)
    if job.split is not None:
        check_split(puzzle, job.split, job)
    if job.request.certify is not None:
        check_certify(backend, job)
    encoding = settle(backend, puzzle, job.request)
    backend.vet(puzzle, job.request, counting=job.verb == COUNT)
    if encoding is not None:
        check_needs(puzzle.encodings(backend.formulation).needs(encoding), backend.refuses_cnf_plus(job.request))
    return encoding


def settle(backend: Backend, puzzle: Puzzle, request: Request) -> Encoding | None:
    """The request's encoding text resolved for the backend's formulation: a counting backend counts each
    axis not named at its exact choice (its models are the solutions)."""
    if backend.formulation not in FORMULATIONS or "encoding" not in backend.takes:
        return None
    return resolve_encoding(puzzle, backend.formulation, request.encoding, exact=counts_only(backend))


def check_needs(needs: dict[str, tuple[str, str]], who: str | None) -> None:
    """Refuse an encoding that needs CNF+ (``needs``: each need and the choice that brings it) where ``who``
    cannot take it (None: it can), naming the backends and solvers that can."""
    if CNF_PLUS not in needs or who is None:
        return
    takers = [f"backend {name} with solver {solvers[0]}" + (f" (or {', '.join(solvers[1:])})" if solvers[1:] else "")
              for name in BACKENDS if (solvers := backend_class(name).cnf_plus_solvers)]
    choice, axis = needs[CNF_PLUS]
    raise InvalidOption(f"{choice} is CNF+ (native cardinality constraints), which {who} cannot take: "
                        f"choose {join_or(takers) if takers else 'another backend'}, or another {axis} encoding")


def check_verb(backend: Backend, job: Job) -> None:
    """The verb must be one the backend can do; solutions are refused plainly by a counting backend."""
    if job.verb in backend.can:
        return
    raise listing_refused(backend) if counts_only(backend) else cannot(backend, job.verb)


def check_listing(backend: Backend, job: Job) -> None:
    """What only a backend that lists solutions has: a solution limit, a choice of orbit method, parts."""
    if ENUMERATE in backend.can:
        return
    if job.limit is not None:
        raise InvalidOption(f"backend {backend.name!r} counts without listing solutions, so it has no solution limit")
    if job.method is not None:
        raise InvalidOption(f"backend {backend.name!r} counts orbits its own way: method={job.method!r} does not apply")


def check_up_to(puzzle: Puzzle, up_to: str) -> None:
    """``up_to`` must name a group the puzzle declares."""
    if up_to not in SYMMETRIES:
        raise UnknownName("group", up_to, SYMMETRIES, " for up_to=")
    groups = puzzle.symmetry.groups
    if groups.get(up_to) is None:
        offered = f"it counts up to: {', '.join(groups)}" if groups else "it declares none"
        raise InvalidOption(f"up_to={up_to!r} does not apply to puzzle {puzzle.name!r} ({offered})")


def check_orbit_method(backend: Backend, job: Job) -> None:
    """A method counts orbits, so it needs ``up_to``; Burnside's lemma counts fixed points of a formulation."""
    if job.method is None:
        return
    if job.up_to is None:
        raise InvalidOption(f"method={job.method!r} counts orbits: it needs up_to= ({' or '.join(SYMMETRIES)})")
    if job.method != BURNSIDE:
        return
    if job.split is not None and job.split.checkpoint is not None:
        raise InvalidOption("a checkpoint (checkpoint=) records one count: Burnside's lemma makes one per group "
                            "element")
    if job.limit is not None:
        raise InvalidOption("a solution limit needs the canonical method: Burnside's lemma counts, it finds no orbits")
    if not searches_formulation(backend):
        raise InvalidOption(f"backend {backend.name!r} has no formulation to count fixed points with, so it can only "
                            "count canonical representatives (Burnside's lemma needs "
                            f"{join_or(backends_where(searches_formulation))})")


def check_options(backend: Backend, request: Request) -> None:
    """Refuse options the backend would silently ignore."""
    for option in OPTIONS:
        value = getattr(request, option)
        if value is not None and option not in backend.takes:
            takers = [n for n in BACKENDS if option in backend_class(n).takes]
            raise InvalidOption(
                f"{option}={value!r} does not apply to backend {backend.name!r} (only {', '.join(takers)})")


def check_capabilities(backend: Backend, puzzle: Puzzle, job: Job) -> None:
    """The puzzle, the split, orbits and a time limit must each be something the backend can do."""
    if job.split is not None and LAYERS in backend.can and job.split.parts is not None:
        raise InvalidOption(f"parts={job.split.parts} does not apply to backend {backend.name!r}: it partitions each "
                            "layer itself (jobs=, scheduler= and checkpoint= do apply)")
    if job.split is not None and SPLIT not in backend.can and LAYERS not in backend.can:
        raise InvalidOption(f"backend {backend.name!r} does not split a count into parts: drop the split (jobs=, "
                            "scheduler=, parts= and checkpoint=)")
    refusal = backend.refusal(puzzle)
    if refusal:
        raise InvalidOption(refusal)
    if job.up_to is not None and UP_TO not in backend.can:
        # Every backend that lists solutions counts orbits by canonical representatives; a counter, where it can.
        able = backends_where(lambda b: UP_TO in b.can and b().counts_orbits(puzzle))
        raise InvalidOption(f"backend {backend.name!r} cannot count up to {job.up_to}: count with {join_or(able)}")
    if job.time_limit is not None and TIME_LIMIT not in backend.can:
        able = backends_where(lambda b: TIME_LIMIT in b.can)
        raise InvalidOption(f"backend {backend.name!r} cannot stop at a time limit: drop time_limit= or run "
                            f"{join_or(able)}")


def check_split(puzzle: Puzzle, split: Splitting, job: Job) -> None:
    """A split run needs workers, a puzzle they can find by name, and a checkpoint only for a plain count."""
    if split.jobs < 1:
        raise InvalidOption(f"jobs={split.jobs}: must be at least 1")
    if not registered(puzzle):
        raise InvalidOption(f"puzzle {puzzle.name!r} is not a built-in or plugin puzzle: workers find a "
                            "puzzle by its name, so a split run needs one registered (see Adding a puzzle)")
    if split.checkpoint is not None:
        if job.limit is not None or job.verb != COUNT or job.keep:
            raise InvalidOption("a checkpoint (checkpoint=) records counts: it goes with count, without a solution "
                                "limit (limit=)")
        check_writable(Path(split.checkpoint))


def check_certify(backend: Backend, job: Job) -> None:
    """A certified run needs a backend whose answers come with proofs, and a plain run of solutions: an orbit
    count and a checkpoint's parts from an earlier run have no certificate to check."""
    if CERTIFY not in backend.can:
        raise InvalidOption(f"backend {backend.name!r} cannot certify its answers: certify=True needs "
                            f"{join_or(backends_where(lambda b: CERTIFY in b.can))}")
    if job.up_to is not None:
        raise InvalidOption(f"certify=True certifies solutions, not orbits: drop up_to={job.up_to!r}")
    if job.split is not None and job.split.checkpoint is not None:
        raise InvalidOption("certify=True and a checkpoint (checkpoint=) exclude each other: parts recorded by an "
                            "earlier run have no certificate")


def registered(puzzle: Puzzle) -> bool:
    """Whether a worker that looks ``puzzle`` up by name gets this very puzzle."""
    try:
        return get_puzzle(puzzle.name) is puzzle
    except GridsatError:
        return False
