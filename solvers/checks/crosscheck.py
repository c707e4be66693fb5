"""The cross-check harness: every backend and encoding on one instance, compared solution by solution."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gridsat.models.errors import GridsatError, UnknownName
from gridsat.models.puzzle import Case, Instance, Puzzle
from gridsat.models.registries import CNF_PLUS
from gridsat.models.solution import freeze
from gridsat.solvers import reprs
from gridsat.solvers.backend import BACKENDS, COUNT, Backend, Request, backend_class, counts_only
from gridsat.solvers.gate import Bound, Job, admit, resolve_encoding, solver_taking
from gridsat.solvers.run import Outcome, consume, tally
from gridsat.solvers.splitting.parallel import launch
from gridsat.solvers.stop import INTERRUPTED

# What a cross-check says of each run: its count matched the golden count (``checked``; one that did not
# is a problem naming the golden count's source); with no golden count, every finished run gave the same
# answer (``agreed``) or not (``disputed``: no majority is taken for the truth); ``unchecked``, a run that
# did not finish, or the only one that did.
CHECKED, AGREED, DISPUTED, UNCHECKED = "checked", "agreed", "disputed", "unchecked"
VERDICTS = (CHECKED, AGREED, DISPUTED, UNCHECKED)
SCOPES = ("default", "each", "all")  # which encodings: the defaults, each choice once, the full product
# Each run's time budget when a cross-check through the API or CLI names none: long enough for the
# solvers and counters on the README's examples, short enough that a backtracking search that would run
# for hours is reported unfinished instead.
RUN_BUDGET = 60.0
# The whole cross-check's budget by default, when it runs more than each backend's default (an "each"
# of prime-grid 4x4/16 took 717 s, eleven Ganak runs at their 60 s): the runs it leaves are listed.
TOTAL_BUDGET = 150.0


@dataclass(frozen=True)
class Turn:
    """A run about to start: its place among the cross-check's runs, what it runs and its time budget."""

    number: int  # from 1
    of: int
    config: Bound  # the run, gated: its backend and choices (``.label`` names them)
    time_limit: float | None


@dataclass
class Report:
    """The outcomes of a cross-check and every disagreement found between them."""

    puzzle: str
    instance: str
    outcomes: list[Outcome]
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # backends left out, and why (not installed, no formulation)
    golden: Case | None = None  # the instance's golden count with its source, when one is known
    verdicts: list[str] = field(default_factory=list)  # per outcome: CHECKED, AGREED, DISPUTED or UNCHECKED

    def __repr__(self) -> str:  # the dataclass's own would print every run's every solution
        runs = [f"{o.label}: {o.summary()['count']}" for o in self.outcomes]
        return reprs.brief(type(self).__name__, {"puzzle": self.puzzle, "instance": self.instance,
                                                   "agree": self.agree, "complete": self.complete, "runs": runs,
                                                   "problems": len(self.problems)})

    def _repr_html_(self) -> str:
        return reprs.report_html(self)

    @property
    def notes(self) -> list[str]:
        """What to tell the user besides the verdict: runs left out and why, counts only probably exact
        (each note once)."""
        return list(dict.fromkeys([*self.skipped, *guarantees(self.outcomes)]))

    @property
    def compared(self) -> bool:
        """Whether anything was checked: a finished run against the golden count or another run, or a run's
        solutions against the rules (a run alone, with no golden count, is checked against nothing)."""
        return bool(self.problems) or any(v != UNCHECKED for v in self.verdicts)

    @property
    def agree(self) -> bool:
        return not self.problems

    @property
    def complete(self) -> bool:
        """Whether at least one run saw every solution (so counts could be compared)."""
        return any(o.complete for o in self.outcomes)

    @property
    def interrupted(self) -> bool:
        """Whether Ctrl-C or SIGTERM ended the cross-check (the runs after it never started)."""
        return any(o.reason == INTERRUPTED for o in self.outcomes)

    def tally(self) -> dict[str, int]:
        """How many runs were checked against the golden count, agreed, disputed and unchecked."""
        return {verdict: self.verdicts.count(verdict) for verdict in VERDICTS}

    def summary(self) -> dict[str, Any]:
        return {
            "puzzle": self.puzzle,
            "instance": self.instance,
            "agree": self.agree,
            "complete": self.complete,
            "interrupted": self.interrupted,
            "problems": self.problems,
            "notes": self.notes,
            "results": [o.summary() for o in self.outcomes],
            "golden": {"count": self.golden.count, "source": self.golden.source} if self.golden else None,
            "verdicts": self.tally(),
        }


