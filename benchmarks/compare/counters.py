"""Exact counting side by side: the d4 and Ganak model counters, sat enumeration on two cores, and the
frontier counter where the puzzle has one, on the same instances in one run, with a crossover table
that says which backend to pick for which instance.

    python -m gridsat.benchmarks.compare.counters            # the full series, 60 s per run (30-60 minutes)
    python -m gridsat.benchmarks.compare.counters --quick    # a few minutes: 10 s per run, fewer instances
    python -m gridsat.benchmarks.compare.counters --only tatami --time-limit 20

Tatami strips (2xN, 3xN, 4xN) climb a ladder of lengths: each backend stops climbing once a run
hits the time limit, so the table shows how far each gets within it. A backend whose package is
not installed (d4, ganak), or that is not registered or refuses the puzzle (frontier), is skipped
with a message. Targets: tatami 2x200 and 3x200 exact in under 1 s of counting with either counter.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import gridsat
from gridsat.models import get_puzzle
from gridsat.models.errors import GridsatError
from gridsat.solvers.backend import BACKENDS, backend_class

BACKEND_ORDER = ("d4", "ganak", "sat", "frontier")
LADDER = (10, 20, 50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25000)  # 4x25000: tatami's 100,000 cells
QUICK_LADDER = (10, 20, 50, 200)


@dataclass(frozen=True)
class Case:
    """One instance: its family (rows of the crossover table), puzzle, instance text and parameters."""

    family: str
    puzzle: str
    instance: str
    params: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.puzzle} {self.instance}{' ' + extra if extra else ''}"


@dataclass
class Result:
    """One backend on one case: the count (None when unknown), seconds, and why it stopped short."""

    case: Case
    backend: str
    count: int | None
    seconds: float
    note: str = ""


def fixed_cases(quick: bool) -> list[Case]:
    """Everything but the tatami ladders: prime-grid, knight's tours and Tatham Shikaku ids (golden ones)."""
    cases = [Case("prime-grid", "prime-grid", "4x5"), Case("knights-tour", "knights-tour", "5x5"),
             Case("shikaku", "shikaku", "seed"), Case("shikaku", "shikaku", "4x4:2a2b2a2_2a2b2a2")]
    if not quick:
        cases += [Case("prime-grid", "prime-grid", "5x5", {"max": "25"}),
                  Case("knights-tour", "knights-tour", "6x6", {"closed": "true"}),
                  Case("shikaku", "shikaku", "6x6:2a2a2b2a2a2_2a2a2b2a2a2_2a2a2b2a2a2")]
    return cases


def available(names: list[str]) -> list[str]:
    """The backends that can run here; each one left out is said in one line."""
    kept = []
    for name in names:
        if name not in BACKENDS:
            print(f"skipped {name}: not registered in this gridsat (gridsat.solvers.backend.BACKENDS)")
        elif not backend_class(name)().supported():
            backend = backend_class(name)()
            print(f"skipped {name}: not installed ({getattr(backend, 'install', 'see gridsat list')})")
        else:
            kept.append(name)
    return kept


def run(case: Case, backend: str, time_limit: float) -> Result:
    """Count ``case`` with ``backend`` (sat: split over two worker processes) within ``time_limit``."""
    options: dict[str, object] = {"split": gridsat.Split(jobs=2)} if backend == "sat" else {}
    started = time.perf_counter()
    try:
        outcome = gridsat.count(case.puzzle, case.instance, params=case.params, backend=backend,
                                time_limit=time_limit, **options)
    except GridsatError as error:  # a puzzle this backend does not count (frontier): a row that says so
        return Result(case, backend, None, time.perf_counter() - started, f"refused: {error}")
    seconds = outcome.seconds + outcome.build_seconds
    known = outcome.complete and getattr(outcome, "known", True)
    return Result(case, backend, outcome.count if known else None, seconds, "" if known else str(outcome.reason))


def ladder(rows: int, backends: list[str], lengths: tuple[int, ...], time_limit: float) -> Iterator[Result]:
    """Tatami rows x N for growing N; a backend leaves the ladder once it misses the limit."""
    climbing = list(backends)
    for length in lengths:
        case = Case(f"tatami {rows}xN", "tatami", f"{rows}x{length}")
        for backend in list(climbing):
            result = run(case, backend, time_limit)
            yield result
            if result.count is None:
                climbing.remove(backend)


