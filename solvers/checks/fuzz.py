"""Differential testing: random tiny instances, every encoding, backend and solver, each compared with
the puzzle's brute-force oracle (its ``Oracle`` part, models/<puzzle>/oracle.py).

A *pair* is one instance run by one configuration. A listing run's solution set must equal the
oracle's, with no solution returned twice and none that breaks the rules; a counting backend's count
must equal the oracle's number of solutions. Any difference comes with the one ``gridsat fuzz``
command that repeats just that pair. The instances are drawn from ``seed``: instance ``i`` from a
generator seeded with ``(seed, i)``, so a run in several processes draws the same instances as one.

Per instance every enumerating configuration runs: each encoding of the full product on each backend
that takes one (a SAT run with a solver drawn at random, so a long run covers every solver), each
algorithm of the reference search; and every counting backend on a quarter of the instances, on an encoding drawn at
random (a model counter starts a process per count, a hundred times a SAT run's cost). A heuristic
reference search (one that is not exhaustive) gives no solution set, so it is not run.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import random
import re
import shlex
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from gridsat.models import get_puzzle
from gridsat.models.errors import GridsatError, InvalidOption
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import freeze
from gridsat.solvers.backend import (
    BACKENDS,
    COUNT,
    ENUMERATE,
    Backend,
    Request,
    backend_class,
    counts_only,
)
from gridsat.solvers.backends.algorithms import algorithms
from gridsat.solvers.checks.crosscheck import left_out
from gridsat.solvers.gate import Bound, Job, admit, bind, resolve_encoding
from gridsat.solvers.mutation.mutants import (
    CNF_OPERATORS,
    CPSAT_OPERATORS,
    LAZY_OPERATORS,
    SELECTORS,
    Mutant,
    build,
    mutate,
)
from gridsat.solvers.run import Outcome, execute, tally

PAIRS = 10_000  # what ``gridsat fuzz`` checks by default
BUDGET = 600.0  # seconds it may take at most
COUNTER_SHARE = 0.25  # the share of instances each counting backend counts (see the module docstring)
RUN_LIMIT = 30.0  # one run's time limit: a run it stops is unfinished, never a difference
MUTANT = re.compile(r"(?P<family>.+) (?P<operator>\S+) \[(?P<selector>\S+)\]")


@dataclass(frozen=True)
class Draw:
    """One random instance: its puzzle, and its text and parameters as on the command line."""

    puzzle: str
    text: str
    params: Mapping[str, str]
    index: int  # its place in the seed's stream


@dataclass(frozen=True)
class Difference:
    """A pair whose answer is not the oracle's, and the command that repeats it."""

    label: str  # backend:encoding/solver
    instance: str  # puzzle, text and parameters, as typed
    what: str
    command: str


@dataclass
class Checked:
    """What one instance's runs gave: pairs compared, differences, runs left unfinished or not run."""

    pairs: int = 0
    differences: list[Difference] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    covered: set[str] = field(default_factory=set)  # backend:encoding/solver labels run

    def add(self, other: Checked) -> None:
        self.pairs += other.pairs
        self.differences += other.differences
        self.unfinished += other.unfinished
        self.covered |= other.covered


@dataclass
class FuzzReport:
    """A fuzz run: pairs checked, instances drawn, seconds, every difference and what was covered."""

    seed: int
    instances: int = 0
    seconds: float = 0.0
    checked: Checked = field(default_factory=Checked)
    stopped: str | None = None  # why it ended before the pairs asked for (the budget, Ctrl-C)

    @property
    def pairs(self) -> int:
        return self.checked.pairs

    @property
    def differences(self) -> list[Difference]:
        return self.checked.differences

    @property
    def agree(self) -> bool:
        return not self.checked.differences

    def summary(self) -> dict[str, Any]:
        return {"seed": self.seed, "pairs": self.pairs, "instances": self.instances, "seconds": round(self.seconds, 3),
                "agree": self.agree, "stopped": self.stopped, "configurations": len(self.checked.covered),
                "unfinished": self.checked.unfinished,
                "differences": [dataclasses.asdict(d) for d in self.differences]}