def guarantees(outcomes: list[Outcome]) -> list[str]:
    """A note per backend whose counts are exact with high probability only (Ganak, as pyganak runs it),
    once however many of its encodings ran."""
    backends = dict.fromkeys(o.backend for o in outcomes if o.details.get("guarantee") == "probabilistic")
    return [f"{name}: probabilistic counts (exact with high probability; pyganak offers no exact mode)"
            for name in backends]


def left_out(puzzle: Puzzle) -> dict[str, str]:
    """The registered backends a cross-check that names none leaves out, each with the reason: not
    installed, or unable to run this puzzle at all (a counting backend without its formulation)."""
    found = {}
    for name in BACKENDS:
        backend = backend_class(name)()
        why = None if backend.supported() else f"not installed ({backend.install})"
        why = why or backend.refusal(puzzle)
        if why:
            found[name] = why
    return found


@dataclass(frozen=True)
class Runs:
    """How a cross-check's runs are bound: each listing run's solutions kept (in parts when ``split``), or
    orbits under ``up_to`` (a counting backend counts them its own way)."""

    split: Any = None  # a solvers.splitting.parallel.Split
    up_to: str | None = None

    def bind(self, backend: Backend, puzzle: Puzzle, request: Request | None = None) -> Bound:
        """``backend``'s run of ``request`` on ``puzzle``, gated once: refused in one line when it cannot run."""
        request = request or Request()
        if counts_only(backend):  # it lists no solutions: its count is compared
            return admit(backend, puzzle, Job(COUNT, request, up_to=self.up_to))
        return admit(backend, puzzle, Job(COUNT, request, up_to=self.up_to, split=self.split, keep=True))

    def named(self, name: str, puzzle: Puzzle, request: Request | None = None) -> Bound:
        """The run of the registered backend ``name`` (one not installed is refused, saying so)."""
        return self.bind(backend_class(name)(), puzzle, request)

    def bind_or_note(self, backend: Backend, puzzle: Puzzle, request: Request | None = None,
                     notes: list[str] | None = None, noted: bool = False) -> list[Bound]:
        """``bind``, as a list; a run the gate refuses is left out with a line in ``notes`` when it is a
        counting backend's (orbits it cannot count, an encoding it cannot take) or ``noted``, and refused
        otherwise (a listing backend the user chose must run)."""
        try:
            return [self.bind(backend, puzzle, request)]
        except GridsatError as error:
            if not (noted or counts_only(backend)):
                raise
            if notes is not None:
                label = f"{backend.name}:{request.encoding}" if request and request.encoding else backend.name
                notes.append(f"{label}: not run: {error}")
            return []


