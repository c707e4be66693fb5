"""Counting up to symmetry: orbits of solutions under a puzzle's group, two independent ways.

The group is the puzzle's own declaration (``Puzzle.symmetry``, built on models/symmetry.py):
the board symmetries that map the instance onto itself, and for knight's tours the reversal.

* Canonical representatives (``Orbits``, every backend): each solution a run streams (verified,
  de-duplicated) is mapped through every element of the group; it is kept when it is the canonical
  representative of its orbit, the smallest of its images' canonical forms compared as frozen
  tuples (nested lists become tuples, compared element by element: for a tiling the sorted mats,
  for a grid the values row by row, for a tour the squares in visiting order). The orbit's size is
  the number of distinct images. This is a filter applied to one solution at a time, so it composes
  with a count split into disjoint parts: each orbit's representative lies in exactly one part.
* Burnside's lemma (``burnside``, backends with a formulation: cpsat and sat): orbits =
  (1/|G|) * sum over g of fix(g), where fix(g) is an ordinary count of the puzzle's formulation
  with x == g(x) added for every primary variable (``fix_cpsat``, ``fix_cnf``), not a filter over
  an enumeration. The reference backend has no formulation, so it only counts representatives.

An encoding that already breaks symmetry keeps one solution per orbit and lists the orbit through
``images`` (prime-grid's ``symmetry``; the ``symmetry`` and ``reversal`` lex-leaders of
models/breaking.py). The orbit count is then the number of solutions the solver finds: the canonical
method drops the ``images`` and counts those solutions directly, each standing for its orbit's
canonical representative (the kept solution is the smallest of its orbit in the formulation's own
variable order, which need not be the canonical order); a second kept solution of an orbit already
counted is reported as invalid (within one process: the parts of a split run are not compared).
Burnside keeps the formulation whole for fix(identity) (the ordinary count, images listed) and
counts fix(g) for the other elements with the group's ``unbroken`` encoding choices, since a model
that keeps one solution per orbit cannot say which solutions g fixes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any

from gridsat.models.encoding import Encoding
from gridsat.models.errors import GridsatError, InvalidOption
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Solution
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import freeze
from gridsat.models.symmetry import Element, Group, fix_cnf, fix_cpsat
from gridsat.solvers import reprs
from gridsat.solvers.backend import Request, counts_only, searches_formulation
from gridsat.solvers.checks.crosscheck import Report, Turn, budget, compare, judge
from gridsat.solvers.gate import BURNSIDE, METHODS, SYMMETRIES, Bound, admit, check_up_to
from gridsat.solvers.run import SOLUTIONS, Enumeration, Outcome, Run, consume, tally
from gridsat.solvers.splitting.parallel import Variant, launch
from gridsat.solvers.stop import SOLUTION_LIMIT, Stop

# The choices of up_to and of the method, checked by the gate; named here too, where callers read them.
UP_TO, METHODS = SYMMETRIES, METHODS
# What an orbit is, in the words a count is described with ("tours: undirected").
PHRASES = {"symmetry": "up to symmetry", "reversal": "undirected"}


def group_of(puzzle: Puzzle, instance: Instance, up_to: str) -> Group:
    """The group the puzzle declares for ``up_to``; one it does not declare is an input error."""
    check_up_to(puzzle, up_to)
    return puzzle.symmetry.groups[up_to](instance)


@dataclass(frozen=True)
class OrbitVariant:
    """What a run counts beyond its plain solutions (``SOLUTIONS``; ``variant_of``): the canonical
    representatives of their orbits (``up_to``), or the solutions one element of the group fixes (``up_to`` and
    ``element``, by name). Plain data, so that a worker process rebuilds the same run from the puzzle's name."""

    up_to: str
    element: str | None = None

    def __str__(self) -> str:
        return self.up_to + (f":{self.element}" if self.element else "")

    def open(self, puzzle: Puzzle, instance: Instance, bound: Bound, *, in_part: bool = False) -> Run:
        """The run that counts this variant (``in_part``: for one part of a split run)."""
        if self.element is None:
            return Orbits(puzzle, instance, bound, up_to=self.up_to, in_part=in_part)
        group = group_of(puzzle, instance, self.up_to)
        index = group.names.index(self.element)
        if index == 0:  # the identity fixes every solution: the ordinary count, with the encoding asked for
            return Enumeration(puzzle, instance, bound)
        fixed = unbroken_request(puzzle, bound, group.unbroken)
        return Enumeration(fixing(puzzle, group.elements[index]), instance, bound.narrowed(request=fixed))


