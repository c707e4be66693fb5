"""Certified counts (``--certify``): each target counted plainly and certified, side by side in one run, on
the sat backend and on cpsat (whose solutions a certified run replays in the CNF: solvers.proof.replay).

    python -m gridsat.benchmarks.compare.certify               # the five small targets, two backends, best of 3
    python -m gridsat.benchmarks.compare.certify --repeat 1 --backend sat
    python -m gridsat.benchmarks.compare.certify --large --repeat 1   # and the large ones (sat; minutes)

For each instance and backend: the plain count's time (``plain s``: its formulation built, then its search),
the certified run's whole time (``cert. s``: what it builds, its formulation and, under symmetry breaking, the
formula without it; its search, writing its own LRAT proof on CaDiCaL 1.9.5 (solvers.proof.blocker), or followed by
a fresh solver refuting formula, blocking and cut clauses (DRAT from the other solvers), or, under symmetry
breaking, the formula without it and every orbit member, and the certificate checked: blocking and cut
clauses justified, blocked assignments checked to be models, orbits expanded, the proof checked), the
proof's size and steps,
gridsat's check time, the ratio of the check to the plain run's search (target: at most 5) and of the certified
run to the plain one (target: at most 2), the same ratio of the searches alone (``searches``: the builds left
out, as this benchmark measured until 2026-11-30, which left out what a certified run builds to certify with),
and the same ratio in CPU seconds (``plain cpu``, ``cert.
cpu``: the process's, every thread's), which a loaded machine disturbs less than wall time. A certified
run checks its proof (``proof.lrat``, or ``orbits.lrat`` alone where the orbits are proved) on a second
thread beside its other checks (``solvers.proof.certificate.judge``): on two free cores the wall ratio
gains from that overlap, the CPU ratio does not (the output says so).
The checker's kernels are compiled (or loaded from numba's cache), and every puzzle, solver and proof
module imported (one untimed plain and one untimed certified run of each small target), before the
clock: the times are the runs' own. The small
targets solve in milliseconds, so their ratios measure a certified run's fixed costs; the large ones
(``--large``: plain solves of 0.03 s to 8 s, up to 19,724 solutions) measure its cost per solution and
proof step.

Its measurement log (the runs behind its targets and the constants they tuned) is in the documentation:
docs/measurements/certify.md.
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import gridsat
from gridsat.solvers.proof.drat import warm_up

TARGET = 5.0  # check / plain run
OVERHEAD = 2.0  # certified run / plain run
BACKENDS = ("sat", "cpsat")


@dataclass(frozen=True)
class Case:
    puzzle: str
    instance: str
    params: dict[str, str] = field(default_factory=dict)
    limit: int | None = None  # 2: a uniqueness question
    backends: tuple[str, ...] = ("sat", "cpsat")

    @property
    def name(self) -> str:
        extra = " ".join(f"{k}={v}" for k, v in self.params.items())
        return " ".join(x for x in (self.puzzle, self.instance, extra, "--limit 2" if self.limit else "") if x)


CASES = [
    Case("prime-grid", "3x3", {"max": "10"}),
    Case("tatami", "6x6"),
    Case("shikaku", "seed", limit=2),
    Case("knights-tour", "5x5", {"start": "0,0"}),
    Case("knights-tour", "5x6", {"closed": "true"}),
]
LARGE = [  # plain sat solves on a loaded machine: about 0.03 s, 0.3 s and 5 to 8 s
    Case("prime-grid", "3x4", backends=("sat",)),
    Case("prime-grid", "4x4", backends=("sat",)),
    Case("knights-tour", "6x6", {"closed": "true"}, backends=("sat",)),
]


@dataclass
class Row:
    case: Case
    backend: str
    count: int
    certified: bool | None
    proof_bytes: int
    proof_steps: int
    plain: float  # the plain count's seconds: its formulation built, then its search
    whole: float  # the certified run's seconds: its formulation and what it certifies with built, its search,
    # its check
    check: float
    plain_cpu: float = 0.0  # the process's CPU seconds (every thread's) of the best plain count
    whole_cpu: float = 0.0  # and of the best certified run
    plain_search: float = 0.0  # the plain count's search alone (``Outcome.seconds``)
    whole_search: float = 0.0  # the certified run's search and check, what it built before left out

    @property
    def cpu_overhead(self) -> float:
        """The certified run's CPU seconds over the plain one's: on a loaded machine, steadier than wall time."""
        return self.whole_cpu / self.plain_cpu if self.plain_cpu > 0 else float("inf")

    @property
    def ratio(self) -> float:
        """The check over the plain count's search alone (the solve), as before the builds were counted."""
        return self.check / self.plain_search if self.plain_search > 0 else float("inf")

    @property
    def overhead(self) -> float:
        return self.whole / self.plain if self.plain > 0 else float("inf")

    @property
    def search_overhead(self) -> float:
        """The ratio of the searches alone (the check in the certified one), the builds left out: what this
        benchmark printed before 2026-11-30, which left out what a certified run builds to certify with."""
        return self.whole_search / self.plain_search if self.plain_search > 0 else float("inf")