def parse_mutant(text: str) -> Mutant:
    """``FAMILY OPERATOR [SELECTOR]``, a mutant as ``gridsat mutate`` names it."""
    match = MUTANT.fullmatch(text.strip())
    if not match:
        raise InvalidOption(f"mutant={text!r} is not 'FAMILY OPERATOR [SELECTOR]' (as gridsat mutate names one)")
    operators = dict.fromkeys([*CNF_OPERATORS, *LAZY_OPERATORS, *CPSAT_OPERATORS])
    if match["operator"] not in operators:
        raise InvalidOption(f"mutant={text!r}: no operator {match['operator']!r}; "
                            f"the operators: {', '.join(operators)}")
    if match["selector"] not in SELECTORS:
        raise InvalidOption(f"mutant={text!r}: no selector {match['selector']!r}; "
                            f"the selectors: {', '.join(SELECTORS)}")
    return Mutant(match["family"], match["operator"], match["selector"])


def planted(puzzle: Puzzle, mutant: Mutant) -> Puzzle:
    """``puzzle`` with ``mutant`` applied to each formulation that has its family (a planted bug)."""

    def formulate(kind: str) -> Callable[[Instance, Any], Any]:
        def built(instance: Instance, encoding: Any) -> Any:
            found = build(puzzle, instance, kind, encoding)
            return mutate(mutant, found, puzzle) or found.formulation

        return built

    return dataclasses.replace(puzzle, cnf=formulate("cnf"), cpsat=formulate("cpsat"))


def check_family(puzzle: Puzzle, mutant: Mutant) -> None:
    """Refuse a mutant whose family is in neither formulation of the puzzle's example instance."""
    if puzzle.example is None:
        return
    instance = puzzle.parse(puzzle.example, {})
    families: set[str] = set()
    for kind in ("cnf", "cpsat"):
        families |= set(build(puzzle, instance, kind, resolve_encoding(puzzle, kind, None)).families)
    if mutant.family not in families:
        raise InvalidOption(f"mutant={mutant.name!r}: no family {mutant.family!r} in {puzzle.name}'s formulations of "
                            f"{puzzle.example}; its families: {', '.join(sorted(families))}")


def fuzzable(names: list[str] | None = None) -> list[str]:
    """The puzzles named, or every registered puzzle that has an oracle, in registry order."""
    from gridsat.models import names as puzzle_names

    chosen = names or [n for n in puzzle_names() if get_puzzle(n).oracle is not None]
    for name in chosen:
        if get_puzzle(name).oracle is None:
            raise InvalidOption(f"puzzle {name!r} has no oracle (no Oracle part), so it cannot be fuzzed")
    return chosen


def draw(puzzles: list[str], seed: int, index: int, puzzle: Puzzle | None = None) -> Draw:
    """Instance ``index`` of ``seed``'s stream: the puzzles in turn (or ``puzzle``, an object not
    registered), each drawing from its oracle."""
    name = puzzles[index % len(puzzles)]
    rng = random.Random(f"{seed}:{index}")
    text, params = (puzzle or get_puzzle(name)).oracle.draw(rng)
    return Draw(name, text, dict(params), index)


def plan(puzzle: Puzzle, rng: random.Random) -> list[Bound]:
    """The configurations one instance runs (see the module docstring), registries read afresh, each
    gated: a choice the gate refuses on this puzzle (a counter's CNF+, a solver without cardinality
    constraints) is left out."""
    configs: list[Bound] = []
    skip = left_out(puzzle)
    for name in [n for n in BACKENDS if n not in skip]:
        backend = backend_class(name)()
        options = backend.choices(puzzle)
        solvers = options.get("solver") or [None]
        if "encoding" in backend.takes:
            space = puzzle.encodings(backend.formulation)
            encodings = [e.name for e in space.all()] or [None]
            if counts_only(backend):  # a process per count: one count in COUNTER_SHARE of the instances
                exact = [e.name for e in space.variants(exact=True)
                         if gated(backend, puzzle, Request(encoding=e.name))] or [None]
                encodings = [rng.choice(exact)] if rng.random() < COUNTER_SHARE else []
            if "solver" in backend.takes:
                configs += [c for e in encodings if (c := with_solver(backend, puzzle, e, solvers, rng))]
            else:
                configs += [b for e in encodings if (b := gated(backend, puzzle, Request(encoding=e)))]
        elif "algorithm" in backend.takes:  # the exhaustive ones: a heuristic's answer is no solution set
            exhaustive = {a.name for a in algorithms(puzzle).values() if a.exhaustive}
            configs += [b for a in options.get("algorithm", []) if a in exhaustive
                        if (b := gated(backend, puzzle, Request(algorithm=a)))]
        elif (not counts_only(backend) or rng.random() < COUNTER_SHARE) and (b := gated(backend, puzzle)):
            configs.append(b)
    return configs