def variant_of(up_to: str | None) -> Variant:
    """What a count with ``up_to`` counts: the plain solutions (``SOLUTIONS``: a split run of them counts parts
    beside its probe, solvers.splitting.parallel) when it is None, else the orbits' canonical representatives."""
    return SOLUTIONS if up_to is None else OrbitVariant(up_to)


@dataclass(repr=False)  # Outcome's short repr, not the dataclass's
class OrbitOutcome(Outcome):
    """An orbit count: ``count`` is orbits; the rest says how they were counted and what they hold.

    ``method``: ``canonical`` (representatives), ``burnside``, or ``native`` (a counting backend
    that counts orbits itself, such as the frontier's undirected tours).
    """

    up_to: str = "symmetry"
    method: str = "canonical"
    group: list[str] = field(default_factory=list)  # the elements' names, identity first
    group_note: str | None = None
    held: int = 0  # canonical: the solutions the orbits found hold (sum of their sizes)
    sizes: Counter[int] = field(default_factory=Counter)  # canonical: orbits found, by size
    fixed: dict[str, int] = field(default_factory=dict)  # burnside: fix(g) per element
    fixed_encoding: str | None = None  # burnside: the encoding of fix(g) for g != identity, when another
    problems: list[str] = field(default_factory=list)  # inconsistencies that make the count wrong
    met: int = 0  # canonical: the solutions the search met (the orbits must hold exactly these)
    leaders: bool = False  # canonical: the formulation keeps one solution per orbit (so met counts orbits)

    @property
    def label(self) -> str:
        return f"{self.backend}:{self.encoding} {self.method}"

    def _emptied(self, keep: bool) -> OrbitOutcome:
        return replace(super()._emptied(keep), held=0, sizes=Counter(), problems=[], met=0)

    def _merge(self, part: Outcome, *, counts: bool = True) -> None:
        super()._merge(part, counts=counts)
        assert isinstance(part, OrbitOutcome)  # a split run's parts count what the whole run counts
        self.met += part.met
        self.problems += part.problems
        if counts:
            self.held += part.held
            self.sizes.update(part.sizes)

    def _record(self) -> dict[str, Any]:
        return {"held": self.held, "sizes": self.sizes, "seen": self.met} if self.met else {}

    def _merge_record(self, record: dict[str, Any]) -> None:
        super()._merge_record(record)
        self.held += int(record.get("held", 0))
        self.sizes.update({int(k): v for k, v in record.get("sizes", {}).items()})
        self.met += int(record.get("seen", 0))

    @staticmethod
    def _solution_of(item: Any) -> Any:
        return item.solution

    def _deliver(self, item: Any) -> None:
        super()._deliver(item)
        self.held += item.size
        self.sizes[item.size] += 1

    def _check_parts(self) -> None:
        """The orbits of a count split into parts hold exactly the solutions its parts met (unless the
        encoding keeps one solution per orbit)."""
        if self.method == "canonical" and not self.leaders and self.held != self.met:
            self.problems.append(f"the orbits hold {self.held} solutions but the parts met {self.met}: "
                                 "the solutions are not closed under the group")

    def summary(self) -> dict[str, Any]:
        record = {**super().summary(), "up_to": self.up_to, "method": self.method, "group": len(self.group),
                  "elements": self.group, "problems": self.problems}
        if self.group_note:
            record["group_note"] = self.group_note
        if self.method == "canonical":
            record["solutions"] = self.held
            record["orbit_sizes"] = {str(size): n for size, n in sorted(self.sizes.items())}
        elif self.method == "burnside":
            record["solutions"] = next(iter(self.fixed.values()), 0)
            record["fixed"] = self.fixed
            if self.fixed_encoding:
                record["fixed_encoding"] = self.fixed_encoding
        return record