def configurations(
    puzzle: Puzzle, backends: Iterable[str] | None = None, scope: str | Sequence[str] = "default",
    solver: str | None = None, notes: list[str] | None = None, plan: Runs = Runs(),
) -> list[Bound]:
    """The runs a cross-check makes, each bound by ``plan``: per backend, the encodings (or algorithms) of
    ``scope``; ``solver`` goes to the backends that take one. Unnamed, every backend that ``left_out`` does
    not leave out. ``scope`` is ``default``, ``each``, ``all``, or a list of encoding or algorithm names:
    each backend runs exactly those of them it offers (``crt``, ``rank``; ``cpsat:mtz`` names one
    backend's), and a name that none of the backends offers is refused. ``each`` and ``all`` leave out the
    algorithms that do not search for every solution, with a line in ``notes``. A counting backend skips
    the encodings it cannot count (a lazy one), each with a line in ``notes``."""
    configs: list[Bound] = []
    skip = left_out(puzzle) if backends is None else {}
    names = None if isinstance(scope, str) else list(scope)
    chosen_backends = list(backends or fastest_first([n for n in BACKENDS if n not in skip]))
    for name in chosen_backends:
        backend = backend_class(name)()
        if names is not None:
            configs += named_configs(puzzle, name, backend, names, solver, notes, plan)
        elif "encoding" in backend.takes:
            configs += encoding_runs(puzzle, backend, scope, solver, notes, plan)
        elif "algorithm" in backend.takes and scope != "default":
            for algorithm in backend.choices(puzzle)["algorithm"]:
                if counts_every_solution(puzzle, algorithm):
                    configs += plan.bind_or_note(backend, puzzle, Request(algorithm=algorithm), notes)
                elif notes is not None:
                    notes.append(f"{name}:{algorithm}: not run: it does not search for every solution")
        else:
            configs += plan.bind_or_note(backend, puzzle, notes=notes)
    if names is not None:
        refuse_unoffered(puzzle, names, chosen_backends, configs)
    return configs


def encoding_runs(puzzle: Puzzle, backend: Backend, scope: str, solver: str | None, notes: list[str] | None,
                  plan: Runs) -> list[Bound]:
    """The runs of ``backend`` over the encodings of ``scope``: an encoding it cannot run (a counter's lazy
    one; one that needs CNF+ where no solver takes it) is noted and left out."""
    space = puzzle.encodings(backend.formulation)
    # A counting backend counts an axis not named at its exact choice (an eager one), so its "each" varies
    # one axis at a time from there; a lazy choice is refused when built.
    each = space.variants(exact=counts_only(backend))
    encodings = [None] if scope == "default" else each if scope == "each" else space.all()
    chosen = solver if "solver" in backend.takes else None
    runs = []
    for e in encodings:
        # an encoding that needs CNF+ runs only on a solver that takes it: the first, unless one is named
        needs = space.needs(e) if e is not None else {}
        request = Request(encoding=e.name if e else None, solver=solver_taking(backend, needs, chosen))
        runs += plan.bind_or_note(backend, puzzle, request, notes, noted=e is not None and CNF_PLUS in needs)
    return runs


def named_configs(puzzle: Puzzle, name: str, backend: Any, names: list[str], solver: str | None,
                  notes: list[str] | None = None, plan: Runs = Runs()) -> list[Bound]:
    """The runs of backend ``name`` among the chosen encoding or algorithm ``names`` (``backend:choice``
    names one backend's own). A backend that takes no encoding, none of whose algorithms is named, runs
    its default: encodings are no reason to drop it. One that takes encodings and offers none of those
    named is left out, with a line in ``notes``."""
    configs = named_choices(puzzle, name, backend, names, solver, plan, notes)
    if not configs and "encoding" not in backend.takes:
        configs += plan.bind_or_note(backend, puzzle, notes=notes)
    elif not configs and notes is not None:
        notes.append(f"{name}: not run: it offers none of the encodings named ({', '.join(names)})")
    return configs


def named_choices(puzzle: Puzzle, name: str, backend: Any, names: list[str], solver: str | None,
                  plan: Runs, notes: list[str] | None) -> list[Bound]:
    """The runs of backend ``name`` whose encoding or algorithm is among ``names``."""
    configs = []
    for text in names:
        owner, _, choice = text.rpartition(":")
        if owner and owner != name:
            continue
        if "encoding" in backend.takes:
            request = Request(encoding=choice, solver=solver if "solver" in backend.takes else None)
            try:
                resolve_encoding(puzzle, backend.formulation, choice)
            except GridsatError:  # an encoding this backend does not offer: another chosen backend's
                continue
            configs += plan.bind_or_note(backend, puzzle, request, notes)
        elif "algorithm" in backend.takes and choice in backend.choices(puzzle)["algorithm"]:
            configs += plan.bind_or_note(backend, puzzle, Request(algorithm=choice), notes)
    return configs


