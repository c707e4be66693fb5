"""Mutation testing of formulations: how many injected encoding bugs does a corpus of known counts catch?

For each mutant (``solvers/mutation/mutants.py``) and each corpus instance, the mutated formulation is run
through the checks a cross-check makes: every solution is verified and de-duplicated, and the count
compared with the known one. The first check that fails kills the mutant (``crash``, ``verifier``,
``duplicate``, ``timeout``, ``count``). A survivor is then

- tried on the instances of the puzzle's size ladder (within a budget), each against the count of the
  unmutated formulation: one that kills it is suggested as a golden case;
- proved redundant when, on every instance it changes (corpus and ladder), its formula has the same
  projected solutions: for CNF, every clause removed or weakened is implied by the mutated formula and
  every clause added or strengthened by the original (one SAT call each, clause negated; with an
  auxiliary variable in the clause a failed call proves nothing; all of a mutant's calls share a
  budget of conflicts, and a call that runs long has the LP relaxation asked, which proves clauses
  that follow by counting); for CP-SAT, the mutated model's
  solutions, enumerated, are the original's (the judge's run shows it on each instance it survives).

Score = killed / (mutants - redundant).
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from gridsat.models import get_puzzle
from gridsat.models.encoding import Encoding
from gridsat.models.errors import GridsatError
from gridsat.models.puzzle import Case, Instance, Puzzle
from gridsat.models.solution import digest
from gridsat.solvers import reprs
from gridsat.solvers.backend import Backend, Request
from gridsat.solvers.gate import Bound, solver_taking, with_choice
from gridsat.solvers.mutation.mutants import (
    LAZY_OPERATORS,
    Built,
    Mutant,
    build,
    catalogue,
    cpsat_edits,
    mutate,
    signature,
)
from gridsat.solvers.mutation.redundancy import (
    BUDGET,
    OWN,
    PROOF_CONFLICTS,
    Budget,
    cpsat_implied_both_ways,
    implied_both_ways,
)
from gridsat.solvers.stop import Stop

CHECKS = ("crash", "verifier", "duplicate", "timeout", "count")
LADDER_BUDGET = 2.0  # seconds a survivor's ladder search may take (after the corpus)
LADDER_STEPS = 12  # ladder instances a survivor is tried on at most
# A mutant's run may take this many times the unmutated run on the same instance (at least SLACK_FLOOR
# seconds, at most --time-limit): a bug that makes the search explode is caught quickly as a timeout.
SLACK = 5.0
SLACK_FLOOR = 1.0
PROOF_LIMIT = 2.0  # seconds CP-SAT may take to show one negated constraint infeasible
# With no --mutants, every mutant is judged when there are at most this many, else a seeded sample of
# this many (about 10 minutes on one core for the largest catalogues; ``mutants="all"`` judges every one).
DEFAULT_SAMPLE = 1000
ALL = "all"
CHUNK = 8  # mutants a worker process takes at a time


@dataclass
class Verdict:
    """What happened to one mutant."""

    mutant: Mutant
    encoding: str
    status: str  # "killed", "redundant", "survived"
    instance: str | None = None  # killed: where; survived: the suggested killer, if found
    check: str | None = None  # killed: the first check that caught it
    reason: str = ""  # redundant: how it was proved; survived: why it is not counted redundant
    suggestion: dict[str, Any] | None = None  # a ladder instance that kills it, with its count
    how: str | None = None  # redundant: "implied" (proved clause by clause) or "enumerated" (same solutions)

    def summary(self) -> dict[str, Any]:
        out = {"family": self.mutant.family, "operator": self.mutant.operator, "selector": self.mutant.selector,
               "encoding": self.encoding, "status": self.status}
        for name in ("instance", "check", "suggestion", "how"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out | ({"reason": self.reason} if self.reason else {})


@dataclass
class Score:
    """Tallies of verdicts."""

    mutants: int = 0
    killed: int = 0
    redundant: int = 0
    survived: int = 0
    implied: int = 0  # of the redundant, those proved clause by clause (the rest: same solutions, enumerated)

    def add(self, verdict: Verdict) -> None:
        self.mutants += 1
        setattr(self, verdict.status, getattr(self, verdict.status) + 1)
        self.implied += verdict.how == "implied"

    @property
    def score(self) -> float | None:
        counted = self.mutants - self.redundant
        return self.killed / counted if counted else None

    def summary(self) -> dict[str, Any]:
        score = self.score
        return {"mutants": self.mutants, "killed": self.killed, "redundant": self.redundant,
                "redundant_implied": self.implied, "survived": self.survived,
                "score": None if score is None else round(100 * score, 2)}


@dataclass
class MutationReport:
    """Every verdict of a run, with its tallies per encoding, per operator and in total."""

    puzzle: str
    backend: str
    corpus: list[str]
    verdicts: list[Verdict] = field(default_factory=list)
    seconds: float = 0.0
    catalogue: int = 0  # the mutants the encodings have; more than the verdicts when a sample was judged
    seed: int | None = None  # the sample's seed (None: every mutant was judged)
    planned: int = 0  # the mutants planned; more than the verdicts when the run was interrupted
    interrupted: bool = False  # Ctrl-C or SIGTERM: the verdicts so far, the rest not judged

    def __repr__(self) -> str:  # the dataclass's own would print every verdict
        total = self.total
        return reprs.brief("MutationReport", {
            "puzzle": self.puzzle, "backend": self.backend, "corpus": self.corpus, "mutants": total.mutants,
            "killed": total.killed, "survived": total.survived, "redundant": total.redundant,
            "complete": not self.interrupted})

    def _repr_html_(self) -> str:
        return reprs.mutation_html(self)

    @property
    def sampled(self) -> bool:
        return self.seed is not None

    def interval(self) -> tuple[float, float] | None:
        """A 95% (Wilson) interval for the whole catalogue's score, estimated from a sample; None when every
        mutant was judged (the score is exact) or none counts."""
        total = self.total
        n = total.mutants - total.redundant
        if not self.sampled or n == 0 or self.interrupted:  # the first mutants of an ordered list: no sample
            return None
        p, z = total.killed / n, 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def tally(self, key: Callable[[Verdict], str] | None = None) -> dict[str, Score]:
        out: dict[str, Score] = {}
        for v in self.verdicts:
            out.setdefault(key(v) if key else "total", Score()).add(v)
        return out

    @property
    def total(self) -> Score:
        return self.tally().get("total", Score())

    def summary(self) -> dict[str, Any]:
        return {
            "puzzle": self.puzzle, "backend": self.backend, "corpus": self.corpus, "seconds": round(self.seconds, 2),
            "catalogue": self.catalogue, "sample_seed": self.seed, "planned": self.planned,
            "complete": not self.interrupted,
            "score_interval_95": None if (ci := self.interval()) is None else [round(100 * x, 2) for x in ci],
            **self.total.summary(),
            "encodings": {k: s.summary() for k, s in self.tally(lambda v: v.encoding).items()},
            "operators": {k: s.summary() for k, s in self.tally(lambda v: v.mutant.operator).items()},
            "per_encoding_operator": {k: s.summary() for k, s in
                                      self.tally(lambda v: f"{v.encoding} {v.mutant.operator}").items()},
            "survivors": [v.summary() for v in self.verdicts if v.status == "survived"],
            "redundant_mutants": [v.summary() for v in self.verdicts if v.status == "redundant"],
        }


@dataclass(frozen=True)
class Assignment:
    """What a worker needs to judge mutants (plain data: it crosses to worker processes)."""

    puzzle: str
    backend: Backend
    encoding: str  # its name (what reports and the sample's order go by)
    chosen: Encoding  # resolved above the workers: what a judge builds, no text parsed again
    corpus: tuple[Case, ...]
    time_limit: float
    search: bool = True
    proof_budget: int = PROOF_CONFLICTS  # conflicts one mutant's CNF proofs may spend


class Judge:
    """Builds (once) and keeps the corpus and ladder formulations of one encoding, and judges mutants."""

    def __init__(self, task: Assignment, puzzle: Puzzle | None = None) -> None:
        self.task = task
        self.puzzle = puzzle or get_puzzle(task.puzzle)
        self.kind = task.backend.formulation
        self.encoding = task.chosen
        self.instances = [self.puzzle.parse(c.text, c.params) for c in task.corpus]
        self._built: dict[int, Built] = {}
        self._ladder: list[tuple[str, Mapping[str, str], Instance]] | None = None
        self._ladder_built: dict[int, Built | None] = {}
        self._ladder_counts: dict[int, tuple[int, float] | None] = {}
        self._limits: dict[int, float] = {}
        self._proved: dict[tuple[Mutant, int], tuple[bool, str]] = {}
        self._budgets: dict[Mutant, Budget] = {}  # the conflicts each mutant's CNF proofs may spend, together
        self._order: list[int] | None = None

    def built(self, index: int) -> Built:
        if index not in self._built:
            self._built[index] = build(self.puzzle, self.instances[index], self.kind, self.encoding)
            self._built[index].instance = typed(self.task.corpus[index].text, self.task.corpus[index].params)
        return self._built[index]

    def corpus_builts(self) -> list[Built]:
        return [self.built(i) for i in range(len(self.instances))]

    def limit(self, index: int) -> float:
        """The time limit of a mutant's run on corpus instance ``index``: five times the unmutated run's time
        (at least a second), within the task's limit. The unmutated run must give the corpus count."""
        if index not in self._limits:
            started = time.monotonic()
            check, count = self.run(self.instances[index], self.built(index).formulation, None)
            seconds = time.monotonic() - started
            case = self.task.corpus[index]
            if check is None and count != case.count:
                raise GridsatError(f"the corpus says {typed(case.text, case.params)} has {case.count} solutions, but "
                                   f"the unmutated {self.task.backend.name}:{self.encoding.name} finds {count}")
            self._limits[index] = min(self.task.time_limit, max(SLACK_FLOOR, SLACK * seconds))
        return self._limits[index]

    def cheapest_first(self) -> list[int]:
        """The corpus instances, cheapest to enumerate first: most mutants die on the first instance they
        change, so a cheap one that kills them spares a slow run. The cost is estimated, not timed, so
        that the same seed gives the same report: the solutions to enumerate times the formula's size."""
        if self._order is None:
            self._order = sorted(range(len(self.instances)),
                                 key=lambda i: (self.task.corpus[i].count + 1) * len(self.built(i).families))
        return self._order

    def run(self, instance: Instance, formulation: Any, expected: int | None,
            time_limit: float | None = None) -> tuple[str | None, int]:
        """Run a formulation through the cross-check's checks: the first that fails (or None), and the count.

        It stops at the first invalid or repeated solution, or once the count passes ``expected``."""
        kind = self.kind
        fake = dataclasses.replace(self.puzzle, **{kind: lambda _instance, _encoding: formulation})
        stop = Stop(time_limit or self.task.time_limit)
        seen: set[bytes] = set()
        count = 0
        try:
            backend = self.task.backend
            needs = self.puzzle.encodings(kind).needs(self.encoding)  # an encoding that needs CNF+ runs where it can
            asked = Request(encoding=self.encoding.name, solver=solver_taking(backend, needs, None))
            request = with_choice(backend, self.puzzle, asked, self.encoding)
            search = backend.prepare(fake, instance, request)
            solutions = search.solutions(stop)
            try:
                for solution in solutions:
                    key = digest(solution)
                    if key in seen:
                        return "duplicate", count
                    seen.add(key)
                    if self.puzzle.verify(instance, solution):
                        return "verifier", count
                    count += 1
                    if expected is not None and count > expected:
                        return "count", count
            finally:
                solutions.close()
        except Exception:  # a mutant that crashes the backend is caught: that is a check too
            return "crash", count
        if stop.reason is not None:
            return "timeout", count
        return ("count" if expected is not None and count != expected else None), count

    def judge(self, mutant: Mutant) -> Verdict:
        """Kill the mutant on the corpus, else search the ladder, else try to prove it redundant."""
        changed: list[tuple[Built, Any]] = []
        # A proof costs a solver call per changed member: tried only once the mutant has survived a
        # run (most die on their first instance), and no more once it has failed.
        prove: bool | None = False  # None: a proof failed here, so none is tried again
        for i in self.cheapest_first():
            case, built = self.task.corpus[i], self.built(i)
            mutated = mutate(mutant, built, self.puzzle)
            if mutated is None:
                continue
            changed.append((built, mutated))
            if prove:
                if self.proved_here(mutant, built, mutated):
                    continue  # the same formula, logically: no run can kill it here
                prove = None
            check, _ = self.run(self.instances[i], mutated, case.count, self.limit(i))
            if check is None and prove is False:
                prove = True
            if check is not None:
                return Verdict(mutant, self.encoding.name, "killed", typed(case.text, case.params), check)
        unsettled: list[str] = []
        suggestion = self.search(mutant, changed, unsettled) if self.task.search else None
        if suggestion is not None:
            return Verdict(mutant, self.encoding.name, "survived", suggestion["instance"],
                           reason="the corpus misses it; a ladder instance it does not hold catches it "
                                  "(add that instance to the corpus)", suggestion=suggestion)
        if not changed:
            return Verdict(mutant, self.encoding.name, "survived",
                           reason="changes no formula of the corpus or of the ladder instances tried")
        if unsettled:
            return Verdict(mutant, self.encoding.name, "survived", reason="not proved: no answer within the time "
                           f"limit on {', '.join(unsettled)}")
        how, why = self.prove(mutant, changed)
        return Verdict(mutant, self.encoding.name, "survived" if how is None else "redundant", reason=why, how=how)

    def proved_here(self, mutant: Mutant, built: Built, mutated: Any) -> bool:
        """Whether implication proves the mutated formulation the same as the original here."""
        return self.proof(mutant, built, mutated)[0]

    def proof(self, mutant: Mutant, built: Built, mutated: Any) -> tuple[bool, str]:
        """Whether implication proves the mutated formulation the same as the original here, and when not,
        why (see ``redundancy.implied_both_ways``); asked by the corpus loop and the final proof alike,
        answered once."""
        key = (mutant, id(built))
        if key not in self._proved:
            if mutant.operator in LAZY_OPERATORS:
                self._proved[key] = (False, "a lazy refinement is not checked by implication")
            elif self.kind == "cpsat":
                self._proved[key] = (cpsat_implied_both_ways(built.proto, built.formulation.model,
                                                             cpsat_edits(mutant, built, self.puzzle),
                                                             PROOF_LIMIT), "")
            else:
                budget = self._budgets.setdefault(mutant, Budget(self.task.proof_budget))
                self._proved[key] = implied_both_ways(built.formulation, mutated, budget)
        return self._proved[key]

    def ladder(self) -> list[tuple[str, Mapping[str, str], Instance]]:
        if self._ladder is None:
            known = {(c.text, tuple(sorted(c.params.items()))) for c in self.task.corpus}
            steps = self.puzzle.mutation.ladder() if self.puzzle.mutation.ladder else []
            self._ladder = [(t, p, self.puzzle.parse(t, p)) for t, p in steps
                            if (t, tuple(sorted(p.items()))) not in known]
        return self._ladder

    def ladder_built(self, j: int) -> Built | None:
        """The ladder's ``j``-th formulation, or None when the encoding refuses the instance (too large)."""
        if j not in self._ladder_built:
            text, params, instance = self.ladder()[j]
            try:
                self._ladder_built[j] = build(self.puzzle, instance, self.kind, self.encoding)
            except Exception:
                self._ladder_built[j] = None
            else:
                self._ladder_built[j].instance = typed(text, params)
        return self._ladder_built[j]

    def ladder_builts(self) -> list[Built]:
        return [b for j in range(len(self.ladder())) if (b := self.ladder_built(j)) is not None]

    def search(self, mutant: Mutant, changed: list[tuple[Built, Any]], unsettled: list[str]) -> dict[str, Any] | None:
        """The first ladder instance that kills the mutant (within the budget); ``changed`` collects the
        ladder instances it changes and survives, for the redundancy proof, ``unsettled`` those it timed out on."""
        started, tried = time.monotonic(), 0
        for j, (text, params, instance) in enumerate(self.ladder()):
            if tried >= LADDER_STEPS or time.monotonic() - started > LADDER_BUDGET:
                break
            built = self.ladder_built(j)
            if built is None:
                continue
            mutated = mutate(mutant, built, self.puzzle)
            if mutated is None:
                continue
            if self.proved_here(mutant, built, mutated):
                changed.append((built, mutated))  # proved the same here: nothing to run
                continue
            if j not in self._ladder_counts:
                started = time.monotonic()
                check, count = self.run(instance, built.formulation, None)
                seconds = time.monotonic() - started
                self._ladder_counts[j] = (count, min(self.task.time_limit, max(SLACK_FLOOR, SLACK * seconds))
                                          ) if check is None else None
            known = self._ladder_counts[j]
            if known is None:
                continue
            tried += 1
            expected, limit = known
            check, _ = self.run(instance, mutated, expected, limit)
            if check is not None and check != "timeout":
                return {"instance": text, "params": dict(params), "count": expected, "check": check}
            if check is None:
                changed.append((built, mutated))
            else:
                unsettled.append(typed(text, params))
        return None

    def prove(self, mutant: Mutant, changed: list[tuple[Built, Any]]) -> tuple[str | None, str]:
        """How the mutant is redundant on every instance it changed (it survived each: its solutions,
        enumerated and verified, are the original's), and why it was not proved by implication; None
        when the mutated CNF has a model breaking a changed clause on the puzzle's own variables (its
        projected solutions differ, though the enumeration did not meet the difference)."""
        enumerated = (f"same projected solutions as the original, enumerated, on the {len(changed)} instances "
                      "it changes")
        if self.kind == "cpsat":
            if all(self.proved_here(mutant, b, m) for b, m in changed):
                return "implied", (f"each changed constraint follows from the rest (its negation is infeasible), "
                                   f"on the {len(changed)} instances it changes")
            return "enumerated", enumerated
        if mutant.operator in LAZY_OPERATORS:
            return "enumerated", enumerated + " (a lazy refinement is not checked by implication)"
        for built, mutated in changed:
            ok, why = self.proof(mutant, built, mutated)
            if not ok and why.startswith(BUDGET):
                # Its runs agree, but a model breaking a changed clause may still exist there (the
                # enumeration cannot see one, below): neither redundant nor killed.
                return None, f"not proved redundant: {why} on {built.instance} (a larger proof budget may settle it)"
            if not ok and why == OWN:
                # A mutant blocks whole projections (solvers/mutation/mutants.py), so its enumeration lists
                # every projected model: agreeing runs with differing projections is a bug to report.
                return None, (f"not redundant: {why} is not implied, so the projected solutions differ, yet the "
                              "enumeration agreed: report this")
            if not ok:
                return "enumerated", f"{enumerated}; not implied: {why}"
        return "implied", f"each changed clause follows from the rest, on the {len(changed)} instances it changes"