def tally_orbits(puzzle: Puzzle, instance: Instance, bound: Bound,
                 progress: Callable[[str], None] | None = None) -> OrbitOutcome:
    """An orbit count (of the job's ``up_to``) from a counting backend that counts orbits itself: ``native``, or
    ``burnside`` when the backend reports each element's fixed points (the frontier's folds)."""
    up_to = bound.job.up_to
    assert up_to is not None  # an orbit count's job says up to what
    group = group_of(puzzle, instance, up_to)
    counted = tally(puzzle, instance, bound, progress)
    fixed = counted.details.pop("fixed", None)
    if fixed is None:
        return orbit_outcome(counted, group, up_to, "native")
    outcome = orbit_outcome(counted, group, up_to, "burnside")  # the backend's own Burnside's lemma
    outcome.fixed = fixed
    total = sum(fixed.values())
    if outcome.complete and list(fixed) != group.names:
        outcome.problems.append(f"the fixed points are of {list(fixed)}, not of the group {group.names}")
    elif outcome.complete and total % len(group):
        outcome.problems.append(f"the fixed points sum to {total}, which {len(group)} does not divide")
    return outcome


def orbit_outcome(base: Outcome, group: Group, up_to: str, method: str) -> OrbitOutcome:
    """An orbit outcome that starts as a copy of an ordinary run's."""
    copied = {f.name: getattr(base, f.name) for f in fields(Outcome)}
    copied["invalid"] = list(base.invalid)
    return OrbitOutcome(**copied, up_to=up_to, method=method, group=group.names, group_note=group.note)


@dataclass(frozen=True)
class Orbit:
    """One orbit: its canonical representative and how many solutions it holds."""

    solution: Solution
    size: int

    def __repr__(self) -> str:  # a solution's own repr can run to thousands of characters
        return reprs.brief("Orbit", {"size": self.size, "solution": self.solution})


