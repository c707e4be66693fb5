"""The full mutation run: every puzzle with a golden corpus (plugins included), both backends, every
encoding choice once, timed, with the scores table the README publishes.

    python -m gridsat.benchmarks.compare.mutation                 # --jobs 2, the default sample per run
    python -m gridsat.benchmarks.compare.mutation --puzzles tatami,nqueens --backends sat
    python -m gridsat.benchmarks.compare.mutation --json runs.json   # every run's report, for programs
    python -m gridsat.benchmarks.compare.mutation --mutants 20       # a seeded sample of 20 a run (a quick check)

Each run is ``gridsat mutate PUZZLE --backend B --jobs N``: every mutant when an encoding space has at
most 1,000, else a seeded sample of 1,000 (``--mutants all`` judges every one). Targets: the whole run
in at most 15 minutes with ``--jobs 2`` (printed as met or missed, with the time), and a score of at
least 98% for every encoding (each encoding below it is listed). Exit status 1 when an encoding is
below ``--fail-under`` (default 0: report only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable

import gridsat
from gridsat.api import MUTATE_BACKENDS
from gridsat.arguments import Parser, count_or_all, percent, positive_int
from gridsat.models import get_puzzle, names
from gridsat.models.errors import GridsatError
from gridsat.output import check_output, write_output
from gridsat.solvers.mutation.mutants import CNF_OPERATORS, CPSAT_OPERATORS, LAZY_OPERATORS
from gridsat.solvers.mutation.mutate import MutationReport, Score

TARGET_SECONDS = 15 * 60
TARGET_SCORE = 98.0
OPERATORS = tuple(dict.fromkeys((*CNF_OPERATORS, *CPSAT_OPERATORS, *LAZY_OPERATORS)))  # the table's columns


def listed(allowed: list[str] | tuple[str, ...]) -> Callable[[str], list[str]]:
    """An argparse type: a comma-separated list of names from ``allowed``."""

    def parse(text: str) -> list[str]:
        chosen = text.split(",")
        wrong = [name for name in chosen if name not in allowed]
        if wrong:
            raise argparse.ArgumentTypeError(f"{wrong[0]!r} is not one of {', '.join(allowed)}")
        return chosen

    return parse


def cell(score: Score) -> str:
    """An operator's score in percent with its survivors in brackets; ``-`` when every mutant is redundant."""
    value = score.score
    if value is None:
        return "-"
    return f"{round(100 * value, 2):g}" + (f" ({score.survived})" if score.survived else "")


def rows(report: MutationReport) -> list[str]:
    """The report's lines of the scores table: one per encoding, then the backend's total in bold."""
    per_operator = report.tally(lambda v: f"{v.encoding} {v.mutant.operator}")
    lines = [(name, total, [per_operator.get(f"{name} {op}") for op in OPERATORS])
             for name, total in report.tally(lambda v: v.encoding).items()]
    operators = report.tally(lambda v: v.mutant.operator)
    lines.append(("total", report.total, [operators.get(op) for op in OPERATORS]))
    out = []
    for name, total, ops in lines:
        bold = "**" if name == "total" else ""
        score = "-" if total.score is None else f"{100 * total.score:.2f}%"
        out.append("| " + " | ".join([
            *(f"{bold}{text}{bold}" for text in (report.puzzle, report.backend, name)),
            *(cell(s) if s else "" for s in ops), str(total.mutants), str(total.killed),
            f"{total.redundant} ({total.implied})", str(total.survived), f"{bold}{score}{bold}"]) + " |")
    return out


def line(report: MutationReport) -> str:
    """One run's tallies and time."""
    total, score = report.total, report.total.score
    judged = f"{total.mutants} of {report.catalogue}" if report.sampled else f"{total.mutants}"
    return (f"{report.puzzle:<14} {report.backend:<6} mutants {judged:<12} killed {total.killed:<5} redundant "
            f"{total.redundant:<5} survived {total.survived:<4} score "
            f"{'-' if score is None else f'{100 * score:.2f}%':<8} {report.seconds:7.1f} s")


def header() -> list[str]:
    columns = ["puzzle", "backend", "encoding", *OPERATORS, "mutants", "killed", "redundant (implied)", "survived",
               "score"]
    return ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m gridsat.benchmarks.compare.mutation", description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    with_corpus = [n for n in names() if get_puzzle(n).mutation.corpus is not None]
    parser.add_argument("--puzzles", type=listed(with_corpus), default=with_corpus,
                        help=f"comma-separated (default: every puzzle with a golden corpus: {','.join(with_corpus)})")
    parser.add_argument("--backends", type=listed(MUTATE_BACKENDS), default=list(MUTATE_BACKENDS),
                        help="comma-separated (default cpsat,sat)")
    parser.add_argument("--jobs", type=positive_int, default=2, metavar="N",
                        help="worker processes per run (default 2)")
    parser.add_argument("--mutants", type=count_or_all, metavar="N",
                        help="a seeded sample of N mutants per run, or 'all' (default: every mutant when there are "
                             "at most 1000, else a sample of 1000)")
    parser.add_argument("--fail-under", type=percent, default=0.0, metavar="P",
                        help="exit 1 when an encoding scores below P percent (default 0: report only)")
    parser.add_argument("--json", metavar="FILE", help="write every run's report (as --json prints it) to FILE")
    args = parser.parse_args(argv)
    try:
        check_output(args.json)  # before the run, not after 15 minutes of it
    except GridsatError as error:
        parser.error(str(error))
    print(f"load average {os.getloadavg()[0]:.2f} (2 shared cores); --jobs {args.jobs}", flush=True)
    started = time.monotonic()
    reports: list[MutationReport] = []
    interrupted = False
    try:
        for puzzle in args.puzzles:
            for backend in args.backends:
                report = gridsat.mutate(puzzle, backend=backend, mutants=args.mutants, jobs=args.jobs)
                reports.append(report)
                print(line(report), flush=True)
    except KeyboardInterrupt:
        interrupted = True  # the table of the runs that finished, marked incomplete
    wall = time.monotonic() - started
    print()
    print("\n".join(header() + [line for report in reports for line in rows(report)]))
    scores = [(r.puzzle, r.backend, name, 100 * s.score) for r in reports
              for name, s in r.tally(lambda v: v.encoding).items() if s.score is not None]
    low = [row for row in scores if row[-1] < TARGET_SCORE]
    print()
    if interrupted:
        print(f"INCOMPLETE: interrupted after {wall:.0f} s; the table has the {len(reports)} runs that finished")
    else:
        print(f"full run: {wall:.0f} s ({wall / 60:.1f} min); target {TARGET_SECONDS // 60} min: "
              f"{'met' if wall <= TARGET_SECONDS else 'MISSED'}")
    print(f"encodings below {TARGET_SCORE:g}%: " + (", ".join(f"{p} {b}:{e} {s:.2f}%" for p, b, e, s in low) or "none"))
    if args.json:
        try:
            write_output(args.json, lambda out: json.dump([r.summary() for r in reports], out, indent=1))
        except GridsatError as error:
            print(f"gridsat: error: {error}", file=sys.stderr)
            return 2
    if interrupted:
        return 130
    return 1 if any(s < args.fail_under for *_, s in scores) else 0


if __name__ == "__main__":
    sys.exit(main())
