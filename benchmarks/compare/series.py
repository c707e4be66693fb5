"""Side-by-side timing of backends and encodings on a series of instances, with ratios to a baseline.

Every configuration runs on the same instance in the same process, one after the other, so the
ratios printed compare like with like on this (noisy, shared) machine.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from gridsat import api
from gridsat.models import get_puzzle
from gridsat.models.errors import GridsatError
from gridsat.solvers.backend import ENUMERATE, Backend, Request, backend_class
from gridsat.solvers.gate import Job, admit
from gridsat.solvers.run import Outcome, execute
from gridsat.solvers.stop import Reason


@dataclass(frozen=True)
class Setup:
    """A benchmark row's backend and choices, named before any instance is: ``measure`` binds it (the gate)
    on each instance it runs. A cross-check's ``Bound`` runs serve as well (they have both fields)."""

    backend: Backend
    request: Request = Request()

    @classmethod
    def named(cls, name: str, request: Request | None = None) -> Setup:
        """The setup of the registered backend ``name`` (installed or not: running it says so)."""
        return cls(backend_class(name)(), request or Request())


@dataclass
class Row:
    """One configuration on one instance: the best of ``repeat`` runs."""

    instance: str
    config: Setup
    outcome: Outcome
    seconds: float


def label(config: Setup) -> str:
    """``backend`` or ``backend:encoding/solver/algorithm`` for the choices that were made."""
    r = config.request
    extra = "/".join(x for x in (r.encoding, r.solver, r.algorithm) if x)
    return f"{config.backend.name}:{extra}" if extra else config.backend.name


def measure(puzzle_name: str, instance_text: str, params: dict[str, str], configs: Sequence[Setup],
            time_limit: float, repeat: int = 1, mode: str = "count") -> Iterator[Row]:
    """Run each configuration ``repeat`` times (best time kept) on one instance, yielding as it goes."""
    puzzle = get_puzzle(puzzle_name)
    instance = puzzle.parse(instance_text, params)
    for config in configs:
        times, outcome = [], None
        for _ in range(repeat):
            try:
                if mode == "solve":  # complete once a solution is found, as gridsat solve says
                    r = config.request
                    outcome = api.solve(puzzle, instance, backend=config.backend.name, encoding=r.encoding,
                                        solver=r.solver, algorithm=r.algorithm, time_limit=time_limit)
                else:
                    job = Job(ENUMERATE, config.request, time_limit=time_limit)
                    outcome = execute(puzzle, instance, admit(config.backend, puzzle, job))
            except GridsatError as error:  # e.g. a formulation too large to build: a row that says so
                outcome = Outcome(puzzle.name, puzzle.describe(instance), config.backend.name, label(config),
                                  complete=False, reason=f"refused: {error}")
            times.append(outcome.seconds + outcome.build_seconds)
            if not outcome.complete and outcome.reason != Reason.SOLUTION_LIMIT:
                break  # repeating a timeout only repeats the limit
        yield Row(puzzle.describe(instance), config, outcome, min(times))


def ratio(baseline: Row | None, row: Row) -> str:
    """How many times faster ``row`` is than ``baseline``: ``>=`` when the baseline hit its time
    limit, ``<=`` when the row did, nothing to say when both did or either was refused."""
    if baseline is None or row.seconds <= 0 or refused(baseline) or refused(row):
        return "-"
    value = baseline.seconds / row.seconds
    base_cut, row_cut = (r.outcome.reason == Reason.TIME_LIMIT and not finished(r.outcome) for r in (baseline, row))
    if base_cut and row_cut:
        return "-"
    digits = 2 if value < 0.1 else 1  # a run ten times slower still shows how much
    return f"{'>=' if base_cut else '<=' if row_cut else ''}{value:,.{digits}f}x"


def refused(row: Row) -> bool:
    return (row.outcome.reason or "").startswith("refused")


def finished(outcome: Outcome) -> bool:
    """Complete, or stopped by the solution limit it was asked for (one tour in ``solve`` mode)."""
    return outcome.complete or (outcome.reason == Reason.SOLUTION_LIMIT and outcome.count > 0)