def typed(text: str, params: Mapping[str, str]) -> str:
    """An instance with its parameters, as a user would type it."""
    return " ".join([text if len(text) < 60 else f"...{text[-40:]}",
                     *(f"-p {k}={v}" for k, v in sorted(params.items()))])


# Work for worker processes: one judge per (task) per process, built on first use.
_judges: dict[str, Judge] = {}


def judge_in_worker(task: Assignment, mutant: Mutant) -> Verdict:
    key = repr(task)  # a Case's params are a dict: the task is compared by its text
    if key not in _judges:
        _judges[key] = Judge(task)
    return _judges[key].judge(mutant)


def plan(puzzle: Puzzle, backend: Backend, encodings: list[Encoding], corpus: list[Case], time_limit: float,
         mutants: int | str | None, seed: int, search: bool = True,
         proof_budget: int = PROOF_CONFLICTS) -> tuple[list[tuple[Assignment, Mutant]], int]:
    """The (task, mutant) pairs to judge, and how many mutants the encodings have: every one (``"all"``, or
    None when there are at most ``DEFAULT_SAMPLE``), or a seeded sample of ``mutants`` (None: ``DEFAULT_SAMPLE``)."""
    pairs = []
    for chosen in encodings:
        task = Assignment(puzzle.name, backend, chosen.name, chosen, tuple(corpus), time_limit, search, proof_budget)
        judge = Judge(task, puzzle)
        _judges.setdefault(repr(task), judge)
        # The bugs an encoding can have are found on the corpus and the ladder alike, so that a small
        # corpus is not judged on the few mutants it happens to exercise.
        pairs += [(task, m) for m in catalogue(judge.kind, judge.corpus_builts() + judge.ladder_builts(), puzzle)]
    everyone = len(pairs)
    wanted = DEFAULT_SAMPLE if mutants is None else everyone if mutants == ALL else int(mutants)
    if wanted < everyone:
        # Sample by a seeded shuffle of a stable order, so the same seed gives the same report.
        order = sorted(range(len(pairs)), key=lambda i: signature((pairs[i][0].encoding, pairs[i][1])))
        picked = sorted(random.Random(seed).sample(order, wanted))
        pairs = [pairs[i] for i in picked]
    return pairs, everyone


