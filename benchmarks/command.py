"""``gridsat bench SUITE --out DIR``: run a suite, record every run, judge the answers, write the report.

The CLI wires ``add_arguments`` and ``run``; ``python -m gridsat.benchmarks.command`` runs them alone.

Exit status: 0 when every run ended ``ok``, ``timeout``, ``memout``, ``lost`` or ``not applicable`` (limits
are results, not failures; a run killed at the wall clock before its CPU limit is ``lost``, counted in no
figure and run again by the same command; a configuration its backend refused when it ran is no failure
either); 1 when
any run is ``wrong`` (it broke a rule, returned a solution twice, or differs from the case's expected or
golden count) or ended in an ``error``, or a case is ``disputed`` (no count known, and the runs differ);
130 after Ctrl-C (what finished is kept, and the same command resumes). ``compare A B`` exits 1 when either
folder holds such a run, else 0. Input errors raise ``GridsatError`` (the CLI's exit status 2).
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import time
from pathlib import Path
from typing import IO, Any

from gridsat.arguments import at_least, folder, positive_float, positive_int, whole
from gridsat.benchmarks import report
from gridsat.benchmarks.fingerprint import fingerprint
from gridsat.benchmarks.results import FAILED, NOT_APPLICABLE, STATUSES, Results, header, judge, verdicts
from gridsat.benchmarks.runner import Limits, memory_watched, run_all, spec_of
from gridsat.benchmarks.suite import MAX_MEMORY, MAX_REPEAT, MAX_SEEDS, MAX_TIMEOUT, builtin_suites, load, plan
from gridsat.models.errors import GridsatError
from gridsat.models.params import excerpt
from gridsat.solvers.host.locks import WriterLock
from gridsat.solvers.splitting.pool import scheduler_address


class Deprecated(argparse.Action):
    """An option's old spelling: stores into the new option's value and says once on stderr to use it."""

    def __init__(self, option_strings: list[str], dest: str, instead: str = "", **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.instead = instead

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        said = f"_said_{self.dest}"
        if not getattr(namespace, said, False):
            print(f"gridsat: warning: {option_string} is deprecated: use {self.instead}", file=sys.stderr)
            setattr(namespace, said, True)
        setattr(namespace, self.dest, values)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``bench`` options."""
    parser.add_argument("suite", metavar="SUITE",
                        help=f"a built-in suite ({', '.join(builtin_suites())}) or a suite file (.toml); "
                             "'compare A B' puts two results folders side by side")
    parser.add_argument("folders", nargs="*", metavar="FOLDER", help="with compare: the results folders A and B")
    parser.add_argument("--out", type=folder, metavar="DIR",
                        help="directory for results.jsonl, report.md, CSV, plots (required to run a suite)")
    parser.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                        help=f"local runs at once, at most the cores ({os.cpu_count()})")
    parser.add_argument("--time-limit", type=positive_float, metavar="SEC",
                        help="CPU seconds per run, start-up included (default: the suite's)")
    parser.add_argument("--timeout", dest="time_limit", type=positive_float, action=Deprecated,
                        instead="--time-limit SEC", help=argparse.SUPPRESS)
    parser.add_argument("--memory", type=positive_int, metavar="MB",
                        help="MB of resident memory per run (default: the suite's)")
    parser.add_argument("--repeat", type=at_least(1, most=MAX_REPEAT), metavar="K",
                        help=f"runs per configuration and instance (default: the suite's; at most {MAX_REPEAT})")
    parser.add_argument("--seeds", type=at_least(0, most=MAX_SEEDS), metavar="K",
                        help="run every configuration with seeds 1..K: CP-SAT's random seed (variables permuted), "
                             "a scrambled formula for the CNF backends (default: the suite's, else one unseeded run; "
                             f"at most {MAX_SEEDS})")
    parser.add_argument("--scramble", type=whole, metavar="SEED",
                        help="run every configuration once, from this seed: a CNF backend on the formula scrambled "
                             "from it (as gridsat export --scramble SEED writes it), CP-SAT with it as random seed")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="send runs to a Dask scheduler, e.g. tcp://host:8786 (its workers need gridsat installed)")
    parser.add_argument("--scatter", nargs=2, metavar="CONFIG", help="two configurations (label prefixes) to scatter")
    parser.add_argument("--no-plots", action="store_true", help="write tables only")
    parser.add_argument("--fresh", action="store_true",
                        help="run everything again, ignoring the runs recorded in DIR (else only the runs whose code "
                             "or versions changed run again)")