def show(result: Result) -> None:
    count = "-" if result.count is None else f"{result.count}"
    if len(count) > 24:
        count = f"{count[:10]}...({len(count)} digits)"
    print(f"{result.case.name:<52} {result.backend:<9} {count:>26} {result.seconds:>9.3f}  {result.note[:60]}",
          flush=True)


def crossover(results: list[Result]) -> None:
    """Per instance: the fastest backend that finished, and how much faster than the runner-up."""
    print("\ncrossover: the backend to pick for each instance (fastest complete count; x = vs the next one)")
    print(f"{'instance':<52} {'pick':<9} {'seconds':>9} {'next':<9} {'x':>8}  missed the limit or refused")
    for name in dict.fromkeys(r.case.name for r in results):
        done = sorted((r for r in results if r.case.name == name and r.count is not None), key=lambda r: r.seconds)
        missed = ", ".join(r.backend for r in results if r.case.name == name and r.count is None)
        counts = {r.count for r in done}
        if len(counts) > 1:
            print(f"{name:<52} DISAGREEMENT: {sorted(counts)}")
            continue
        if not done:
            print(f"{name:<52} {'none':<9} {'':>9} {'':<9} {'':>8}  {missed}")
            continue
        best, runner = done[0], done[1] if len(done) > 1 else None
        factor = f"{runner.seconds / max(best.seconds, 1e-6):.1f}x" if runner else ""
        print(f"{name:<52} {best.backend:<9} {best.seconds:>9.3f} {runner.backend if runner else '':<9} "
              f"{factor:>8}  {missed}")


def reach(results: list[Result], limit: float) -> None:
    """Per tatami strip family: the longest strip each backend counted within the limit, and in how long."""
    families = list(dict.fromkeys(r.case.family for r in results if r.case.family.startswith("tatami")))
    if not families:
        return
    print(f"\nreach: the longest tatami strip each backend counted within {limit:g} s")
    for family in families:
        cells = []
        for backend in dict.fromkeys(r.backend for r in results if r.case.family == family):
            done = [r for r in results if r.case.family == family and r.backend == backend and r.count is not None]
            best = max(done, key=lambda r: int(r.case.instance.split("x")[1]), default=None)
            cells.append(f"{backend} {best.case.instance} ({best.seconds:.2f} s)" if best else f"{backend} none")
        print(f"{family:<12} " + "; ".join(cells))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 s per run and fewer instances (a few minutes)")
    parser.add_argument("--time-limit", type=float, metavar="SEC", help="per run (default 60; --quick 10)")
    parser.add_argument("--backends", nargs="+", default=list(BACKEND_ORDER), metavar="NAME",
                        help=f"the backends to compare (default {' '.join(BACKEND_ORDER)})")
    parser.add_argument("--only", nargs="+", metavar="FAMILY",
                        help="only these families: tatami, prime-grid, knights-tour, shikaku")
    parser.add_argument("--lengths", nargs="+", type=int, metavar="N", help="the tatami ladder's lengths N")
    args = parser.parse_args(argv)
    sys.set_int_max_str_digits(0)  # a 2x25000 strip has 8,300 digits; Python prints at most 4,300 by default
    limit = args.time_limit or (10.0 if args.quick else 60.0)
    backends = available(args.backends)
    wanted = set(args.only or ("tatami", "prime-grid", "knights-tour", "shikaku"))
    print(f"time limit {limit:g} s per run; backends {', '.join(backends)}; sat enumerates on 2 worker processes\n")
    print(f"{'instance':<52} {'backend':<9} {'count':>26} {'seconds':>9}  note")
    results: list[Result] = []
    if "tatami" in wanted:
        for rows in (2, 3, 4):
            lengths = tuple(args.lengths or (QUICK_LADDER if args.quick else LADDER))
            for result in ladder(rows, backends, lengths, limit):
                show(result)
                results.append(result)
    for case in fixed_cases(args.quick):
        if case.family not in wanted:
            continue
        frontier = "frontier" in backends and get_puzzle(case.puzzle).frontier is not None
        for backend in backends:
            if backend == "frontier" and not frontier:
                continue  # no frontier formulation for this puzzle
            result = run(case, backend, limit)
            show(result)
            results.append(result)
    crossover(results)
    reach(results, limit)


if __name__ == "__main__":
    main()