def with_solver(backend: Backend, puzzle: Puzzle, encoding: str | None, solvers: list[Any],
                rng: random.Random) -> Bound | None:
    """``encoding`` with a solver drawn at random among those that take it (CNF+ needs a cardinality
    solver), or None when none does."""
    for solver in rng.sample(solvers, len(solvers)):
        if (bound := gated(backend, puzzle, Request(encoding=encoding, solver=solver))) is not None:
            return bound
    return None


def pair_of(backend: Backend | str, puzzle: Puzzle, request: Request | None = None) -> Bound:
    """``backend``'s (or the registered backend named so) run of ``request`` on ``puzzle``, gated: its
    solutions kept, or a counter's count."""
    request = request or Request()
    counter = counts_only(backend if isinstance(backend, Backend) else backend_class(backend))
    job = Job(COUNT, request, time_limit=RUN_LIMIT) if counter else Job(ENUMERATE, request, time_limit=RUN_LIMIT,
                                                                        keep=True)
    return bind(backend, puzzle, job) if isinstance(backend, str) else admit(backend, puzzle, job)


def gated(backend: Backend, puzzle: Puzzle, request: Request | None = None) -> Bound | None:
    """``pair_of``, or None when the gate refuses it (a counter refuses CNF+, a solver without cardinality
    constraints too)."""
    try:
        return pair_of(backend, puzzle, request)
    except GridsatError:
        return None


def typed(d: Draw) -> str:
    """The instance as typed: ``tatami 3x4 -p k=v``."""
    return " ".join([d.puzzle, shlex.quote(d.text), *(f"-p {shlex.quote(f'{k}={v}')}" for k, v in d.params.items())])


def repro(d: Draw, config: Bound, mutant: Mutant | None) -> str:
    """The one ``gridsat fuzz`` command that runs this pair again."""
    r = config.request
    words = [f"gridsat fuzz {typed(d)} --backend {config.backend.name}"]
    words += [f"--{option} {shlex.quote(value)}" for option, value in
              (("encoding", r.encoding), ("solver", r.solver), ("algorithm", r.algorithm)) if value]
    if mutant is not None:
        words.append(f"--mutant {shlex.quote(mutant.name)}")
    return " ".join(words)


def run_pair(puzzle: Puzzle, instance: Instance, config: Bound) -> Outcome:
    """One configuration on one instance, its solutions kept (a counting backend: its count)."""
    return tally(puzzle, instance, config) if counts_only(config.backend) else execute(puzzle, instance, config)


def judged(outcome: Outcome, truth: set[Any]) -> str | None:
    """How a run differs from the oracle's solution set ``truth`` (None: it does not)."""
    faults = []
    if outcome.duplicates:
        faults.append(f"{outcome.duplicates} solutions returned more than once")
    if outcome.invalid:
        faults.append(f"{len(outcome.invalid)} solutions break the rules, e.g. {outcome.invalid[0][1][0]}")
    if outcome.solutions is None:
        if outcome.complete and outcome.count != len(truth):
            faults.append(f"counts {outcome.count}, the oracle {len(truth)}")
        return "; ".join(faults) or None
    found = {freeze(s) for s in outcome.solutions}
    extra, missing = len(found - truth), len(truth - found) if outcome.complete else 0
    if extra or missing:
        faults.append(f"{extra} solutions the oracle does not have, {missing} of the oracle's missing "
                      f"(counts {outcome.count}, the oracle {len(truth)})")
    return "; ".join(faults) or None


