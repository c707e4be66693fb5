"""Certified counts (``--certify``): each target counted plainly and certified, side by side in one run.

    python -m gridsat.benchmarks.compare.certify               # the five targets, best of 3: under a minute
    python -m gridsat.benchmarks.compare.certify --repeat 1

For each instance: the plain sat count's solving time (``solve s``), the certified run's (its solver writes
a DRAT proof; the check is not in it), the proof's size and steps, gridsat's check time (blocking and cut
clauses justified, the proof checked) and the ratio of the check to the plain solve. Target: at most 5.
The checker's kernels are compiled (or loaded from numba's cache) before the clock.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field

import gridsat
from gridsat.solvers.proof.drat import warm_up

TARGET = 5.0


@dataclass(frozen=True)
class Case:
    puzzle: str
    instance: str
    params: dict[str, str] = field(default_factory=dict)
    limit: int | None = None  # 2: a uniqueness question

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


@dataclass
class Row:
    case: Case
    count: int
    certified: bool | None
    proof_bytes: int
    proof_steps: int
    solve: float  # the plain count's solving seconds
    certified_solve: float  # the certified run's, without its check
    check: float

    @property
    def ratio(self) -> float:
        return self.check / self.solve if self.solve > 0 else float("inf")


def measure(case: Case, repeat: int) -> Row:
    """The best of ``repeat`` plain counts and of ``repeat`` certified ones."""
    plain, certified = [], []
    for _ in range(repeat):
        plain.append(gridsat.count(case.puzzle, case.instance, params=case.params, backend="sat", limit=case.limit))
        certified.append(gridsat.count(case.puzzle, case.instance, params=case.params, backend="sat",
                                       limit=case.limit, certify=True))
    best = min(certified, key=lambda o: o.details.get("check_seconds", 0.0))
    check = best.details.get("check_seconds", 0.0)
    return Row(case, best.count, best.details.get("certified"), best.details.get("proof_bytes", 0),
               best.details.get("proof_steps", 0), min(o.seconds for o in plain),
               min(o.seconds - o.details.get("check_seconds", 0.0) for o in certified), check)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each kind per instance, best kept (3)")
    args = parser.parse_args(argv)
    warm_up()
    print(f"{'instance':<40} {'count':>6} {'certified':>9} {'proof bytes':>12} {'steps':>7} {'solve s':>8} "
          f"{'cert. solve s':>13} {'check s':>8} {'check/solve':>11}")
    worst = 0.0
    for case in CASES:
        row = measure(case, args.repeat)
        worst = max(worst, row.ratio)
        print(f"{case.name:<40} {row.count:>6} {str(row.certified):>9} {row.proof_bytes:>12,} {row.proof_steps:>7,} "
              f"{row.solve:>8.4f} {row.certified_solve:>13.4f} {row.check:>8.4f} {row.ratio:>10.1f}x")
    print(f"\nworst check/solve ratio {worst:.1f}x (target at most {TARGET:.0f}x): "
          f"{'met' if worst <= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
