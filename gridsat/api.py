"""The Python API: solve, count, enumerate and cross-check a puzzle instance; measure a corpus by mutation.

Every function takes the puzzle (a registered name such as ``"tatami"``, or a ``Puzzle`` object),
the instance as the same text the command line takes (``"4x7"``) or as ``load`` parsed it, and
``params`` as a dict (``{"max": 10}``; values may be numbers or booleans). Bad input raises ``InvalidInstance``,
``UnknownName`` or ``InvalidOption`` (all ``ValueError``) with the message the CLI prints, but that an
option is named as its keyword here (``parts=8``) where the CLI names its flag (``--parts 8``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from gridsat import display as _display  # noqa: F401 - hands results the SVG drawing of their solutions
from gridsat.certification import check_proof as check_proof
from gridsat.certification import note as certification_note  # noqa: F401 - for the command line
from gridsat.certification import whole_enumeration, whole_run
from gridsat.certification import wish as wish
from gridsat.models import get_puzzle, shadowed
from gridsat.models import names as puzzle_names
from gridsat.models.constraints.amo import ENCODINGS as AT_MOST_ONE
from gridsat.models.errors import GridsatError, InvalidInstance, InvalidOption, UnknownName
from gridsat.models.formulation import Formulation
from gridsat.models.puzzle import Case, Instance, Puzzle
from gridsat.solvers.backend import (
    BACKENDS,
    COUNT,
    DEFAULT_BACKEND,
    ENUMERATE,
    SOLVE,
    Request,
    backend_class,
    backends_where,
    counts_only,
    reference_backend,
    searcher_of,
    searches_formulation,
)
from gridsat.solvers.backend import formulate as build
from gridsat.solvers.backends.algorithms import algorithms
from gridsat.solvers.checks.crosscheck import RUN_BUDGET as RUN_BUDGET
from gridsat.solvers.checks.crosscheck import SCOPES, Report, left_out
from gridsat.solvers.checks.crosscheck import TOTAL_BUDGET as TOTAL_BUDGET
from gridsat.solvers.checks.crosscheck import Turn as Turn
from gridsat.solvers.checks.fuzz import BUDGET as FUZZ_BUDGET
from gridsat.solvers.checks.fuzz import PAIRS as FUZZ_PAIRS
from gridsat.solvers.checks.fuzz import FuzzReport, fuzz_one, pair_of, parse_mutant
from gridsat.solvers.checks.fuzz import fuzz as run_fuzz
from gridsat.solvers.export import FORMATS, Export, exporting
from gridsat.solvers.gate import METHODS as METHODS
from gridsat.solvers.gate import Job, bind, resolve_encoding
from gridsat.solvers.host.machine import cores
from gridsat.solvers.mutation.mutate import ALL, MutationReport, Verdict, mutation_report
from gridsat.solvers.mutation.mutate import Score as Score
from gridsat.solvers.mutation.redundancy import PROOF_CONFLICTS
from gridsat.solvers.orbits.counting import UP_TO as UP_TO
from gridsat.solvers.orbits.counting import OrbitOutcome as OrbitOutcome
from gridsat.solvers.orbits.counting import Orbits
from gridsat.solvers.orbits.counting import count_notes as count_notes
from gridsat.solvers.orbits.counting import counted as counted
from gridsat.solvers.proof.claim import Certify
from gridsat.solvers.route import DEFAULT_TOTAL as DEFAULT_TOTAL
from gridsat.solvers.route import cross_check, make_count, open_enumeration
from gridsat.solvers.run import Enumeration, Outcome, Progress, execute
from gridsat.solvers.run import consume as consume
from gridsat.solvers.splitting.parallel import MAX_JOBS as MAX_JOBS
from gridsat.solvers.splitting.parallel import MAX_PARTS as MAX_PARTS
from gridsat.solvers.splitting.parallel import Split, SplitRun
from gridsat.solvers.splitting.pool import scheduler_address
from gridsat.solvers.splitting.pool import single_threaded_blas as single_threaded_blas
from gridsat.solvers.stop import INTERRUPTED as INTERRUPTED

Params = Mapping[str, Any]


def load(puzzle: str | Puzzle, instance: str | Instance, params: Params | None = None) -> tuple[Puzzle, Instance]:
    """The puzzle object and its parsed instance (an instance parsed already is passed through)."""
    chosen = get_puzzle(puzzle) if isinstance(puzzle, str) else puzzle
    if not isinstance(instance, str):
        if not dataclasses.is_dataclass(instance) or isinstance(instance, type):  # e.g. (4, 7) for "4x7"
            raise InvalidInstance(f"instance {instance!r} is neither text ({chosen.instance_help}) nor an instance "
                                  "that gridsat.load parsed")
        if params:
            raise InvalidOption("params go with instance text; this instance is parsed already")
        return chosen, instance
    return chosen, chosen.parse(instance, texts(params))


def texts(params: Params | None) -> dict[str, str]:
    """Parameters as the text ``-p KEY=VALUE`` gives (``True`` becomes ``"true"``)."""
    out = {}
    for key, value in (params or {}).items():
        out[str(key)] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def solve(
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backend: str = DEFAULT_BACKEND,
    encoding: str | None = None,
    solver: str | None = None,
    algorithm: str | None = None,
    time_limit: float | None = None,
    certify: bool | Certify = False,
    proof: str | Path | None = None,
) -> Outcome:
    """One solution: ``.solution`` (canonical form, or None), ``.complete``, ``.reason``, ``.seconds``.

    The answer is complete when a solution was found or the search proved there is none. ``certify``
    (sat backend) checks a DRAT proof of a "none" (see ``count``).
    """
    chosen, parsed = load(puzzle, instance, params)
    check_limits(None, time_limit)
    request = Request(encoding, solver, algorithm, certify=wish(instance, texts(params), certify, proof))
    job = Job(SOLVE, request, limit=1, time_limit=time_limit, keep=True)
    outcome = execute(chosen, parsed, bind(backend, chosen, job))
    if outcome.solution is not None:  # what stopped the search after it (the limit of one, a method) is no gap
        outcome.complete, outcome.reason = True, None
    return outcome


def count(
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backend: str = DEFAULT_BACKEND,
    encoding: str | None = None,
    solver: str | None = None,
    algorithm: str | None = None,
    time_limit: float | None = None,
    limit: int | None = None,
    up_to: str | None = None,
    method: str | None = None,
    split: Split | None = None,
    memory: int | None = None,
    spill: str | Path | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    certify: bool | Certify = False,
    proof: str | Path | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> Outcome:
    """Count the solutions: ``.count`` (valid ones), ``.complete``, ``.reason``, ``.duplicates``, ``.invalid``,
    ``.seconds``, ``.build_seconds`` and ``.size`` (the formulation's variables and clauses or constraints).

    ``up_to="symmetry"`` (or ``"reversal"``, knight's tours) counts orbits instead, by ``method``
    ``"canonical"`` (the default: canonical representatives) or ``"burnside"``; the outcome is an
    ``OrbitOutcome`` (see ``gridsat.solvers.orbits.counting``).

    ``split=Split(jobs=2)`` splits the count into disjoint parts on worker processes (``jobs=0``: one
    per core), or on a Dask ``scheduler``; ``checkpoint`` records each finished part in that file and
    the same call resumes from it; ``parts`` names how many parts to aim for (see ``Split``).

    A backend that counts without listing solutions (``frontier``) answers with an exact count or,
    stopped first, with none (``.known`` False); ``memory`` caps its megabytes, and its layers go to
    files under ``spill`` (default: the temporary folder) when they do not fit. Given a split, the
    frontier runs its layer partitions on ``jobs`` threads or the workers of a Dask ``scheduler``, and
    keeps a finished layer in ``checkpoint`` (about once a second, and at a stop the last one finished:
    ``.details["checkpoint_layer"]`` says which).

    ``certify=True`` (sat and cpsat backends) proves the final "no more solutions" with a DRAT proof a SAT
    solver writes and gridsat's own checker checks, with every blocking and cut clause justified (CP-SAT's
    solutions are replayed in the puzzle's CNF): ``.details`` then holds
    ``certified`` (None when the run ended before that final answer), ``proof_bytes``, ``proof_steps`` and
    ``check_seconds``. ``proof`` (a folder) keeps the certificate as files, for ``check_proof``; it implies
    ``certify``. See docs/howto/certify.md. A certified split run checks its parts again as a whole once they
    are counted: ``on_stage`` is told each stage of that check as it starts (``check_proof``'s).
    """
    chosen, parsed = load(puzzle, instance, params)
    check_limits(limit, time_limit)

    parts = splitting(split)  # None: one plain search, whose certificate needs no folder to be judged whole

    def run(wished: Certify | None) -> Outcome:
        job = Job(COUNT, Request(encoding, solver, algorithm, memory=memory, spill=None if spill is None else
                                 str(spill), certify=wished),
                  limit=limit, time_limit=time_limit, up_to=up_to, method=method, split=parts)
        return make_count(chosen, parsed, bind(backend, chosen, job), on_progress)

    return whole_run(wish(instance, texts(params), certify, proof), parts, run, on_stage)


def enumerate(  # noqa: A001 - the verb users expect, next to solve and count
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backend: str = DEFAULT_BACKEND,
    encoding: str | None = None,
    solver: str | None = None,
    algorithm: str | None = None,
    time_limit: float | None = None,
    limit: int | None = None,
    up_to: str | None = None,
    split: Split | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    certify: bool | Certify = False,
    proof: str | Path | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> Enumeration | Orbits | SplitRun:
    """An iterator of canonical solutions, each verified; ``.outcome`` says whether it saw them all: an
    ``Enumeration`` (``Orbits`` with ``up_to``, a ``SplitRun`` with ``split``).

    Closing it early (``close()``, a ``with`` block, or dropping it) stops the solver. With ``up_to``
    it yields one ``Orbit`` per orbit instead (``.solution``, the canonical representative, and
    ``.size``). With ``split`` the items come part by part, in the order the parts finish. ``certify`` and
    ``proof``: as for ``count``, in ``.outcome.details`` once the iterator is read to its end (a split
    enumeration's parts are then checked as a whole, as a split count's are).
    """
    chosen, parsed = load(puzzle, instance, params)
    check_limits(limit, time_limit)

    parts = splitting(split)

    def open_run(wished: Certify | None) -> Enumeration | Orbits | SplitRun:
        job = Job(ENUMERATE, Request(encoding, solver, algorithm, certify=wished), limit=limit,
                  time_limit=time_limit, up_to=up_to, split=parts)
        return open_enumeration(chosen, parsed, bind(backend, chosen, job), on_progress)  # type: ignore[return-value]

    return whole_enumeration(wish(instance, texts(params), certify, proof), parts, open_run, on_stage)




def crosscheck(
    puzzle: str | Puzzle,
    instance: str | Instance,
    *,
    params: Params | None = None,
    backends: Iterable[str] | str | None = None,
    encodings: str | Iterable[str] = "default",
    solver: str | None = None,
    time_limit: float | None = RUN_BUDGET,
    on_outcome: Callable[[Outcome], None] | None = None,
    on_start: Callable[[Turn], None] | None = None,
    up_to: str | None = None,
    split: Split | None = None,
    total_budget: float | None | str = DEFAULT_TOTAL,
) -> Report:
    """Run every backend (or those named) and compare the solution sets: ``.agree``, ``.problems``, ``.outcomes``.

    ``encodings`` is ``"default"`` (each backend's default), ``"each"`` (every choice once), ``"all"``
    (every combination), or the encodings and algorithms to run, a list (``["crt", "rank"]``; a comma
    string is read the same): each backend runs exactly those it offers. ``backends`` is a list of names
    (a comma string is read the same). ``each`` and ``all`` leave out the reference algorithms that do
    not search for every solution (Warnsdorff's rule), saying so.
    ``solver`` is the PySAT solver of the sat runs. Unnamed, the backends run
    fastest first (solvers and counters, then the plain backtracking search); named, in the order given.
    ``time_limit`` is each run's budget, 60 seconds (``RUN_BUDGET``) unless given (None: no limit): a run
    it stops is reported unfinished, and the finished runs are compared all the same. ``on_start`` sees
    each run as it starts (a ``Turn``: its number, the configuration, its budget), ``on_outcome`` as it
    finishes; ``split`` splits each run that can be split. With ``up_to`` every run counts orbits by
    canonical representatives and, where it has a formulation, by Burnside's lemma, and the counts and
    representatives are compared. ``total_budget`` bounds the whole cross-check in seconds: by default
    ``TOTAL_BUDGET`` (150 s) when ``encodings`` asks for more than the defaults, else none (None: no
    bound); each run gets at most what is left, and the runs left unstarted are listed in ``.notes``.
    """
    chosen, parsed = load(puzzle, instance, params)
    if total_budget != DEFAULT_TOTAL:
        check_limits(None, total_budget)  # type: ignore[arg-type]
    names = listed(backends, "backends") if backends is not None else None
    for name in names or []:
        if name not in BACKENDS:
            raise UnknownName("backend", name, list(BACKENDS), " in backends")
    if not (isinstance(encodings, str) and encodings in SCOPES):
        encodings = listed(encodings, "encodings")
    check_limits(None, time_limit)
    return cross_check(chosen, parsed, backends=names, scope=encodings, solver=solver, time_limit=time_limit,
                       total_budget=total_budget, up_to=up_to, split=splitting(split), on_outcome=on_outcome,
                       on_start=on_start)


def listed(value: str | Iterable[str], parameter: str) -> list[str]:
    """A list of names given as a list, or as one comma-separated string (never read letter by letter)."""
    items = [part.strip() for part in value.split(",")] if isinstance(value, str) else list(value)
    if not items or not all(isinstance(item, str) and item.strip() for item in items):
        raise InvalidOption(f"{parameter} {value!r} must be a non-empty list of names (or one comma-separated string)")
    return [item.strip() for item in items]


def fuzz(
    puzzles: Iterable[str | Puzzle] | None = None,
    *,
    seed: int = 0,
    pairs: int = FUZZ_PAIRS,
    budget: float = FUZZ_BUDGET,
    jobs: int = 1,
    mutant: str | None = None,
    on_instance: Callable[[FuzzReport], None] | None = None,
) -> FuzzReport:
    """Differential testing: random tiny instances drawn from ``seed``, every encoding, backend and
    solver run on each and compared with the puzzle's brute-force oracle, until ``pairs`` (instance,
    configuration) pairs are checked or ``budget`` seconds pass; ``jobs`` processes. ``puzzles``:
    names, or one ``Puzzle`` object (a plugin under test, run in this process); default every puzzle
    with an oracle. ``mutant`` (``"FAMILY OPERATOR [SELECTOR]"``, as ``mutate`` names one) is planted in
    every formulation that has its family. The report's ``.agree``, ``.pairs`` and ``.differences``
    (each with the ``gridsat fuzz`` command that repeats it) say what was found."""
    planted = parse_mutant(mutant) if mutant else None
    chosen = list(puzzles or [])
    objects = [p for p in chosen if isinstance(p, Puzzle)]
    if objects and len(chosen) > 1:
        raise InvalidOption("fuzz one Puzzle object at a time (or registered puzzles by name)")
    if not isinstance(pairs, int) or pairs < 1 or not budget > 0:
        raise InvalidOption(f"fuzz needs pairs >= 1 and a budget above 0 seconds, not {pairs} and {budget}")
    names = None if objects else [get_puzzle(str(p)).name for p in chosen] or None
    return run_fuzz(names, seed=seed, pairs=pairs, budget=budget, jobs=jobs, mutant=planted,
                    puzzle=objects[0] if objects else None, on_instance=on_instance)


def fuzz_pair(puzzle: str | Puzzle, instance: str, *, params: Params | None = None, backend: str,
              encoding: str | None = None, solver: str | None = None, algorithm: str | None = None,
              mutant: str | None = None) -> FuzzReport:
    """One (instance, configuration) pair against the oracle: what a difference's command repeats."""
    chosen, parsed = load(puzzle, instance, params)
    request = Request(encoding=encoding, solver=solver, algorithm=algorithm)
    config = pair_of(backend, chosen, request)
    started = time.monotonic()
    report = FuzzReport(0, instances=1)
    report.checked = fuzz_one(chosen, instance, texts(params), config, parse_mutant(mutant) if mutant else None)
    report.seconds = time.monotonic() - started
    return report


# The backends that search a puzzle's formulation (CP-SAT or CNF): a mutant is a changed formulation.
MUTATE_BACKENDS = tuple(backends_where(searches_formulation))


def mutate(
    puzzle: str | Puzzle,
    instances: Iterable[str] | None = None,
    *,
    params: Params | None = None,
    backend: str = DEFAULT_BACKEND,
    encoding: str | None = None,
    corpus: str = "golden",
    mutants: int | str | None = None,
    seed: int = 0,
    jobs: int = 1,
    time_limit: float = 10.0,
    search: bool = True,
    proof_budget: int = PROOF_CONFLICTS,
    on_verdict: Callable[[Verdict, int], None] | None = None,
) -> MutationReport:
    """Inject encoding bugs (mutants) and count those the corpus catches: ``.summary()`` has the score.

    The corpus is the puzzle's golden cases (``corpus="golden"``) or ``instances`` (with ``params``),
    counted by the puzzle's reference search. ``encoding`` names one encoding (default: each choice
    once); ``mutants`` samples that many (seeded by ``seed``; default: every mutant when there are at most
    1000, else a sample of 1000; ``"all"``: every one); ``time_limit`` caps each mutant's run and
    ``proof_budget`` the conflicts a CNF mutant's redundancy proofs may spend.
    """
    chosen = get_puzzle(puzzle) if isinstance(puzzle, str) else puzzle
    if backend not in MUTATE_BACKENDS:
        raise UnknownName("backend", backend, MUTATE_BACKENDS, " for mutate")
    if corpus != "golden":
        raise UnknownName("corpus", corpus, ("golden",))
    if mutants is not None and mutants != ALL and not is_whole_number(mutants, 1):
        raise InvalidOption(f"mutants {mutants!r} must be a whole number of at least 1, or 'all'")
    check_limits(None, time_limit)
    if not is_whole_number(jobs, 1):
        raise InvalidOption(f"jobs must be a whole number of at least 1, not {jobs!r}")
    if not is_whole_number(proof_budget, 1):
        raise InvalidOption(f"proof_budget must be a whole number of conflicts, at least 1, not {proof_budget!r}")
    bound = bind(backend, chosen, Job(COUNT, time_limit=time_limit))
    kind = bound.backend.formulation
    space = chosen.encodings(kind)
    encodings = [space.resolve(encoding, f" for the {kind} of {chosen.name}")] if encoding else list(space.variants())
    cases = counted_cases(chosen, list(instances), params, time_limit) if instances else golden_corpus(chosen)
    return mutation_report(chosen, bound, encodings, cases, time_limit=time_limit, mutants=mutants, seed=seed,
                           jobs=jobs, search=search, proof_budget=proof_budget, on_verdict=on_verdict)


def golden_corpus(puzzle: Puzzle) -> list[Case]:
    """The puzzle's golden cases, or a one-line refusal when it declares none."""
    if puzzle.mutation.corpus is None:
        raise InvalidOption(f"{puzzle.name} declares no golden corpus: name the instances to judge mutants on")
    return puzzle.mutation.corpus()


def counted_cases(puzzle: Puzzle, instances: list[str], params: Params | None, time_limit: float) -> list[Case]:
    """The instances as cases, each counted by the puzzle's reference search (within ``time_limit``)."""
    reference = reference_backend()
    if reference in left_out(puzzle):
        raise InvalidOption(f"{puzzle.name} has no reference search to count the instances: use the golden corpus")
    cases = []
    for text in instances:
        parsed = puzzle.parse(text, texts(params))
        outcome = execute(puzzle, parsed, bind(reference, puzzle, Job(ENUMERATE, time_limit=time_limit)))
        if not outcome.complete or outcome.invalid:
            raise InvalidOption(f"the reference search could not count {puzzle.name} {text} within {time_limit:g} s "
                                f"({outcome.reason or 'invalid solutions'}): raise time_limit= or pick a smaller one")
        cases.append(Case(text, texts(params), outcome.count, "counted by the reference search"))
    return cases


def splitting(split: Split | None) -> Split | None:
    """How to split a run, or None for one plain search in this process (the default)."""
    if split is None:
        return None
    if not isinstance(split, Split):
        raise InvalidOption(f"split {split!r} must be a gridsat.Split")
    if not is_whole_number(split.jobs, 0) or split.jobs > MAX_JOBS:
        raise InvalidOption(f"jobs {split.jobs!r} must be a whole number: 0 for one per core, or 1 to {MAX_JOBS}")
    if split.parts is not None and not (is_whole_number(split.parts, 1) and split.parts <= MAX_PARTS):
        raise InvalidOption(f"parts {split.parts!r} must be a whole number from 1 to {MAX_PARTS:,}")
    if split.scheduler is not None:
        scheduler_address(split.scheduler)
    workers = cores() if split.jobs == 0 else split.jobs
    if workers == 1 and split.scheduler is None and split.checkpoint is None and split.parts is None:
        return None
    checkpoint = None if split.checkpoint is None else Path(split.checkpoint)
    return dataclasses.replace(split, jobs=workers, checkpoint=checkpoint)


def is_whole_number(value: object, floor: int) -> bool:
    """A whole number of at least ``floor`` (True and False are not numbers of anything here)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= floor


def check_limits(limit: int | None, time_limit: float | None) -> None:
    """A solution limit is a whole number of at least 1; a time limit a positive number of seconds."""
    if limit is not None and not is_whole_number(limit, 1):
        raise InvalidOption(f"limit {limit!r} must be a whole number of at least 1")
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise InvalidOption(f"time limit {time_limit!r} must be a positive number of seconds")


# What the command line asks of the layers below. gridsat/cli.py imports nothing from gridsat.solvers
# (tests/test_layers.py holds it to that): what it needs is offered here, as functions where it would
# otherwise work with solver internals, and as names imported above (``X as X``: re-exported as they
# are): the choices UP_TO, METHODS and SCOPES, PROOF_CONFLICTS, the outcome and report types, Progress,
# get_puzzle, count_notes, counted, consume, single_threaded_blas, the INTERRUPTED stop reason, and the
# cross-check's RUN_BUDGET and Turn.


def backend_names(can: str | None = None) -> list[str]:
    """Every registered backend, installed or not, in the order ``gridsat list`` shows them; ``can``: only
    those that can do that (``SOLVE``, ``ENUMERATE``, ``COUNT``: the verbs of ``solve``, ``enumerate``, ``count``)."""
    return list(BACKENDS) if can is None else backends_where(lambda b: can in b.can)


def listing() -> dict[str, Any]:
    """Every puzzle (plugins included), backend, PySAT solver and at-most-one encoding, as ``gridsat list
    --json`` prints them; a plugin that does not load is a line of ``plugin_errors``, not an error."""
    chosen = {name: backend_class(name)() for name in BACKENDS}
    puzzles, broken = [], [*shadowed()]
    for name in puzzle_names():
        try:
            puzzle = get_puzzle(name)
            table = algorithms(puzzle)
        except (GridsatError, ImportError) as error:  # a plugin that does not load: one line, not fatal
            broken.append(str(error))
            continue
        puzzles.append({
            "name": name, "summary": puzzle.summary, "instance": puzzle.instance_help, "params": dict(puzzle.params),
            "cpsat_encodings": {a.name: list(a.choices) for a in puzzle.cpsat_encodings.axes},
            "cnf_encodings": {a.name: list(a.choices) for a in puzzle.cnf_encodings.axes},
            "algorithms": {a.name: a.summary for a in table.values()},
            "backends": [n for n, b in chosen.items() if b.refusal(puzzle) is None],
        })
    backends: list[dict[str, Any]] = []
    extras: dict[str, Any] = {}
    for name, b in chosen.items():
        available = b.supported()
        backends.append({"name": name, "summary": b.summary, "available": available, "takes": list(b.takes),
                         "can": sorted(b.can), **({} if available else {"install": b.install})})
        extras.update(b.listing() if available else {})
    return {"puzzles": puzzles, "backends": backends, **extras, "amo_encodings": list(AT_MOST_ONE),
            "plugin_errors": broken}


def instance_note(puzzle: Puzzle, instance: Instance) -> str | None:
    """What the puzzle has to say about an instance (the command line prints it on stderr), or None."""
    return (puzzle.note(instance) or None) if puzzle.note else None


EXPORT_FORMATS = FORMATS  # what ``export`` writes: dimacs (the CNF) or cpsat (the CP-SAT model)


def formulate(puzzle: str | Puzzle, instance: str | Instance, *, params: Params | None = None,
              backend: str | None = None, encoding: str | None = None, exact: bool | None = None) -> Formulation:
    """The formulation a backend solves, as the object gridsat itself builds, exports and mutates: for a
    backend that reads CNF (``sat``, ``d4``, ``ganak``) a ``CnfFormulation`` (``.cnf``, a PySAT ``CNF``;
    ``.projection``, the puzzle's own variables; ``.pool``, the ``IDPool`` that names them, so
    ``pool.obj(v)`` is a variable's key; ``.decode``), for ``cpsat`` a ``CpsatFormulation`` (``.model``,
    the ``CpModel``; ``.primary``, its primary variables by key; ``.decode``); ``.encoding`` names the
    encoding in full. ``encoding`` as the backend takes it; an axis not named takes the choice ``count``
    makes on that backend (the backend's default, which may be a lazy or symmetry-reduced encoding; a
    counting backend's exact one); ``exact=True``: the exact choice, as export takes it. No ``backend``:
    the CNF, as the first backend that searches CNF (``sat``) solves it."""
    chosen, parsed = load(puzzle, instance, params)
    backend = backend or searcher_of("cnf")
    if backend not in BACKENDS:
        raise UnknownName("backend", backend, list(BACKENDS))
    kind = backend_class(backend).formulation
    if kind is None:
        having = [name for name in BACKENDS if backend_class(name).formulation is not None]
        raise InvalidOption(f"backend {backend!r} has no formulation: formulate for one of {', '.join(having)}")
    exact = counts_only(backend_class(backend)()) if exact is None else exact  # as count resolves it
    return build(chosen, parsed, kind, resolve_encoding(chosen, kind, encoding, exact=exact))


def export(puzzle: str | Puzzle, instance: str | Instance, *, params: Params | None = None, format: str = "dimacs",
           encoding: str | None = None, scramble: int | None = None) -> Export:
    """The CNF (``format="dimacs"``, with its projection) or the CP-SAT model (``format="cpsat"``, protobuf
    text) of an instance, ready to be written: ``.write(out)``, and ``.notes()`` when the file's models
    are not exactly the solutions. The encoding is exact unless ``encoding`` names a reduced one.
    ``scramble``: a DIMACS file's variables renamed, polarities flipped, clauses and literals shuffled from that seed
    (the same formula: its projection names the renamed variables, so a projected count is the same)."""
    chosen, parsed = load(puzzle, instance, params)
    return exporting(chosen, parsed, format, encoding, scramble)


def generate(puzzle: str | Puzzle, size: str, *, seed: int | None = None, max_area: int | None = None,
             unique: bool = False, format: str = "text") -> str:  # noqa: A002 - the word the CLI uses
    """A random instance (``size`` is ``"RxC"``) of a puzzle that has a generator, as the text ``solve`` takes
    or in another of the puzzle's formats (``format``: ``"puzzlink"`` writes a Shikaku as a puzz.link URL);
    the same ``seed`` gives the same instance, ``unique`` retries until it has exactly one solution."""
    chosen = get_puzzle(puzzle) if isinstance(puzzle, str) else puzzle
    if chosen.generate is None:
        generators = [n for n in puzzle_names() if get_puzzle(n).generate is not None]
        raise InvalidOption(f"puzzle {chosen.name!r} has no generator; puzzles with one: {', '.join(generators)}")
    if format != "text" and format not in chosen.writers:
        known = ", ".join(["text", *chosen.writers])
        raise InvalidOption(f"format {format!r}: {chosen.name} instances are written as {known}")
    text = chosen.generate(size, seed=seed, max_area=max_area, unique=unique)
    return text if format == "text" else chosen.writers[format](chosen.parse(text, {})) + "\n"