def check_instance(d: Draw, puzzle: Puzzle | None = None, mutant: Mutant | None = None,
                   configs: list[Bound] | None = None) -> Checked:
    """Every configuration (or those given) on one drawn instance, each compared with the oracle."""
    puzzle = puzzle or get_puzzle(d.puzzle)
    instance = puzzle.parse(d.text, d.params)
    truth = {freeze(s) for s in puzzle.oracle.solutions(instance)}
    if mutant is not None:
        puzzle = planted(puzzle, mutant)
    checked = Checked()
    for config in configs or plan(puzzle, random.Random(f"plan:{d.index}:{d.text}")):
        try:
            outcome = run_pair(puzzle, instance, config)  # gated in plan: a refusal once built is a GridsatError
        except GridsatError:  # a choice this backend refuses here (a lazy encoding to count): no pair
            if configs:  # a pair named by the user: the refusal is the answer
                raise
            continue
        label = outcome.label
        what = judged(outcome, truth)
        if what:
            checked.differences.append(Difference(label, typed(d), what, repro(d, config, mutant)))
        if outcome.complete:
            checked.pairs += 1
            checked.covered.add(label)
        else:  # its solutions were still checked against the oracle's: none beyond them
            checked.unfinished.append(f"{typed(d)} {label}: {outcome.reason}")
    return checked


def fuzz(puzzles: list[str] | None = None, *, seed: int = 0, pairs: int = PAIRS, budget: float = BUDGET,
         jobs: int = 1, mutant: Mutant | None = None, puzzle: Puzzle | None = None,
         on_instance: Callable[[FuzzReport], None] | None = None) -> FuzzReport:
    """Draw instances from ``seed`` and check every configuration on each until ``pairs`` pairs are
    checked or ``budget`` seconds have passed; ``jobs`` processes. ``puzzle`` (a Puzzle object, one
    process) replaces the registered one, as a plugin under test would; ``mutant`` is planted in
    every formulation that has its family. ``on_instance`` sees the report after each instance."""
    if puzzle is not None and puzzle.oracle is None:
        raise InvalidOption(f"puzzle {puzzle.name!r} has no oracle (no Oracle part), so it cannot be fuzzed")
    names = [puzzle.name] if puzzle is not None else fuzzable(puzzles)
    if mutant is not None:
        for name in names:
            check_family(puzzle or get_puzzle(name), mutant)
    report = FuzzReport(seed)
    started = time.monotonic()
    try:
        for checked in checked_stream(names, seed, jobs, mutant, puzzle,
                                      lambda: report.pairs >= pairs or time.monotonic() - started >= budget):
            report.instances += 1
            report.checked.add(checked)
            report.seconds = time.monotonic() - started
            if on_instance:
                on_instance(report)
    except KeyboardInterrupt:
        report.stopped = "interrupted"
    report.seconds = time.monotonic() - started
    if report.stopped is None and report.pairs < pairs:
        report.stopped = f"the budget of {budget:g} s"
    return report


def checked_stream(names: list[str], seed: int, jobs: int, mutant: Mutant | None, puzzle: Puzzle | None,
                   done: Callable[[], bool]) -> Iterator[Checked]:
    """Each instance's ``Checked``, drawn in turn, until ``done()``: here, or in ``jobs`` processes."""
    if jobs <= 1 or puzzle is not None:
        index = 0
        while not done():
            yield check_instance(draw(names, seed, index, puzzle), puzzle, mutant)
            index += 1
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    index, running = 0, set()
    try:
        while not done():
            while len(running) < 2 * jobs:
                running.add(pool.submit(check_instance, draw(names, seed, index), None, mutant))
                index += 1
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=id):
                yield future.result()
    finally:  # the instances still running are not waited for
        pool.shutdown(wait=False, cancel_futures=True)


def fuzz_one(puzzle: Puzzle, text: str, params: Mapping[str, str], config: Bound,
             mutant: Mutant | None = None) -> Checked:
    """One pair (what a difference's command repeats): ``config`` on one instance, against the oracle."""
    if puzzle.oracle is None:
        raise InvalidOption(f"puzzle {puzzle.name!r} has no oracle, so it cannot be fuzzed")
    if mutant is not None:
        check_family(puzzle, mutant)
    return check_instance(Draw(puzzle.name, text, dict(params), 0), puzzle, mutant, [config])