def size_columns(outcome: Outcome) -> str:
    """Variables, clauses (or constraints) and refinement rounds, where the run has them."""
    size = outcome.size
    variables, clauses = size.get("variables"), size.get("clauses", size.get("constraints"))
    rounds = size.get("refinement_rounds")
    return " ".join(f"{'' if value is None else f'{value:,}':>{width}}"
                    for value, width in ((variables, 10), (clauses, 11), (rounds, 6)))


def print_table(rows: Iterable[Row], baseline: str = "reference", sizes: bool = False) -> list[Row]:
    """Print rows as they arrive: count, seconds and the speed-up over the instance's ``baseline`` row.

    ``baseline`` names a backend (or a full configuration label such as ``sat:rank``); the first
    matching row on each instance is the baseline, so it should come first in the configurations.
    With ``sizes``, also the formulation's size and refinement rounds, and why a run stopped short.
    """
    width = 14 if sizes else 10  # room for "40x40 closed"
    header = (f"{'instance':<{width}} {'configuration':<36} {'count':>10} {'done':>5} {'seconds':>10} "
              f"{'vs ' + baseline:>14}")
    if sizes:
        header += f" {'variables':>10} {'clauses':>11} {'rounds':>6}  note"
    print(header)
    print("-" * len(header), flush=True)
    done: list[Row] = []
    bases: dict[str, Row] = {}
    for row in rows:
        if baseline in (row.config.backend, label(row.config)):
            bases.setdefault(row.instance, row)
        flag = "yes" if finished(row.outcome) else "NO"
        line = (f"{row.instance:<{width}} {label(row.config):<36} {row.outcome.count:>10} {flag:>5} "
                f"{row.seconds:>10.3f} {ratio(bases.get(row.instance), row):>14}")
        if sizes:
            note = "" if finished(row.outcome) else (row.outcome.reason or "")[:90]
            line += f" {size_columns(row.outcome)}  {note}"
        print(line, flush=True)
        done.append(row)
    for instance in dict.fromkeys(r.instance for r in done):
        counts = {r.outcome.count for r in done if r.instance == instance and r.outcome.complete}
        if len(counts) > 1:
            print(f"{instance:<10} DISAGREEMENT: complete runs counted {sorted(counts)}")
    print()
    return done


@dataclass(frozen=True)
class Series:
    """What a per-puzzle script runs: by default a quick series (about two minutes on a loaded two-core
    machine), with ``--full`` the whole series; ``--sizes`` and ``--time-limit`` override either."""

    module: str  # e.g. "gridsat.benchmarks.compare.tatami", for the line that says how to run the full series
    quick: Sequence[str]
    quick_limit: float
    full: Sequence[str]
    full_limit: float
    full_takes: str  # how long the full series may take, e.g. "up to several hours"

    def add_arguments(self, parser: argparse.ArgumentParser, sizes_help: str = "instances") -> None:
        parser.add_argument("--full", action="store_true",
                            help=f"the full series ({' '.join(self.full)}; {self.full_limit:g} s per run; "
                                 f"{self.full_takes}) instead of the quick one")
        parser.add_argument("--sizes", nargs="+", metavar="RxC",
                            help=f"{sizes_help} (default {' '.join(self.quick)}; with --full {' '.join(self.full)})")
        parser.add_argument("--time-limit", type=float, metavar="SEC",
                            help=f"per run (default {self.quick_limit:g}; with --full {self.full_limit:g})")
        parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (best time kept)")

    def settle(self, args: argparse.Namespace) -> None:
        """Fill in ``args.sizes`` and ``args.time_limit`` and say what runs, and how to run the rest."""
        args.sizes = args.sizes or list(self.full if args.full else self.quick)
        if args.time_limit is None:
            args.time_limit = self.full_limit if args.full else self.quick_limit
        print(f"# {' '.join(args.sizes)}; time limit {args.time_limit:g} s per run", flush=True)
        if not args.full:
            print(f"# the quick series (about two minutes); the full one ({self.full_takes}): "
                  f"python -m {self.module} --full", flush=True)