class Orbits(Run):
    """The canonical representative of every orbit a run meets, as they come; ``outcome`` counts them.

    Like ``Enumeration`` (which it wraps): closing it stops the solver, and ``limit`` counts orbits.
    """

    def __init__(
        self,
        puzzle: Puzzle,
        instance: Instance,
        bound: Bound,
        *,
        up_to: str,
        in_part: bool = False,
    ) -> None:
        self.group, self.up_to = group_of(puzzle, instance, up_to), up_to
        self.in_part = in_part  # one part of a split run: its solutions need not be closed under the group
        self.leaders = False  # set when the formulation keeps one solution per orbit
        keep, limit = bound.job.keep, bound.job.limit
        # the run lists solutions without a limit: a representative may come after many solutions
        listing = bound.narrowed(request=replace(bound.request, limit=None), limit=None, keep=False)
        wrapped = replace(puzzle, cpsat=self._representatives(puzzle.cpsat), cnf=self._representatives(puzzle.cnf))
        self.run = Enumeration(wrapped, instance, listing)
        self.search, self.stop = self.run.search, self.run.stop
        self.outcome = orbit_outcome(self.run.outcome, self.group, up_to, "canonical")
        self.outcome.leaders = self.leaders
        self.outcome.solutions = [] if keep else None
        self.limit = limit
        self._wrong: list[tuple[Solution, list[str]]] = []
        self._items = self._stream()

    def _representatives(self, build: Callable[[Instance, Any], Any]) -> Callable[[Instance, Any], Any]:
        """``build`` with the orbit listing dropped: such a formulation's own solutions are the orbits."""

        def formulate(instance: Instance, encoding: Any) -> CpsatFormulation | CnfFormulation:
            formulation = build(instance, encoding)
            if formulation.images is None or formulation.orbits_of != self.up_to:
                return formulation  # every solution, or the orbits of another group: its images are filtered
            self.leaders = True
            return replace(formulation, images=None)

        return formulate

    def _stream(self) -> Iterator[Orbit]:
        outcome = self.outcome
        counted: set[Hashable] = set()  # with leaders: the orbits already met, by representative
        try:
            for kept in self.run:
                frozen, solution, size = representative(self.group, kept)
                if self.leaders:  # the formulation's own leader stands for its orbit, whichever image it is
                    if frozen in counted:
                        self._wrong.append((kept, ["the encoding kept two solutions of one orbit"]))
                        continue
                    counted.add(frozen)
                elif freeze(kept) != frozen:
                    continue
                outcome.count += 1
                outcome.held += size
                outcome.sizes[size] += 1
                if outcome.solutions is not None:
                    outcome.solutions.append(solution)
                yield Orbit(solution, size)
                if self.limit is not None and outcome.count >= self.limit:
                    self.stop.request(SOLUTION_LIMIT)
                    break
        finally:
            self.run.close()
            self._settle()

    def _settle(self) -> None:
        """Copy the run's verdict; check that the orbits hold every solution the run saw."""
        run, outcome = self.run.outcome, self.outcome
        outcome.complete, outcome.reason, outcome.seconds = run.complete, run.reason, run.seconds
        outcome.duplicates, outcome.invalid = run.duplicates, run.invalid + self._wrong
        outcome.met = run.count
        if run.complete and not self.in_part and not self.leaders and outcome.held != run.count:
            outcome.problems.append(f"the orbits hold {outcome.held} solutions but the run found {run.count}: "
                                    "the solutions are not closed under the group")


def representative(group: Group, solution: Solution) -> tuple[Hashable, Solution, int]:
    """The canonical representative of a solution's orbit (frozen, and as a solution) and the orbit's size."""
    images = group.orbit(solution)
    smallest = min(images)
    return smallest, images[smallest], len(images)


def count_canonical(puzzle: Puzzle, instance: Instance, bound: Bound) -> OrbitOutcome:
    """Count canonical representatives (of the job's ``up_to``) to the end (or a limit, or Ctrl-C), in parts
    when the job is split."""
    return run_count(puzzle, instance, bound, OrbitVariant(bound.job.up_to))


def run_count(puzzle: Puzzle, instance: Instance, bound: Bound, variant: OrbitVariant) -> Any:
    """One count of ``variant``: one search in this process, or a run split into parts."""
    return consume(launch(puzzle, instance, bound, variant=variant))


def fixing(puzzle: Puzzle, element: Element) -> Puzzle:
    """The puzzle whose formulations keep only the solutions ``element`` fixes (and whose verifier checks it)."""

    def verify(instance: Instance, solution: Solution) -> list[str]:
        problems = puzzle.verify(instance, solution)
        if not problems and freeze(element.solution(solution)) != freeze(solution):
            problems = [f"not fixed by {element.name}"]
        return problems

    return replace(
        puzzle,
        cpsat=lambda instance, encoding: fix_cpsat(puzzle.cpsat(instance, encoding), element),
        cnf=lambda instance, encoding: fix_cnf(puzzle.cnf(instance, encoding), element),
        verify=verify,
    )


