"""The ``gridsat`` command line. Input errors become one line on stderr and exit status 2."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from gridsat.models import PUZZLES, get_puzzle
from gridsat.models.cardinality import ENCODINGS as CARDINALITY
from gridsat.models.errors import GridsatError
from gridsat.models.puzzle import Instance, Puzzle, dumps
from gridsat.solvers.backend import BACKENDS, Request, backend_class
from gridsat.solvers.crosscheck import SCOPES, configurations, crosscheck
from gridsat.solvers.reference import REFERENCES, algorithms
from gridsat.solvers.run import Outcome, execute

INTERRUPTED = 130  # the shell's status for a Ctrl-C


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"gridsat: error: {message}\n")


def parse_params(pairs: Sequence[str]) -> dict[str, str]:
    """``-p KEY=VALUE`` options as a mapping; a malformed or repeated key is an input error."""
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise GridsatError(f"bad parameter {pair!r}: expected KEY=VALUE")
        if key.strip() in params:
            raise GridsatError(f"parameter {key.strip()!r} given twice")
        params[key.strip()] = value.strip()
    return params


def load(args: argparse.Namespace) -> tuple[Puzzle, Instance]:
    """The puzzle and its parsed instance; the puzzle's note on the instance goes to stderr."""
    puzzle = get_puzzle(args.puzzle)
    instance = puzzle.parse(args.instance, parse_params(args.param))
    note = notes(puzzle, instance)
    if note and not getattr(args, "json", False):
        print(f"gridsat: note: {note['note']}", file=sys.stderr)
    return puzzle, instance


def notes(puzzle: Puzzle, instance: Instance) -> dict[str, str]:
    """``{"note": ...}`` when the puzzle has something to say about the instance, else empty."""
    text = puzzle.note(instance) if puzzle.note else None
    return {"note": text} if text else {}


def request_of(args: argparse.Namespace) -> Request:
    return Request(args.encoding, args.solver, args.algorithm)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2))


def verdict(outcome: Outcome) -> str:
    """Unique, several or none: what a puzzle author asks of a count."""
    if outcome.count == 0:
        return "none" if outcome.complete else "none found"
    if outcome.count == 1:
        return "unique" if outcome.complete else "at least one"
    return "several"


def describe_count(puzzle: Puzzle, outcome: Outcome, with_verdict: bool) -> str:
    """``128``, ``16 (tours: directed)`` or ``at least 5 (incomplete: time limit)``."""
    notes = [f"{k}: {v}" for k, v in puzzle.count_meta.items()]
    if with_verdict:
        notes.insert(0, verdict(outcome))
    if not outcome.complete:
        notes.append(f"incomplete: {outcome.reason}")
    text = str(outcome.count) if outcome.complete else f"at least {outcome.count}"
    return text + (f" ({'; '.join(notes)})" if notes else "")


def report_problems(outcome: Outcome) -> int:
    """Warn about duplicates and invalid solutions; 1 when a solution broke the rules."""
    if outcome.duplicates:
        print(f"gridsat: warning: {outcome.label} repeated {outcome.duplicates} solutions (dropped)", file=sys.stderr)
    for solution, problems in outcome.invalid:
        print(f"gridsat: INVALID solution from {outcome.label}: {'; '.join(problems)}: {dumps(solution)}",
              file=sys.stderr)
    return 1 if outcome.invalid else 0