def refuse_unoffered(puzzle: Puzzle, names: list[str], backends: list[str], configs: list[Bound]) -> None:
    """A chosen name that no chosen backend runs is a typo or a wrong backend: one line, never a quiet skip."""
    ran = {c.request.encoding or c.request.algorithm for c in configs}
    for text in names:
        if text.rpartition(":")[2] not in ran:
            raise UnknownName(f"encoding or algorithm of {puzzle.name} for {', '.join(backends)}", text,
                              offered(puzzle, backends))


def offered(puzzle: Puzzle, backends: list[str]) -> list[str]:
    """Every encoding token and algorithm the backends offer, for the refusal's list."""
    found: list[str] = []
    for name in backends:
        backend = backend_class(name)()
        if "encoding" in backend.takes:
            found += [t for t in puzzle.encodings(backend.formulation).tokens() if t not in found]
        elif "algorithm" in backend.takes:
            found += [a for a in backend.choices(puzzle)["algorithm"] if a not in found]
    return found


def counts_every_solution(puzzle: Puzzle, algorithm: str) -> bool:
    """Whether the reference algorithm searches for every solution (Warnsdorff's rule finds one)."""
    from gridsat.solvers.backends.algorithms import algorithms

    found = algorithms(puzzle).get(algorithm)
    return found is None or found.exhaustive


def fastest_first(names: list[str]) -> list[str]:
    """Backends by ``Backend.cost_rank`` (registry order within a rank): a cross-check that names no
    backends sees the solvers' and counters' answers first, not after an hours-long backtracking."""
    return sorted(names, key=lambda name: backend_class(name).cost_rank)


def budget(config: Bound, time_limit: float | None, notes: list[str]) -> float | None:
    """The time limit a run of ``config`` gets: ``time_limit``, unless its backend cannot be stopped at
    one (a SAT solver PySAT gives no budget), which then runs to its end and says so in ``notes``."""
    if time_limit is None or config.backend.stops(config.request):
        return time_limit
    notes.append(f"{config.label}: no time limit: it cannot be stopped at one, so it ran to its end")
    return None


def compare(outcomes: list[Outcome]) -> list[str]:
    """Every disagreement: broken rules, repeated solutions, different counts, different solution sets."""
    return faults(outcomes) + differences(outcomes)


def faults(outcomes: list[Outcome]) -> list[str]:
    """What each run gets wrong on its own: solutions that break the rules, solutions returned twice."""
    problems = []
    for o in outcomes:
        for solution, broken in o.invalid[:1]:
            problems.append(f"{o.label}: {len(o.invalid)} solutions break the rules, e.g. {broken[0]}: {solution}")
        if o.duplicates:
            problems.append(repeated(o))
    return problems


def differences(outcomes: list[Outcome]) -> list[str]:
    """Where the runs differ from one another: counts, solution sets (an unfinished run: solutions beyond)."""
    problems: list[str] = []
    complete = [o for o in outcomes if o.complete]
    if not complete:
        return problems
    # A counting backend lists no solutions: its count is compared, and sets only between listing runs.
    base = next((o for o in complete if o.solutions is not None), complete[0])
    base_set = {freeze(s) for s in base.solutions or []}
    for o in outcomes:
        if o is base:
            continue
        if o.solutions is None or base.solutions is None:
            if o.complete and o.count != base.count:
                problems.append(f"{o.label} counts {o.count}, {base.label} counts {base.count}")
            continue
        found = {freeze(s) for s in o.solutions}
        extra, missing = len(found - base_set), len(base_set - found)
        if o.complete and (o.count != base.count or extra or missing):
            problems.append(
                f"{o.label} counts {o.count}, {base.label} counts {base.count} "
                f"({extra} solutions only in the first, {missing} only in the second)"
            )
        elif not o.complete and extra:
            problems.append(f"{o.label} (incomplete) found {extra} solutions that {base.label} does not have")
    return problems