def unbroken_request(puzzle: Puzzle, bound: Bound, choices: tuple[str, ...]) -> Request:
    """The bound request with the encoding choices that keep every solution in place of their axes' choices
    (its encoding as the gate resolved it, changed on those axes: no text parsed again)."""
    request = bound.request
    if not choices or request.resolved is None:
        return request
    space = puzzle.encodings(bound.backend.formulation)
    owner = {choice: axis.name for axis in space.axes for choice in axis.choices}
    swap = {owner[choice]: choice for choice in choices if choice in owner}
    unbroken = Encoding(tuple((axis, swap.get(axis, choice)) for axis, choice in request.resolved.choices))
    return replace(request, encoding=unbroken.name, choice=replace(bound.choice, encoding=unbroken))


def burnside(puzzle: Puzzle, instance: Instance, bound: Bound) -> OrbitOutcome:
    """Count orbits (of the job's ``up_to``) by Burnside's lemma: fix(g) for every element, each an ordinary
    count of a constrained model (each split into parts when the job is split)."""
    up_to, time_limit = bound.job.up_to, bound.job.time_limit
    assert up_to is not None  # an orbit count's job says up to what
    group = group_of(puzzle, instance, up_to)
    stop = Stop(time_limit)
    outcome: OrbitOutcome | None = None
    for index, element in enumerate(group.elements):
        left = bound.narrowed(time_limit=time_limit if index == 0 else stop.remaining())
        run = run_count(puzzle, instance, left, OrbitVariant(up_to, element.name))
        if index == 0:  # the identity fixes every solution: the ordinary count
            outcome = orbit_outcome(run, group, up_to, "burnside")
            outcome.seconds = outcome.build_seconds = 0.0
        elif run.encoding != outcome.encoding:
            outcome.fixed_encoding = run.encoding
        outcome.fixed[element.name] = run.count
        outcome.seconds += run.seconds
        outcome.build_seconds += run.build_seconds
        outcome.duplicates += run.duplicates
        outcome.invalid += run.invalid if index else []
        if not run.complete:
            outcome.complete, outcome.reason = False, run.reason
            break
        if stop.expired():
            outcome.complete, outcome.reason = False, stop.reason
            break
    assert outcome is not None  # the identity is always an element
    total = sum(outcome.fixed.values())
    outcome.count = total // len(group)  # a lower bound when incomplete: every fix(g) only grows
    if outcome.complete and total % len(group):
        outcome.problems.append(f"the fixed points sum to {total}, which {len(group)} does not divide")
    return outcome


def count_orbits(puzzle: Puzzle, instance: Instance, bound: Bound) -> OrbitOutcome:
    """Count orbits by the job's ``method``: ``canonical`` representatives (the default) or ``burnside``."""
    if bound.job.method != BURNSIDE:
        return count_canonical(puzzle, instance, bound)
    return burnside(puzzle, instance, bound)


@dataclass(repr=False)  # Report's short repr, not the dataclass's
class OrbitReport(Report):
    """A cross-check of orbit counts: every configuration by canonical representatives and, where it
    has a formulation, by Burnside's lemma."""

    up_to: str = "symmetry"
    group: list[str] = field(default_factory=list)
    group_note: str | None = None

    @property
    def notes(self) -> list[str]:
        """What to tell the user besides the verdict: a shrunken group, the runs and Burnside counts not made."""
        return ([self.group_note] if self.group_note else []) + self.skipped

    def summary(self) -> dict[str, Any]:
        return {**super().summary(), "up_to": self.up_to, "group": len(self.group), "elements": self.group,
                "notes": self.notes}