COMPARE = "compare"  # ``gridsat bench compare A B`` (no suite has this name)


def compare_folders(folders: list[str]) -> int:
    """Print two results folders side by side; 0, 1 when either holds a run that made its bench fail (a wrong
    count, an error, a disputed case: named on stderr, as bench names them), or an input error."""
    from gridsat.benchmarks.side_by_side import compare

    if len(folders) != 2:
        raise GridsatError(f"{COMPARE} takes two results folders (A B), not {len(folders)}")
    lines, bad = compare(Path(folders[0]), Path(folders[1]))
    say("\n".join(lines))
    for line in bad:
        print(line, file=sys.stderr)
    return 1 if bad else 0


def check(args: argparse.Namespace) -> None:
    cores = os.cpu_count() or 1
    if not 1 <= args.jobs <= cores:
        raise GridsatError(f"--jobs {args.jobs}: must be between 1 and the {cores} cores of this machine")
    if args.time_limit is not None and args.time_limit > MAX_TIMEOUT:
        raise GridsatError(f"--time-limit {args.time_limit:g}: at most {MAX_TIMEOUT:g} seconds")
    if args.memory is not None and args.memory > MAX_MEMORY:
        raise GridsatError(f"--memory {args.memory}: at most {MAX_MEMORY} MB")
    if args.scheduler is not None:
        scheduler_address(args.scheduler)
    check_out(args.out)


def check_out(out: Path) -> None:
    """Refuse an ``--out`` that is no folder, or that no folder can be (a name too long, a file on the way)."""
    try:
        is_folder = stat.S_ISDIR(out.stat().st_mode)
    except FileNotFoundError:
        return  # made when the runs start (results.make_folder says if it cannot be)
    except OSError as error:
        raise GridsatError(f"--out {excerpt(str(out))}: {error.strerror}") from None
    if not is_folder:
        raise GridsatError(f"--out {excerpt(str(out))} is not a directory")


def check_scatter(pair: tuple[str, ...] | None, runs: list[Any], given: bool) -> None:
    """Refuse, before any run, a scatter pair of which a label prefix matches no planned configuration."""
    if pair is None:
        return
    configs = list(dict.fromkeys(r.config for r in runs))
    for prefix in pair:
        if not any(config.startswith(prefix) for config in configs):
            source = "--scatter" if given else "the suite's scatter"
            raise GridsatError(f"{source} {prefix!r} matches no configuration of the plan; configurations: "
                               f"{', '.join(configs[:8])}{', ...' if len(configs) > 8 else ''}")


def run(args: argparse.Namespace) -> int:
    """Run the suite into ``args.out``, or compare two results folders (``compare A B``); the exit status."""
    if args.suite == COMPARE:
        return compare_folders(args.folders)
    if args.folders:
        raise GridsatError(f"unexpected {excerpt(args.folders[0])} after the suite: only '{COMPARE} A B' takes folders")
    if args.out is None:
        raise GridsatError("--out DIR is required to run a suite")
    check(args)
    suite = load(args.suite)
    if args.scramble is not None and args.seeds is not None:
        raise GridsatError(f"--scramble {args.scramble} runs one seed: give it or --seeds {args.seeds}, not both")
    runs, notes = plan(suite, args.repeat, args.seeds, args.scramble)
    scatter = tuple(args.scatter) if args.scatter else suite.scatter
    check_scatter(scatter, runs, bool(args.scatter))
    limits = Limits(args.time_limit or suite.timeout, args.memory or suite.memory)
    # Two runs on one folder lost half the runs; the lock is the folder's, whatever link names it.
    lock = WriterLock(Path(os.path.realpath(args.out)), f"--out {excerpt(str(args.out))}")
    lock.acquire()
    try:
        return run_locked(args, suite, runs, notes, scatter, limits)
    finally:
        lock.release()


