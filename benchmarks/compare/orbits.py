"""Orbit counts (``--up-to``) timed side by side with the ordinary count of the same backend and encoding.

    python -m gridsat.benchmarks.compare.orbits                  # 5x5 open tours, prime-grid 4x5/20 and 4x5/21
    python -m gridsat.benchmarks.compare.orbits --six     # and 6x6 closed tours: 9,862 undirected, 1,245 up to symmetry
    python -m gridsat.benchmarks.compare.orbits --backends sat --time-limit 600

Every row is checked against the golden count that ships with gridsat (models/golden/orbits.toml,
with sources), installed or not; a row that
differs prints WRONG and the command exits 1. The ratio is the ordinary count's time over the row's
(the ordinary count is the baseline of its backend and encoding on that instance). Targets: an
orbit count costs about what the ordinary count costs (canonical representatives add a pass over
each solution's images; Burnside adds one small count per group element), and where an encoding
breaks symmetry (prime-grid ``symmetry``) counting the leaders is faster than filtering every
filling of the ``nosymmetry`` model.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

import gridsat
from gridsat.models.golden import counts
from gridsat.solvers.run import Outcome


@dataclass(frozen=True)
class Case:
    """An instance, what to count it up to, and on which encodings; its answers are the golden ones."""

    puzzle: str
    instance: str
    params: dict[str, str]
    up_to: str
    encodings: tuple[str | None, ...] = (None,)

    @property
    def golden(self) -> dict:
        """The case's entry in the golden orbit counts (one file for the tests and this script)."""
        for entry in counts("orbits"):
            if (entry["puzzle"], entry["instance"], entry.get("params", {}), entry["up_to"]) == (
                    self.puzzle, self.instance, self.params, self.up_to):
                return entry
        raise LookupError(f"no golden orbit count for {self}: add it to models/golden/orbits.toml")

    @property
    def orbits(self) -> int:
        return self.golden["count"]

    @property
    def solutions(self) -> int:
        return self.golden["solutions"]


CASES = [
    Case("knights-tour", "5x5", {}, "symmetry"),
    Case("prime-grid", "4x5", {"max": "20"}, "symmetry", (None, "nosymmetry")),
    Case("prime-grid", "4x5", {"max": "21"}, "symmetry", (None, "nosymmetry")),
]
SIX = [
    Case("knights-tour", "6x6", {"closed": "true"}, "reversal"),
    Case("knights-tour", "6x6", {"closed": "true"}, "symmetry"),
]


def run(case: Case, backend: str, encoding: str | None, method: str | None, time_limit: float) -> Outcome:
    """One count: ordinary (``method`` None) or of orbits by ``method``."""
    up_to = case.up_to if method else None
    return gridsat.count(case.puzzle, case.instance, params=case.params, backend=backend, encoding=encoding,
                         up_to=up_to, method=method, time_limit=time_limit)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="cpsat,sat", help="comma-separated (default cpsat,sat)")
    parser.add_argument("--six", action="store_true", help="also the 6x6 closed tours (minutes)")
    parser.add_argument("--time-limit", type=float, default=300, metavar="SEC", help="per run")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (2 shared cores); time limit {args.time_limit:g} s per run")
    header = (f"{'instance':<22} {'backend:encoding':<16} {'counted':<22} {'count':>7} {'group':>5} {'seconds':>9} "
              f"{'vs count':>9}  check")
    print(header)
    print("-" * len(header), flush=True)
    wrong = False
    for case in CASES + (SIX if args.six else []):
        name = f"{case.puzzle} {case.instance}" + "".join(f" {k}={v}" for k, v in case.params.items())
        canonical: dict[str, float] = {}
        for backend in args.backends.split(","):
            for encoding in case.encodings:
                base = 0.0
                for method in (None, "canonical", "burnside"):
                    outcome = run(case, backend, encoding, method, args.time_limit)
                    seconds = outcome.seconds + outcome.build_seconds
                    base = base or seconds
                    expected = case.orbits if method else case.solutions
                    ok = outcome.complete and outcome.count == expected and not outcome.invalid
                    ok = ok and not getattr(outcome, "problems", None)
                    check = "ok" if ok else (f"WRONG (expected {expected})" if outcome.complete else "incomplete")
                    wrong |= outcome.complete and not ok
                    where = f"{backend}:{encoding or 'default'}"
                    if method == "canonical":
                        canonical[where] = seconds
                    counted = f"{method} up to {case.up_to}" if method else "solutions"
                    group = str(len(outcome.group)) if method else "-"
                    print(f"{name:<22} {where:<16} {counted:<22} {outcome.count:>7} {group:>5} {seconds:>9.2f} "
                          f"{base / seconds if seconds else 0:>8.2f}x  {check}", flush=True)
            leaders, every = canonical.get(f"{backend}:default"), canonical.get(f"{backend}:nosymmetry")
            if leaders and every:
                print(f"{name:<22} {backend:<16} leaders (symmetry) vs filtering every filling (nosymmetry): "
                      f"{every / leaders:.2f}x faster", flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