def judge_pair(pair: tuple[Assignment, Mutant]) -> Verdict:
    return judge_in_worker(*pair)


def run_all(pairs: list[tuple[Assignment, Mutant]], jobs: int = 1) -> Iterator[Verdict]:
    """Judge every pair, in order, on ``jobs`` processes."""
    if jobs <= 1:
        for task, mutant in pairs:
            yield judge_in_worker(task, mutant)
        return
    import multiprocessing

    from gridsat.solvers.host.children import bind_to_parent, signals_held
    from gridsat.solvers.splitting.pool import main_hidden

    with main_hidden(), signals_held():
        pool = multiprocessing.get_context("spawn").Pool(jobs, initializer=bind_to_parent, initargs=(os.getpid(),))
    try:
        # In order, in small chunks: a worker mostly keeps to the encodings it has built (each process
        # builds an encoding's corpus once), and no worker is left with a long chunk of slow mutants
        # while the others are idle (chunks of len / 16 left one worker running alone for minutes).
        # imap, not starmap: verdicts arrive as they are judged, so the progress line moves during the run.
        yield from pool.imap(judge_pair, pairs, chunksize=max(1, min(CHUNK, len(pairs) // (jobs * 8))))
        pool.close()
    finally:
        pool.terminate()  # Ctrl-C or SIGTERM in the parent: the workers end too
        pool.join()


def mutation_report(puzzle: Puzzle, bound: Bound, encodings: list[Encoding], corpus: list[Case], *,
                    time_limit: float, mutants: int | str | None = None, seed: int = 0, jobs: int = 1,
                    search: bool = True, proof_budget: int = PROOF_CONFLICTS,
                    on_verdict: Callable[[Verdict, int], None] | None = None) -> MutationReport:
    """Plan the mutants of ``encodings`` on ``corpus`` for the bound backend and judge them all; ``on_verdict``
    sees each verdict with the number of mutants planned."""
    started = time.monotonic()
    pairs, everyone = plan(puzzle, bound.backend, encodings, corpus, time_limit, mutants, seed, search,
                           proof_budget)
    report = MutationReport(puzzle.name, bound.name, [typed(c.text, c.params) for c in corpus], catalogue=everyone,
                            seed=seed if len(pairs) < everyone else None, planned=len(pairs))
    try:
        for verdict in run_all(pairs, jobs):
            report.verdicts.append(verdict)
            if on_verdict:
                on_verdict(verdict, len(pairs))
    except KeyboardInterrupt:
        report.interrupted = True  # the scores of the mutants judged so far, said to be incomplete
    report.seconds = time.monotonic() - started
    return report