def cmd_list(args: argparse.Namespace) -> int:
    puzzles = []
    for name in PUZZLES:
        p = get_puzzle(name)
        puzzles.append({
            "name": name, "summary": p.summary, "instance": p.instance_help, "params": dict(p.params),
            "cpsat_encodings": {a.name: list(a.choices) for a in p.cpsat_encodings.axes},
            "cnf_encodings": {a.name: list(a.choices) for a in p.cnf_encodings.axes},
            "algorithms": {a.name: a.summary for a in algorithms(name).values()} if name in REFERENCES else {},
        })
    backends = []
    for name in BACKENDS:
        b = backend_class(name)()
        backends.append({"name": name, "summary": b.summary, "available": b.supported(), "takes": list(b.takes)})
    listing = {"puzzles": puzzles, "backends": backends, "cardinality_encodings": list(CARDINALITY)}
    if args.json:
        print_json(listing)
        return 0
    print("puzzles:")
    for p in puzzles:
        print(f"  {p['name']:<14} {p['summary']}  [instance: {p['instance']}]")
        for key, meaning in p["params"].items():
            print(f"  {'':<14}   -p {key}=...  {meaning}")
        for kind in ("cpsat_encodings", "cnf_encodings"):
            for axis, choices in p[kind].items():
                print(f"  {'':<14}   {kind.split('_')[0]} {axis}: {', '.join(choices)} (default {choices[0]})")
        if p["algorithms"]:
            names = list(p["algorithms"])
            print(f"  {'':<14}   reference algorithms: {', '.join(names)} (default {names[0]})")
    print("backends:")
    for b in backends:
        state = "" if b["available"] else "  (not installed)"
        print(f"  {b['name']:<14} {b['summary']}{state}")
    print(f"cardinality encodings: {', '.join(CARDINALITY)}")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    puzzle, instance = load(args)
    outcome = execute(puzzle, instance, args.backend, request_of(args), limit=1, time_limit=args.time_limit,
                      keep=True)
    solution = outcome.solutions[0] if outcome.solutions else None
    if args.json:
        print_json({**outcome.summary(), **notes(puzzle, instance), "solution": solution})
    elif solution is None:
        why = "no solution exists" if outcome.complete else f"no solution found ({outcome.reason})"
        print(why)
    else:
        print(puzzle.render(instance, solution))
        print(f"# {outcome.label}, {outcome.seconds:.3f} s", file=sys.stderr)
    status = report_problems(outcome)
    if outcome.reason == "interrupted":
        return INTERRUPTED
    return status or (0 if solution is not None else 1)


def cmd_count(args: argparse.Namespace) -> int:
    puzzle, instance = load(args)
    outcome = execute(puzzle, instance, args.backend, request_of(args), limit=args.limit,
                      time_limit=args.time_limit)
    if args.json:
        record = {**outcome.summary(), **puzzle.count_meta, **notes(puzzle, instance)}
        if args.limit is not None:
            record["verdict"] = verdict(outcome)
        print_json(record)
    else:
        print(describe_count(puzzle, outcome, args.limit is not None))
        print(f"# {outcome.puzzle} {outcome.instance} on {outcome.label}: {outcome.seconds:.3f} s", file=sys.stderr)
    status = report_problems(outcome)
    return INTERRUPTED if outcome.reason == "interrupted" else status


def cmd_enumerate(args: argparse.Namespace) -> int:
    puzzle, instance = load(args)
    index = 0

    def show(solution: Any) -> None:
        nonlocal index
        index += 1
        if args.format == "jsonl":
            print(json.dumps({"solution": solution}, separators=(",", ":")), flush=True)
        else:
            print(f"# solution {index}\n{puzzle.render(instance, solution)}\n", flush=True)

    outcome = execute(puzzle, instance, args.backend, request_of(args), limit=args.limit,
                      time_limit=args.time_limit, on_solution=show)
    if args.format == "jsonl":
        print(json.dumps({"summary": {**outcome.summary(), **puzzle.count_meta}}, separators=(",", ":")))
    else:
        state = "complete" if outcome.complete else f"incomplete: {outcome.reason}"
        print(f"# {plural(outcome.count, 'solution')} ({state}) from {outcome.label} in {outcome.seconds:.3f} s")
    status = report_problems(outcome)
    return INTERRUPTED if outcome.reason == "interrupted" else status