def repeated(o: Outcome) -> str:
    """The problem of a run that returned solutions more than once (its count drops them, its time does not)."""
    return (f"{o.label} returned {o.duplicates} solution{'s' if o.duplicates != 1 else ''} more than once: a "
            "projection that is not one-to-one, or symmetry breaking too weak")


def against(outcomes: list[Outcome], golden: Case | None) -> list[str]:
    """Every finished run whose count is not the golden count, naming its source."""
    if golden is None:
        return []
    return [f"{o.label} counts {o.count}, but the golden count is {golden.count} ({golden.source})"
            for o in outcomes if o.complete and o.count != golden.count]


def judge(outcomes: list[Outcome], golden: Case | None, disagree: bool) -> list[str]:
    """Each run's verdict (see ``VERDICTS``); ``disagree``: the finished runs differ among themselves."""
    finished = sum(o.complete for o in outcomes)
    return [UNCHECKED if not o.complete else CHECKED if golden is not None else DISPUTED if disagree
            else AGREED if finished > 1 else UNCHECKED for o in outcomes]


def reported(puzzle: Puzzle, instance: Instance, outcomes: list[Outcome], skipped: list[str],
             golden: Case | None) -> Report:
    """The report of ``outcomes``: compared with each other and with the golden count, each run judged."""
    differ = differences(outcomes)
    return Report(puzzle.name, puzzle.describe(instance), outcomes,
                  faults(outcomes) + differ + against(outcomes, golden), skipped, golden,
                  judge(outcomes, golden, bool(differ)))


def crosscheck(
    puzzle: Puzzle,
    instance: Instance,
    configs: list[Bound],
    *,
    time_limit: float | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
    on_start: Callable[[Turn], None] | None = None,
    skipped: list[str] | None = None,
    golden: Case | None = None,
    total: float | None = None,
) -> Report:
    """Run every configuration (bound by ``configurations``) to the end (or its time limit) and compare the
    solution sets, and the counts with ``golden`` (the instance's golden count) when one is known.

    ``time_limit`` is each run's own (see ``budget``); a run it stops is unfinished, and the finished
    runs are compared all the same. ``on_start`` sees each run as it starts, ``on_outcome`` as it ends.
    A listing backend's solutions are kept (in parts when its run was bound with a split); a counting
    backend's count is compared, and one it refuses once built (a lazy encoding) is noted. Ctrl-C (or
    SIGTERM) ends the cross-check, not just the run it hit: what ran is still compared. ``total`` bounds
    the whole cross-check: each run gets at most what is left of it, and the runs it leaves unstarted are
    listed in the report's notes.
    """
    outcomes = []
    skipped = list(skipped or [])
    ends = None if total is None else time.monotonic() + total
    for number, config in enumerate(configs, 1):
        left = None if ends is None else ends - time.monotonic()
        if left is not None and left <= 0:
            skipped += [f"{c.label}: not run: the cross-check's budget of {total:g} s was spent"
                        for c in configs[number - 1:]]
            break
        limit = budget(config, time_limit if left is None else min(left, time_limit or left), skipped)
        if on_start:
            on_start(Turn(number, len(configs), config, limit))
        run = config.narrowed(time_limit=limit)
        if counts_only(config.backend):  # it lists no solutions: its count is compared
            try:
                outcome = tally(puzzle, instance, run)
            except GridsatError as error:  # an encoding it cannot count (a lazy one), known once built
                skipped.append(f"{config.name}:{config.request.encoding or 'default'}: not run: {error}")
                continue
        else:
            outcome = consume(launch(puzzle, instance, run))
        outcomes.append(outcome)
        if on_outcome:
            on_outcome(outcome)
        if outcome.reason == INTERRUPTED:
            break
    return reported(puzzle, instance, outcomes, skipped, golden)