def crosscheck_orbits(puzzle: Puzzle, instance: Instance, configs: list[Bound], *, up_to: str,
                      time_limit: float | None = None, on_outcome: Callable[[Outcome], None] | None = None,
                      on_start: Callable[[Turn], None] | None = None,
                      skipped: list[str] | None = None) -> OrbitReport:
    """Count orbits under ``up_to`` both ways on every configuration (each bound with it: see
    ``crosscheck.Runs``) and compare counts and representatives; a counting backend counts orbits its own
    way, where it can. ``time_limit`` is each run's own."""
    unbound = [c.label for c in configs if c.job.up_to != up_to]
    if unbound:
        raise InvalidOption(f"an orbit cross-check up to {up_to} needs runs bound with it, not {', '.join(unbound)}")
    group = group_of(puzzle, instance, up_to)
    outcomes: list[OrbitOutcome] = []
    skipped = list(skipped or [])

    def record(outcome: OrbitOutcome) -> None:
        outcomes.append(outcome)
        if on_outcome:
            on_outcome(outcome)

    for number, config in enumerate(configs, 1):
        limit = budget(config, time_limit, skipped)
        if on_start:
            on_start(Turn(number, len(configs), config, limit))
        run = config.narrowed(time_limit=limit)
        if counts_only(config.backend):
            try:
                record(tally_orbits(puzzle, instance, run))
            except GridsatError as error:  # e.g. a frontier that counts undirected tours but no board symmetry
                skipped.append(f"{config.name}: not run: {error}")
            continue
        record(count_canonical(puzzle, instance, run))
        if not searches_formulation(config.backend):
            continue
        try:  # Burnside's lemma is another job: gated on its own
            record(burnside(puzzle, instance, admit(config.backend, puzzle, replace(run.job, method=BURNSIDE,
                                                                                     keep=False))))
        except InvalidOption as error:  # e.g. the closed-tour position encoding, which no rotation permutes
            skipped.append(f"{config.name}:{config.request.encoding or 'default'}: no Burnside count: {error}")
    problems = compare_orbits(outcomes)
    # Golden counts are of solutions, not orbits: the runs are judged among themselves.
    return OrbitReport(puzzle.name, puzzle.describe(instance), list(outcomes), problems, skipped=skipped,
                       verdicts=judge(list(outcomes), None, bool(problems)), up_to=up_to, group=group.names,
                       group_note=group.note)


def compare_orbits(outcomes: list[OrbitOutcome]) -> list[str]:
    """Every disagreement: the representative sets (canonical), the counts (both), each run's own checks."""
    canonical = [o for o in outcomes if o.method == "canonical"]
    problems = compare(canonical)
    for o in outcomes:
        problems += [f"{o.label}: {problem}" for problem in o.problems]
        if o.method == "burnside" and o.invalid:
            solution, broken = o.invalid[0]
            problems.append(f"{o.label}: {len(o.invalid)} fixed points break the rules, e.g. {broken[0]}: {solution}")
    complete = [o for o in outcomes if o.complete]
    if not complete:
        return problems
    base = next((o for o in complete if o.method == "canonical"), complete[0])
    for o in complete:
        if o.method != "canonical" and o.count != base.count:
            problems.append(f"{o.label} counts {o.count} orbits, {base.label} counts {base.count}")
        if o.method == "burnside" and base.method == "canonical" and o.fixed.get(o.group[0]) != base.held:
            problems.append(f"{o.label} counts {o.fixed.get(o.group[0])} solutions, the orbits of {base.label} "
                            f"hold {base.held}")
    return problems


def counted(puzzle: Puzzle, up_to: str | None) -> dict[str, str]:
    """What a count counts, for JSON: the puzzle's words (``{"tours": "directed"}``), or for an orbit
    count the same keys saying what an orbit is (``{"tours": "up to symmetry"}``)."""
    if up_to is None:
        return dict(puzzle.count_meta)
    return {key: PHRASES[up_to] for key in puzzle.count_meta}


def count_notes(puzzle: Puzzle, outcome: Outcome) -> list[str]:
    """What a count counts, for the text line: ``tours: directed``, or ``tours: up to symmetry; group of 16``."""
    orbits = isinstance(outcome, OrbitOutcome)
    notes = [f"{k}: {v}" for k, v in counted(puzzle, outcome.up_to if orbits else None).items()]
    if orbits:
        if not notes:
            notes.append(PHRASES[outcome.up_to])
        notes.append(f"group of {len(outcome.group)}")
    return notes