def cmd_crosscheck(args: argparse.Namespace) -> int:
    puzzle, instance = load(args)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()] if args.backends else None
    for name in backends or []:
        if name not in BACKENDS:
            raise GridsatError(f"unknown backend {name!r} in --backends; valid: {', '.join(BACKENDS)}")
    configs = configurations(puzzle, backends, args.encodings)

    def progress(o: Outcome) -> None:
        if not args.json:
            state = "complete" if o.complete else f"incomplete: {o.reason}"
            extra = f", {o.duplicates} duplicates dropped" if o.duplicates else ""
            bad = f", {len(o.invalid)} INVALID" if o.invalid else ""
            print(f"{o.label:<40} {o.count:>10}  {o.seconds:9.3f} s  ({state}{extra}{bad})", flush=True)

    report = crosscheck(puzzle, instance, configs, time_limit=args.time_limit, on_outcome=progress)
    if args.json:
        print_json({**report.summary(), **puzzle.count_meta, **notes(puzzle, instance)})
    else:
        for problem in report.problems:
            print(f"DISAGREE: {problem}")
        complete = [o for o in report.outcomes if o.complete]
        if args.show and complete:
            for i, solution in enumerate(sorted(complete[0].solutions or [], key=dumps), 1):
                print(f"\n# solution {i}\n{puzzle.render(instance, solution)}")
        verdict_line = ("agree" if report.agree else "DISAGREE") + (
            f": {plural(complete[0].count, 'solution')}" if complete else ": no run finished, nothing to compare")
        meta = "".join(f" ({k}: {v})" for k, v in puzzle.count_meta.items())
        print(f"\n{puzzle.name} {report.instance}: {len(report.outcomes)} runs {verdict_line}{meta}")
    if not report.agree:
        return 1
    return 0 if report.complete else 3


