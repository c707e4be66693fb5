"""``gridsat bench SUITE --out DIR``: run a suite, record every run, judge the answers, write the report.

The CLI wires ``add_arguments`` and ``run``; ``python -m gridsat.benchmarks.command`` runs them alone.

Exit status: 0 when every run ended ``ok``, ``timeout`` or ``memout`` (limits are results, not
failures); 1 when any run is ``wrong`` or ended in an ``error``; 130 after Ctrl-C (what finished is
kept, and the same command resumes). Input errors raise ``GridsatError`` (the CLI's exit status 2).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import IO, Any

from gridsat.arguments import folder, positive_float, positive_int
from gridsat.benchmarks import report
from gridsat.benchmarks.results import Results, header, judge
from gridsat.benchmarks.runner import Limits, run_all, spec_of
from gridsat.benchmarks.suite import MAX_MEMORY, MAX_TIMEOUT, builtin_suites, load, plan
from gridsat.models.errors import GridsatError
from gridsat.solvers.pool import scheduler_address


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``bench`` options."""
    parser.add_argument("suite", help=f"a built-in suite ({', '.join(builtin_suites())}) or a suite file (.toml)")
    parser.add_argument("--out", required=True, type=folder, help="directory for results.jsonl, report.md, CSV, plots")
    parser.add_argument("--jobs", type=positive_int, default=1,
                        help=f"local runs at once, at most the cores ({os.cpu_count()})")
    parser.add_argument("--timeout", type=positive_float, help="seconds per run (default: the suite's)")
    parser.add_argument("--memory", type=positive_int, help="MB of address space per run (default: the suite's)")
    parser.add_argument("--repeat", type=positive_int,
                        help="runs per configuration and instance (default: the suite's)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="send runs to a Dask scheduler, e.g. tcp://host:8786 (its workers need gridsat installed)")
    parser.add_argument("--scatter", nargs=2, metavar="CONFIG", help="two configurations (label prefixes) to scatter")
    parser.add_argument("--no-plots", action="store_true", help="write tables only")


def check(args: argparse.Namespace) -> None:
    cores = os.cpu_count() or 1
    if not 1 <= args.jobs <= cores:
        raise GridsatError(f"--jobs {args.jobs}: must be between 1 and the {cores} cores of this machine")
    if args.timeout is not None and args.timeout > MAX_TIMEOUT:
        raise GridsatError(f"--timeout {args.timeout:g}: at most {MAX_TIMEOUT:g} seconds")
    if args.memory is not None and args.memory > MAX_MEMORY:
        raise GridsatError(f"--memory {args.memory}: at most {MAX_MEMORY} MB")
    if args.scheduler is not None:
        scheduler_address(args.scheduler)
    if args.out.exists() and not args.out.is_dir():
        raise GridsatError(f"--out {str(args.out)!r} is not a directory")


def run(args: argparse.Namespace) -> int:
    """Run the suite into ``args.out``; the exit status."""
    check(args)
    suite = load(args.suite)
    runs, notes = plan(suite, args.repeat)
    limits = Limits(args.timeout or suite.timeout, args.memory or suite.memory)
    results = Results(args.out)
    results.start(header(suite.name, {"timeout": limits.timeout, "memory": limits.memory}, suite.description))
    finished = results.done()
    todo = [r for r in runs if r.id not in finished]
    err = sys.stderr
    for note in notes:
        print(f"note: {note}", file=err)
    where = f"Dask at {args.scheduler}" if args.scheduler else f"{args.jobs} at a time"
    print(
        f"bench {suite.name}: {len(runs)} runs ({len(runs) - len(todo)} already recorded), {where}, "
        f"limits {limits.timeout:g} s and {limits.memory} MB per run -> {args.out}",
        file=err,
    )
    progress = Progress(len(todo), err)

    def record(item: dict[str, Any]) -> None:
        results.append(item)
        progress.update(item)

    try:
        run_all([spec_of(r, limits) for r in todo], record, jobs=args.jobs, scheduler=args.scheduler)
    except KeyboardInterrupt:
        progress.close()
        print(f"interrupted: {len(results.records)} runs kept in {results.path}; run again to resume", file=err)
        return 130
    progress.close()
    planned = {r.id for r in runs}
    records = [r for r in results.records if r["id"] in planned]
    problems = judge(records)
    results.rewrite()
    head = {**results.header, "limits": {**results.header["limits"], "repeat": args.repeat or suite.repeat}}
    scatter = tuple(args.scatter) if args.scatter else suite.scatter
    plots = not args.no_plots
    path = report.write(args.out, records, head, notes=notes, problems=problems, scatter=scatter, plots=plots)
    counts = {s: sum(r["status"] == s for r in records) for s in ("ok", "timeout", "memout", "error", "wrong")}
    print(", ".join(f"{n} {s}" for s, n in counts.items() if n) + f"; report: {path}")
    for problem in problems:
        print(problem, file=err)
    for item in records:
        if item["status"] == "error":
            print(f"ERROR {item['puzzle']} {item['instance']} {item['config']}: {item['message']}", file=err)
    return 1 if counts["wrong"] or counts["error"] else 0


class Progress:
    """Runs done, failures and time left: a bar redrawn in place on a terminal, plain lines otherwise."""

    def __init__(self, total: int, stream: IO[str]) -> None:
        self.total, self.stream = total, stream
        self.done = self.failed = 0
        self.started = time.monotonic()
        self.tty = stream.isatty()

    def left(self) -> str:
        if not self.done:
            return "?"
        seconds = (time.monotonic() - self.started) / self.done * (self.total - self.done)
        return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"

    def update(self, item: dict[str, Any]) -> None:
        self.done += 1
        self.failed += item["status"] != "ok"
        counts = f"{self.done}/{self.total} runs, {self.failed} failed, {self.left()} left"
        if self.tty:
            filled = 30 * self.done // max(self.total, 1)
            self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {counts}\033[K")
        else:
            took = f"{item['seconds']:.3f} s" if item.get("seconds") is not None else ""
            what = f"{item['puzzle']} {item['instance']} {item['config']}"
            self.stream.write(f"[{counts}] {what}: {item['status']} {took}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (the CLI's ``gridsat bench`` calls ``run`` the same way)."""
    parser = argparse.ArgumentParser(prog="python -m gridsat.benchmarks.command", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except GridsatError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