def forget_unmeasured(results: Results, runs: list[Any], err: Any) -> None:
    """Drop the recorded runs to make again, saying why: made with other code (their fingerprint changed), or
    lost to the wall clock (their time not known)."""
    stale = results.forget_stale({r.id: fingerprint(r.puzzle, r.backend) for r in runs})
    if stale:
        print(f"note: {len(stale)} recorded runs were made with other code or versions (their fingerprint "
              f"changed: {changes(stale, runs)}): they run again", file=err)
    if lost := results.forget_lost():
        print(f"note: {lost} recorded runs were killed at the wall clock before their CPU limit (status lost: "
              "their time is not known): they run again", file=err)


def run_locked(args: argparse.Namespace, suite: Any, runs: list[Any], notes: list[str], scatter: Any,
               limits: Limits) -> int:
    """``run`` once the results folder is this run's alone."""
    results = Results(args.out)
    results.start(header(suite.name, {"timeout": limits.timeout, "memory": limits.memory}, suite.description),
                  fresh=args.fresh)
    err = sys.stderr
    forget_unmeasured(results, runs, err)
    finished = results.done()
    todo = [r for r in runs if r.id not in finished]
    for note in notes:
        print(f"note: {note}", file=err)
    if not memory_watched() and not args.scheduler:
        print("note: the memory limit is not enforced: it needs psutil (pip install 'gridsat[plot]')", file=err)
    where = f"Dask at {args.scheduler}" if args.scheduler else f"{args.jobs} at a time"
    print(
        f"bench {suite.name}: {len(runs)} runs ({len(runs) - len(todo)} already recorded), {where}, "
        f"limits {limits.timeout:g} s and {limits.memory} MB per run -> {args.out}",
        file=err,
    )
    progress = ProgressBar(len(todo), err)

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
    planned = {r.id: i for i, r in enumerate(runs)}
    # In the plan's order, not the order the runs finished in: the report's rows follow the suite.
    records = sorted((r for r in results.records if r["id"] in planned), key=lambda r: planned[r["id"]])
    problems = judge(records)
    results.rewrite()
    seeds = suite.seeds if args.seeds is None else args.seeds
    if args.scramble is not None:
        seeds = f"the one seed {args.scramble} (--scramble)"
    head = {**results.header, "limits": {**results.header["limits"], "repeat": args.repeat or suite.repeat,
                                         "seeds": seeds, "workers": suite.workers}}
    plots = not args.no_plots
    path = report.write(args.out, records, head, notes=notes, problems=problems, scatter=scatter, plots=plots)
    counts = {s: sum(r["status"] == s for r in records) for s in STATUSES}
    left_out = f"; {len(notes)} left out of the plan (see the report)" if notes else ""
    cases = verdicts(records)
    say(", ".join(f"{n} {s}" for s, n in counts.items() if n) + f"{left_out}; report: {path}")
    for problem in problems:
        print(problem, file=err)
    for item in records:
        if item["status"] == "error":
            print(f"ERROR {item['puzzle']} {item['instance']} {item['config']}: {item['message']}", file=err)
    return 1 if any(counts[s] for s in FAILED) or cases["disputed"] else 0


def changes(stale: list[dict[str, Any]], runs: list[Any]) -> str:
    """What changed in the stale records' fingerprints (gridsat, encoding, backend, solver, plugins)."""
    by_id = {r.id: r for r in runs}
    parts = set()
    if any(not record.get("fingerprint") for record in stale):
        parts.add("none recorded")
    for record in (r for r in stale if r.get("fingerprint")):
        run = by_id[record["id"]]
        now, then = fingerprint(run.puzzle, run.backend), record.get("fingerprint") or {}
        parts |= {k for k in now if now[k] != then.get(k)}
    return ", ".join(sorted(parts))


def say(line: str) -> None:
    """The summary on stdout; a reader that closed it (``| head``) does not change bench's status, and
    the report is written all the same, which stderr says."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"note: standard output was closed; {line}", file=sys.stderr)


class ProgressBar:
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
        self.failed += item["status"] not in ("ok", NOT_APPLICABLE)
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