def write_output(path: str | None, write: Callable[[Any], None]) -> None:
    """Write to stdout, or atomically to ``path`` so a failure leaves no partial file."""
    if path is None:
        write(sys.stdout)
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise GridsatError(f"cannot write {path!r}: folder {folder!r} does not exist")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".gridsat-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as out:
            write(out)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def cmd_export(args: argparse.Namespace) -> int:
    puzzle, instance = load(args)
    if args.format == "dimacs":
        space = puzzle.cnf_encodings
        encoding = space.resolve(args.encoding)
        f = puzzle.cnf(instance, encoding)
        shown = " ".join(map(str, f.projection))

        def write(out: Any) -> None:
            out.write(f"c gridsat {puzzle.name} {puzzle.describe(instance)} encoding {encoding.name}\n")
            if f.refine is not None:
                out.write("c lazy formulation: these clauses are its eager part only; gridsat's sat backend adds\n"
                          "c refinement clauses while solving, so a model of this CNF alone may not be a solution\n")
            out.write(f"c p show {shown} 0\nc ind {shown} 0\n")
            for line in f.legend():
                out.write(f"c {line}\n")
            out.write(f"p cnf {f.cnf.nv} {len(f.cnf.clauses)}\n")
            for clause in f.cnf.clauses:
                out.write(" ".join(map(str, clause)) + " 0\n")
    else:
        encoding = puzzle.cpsat_encodings.resolve(args.encoding)
        model = puzzle.cpsat(instance, encoding).model

        def write(out: Any) -> None:
            out.write(str(model.Proto()))

    write_output(args.output, write)
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    puzzle = get_puzzle(args.puzzle)
    if puzzle.generate is None:
        generators = [n for n in PUZZLES if get_puzzle(n).generate is not None]
        raise GridsatError(f"puzzle {args.puzzle!r} has no generator; puzzles with one: {', '.join(generators)}")
    text = puzzle.generate(args.size, seed=args.seed, max_area=args.max_area, unique=args.unique)
    write_output(args.output, lambda out: out.write(text))
    return 0


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def build_parser() -> Parser:
    parser = Parser(prog="gridsat", description="Puzzles as CP-SAT models and CNF, cross-checked.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    listing = sub.add_parser("list", help="puzzles, backends and encodings")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=cmd_list)

    def instance_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("puzzle", metavar="PUZZLE", help=f"one of: {', '.join(PUZZLES)}")
        p.add_argument("instance", metavar="INSTANCE", help="the instance, e.g. 4x7 for tatami")
        p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                       help="a puzzle parameter (see gridsat list)")

    def solving_args(p: argparse.ArgumentParser, backend: bool = True) -> None:
        instance_args(p)
        if backend:
            p.add_argument("--backend", default="cpsat", help=f"one of: {', '.join(BACKENDS)} (default cpsat)")
        p.add_argument("--encoding", help="encoding choices joined by '+', e.g. seqcounter (see gridsat list)")
        p.add_argument("--solver", help="the PySAT solver of the sat backend (default cadical195)")
        p.add_argument("--algorithm", help="the algorithm of the reference backend")
        p.add_argument("--time-limit", type=positive_float, metavar="SEC", help="stop after SEC seconds of solving")

    solve = sub.add_parser("solve", help="print one solution")
    solving_args(solve)
    solve.add_argument("--json", action="store_true")
    solve.set_defaults(run=cmd_solve)

    count = sub.add_parser("count", help="count the solutions")
    solving_args(count)
    count.add_argument("--limit", type=positive_int, metavar="N", help="stop after N solutions")
    count.add_argument("--json", action="store_true")
    count.set_defaults(run=cmd_count)

    enum = sub.add_parser("enumerate", help="stream the solutions")
    solving_args(enum)
    enum.add_argument("--limit", type=positive_int, metavar="N", help="stop after N solutions")
    enum.add_argument("--format", choices=("text", "jsonl"), default="text")
    enum.set_defaults(run=cmd_enumerate)

    check = sub.add_parser("crosscheck", help="run every backend and compare the solution sets")
    instance_args(check)
    check.add_argument("--backends", metavar="A,B,...", help="backends to run (default: every available one)")
    check.add_argument("--encodings", choices=SCOPES, default="default",
                       help="default: each backend's default; each: every choice once; all: every combination")
    check.add_argument("--time-limit", type=positive_float, metavar="SEC", help="per run")
    check.add_argument("--show", action="store_true", help="print the solutions")
    check.add_argument("--json", action="store_true")
    check.set_defaults(run=cmd_crosscheck)

    export = sub.add_parser("export", help="write the CNF (DIMACS) or the CP-SAT model (protobuf text)")
    instance_args(export)
    export.add_argument("--format", choices=("dimacs", "cpsat"), required=True)
    export.add_argument("--encoding", help="encoding choices joined by '+'")
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    export.set_defaults(run=cmd_export)

    generate = sub.add_parser("generate", help="write a random puzzle instance")
    generate.add_argument("puzzle", metavar="PUZZLE")
    generate.add_argument("size", metavar="RxC")
    generate.add_argument("--seed", type=int, help="random seed, for a repeatable puzzle")
    generate.add_argument("--max-area", type=positive_int, metavar="A", help="largest region")
    generate.add_argument("--unique", action="store_true", help="retry until the puzzle has exactly one solution")
    generate.add_argument("-o", "--output", metavar="FILE")
    generate.set_defaults(run=cmd_generate)

    try:
        from gridsat.benchmarks import command as bench_command
    except ImportError:  # the benchmark harness is not part of this installation
        bench_command = None
    if bench_command is not None and hasattr(bench_command, "add_arguments"):
        bench = sub.add_parser("bench", help="run a benchmark suite in isolated child processes")
        bench_command.add_arguments(bench)
        bench.set_defaults(run=bench_command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gridsat`` command."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except GridsatError as error:
        print(f"gridsat: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gridsat: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # e.g. `gridsat enumerate ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