def run_seconds(outcome: gridsat.Outcome) -> float:
    """A run's whole wall time: its build (the formulation, and a certified run's recorder, which builds the
    formula without symmetry breaking) and its search (a certified run's check included)."""
    return outcome.build_seconds + outcome.seconds


def measure(case: Case, backend: str, repeat: int) -> Row:
    """The best of ``repeat`` plain counts and of ``repeat`` certified ones, taken in turn (by wall time, build
    and search, ``run_seconds``; the CPU seconds, the whole call's, and the searches alone are each kind's least
    too)."""
    plain, certified = [], []
    for _ in range(repeat):
        for runs, certify in ((plain, False), (certified, True)):
            started = time.process_time()
            outcome = gridsat.count(case.puzzle, case.instance, params=case.params, backend=backend,
                                    limit=case.limit, certify=certify)
            runs.append((outcome, time.process_time() - started))
    best = min(certified, key=lambda run: run_seconds(run[0]))[0]
    return Row(case, backend, best.count, best.details.get("certified"), best.details.get("proof_bytes", 0),
               best.details.get("proof_steps", 0), min(run_seconds(o) for o, _ in plain), run_seconds(best),
               best.details.get("check_seconds", 0.0), min(cpu for _, cpu in plain), min(cpu for _, cpu in certified),
               min(o.seconds for o, _ in plain), min(o.seconds for o, _ in certified))


def warm_up_runs() -> None:
    """One untimed plain and one untimed certified run of each small target: imports and compiles."""
    warm_up()
    for case in CASES:
        for certify in (False, True):
            gridsat.count(case.puzzle, case.instance, params=case.params, backend="sat", limit=case.limit,
                          certify=certify)


def report(title: str, rows: list[Row]) -> None:
    """The worst ratios of one kind of target against their targets."""
    for what, target, worst in (("check/plain", TARGET, max(r.ratio for r in rows)),
                                ("certified/plain", OVERHEAD, max(r.overhead for r in rows)),
                                ("certified/plain CPU seconds", OVERHEAD, max(r.cpu_overhead for r in rows)),
                                ("certified/plain, searches alone", OVERHEAD, max(r.search_overhead for r in rows))):
        verdict = "met" if worst <= target else "NOT met"
        print(f"worst {what} ratio {worst:.1f}x ({title}; target at most {target:.0f}x): {verdict}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind per instance, best kept (3)")
    parser.add_argument("--backend", choices=BACKENDS, action="append", help="only this backend (repeatable)")
    parser.add_argument("--large", action="store_true", help="also the large targets (sat backend; minutes)")
    args = parser.parse_args(argv)
    warm_up_runs()
    print("# plain s, cert. s: wall time of the whole run, build and search; cert. s has its proof checked on a "
          "second thread beside the other checks (an overlap); cert. cpu: CPU seconds of every thread, no overlap "
          "counted; searches: the ratio of the searches alone, builds left out")
    print(f"{'instance':<40} {'backend':<7} {'count':>6} {'certified':>9} {'proof bytes':>12} {'steps':>8} "
          f"{'plain s':>8} {'cert. s':>8} {'check s':>8} {'check/plain':>11} {'cert./plain':>11} "
          f"{'plain cpu':>9} {'cert. cpu':>9} {'cpu ratio':>9} {'searches':>8}")
    for title, cases in (("small targets, fixed costs", CASES), ("large targets", LARGE if args.large else [])):
        rows = []
        for case in cases:
            for backend in [b for b in args.backend or BACKENDS if b in case.backends]:
                row = measure(case, backend, args.repeat)
                rows.append(row)
                print(f"{case.name:<40} {backend:<7} {row.count:>6} {str(row.certified):>9} {row.proof_bytes:>12,} "
                      f"{row.proof_steps:>8,} {row.plain:>8.4f} {row.whole:>8.4f} {row.check:>8.4f} "
                      f"{row.ratio:>10.1f}x {row.overhead:>10.1f}x {row.plain_cpu:>9.4f} {row.whole_cpu:>9.4f} "
                      f"{row.cpu_overhead:>8.1f}x {row.search_overhead:>7.1f}x", flush=True)
        if rows:
            report(title, rows)


if __name__ == "__main__":
    main()
