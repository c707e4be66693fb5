"""The ``gridsat`` command line: a thin layer over ``gridsat.api``, importing nothing from
``gridsat.solvers`` (what it needs from below, the API offers). Input errors become one line on
stderr and exit status 2."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gridsat import animate, api, helptext, jsontext, status
from gridsat.arguments import (
    Parser,
    any_int,
    at_least,
    count_or_all,
    flagged,
    flags,
    folder,
    percent,
    positive_float,
    positive_int,
    text,
    whole,
)
from gridsat.models.errors import BackendUnavailable, GridsatError, InvalidInstance, InvalidOption
from gridsat.models.params import excerpt
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.models.solution import dumps
from gridsat.models.version import VERSION
from gridsat.output import StreamLost, check_output, flush_quietly, guard_streams, write_output
from gridsat.pictures import drawer, sheet, still
from gridsat.progress import ProgressLine, StageLine
from gridsat.runline import RunLine, result_row
from gridsat.signals import sigterm_as_interrupt

# What ``add_subparsers`` returns: where each command adds its parser.
Commands = argparse._SubParsersAction
SHELLS = ("bash", "zsh")  # what ``gridsat completion`` writes for
DEFAULT_MAX_AREA = 12  # shikaku's generator's (tests/test_cli.py holds them equal; importing it loads OR-Tools)


class Offered(list[str]):
    """The choices ``--help`` and shell completion offer, checked by the API rather than by argparse:
    the API's refusal names the value and suggests the nearest name (``SAT``: did you mean sat?)."""

    def __contains__(self, value: object) -> bool:
        return True


def parse_params(pairs: Sequence[str]) -> dict[str, str]:
    """``-p KEY=VALUE`` options as a mapping; a malformed or repeated key is an input error."""
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidOption(f"bad parameter {pair!r}: expected KEY=VALUE")
        if key.strip() in params:
            raise InvalidOption(f"parameter {key.strip()!r} given twice")
        params[key.strip()] = value.strip()
    return params


def load(args: argparse.Namespace) -> tuple[Puzzle, Instance]:
    """The puzzle and its parsed instance; the puzzle's note on the instance goes to stderr."""
    puzzle, instance = api.load(args.puzzle, args.instance, parse_params(args.param))
    note = api.instance_note(puzzle, instance)
    if note and not getattr(args, "json", False):
        print(f"gridsat: note: {note}", file=sys.stderr)
    return puzzle, instance


def notes(puzzle: Puzzle, instance: Instance) -> dict[str, str]:
    """``{"note": ...}`` when the puzzle has something to say about the instance, else empty."""
    text = api.instance_note(puzzle, instance)
    return {"note": text} if text else {}


def choices(args: argparse.Namespace) -> dict[str, Any]:
    """The backend options of a solving command, as the API's keywords."""
    return {"backend": args.backend, "encoding": args.encoding, "solver": args.solver, "algorithm": args.algorithm,
            "time_limit": args.time_limit,
            "certify": api.wish(args.instance, parse_params(args.param), args.certify, args.proof)}


def splitting(args: argparse.Namespace) -> api.Split:
    """The parallel options of a counting command, as the API's ``split`` (the API decides when they
    ask for one plain search)."""
    return api.Split(jobs=args.jobs, scheduler=args.scheduler, parts=args.parts,
                     checkpoint=getattr(args, "checkpoint", None))


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def print_json(value: Any) -> None:
    """One JSON document: indented, with each grid row, mat or square on one line (see gridsat.jsontext)."""
    print(jsontext.dumps(value))


def verdict(outcome: api.Outcome) -> str:
    """Unique, several or none: what a puzzle author asks of a count."""
    if outcome.count == 0:
        return "none" if outcome.complete else "none found"
    if outcome.count == 1:
        return "unique" if outcome.complete else "at least one"
    return "several"


def describe_count(puzzle: Puzzle, outcome: api.Outcome, with_verdict: bool) -> str:
    """``128``, ``16 (tours: directed)`` or ``at least 5 (incomplete: time limit)``."""
    notes = api.count_notes(puzzle, outcome)
    if with_verdict:
        notes.insert(0, verdict(outcome))
    if not outcome.complete:
        done = f"; {outcome.parts_done} of {outcome.parts} parts done" if outcome.parts and outcome.parts > 1 else ""
        notes.append(f"incomplete: {outcome.reason}{done}")
    if outcome.invalid:
        notes.append(f"{plural(len(outcome.invalid), 'INVALID solution')} not counted")
    if outcome.duplicates:
        notes.append(f"{plural(outcome.duplicates, 'REPEATED solution')} not counted")
    certified = api.certification_note(outcome)
    if certified:
        notes.append(certified)
    if not outcome.known:  # a counter stopped early knows no count: never print 0 as if it were one
        return f"no count known ({'; '.join(notes)})"
    text = str(outcome.count) if outcome.complete else f"at least {outcome.count}"
    return text + (f" ({'; '.join(notes)})" if notes else "")


def note_unsplit(args: argparse.Namespace, outcome: api.Outcome) -> None:
    """Say in one line why a run asked to split ran alone (``--json`` holds it in "split")."""
    split = outcome.details.get("split")
    if isinstance(split, dict) and split.get("alone") and not getattr(args, "json", False):
        print(f"gridsat: note: not split: {split['alone']}", file=sys.stderr)


SHOWN_INVALID = 3  # invalid solutions shown one a line; the rest are counted


def report_problems(outcome: api.Outcome) -> None:
    """Say what repeated and invalid solutions there were (they make the command fail), and for an orbit count
    about the group and anything that makes the count wrong (which also fails)."""
    orbits = outcome if isinstance(outcome, api.OrbitOutcome) else None
    if orbits and orbits.group_note:
        print(f"gridsat: note: {orbits.group_note}", file=sys.stderr)
    for problem in orbits.problems if orbits else []:
        print(f"gridsat: WRONG orbit count from {outcome.label}: {problem}", file=sys.stderr)
    if outcome.duplicates:
        print(f"gridsat: REPEATED solutions from {outcome.label}: {outcome.duplicates} returned again, counted once "
              "(a bug of the backend or encoding: its auxiliary variables or symmetry breaking)", file=sys.stderr)
    if "checkpoint" in outcome.details:  # a write failed during the run: the answer stands, the file does not
        print(f"gridsat: warning: the checkpoint was {outcome.details['checkpoint']}", file=sys.stderr)
    for solution, problems in outcome.invalid[:SHOWN_INVALID]:
        print(f"gridsat: INVALID solution from {outcome.label}: {'; '.join(problems)}: {dumps(solution)}",
              file=sys.stderr)
    if len(outcome.invalid) > SHOWN_INVALID:  # a broken encoding can return thousands
        print(f"gridsat: INVALID solutions from {outcome.label}: {len(outcome.invalid) - SHOWN_INVALID:,} more, "
              f"{len(outcome.invalid):,} in all", file=sys.stderr)


def cmd_list(args: argparse.Namespace) -> int:
    found = api.listing()
    if args.json:
        print_json(found)
        return 0
    print("puzzles:")
    for p in found["puzzles"]:
        print(f"  {p['name']:<14} {p['summary']}  [instance: {p['instance']}]")
        for key, meaning in p["params"].items():
            print(f"  {'':<14}   -p {key}=...  {meaning}")
        for kind in ("cpsat_encodings", "cnf_encodings"):
            for axis, options in p[kind].items():
                print(f"  {'':<14}   {kind.split('_')[0]} {axis}: {', '.join(options)} (default {options[0]})")
        if p["algorithms"]:
            algos = list(p["algorithms"])
            print(f"  {'':<14}   reference algorithms: {', '.join(algos)} (default {algos[0]})")
        print(f"  {'':<14}   backends: {', '.join(p['backends'])}")
    print("backends:")
    for b in found["backends"]:
        state = "" if b["available"] else f"  (not installed: {b['install']})"
        only = "" if "enumerate" in b["can"] else " [count only]"
        print(f"  {b['name']:<14} {b['summary']}{only}{state}")
    if found.get("sat_solvers"):
        solvers = [s["name"] + (" (default)" if s["default"] else " (solve only)" if s["solve_only"] else "")
                   for s in found["sat_solvers"]]
        print(f"PySAT solvers (--solver): {', '.join(solvers)}")
    print(f"at-most-one encodings (amo): {', '.join(found['amo_encodings'])}")
    for line in found["plugin_errors"]:
        print(f"broken plugin: {line}")
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    if args.json and args.format == "svg":
        raise InvalidOption("--json and --format svg exclude each other")
    check_output(args.output)
    puzzle, instance = load(args)
    if args.format == "svg":
        drawer(puzzle)  # before solving: a puzzle without pictures is an input error
    outcome = api.solve(puzzle, instance, **choices(args))
    solution = outcome.solution
    if args.json:
        shown = jsontext.dumps({**outcome.summary(), **notes(puzzle, instance), "solution": solution}) + "\n"
    elif solution is None:
        why = "no solution exists" if outcome.complete else f"no solution found ({outcome.reason})"
        certified = api.certification_note(outcome)
        print(why + (f" ({certified})" if certified else ""))
    elif args.format == "svg":
        shown = still(puzzle, instance, solution, outcome.label)
    else:
        shown = puzzle.render(instance, solution) + "\n"
    if args.json or solution is not None:
        write_output(args.output, lambda out: out.write(shown))
    if solution is not None and not args.json:
        print(f"# {outcome.label}, {outcome.seconds:.3f} s", file=sys.stderr)
    report_problems(outcome)
    return status.of_run(outcome, solve=True)


def cmd_count(args: argparse.Namespace) -> int:
    puzzle, instance = load(args)
    progress = ProgressLine.on_terminal(args.quiet)
    stage, checking = checking_stage(progress)
    try:
        outcome = api.count(puzzle, instance, limit=args.limit, up_to=args.up_to, method=args.method,
                            memory=args.memory, spill=args.spill, on_progress=progress, split=splitting(args),
                            on_stage=checking, **choices(args))
    finally:
        if progress:
            progress.close()
        if stage:
            stage.close()
    if args.json:
        record = {**outcome.summary(), **api.counted(puzzle, args.up_to), **notes(puzzle, instance)}
        if args.limit is not None:
            record["verdict"] = verdict(outcome)
        print_json(record)
    else:
        print(describe_count(puzzle, outcome, args.limit is not None))
        print(f"# {outcome.puzzle} {outcome.instance} on {outcome.label}: {outcome.seconds:.3f} s", file=sys.stderr)
    note_unsplit(args, outcome)
    note_kept(args, outcome)
    report_problems(outcome)
    return status.of_run(outcome)


def checking_stage(progress: ProgressLine | None) -> tuple[StageLine | None, Callable[[str], None] | None]:
    """A certified split run checks its parts again as a whole once they are all in (seconds to minutes): the
    run's line then gives way to the stage of that check, on the run's clock. None, None without a line."""
    if progress is None:
        return None, None
    stage = StageLine(started=time.monotonic())

    def checking(text: str) -> None:
        progress.close()
        stage(f"certifying the parts as a whole: {text}")

    return stage, checking


def note_kept(args: argparse.Namespace, outcome: api.Outcome) -> None:
    """Say which layer a stopped frontier count's checkpoint keeps (``--json``: "checkpoint_layer")."""
    layer = outcome.details.get("checkpoint_layer")
    # a write that failed leaves an older layer, which the warning about the checkpoint names
    if layer is not None and not outcome.complete and not args.json and "checkpoint" not in outcome.details:
        print(f"gridsat: note: the checkpoint keeps layer {layer} of "
              f"{outcome.details.get('layers')}, the last one finished: the same command goes on from it",
              file=sys.stderr)


def cmd_enumerate(args: argparse.Namespace) -> int:
    if args.output is not None and args.format != "svg":
        raise InvalidOption("-o needs --format svg: text and jsonl stream to stdout")
    check_output(args.output)
    puzzle, instance = load(args)
    progress = ProgressLine.on_terminal(args.quiet)
    if args.format == "svg":
        drawer(puzzle)  # before solving: a puzzle without pictures is an input error
    stage, checking = checking_stage(progress)
    solutions = api.enumerate(puzzle, instance, limit=args.limit, up_to=args.up_to, on_progress=progress,
                              split=splitting(args), on_stage=checking, **choices(args))
    outcome = solutions.outcome
    try:
        drawn = stream(args, puzzle, instance, solutions, progress)
    finally:
        if stage:
            stage.close()
    noun = "orbit" if args.up_to else "solution"
    state = "; ".join([*(api.count_notes(puzzle, outcome) if args.up_to else []),
                       "complete" if outcome.complete else f"incomplete: {outcome.reason}",
                       *filter(None, [api.certification_note(outcome)])])
    if args.format == "jsonl":
        print(json.dumps({"summary": {**outcome.summary(), **api.counted(puzzle, args.up_to)}},
                         separators=(",", ":")))
    elif args.format == "svg":
        text = sheet(puzzle, instance, drawn, outcome.label, state)
        write_output(args.output, lambda out: out.write(text))
        print(f"# {plural(outcome.count, noun)} ({state}) from {outcome.label} in {outcome.seconds:.3f} s",
              file=sys.stderr)
    else:
        print(f"# {plural(outcome.count, noun)} ({state}) from {outcome.label} in {outcome.seconds:.3f} s")
    note_unsplit(args, outcome)
    report_problems(outcome)
    return status.of_run(outcome)


def stream(args: argparse.Namespace, puzzle: Puzzle, instance: Instance, solutions: Any,
           progress: ProgressLine | None) -> list[Any]:
    """Print each solution (or orbit) of an enumeration as it comes, or keep it for the svg sheet
    (returned); an interrupt stops the run and keeps what was found."""
    drawn: list[Any] = []
    noun = "orbit" if args.up_to else "solution"

    def show(index: int, item: Any) -> None:
        if progress:
            progress.close()
        # Up to symmetry: one canonical representative per orbit, and the orbit's size.
        solution, size = (item.solution, {"orbit_size": item.size}) if args.up_to else (item, {})
        if args.format == "svg":
            drawn.append(solution)  # one drawing per solution, or per orbit
        elif args.format == "jsonl":
            print(json.dumps({"solution": solution, **size}, separators=(",", ":")), flush=True)
        else:
            held = f" ({plural(item.size, 'solution')})" if args.up_to else ""
            print(f"# {noun} {index}{held}\n{puzzle.render(instance, solution)}\n", flush=True)

    try:
        found: Any = solutions
        if args.sorted:  # every item first (an interrupt still prints what was found), then sorted
            kept: list[Any] = []
            api.consume(solutions, kept.append)
            found = sorted(kept, key=lambda item: dumps(item.solution if args.up_to else item))
        for index, item in enumerate(found, 1):
            show(index, item)
    except KeyboardInterrupt:
        solutions.stop.request(api.INTERRUPTED)
    finally:
        solutions.close()
        if progress:
            progress.close()
    return drawn


def cmd_crosscheck(args: argparse.Namespace) -> int:
    puzzle, instance = load(args)
    backends = [b.strip() for b in args.backends.split(",")] if args.backends else None
    if backends is not None and "" in backends:
        raise InvalidOption(f"--backends {excerpt(args.backends)} has an empty name: list backends as A,B,...")

    line = RunLine.on_terminal(args.quiet)

    def ended(o: api.Outcome) -> None:
        if line:
            line.end()
        if not args.json:
            print(result_row(o), flush=True)

    try:
        report = api.crosscheck(puzzle, instance, backends=backends, encodings=args.encodings, solver=args.solver,
                                time_limit=args.time_limit, on_outcome=ended, on_start=line.start if line else None,
                                up_to=args.up_to, split=splitting(args),
                                total_budget=api.DEFAULT_TOTAL if args.budget is None else args.budget)
    finally:
        if line:
            line.stop()
    noun = "orbit" if args.up_to else "solution"
    if args.json:
        print_json({**report.summary(), **api.counted(puzzle, args.up_to), **notes(puzzle, instance)})
    else:
        for note in report.notes:
            print(f"note: {flagged(note, args.flags)}")
        for problem in report.problems:
            print(f"DISAGREE: {problem}")
        complete = [o for o in report.outcomes if o.complete]
        if args.show and complete:
            for i, solution in enumerate(sorted(complete[0].solutions or [], key=dumps), 1):
                print(f"\n# {noun} {i}\n{puzzle.render(instance, solution)}")
        print(f"\n{puzzle.name} {report.instance}: {crosscheck_verdict(puzzle, report, noun)}")
    return status.of_crosscheck(report)


def cmd_fuzz(args: argparse.Namespace) -> int:
    one = [args.backend, args.encoding, args.solver, args.algorithm]
    if args.backend and len(args.names) == 2:
        report = api.fuzz_pair(args.names[0], args.names[1], params=parse_params(args.param), backend=args.backend,
                               encoding=args.encoding, solver=args.solver, algorithm=args.algorithm,
                               mutant=args.mutant)
    elif any(one) or args.param:
        raise InvalidOption("--backend, --encoding, --solver, --algorithm and -p run one pair: name PUZZLE INSTANCE "
                            "and --backend")
    else:
        line = ProgressLine.on_terminal(args.quiet or args.json)

        def progress(r: api.FuzzReport) -> None:
            if line is not None:
                line(api.Progress(0, r.pairs, args.pairs, r.seconds,
                                  note=f"pairs {r.pairs}/{args.pairs}, {r.instances} instances, "
                                  f"{len(r.differences)} differences"))
        try:
            report = api.fuzz(args.names or None, seed=args.seed, pairs=args.pairs, budget=args.budget,
                              jobs=args.jobs or api.cores(), mutant=args.mutant, on_instance=progress)
        finally:
            if line is not None:
                line.close()
    if args.json:
        print_json(report.summary())
    else:
        print(fuzz_text(report, args))
    if report.stopped == "interrupted":
        return status.INTERRUPTED
    if report.differences:
        return status.FAILED
    return status.NOTHING_FINISHED if not report.pairs else status.GAVE_UP if report.stopped else status.OK


def fuzz_text(report: api.FuzzReport, args: argparse.Namespace) -> str:
    """Each difference and its command, then the pairs checked, the instances, the time and the verdict."""
    lines = []
    for d in report.differences:
        lines += [f"DIFFERENCE: {d.label} on {d.instance}: {d.what}", f"  {d.command}"]
    for note in report.checked.unfinished:
        lines.append(f"note: unfinished: {note}")
    verdict = plural(len(report.differences), "difference") if report.differences else "no difference" \
        if report.pairs else "nothing was compared"
    stopped = f"; stopped by {report.stopped}" if report.stopped else ""
    what = " ".join(["fuzz", *args.names, *(f"-p {p}" for p in args.param)]) if args.backend else \
        f"fuzz --seed {args.seed}"
    lines.append(f"{what}: {plural(report.pairs, 'pair')} (instance, configuration) checked on "
                 f"{plural(report.instances, 'instance')}, {len(report.checked.covered)} configurations, in "
                 f"{report.seconds:.1f} s{stopped}: {verdict}")
    return "\n".join(lines)


def cmd_mutate(args: argparse.Namespace) -> int:
    puzzle = api.get_puzzle(args.puzzle)
    if args.instances and args.corpus:
        raise InvalidOption("name instances or --corpus golden, not both")
    line = ProgressLine.on_terminal(args.quiet or args.json)
    started = time.monotonic()
    tally = Counter[str]()

    def progress(verdict: Any, total: int) -> None:
        tally[verdict.status] += 1
        if line is not None:
            done = sum(tally.values())
            note = f"mutants {done}/{total}: {tally['killed']} killed, {tally['redundant']} redundant, " \
                   f"{tally['survived']} survived"
            line(api.Progress(0, done, total, time.monotonic() - started, note=note))

    try:
        report = api.mutate(puzzle, args.instances or None, params=parse_params(args.param), backend=args.backend,
                            encoding=args.encoding, mutants=args.mutants, seed=args.seed, jobs=args.jobs or api.cores(),
                            time_limit=args.time_limit, search=not args.no_search, proof_budget=args.proof_budget,
                            on_verdict=progress)
    finally:
        if line is not None:
            line.close()
    summary = report.summary()
    if args.json:
        print_json(summary)
    else:
        print(mutation_text(report))
    if report.interrupted:
        return status.INTERRUPTED
    score = report.total.score
    if args.fail_under is not None and (score is None or 100 * score < args.fail_under):
        print(f"gridsat: mutation score {summary['score']}% is under {args.fail_under:g}%", file=sys.stderr)
        return status.FAILED
    return status.OK


def mutation_text(report: api.MutationReport) -> str:
    """The scores per encoding and per operator, then every survivor with its reason and any suggested case."""

    def score(s: api.Score) -> str:
        value = s.score
        return f"{'-' if value is None else f'{100 * value:.1f}%':>7}  ({s.killed} killed of {s.mutants}, " \
               f"{s.redundant} redundant, {s.survived} survived)"

    planned = report.planned or len(report.verdicts)
    judged = (f"a sample of {planned} of its {report.catalogue} mutants (--seed {report.seed}; "
              "--mutants all judges every one)" if report.sampled else f"{planned} mutants")
    lines = [f"{report.puzzle} on {report.backend}: {judged}, corpus of {len(report.corpus)} "
             f"instances, {report.seconds:.1f} s"]
    if report.interrupted:
        lines.insert(0, f"INCOMPLETE: interrupted after {len(report.verdicts)} of the {report.planned} mutants "
                        "planned; the scores below are of those judged")
    by_encoding = report.tally(lambda v: v.encoding)
    lines += ["", "per encoding:"] + [f"  {name:<40} {score(s)}" for name, s in by_encoding.items()]
    lines += ["", "per operator:"] + [f"  {name:<40} {score(s)}"
                                     for name, s in sorted(report.tally(lambda v: v.mutant.operator).items())]
    survivors = [v for v in report.verdicts if v.status == "survived"]
    if survivors:
        lines += ["", "survivors:"]
        for v in survivors:
            lines.append(f"  {v.encoding}: {v.mutant.name}: {v.reason}")
            if v.suggestion:
                s = v.suggestion
                extra = "".join(f" -p {k}={val}" for k, val in sorted(s["params"].items()))
                lines.append(f"    suggested golden case: {report.puzzle} {s['instance']}{extra} with count "
                             f"{s['count']} (the unmutated encoding's count; the {s['check']} check kills it)")
    lines += ["", f"mutation score: {score(report.total)}"]
    if (ci := report.interval()) is not None:
        lines[-1] += f"; the whole catalogue's score is {100 * ci[0]:.1f}% to {100 * ci[1]:.1f}% (95%)"
    return "\n".join(lines)


def crosscheck_verdict(puzzle: Puzzle, report: api.Report, noun: str = "solution") -> str:
    """``3 runs agree: 3 solutions``, ``DISAGREE``, or why nothing could be compared; then how many runs
    were checked against the golden count, agreed, disputed and unchecked."""
    runs = plural(len(report.outcomes), "run")
    complete = [o for o in report.outcomes if o.complete]
    if not report.agree:
        text = f"{runs}: DISAGREE"
    elif not complete:
        reasons = ", ".join(sorted({o.reason or "unknown" for o in report.outcomes}))
        text = f"no run finished ({reasons}), so nothing was compared"
    elif not report.compared:
        text = (f"{runs}, {plural(complete[0].count, noun)}, but nothing was compared: no golden count, and no "
                "other run finished")
    else:
        meta = api.count_notes(puzzle, complete[0])
        found = plural(complete[0].count, noun) + (f" ({'; '.join(meta)})" if meta else "")
        unfinished = [o for o in report.outcomes if not o.complete]
        if not unfinished:
            text = f"{runs} agree: {found}" if len(complete) > 1 else f"1 run: {found}"
        else:
            reasons = ", ".join(sorted({o.reason or "unknown" for o in unfinished}))
            text = (f"{len(complete)} of {runs} finished and agree: {found}; the {len(unfinished)} unfinished "
                    f"({reasons}) found none beyond these")
    if report.interrupted:
        text += f"; interrupted during run {len(report.outcomes)}, the runs after it skipped"
    return text + f"; {tally_text(report.tally())}"


def tally_text(tally: dict[str, int]) -> str:
    """Each run once, in the one way it was judged: ``3 checked against the golden count, 1 unchecked``
    (the kinds no run had are left out, so that no word contradicts the verdict before it)."""
    words = {"checked": "checked against the golden count", "agreed": "checked against one another only (no golden "
             "count)", "disputed": "disputed (no golden count to settle it)", "unchecked": "unchecked"}
    return ", ".join(f"{tally[kind]} {said}" for kind, said in words.items() if tally[kind]) or "no run"


def cmd_export(args: argparse.Namespace) -> int:
    exported = api.export(*load(args), format=args.format, encoding=args.encoding, scramble=args.scramble)
    write_output(args.output, exported.write)
    for note in exported.notes():
        print(f"gridsat: note: {note}", file=sys.stderr)
    return 0


def cmd_animate(args: argparse.Namespace) -> int:
    if args.terminal and args.output is not None:
        raise InvalidOption("--terminal plays in the terminal and -o writes a page: choose one")
    check_output(args.output)
    puzzle, instance = load(args)
    recording = animate.record_named(puzzle, instance, args.algorithm, args.max_steps)
    if args.terminal:
        animate.play(recording, sys.stdout, args.fps)
    else:
        text = animate.page(recording, args.fps)
        write_output(args.output, lambda out: out.write(text))
        print(f"# {animate.ending(recording)}", file=sys.stderr)
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    text = api.generate(args.puzzle, args.size, seed=args.seed, max_area=args.max_area, unique=args.unique,
                        format=args.format)
    write_output(args.output, lambda out: out.write(text))
    return 0


def cmd_new_puzzle(args: argparse.Namespace) -> int:
    from gridsat.scaffold import write_plugin  # the plugin skeleton's templates load only for this command

    for path in write_plugin(args.name, args.dir):
        print(path)
    return 0


def build_parser() -> Parser:
    """The ``gridsat`` parser with every command; building it has no side effects (the docs read it)."""
    parser = Parser(prog="gridsat", description="Puzzles as CP-SAT models and CNF, cross-checked.",
                    epilog=status.SUMMARY)
    parser.add_argument("--version", action="version", version=f"gridsat {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                help="see gridsat COMMAND --help")
    for add in (add_list, add_solve, add_count, add_enumerate, add_crosscheck, add_fuzz, add_mutate, add_export,
                add_animate, add_generate, add_new_puzzle, add_bench, add_strength, add_check_proof,
                add_completion):
        add(sub)
    for command in sub.choices.values():  # a refusal names an option by its keyword: shown as this flag
        command.set_defaults(flags=flags(command))
    helptext.document(sub.choices)
    return parser


# The option groups several commands share.


def instance_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("puzzle", metavar="PUZZLE", help="a puzzle name (see gridsat list)")
    p.add_argument("instance", metavar="INSTANCE", help="the instance, e.g. 4x7 for tatami")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a puzzle parameter (see gridsat list)")


def solving_args(p: argparse.ArgumentParser, verb: str) -> None:
    """The options of a command that runs one backend to ``verb`` (solve, count, enumerate)."""
    instance_args(p)
    able = Offered(api.backend_names(can=verb))
    p.add_argument("--backend", default=api.DEFAULT_BACKEND, choices=able, metavar="NAME",
                   help=f"one of: {', '.join(able)} (default {api.DEFAULT_BACKEND})")
    p.add_argument("--encoding", help="the puzzle's choices for this backend's formulation (cpsat or cnf in "
                   "gridsat list), joined by '+'; unnamed axes take their defaults")
    p.add_argument("--solver", help="the PySAT solver of the sat backend (default cadical195)")
    p.add_argument("--algorithm", help="the algorithm of the reference backend")
    p.add_argument("--time-limit", type=positive_float, metavar="SEC", help="stop after SEC seconds of solving")
    p.add_argument("--certify", action="store_true",
                   help="prove the final 'no more solutions' (sat, cpsat): a SAT solver writes a DRAT proof that "
                        "gridsat checks, every blocking and cut clause justified (see the how-to on certificates)")
    p.add_argument("--proof", metavar="DIR", help="keep the certificate in DIR as files (implies --certify); "
                                                  "gridsat check-proof DIR checks it again")


def parallel_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=at_least(0, most=api.MAX_JOBS), default=1, metavar="N",
                   help="split the run into parts and count them on N local worker processes "
                        f"(0: one per core; default 1: one plain search in this process; at most {api.MAX_JOBS})")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="conquer the parts on a Dask cluster, e.g. tcp://host:8786 (its workers need gridsat)")
    p.add_argument("--parts", type=at_least(1, most=api.MAX_PARTS), metavar="N",
                   help=f"aim for N parts (default: 16 per worker, at least 32; at most {api.MAX_PARTS:,})")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")


def up_to_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--up-to", choices=api.UP_TO, help="count orbits: under the board's symmetries that keep the "
                   "instance (symmetry), or a knight's tour and its reverse as one (reversal)")


def limit_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", type=positive_int, metavar="N", help="stop after N solutions")


# One function per command: its options, and the function that runs it.


def add_list(sub: Commands) -> None:
    listing = sub.add_parser("list", help="puzzles, backends and encodings")
    listing.add_argument("--json", action="store_true", help="print the listing as JSON")
    listing.set_defaults(run=cmd_list)


def add_solve(sub: Commands) -> None:
    solve = sub.add_parser("solve", help="print one solution")
    solving_args(solve, api.SOLVE)
    solve.add_argument("--json", action="store_true", help="print the run and the solution as JSON")
    solve.add_argument("--format", choices=("text", "svg"), default="text", help="svg: a picture of the solution")
    solve.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    solve.set_defaults(run=cmd_solve)


def add_count(sub: Commands) -> None:
    count = sub.add_parser("count", help="count the solutions")
    solving_args(count, api.COUNT)
    limit_arg(count)
    up_to_arg(count)
    count.add_argument("--method", choices=api.METHODS,
                       help="how to count orbits: canonical representatives (default) or Burnside's lemma")
    parallel_args(count)
    count.add_argument("--checkpoint", metavar="FILE",
                       help="record each finished part (frontier: a finished layer, about once a second, "
                            "and at a stop by --time-limit, Ctrl-C or SIGTERM the last one finished) in FILE; "
                            "the same command with the same FILE resumes; one run at a time, and a damaged file "
                            "is refused and kept")
    count.add_argument("--memory", type=positive_int, metavar="MB",
                       help="the megabytes the counting process (frontier) may hold, its resident memory: the "
                            "engine gets them less what the process holds before counting; past them the run "
                            "stops (default: a share of the memory this machine has free)")
    count.add_argument("--spill", metavar="DIR",
                       help="where a counting backend (frontier) writes the layers that do not fit in memory "
                            "(default: the system's temporary folder); the files are removed when it ends")
    count.add_argument("--json", action="store_true", help="print the run as JSON")
    count.set_defaults(run=cmd_count)


def add_enumerate(sub: Commands) -> None:
    enum = sub.add_parser("enumerate", help="stream the solutions")
    solving_args(enum, api.ENUMERATE)
    limit_arg(enum)
    enum.add_argument("--format", choices=("text", "jsonl", "svg"), default="text",
                      help="text: each solution drawn; jsonl: one JSON object per solution, then a summary line; "
                           "svg: one sheet with every solution found (every orbit, with --up-to), numbered")
    enum.add_argument("-o", "--output", metavar="FILE", help="with --format svg: write the sheet here")
    up_to_arg(enum)
    parallel_args(enum)
    enum.add_argument("--sorted", action="store_true",
                      help="print the solutions sorted (by their JSON), once all are found: parts deliver them "
                           "in the order they finish")
    enum.set_defaults(run=cmd_enumerate)


def add_crosscheck(sub: Commands) -> None:
    check = sub.add_parser("crosscheck", help="run every backend and compare the solution sets")
    instance_args(check)
    check.add_argument("--backends", metavar="A,B,...", help="backends to run (default: every available one)")
    check.add_argument("--encodings", type=text, default="default", metavar="WHICH",
                       help="default: each backend's default; each: every choice once; all: every combination; "
                            "or the encodings and algorithms to run, comma-separated (crt,rank): each backend "
                            "runs exactly those it offers")
    check.add_argument("--solver", help="the PySAT solver of the sat runs (default cadical195)")
    check.add_argument("--time-limit", type=positive_float, default=api.RUN_BUDGET, metavar="SEC",
                       help="each run's budget (default %(default)g): a run it stops is reported unfinished, and "
                       "the finished runs are compared")
    check.add_argument("--budget", type=positive_float, metavar="SEC",
                       help=f"the whole cross-check's budget (default: {api.TOTAL_BUDGET:g} s when --encodings asks "
                            "for more than the defaults, else none): each run gets at most what is left, and the "
                            "runs left unstarted are listed")
    check.add_argument("--show", action="store_true", help="print the solutions")
    up_to_arg(check)
    parallel_args(check)
    check.add_argument("--json", action="store_true", help="print the runs and the verdict as JSON")
    check.set_defaults(run=cmd_crosscheck)


def add_fuzz(sub: Commands) -> None:
    fz = sub.add_parser("fuzz", help="random tiny instances, every configuration, compared with brute force")
    fz.add_argument("names", metavar="PUZZLE", nargs="*",
                    help="puzzles to draw from (default: every one with an oracle); or PUZZLE INSTANCE with "
                    "--backend: that one pair")
    fz.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                    help="a puzzle parameter of the one instance named")
    fz.add_argument("--seed", type=any_int, default=0, help="the seed the instances are drawn from (default 0)")
    fz.add_argument("--pairs", type=positive_int, default=api.FUZZ_PAIRS, metavar="N",
                    help="stop once N (instance, configuration) pairs are checked (default %(default)s)")
    fz.add_argument("--budget", type=positive_float, default=api.FUZZ_BUDGET, metavar="SEC",
                    help="stop after SEC seconds, whatever was checked (default %(default)g)")
    fz.add_argument("--jobs", type=at_least(0, most=api.MAX_JOBS), default=0, metavar="N",
                    help=f"worker processes (default 0: every core; at most {api.MAX_JOBS})")
    fz.add_argument("--mutant", metavar="'FAMILY OPERATOR [SELECTOR]'",
                    help="plant this bug (as gridsat mutate names one) in every formulation with its family")
    fz.add_argument("--backend", help="with PUZZLE INSTANCE: the backend of the one pair")
    fz.add_argument("--encoding", help="with PUZZLE INSTANCE: its encoding")
    fz.add_argument("--solver", help="with PUZZLE INSTANCE: its PySAT solver")
    fz.add_argument("--algorithm", help="with PUZZLE INSTANCE: its reference algorithm")
    fz.add_argument("--json", action="store_true", help="print the report as JSON")
    fz.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    fz.set_defaults(run=cmd_fuzz)


def add_mutate(sub: Commands) -> None:
    mut = sub.add_parser("mutate", help="inject encoding bugs and count those the golden corpus catches")
    mut.add_argument("puzzle", metavar="PUZZLE", help="a puzzle name (see gridsat list)")
    mut.add_argument("instances", metavar="INSTANCE", nargs="*",
                     help="instances to judge mutants on, counted by the reference search (default: --corpus golden)")
    mut.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                     help="a puzzle parameter for the instances named")
    mut.add_argument("--backend", default=api.MUTATE_BACKENDS[0], choices=api.MUTATE_BACKENDS,
                     help="whose formulation to mutate: cpsat or sat (the CNF) (default cpsat)")
    mut.add_argument("--encoding", help="one encoding (choices joined by '+'; default: every choice once)")
    mut.add_argument("--corpus", choices=("golden",), help="the puzzle's golden cases (the default with no instances)")
    mut.add_argument("--mutants", type=count_or_all, metavar="N",
                     help="judge a seeded sample of N mutants, or 'all' (default: every mutant when there are "
                          "at most 1000, else a sample of 1000)")
    mut.add_argument("--seed", type=any_int, default=0, help="the sample's seed (default 0): same seed, same report")
    mut.add_argument("--jobs", type=at_least(0, most=api.MAX_JOBS), default=1, metavar="N",
                     help=f"worker processes (0: one per core; default 1; at most {api.MAX_JOBS})")
    mut.add_argument("--time-limit", type=positive_float, default=10.0, metavar="SEC",
                     help="at most SEC seconds per mutant run (default 10; a run may take 5 times the unmutated one)")
    mut.add_argument("--proof-budget", type=positive_int, default=api.PROOF_CONFLICTS, metavar="N",
                     help=f"conflicts a CNF mutant's redundancy proofs may spend in all (default "
                          f"{api.PROOF_CONFLICTS:,}); past it, the LP relaxation proves what it can, and a mutant it "
                          "leaves unproved survives")
    mut.add_argument("--no-search", action="store_true",
                     help="do not search the puzzle's size ladder for an instance that kills a survivor")
    mut.add_argument("--fail-under", type=percent, metavar="P", help="exit 1 when the score is below P percent")
    mut.add_argument("--json", action="store_true", help="print the scores, survivors and redundant mutants as JSON")
    mut.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    mut.set_defaults(run=cmd_mutate)


def add_export(sub: Commands) -> None:
    export = sub.add_parser("export", help="write the CNF (DIMACS) or the CP-SAT model (protobuf text)")
    instance_args(export)
    export.add_argument("--format", choices=api.EXPORT_FORMATS, required=True,
                        help="dimacs: the CNF with its projection; cpsat: the CP-SAT model as protobuf text")
    export.add_argument("--encoding", help="choices joined by '+'; by default the file's models are exactly the "
                        "solutions (prime-grid: nosymmetry unless you name symmetry)")
    export.add_argument("--scramble", type=whole, metavar="SEED",
                        help="dimacs: rename the variables, flip their polarities and shuffle the clauses and their "
                             "literals from SEED (the same formula and projected count; for spread over equivalent "
                             "formulas)")
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout (nothing on failure)")
    export.set_defaults(run=cmd_export)


def add_animate(sub: Commands) -> None:
    anim = sub.add_parser("animate", help="replay the reference search as an HTML page or in the terminal")
    instance_args(anim)
    anim.add_argument("--algorithm", help="the reference algorithm (default: the puzzle's first, see gridsat list)")
    anim.add_argument("--max-steps", type=positive_int, default=3000, metavar="N",
                      help="record at most N search events (default 3000)")
    anim.add_argument("--fps", type=positive_float, default=20.0, help="steps per second (default 20)")
    anim.add_argument("-o", "--output", metavar="FILE.html", help="write the page here instead of stdout")
    anim.add_argument("--terminal", action="store_true",
                      help="play in the terminal, redrawn in place (frame after frame when not a terminal)")
    anim.set_defaults(run=cmd_animate)


def add_generate(sub: Commands) -> None:
    generate = sub.add_parser("generate", help="write a random puzzle instance")
    generate.add_argument("puzzle", metavar="PUZZLE", help="a puzzle with a generator (shikaku)")
    generate.add_argument("size", metavar="RxC", help="rows x columns, e.g. 20x20")
    generate.add_argument("--seed", type=any_int, help="random seed, for a repeatable puzzle")
    generate.add_argument("--max-area", type=positive_int, metavar="A",
                          help=f"the largest region, in cells (default {DEFAULT_MAX_AREA})")
    generate.add_argument("--unique", action="store_true", help="retry until the puzzle has exactly one solution")
    generate.add_argument("--format", default="text", metavar="FORMAT",
                          help="text (the default), or one of the puzzle's own formats: shikaku writes gameid "
                               "(a Tatham game id) and puzzlink (a puzz.link URL)")
    generate.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout (nothing on failure)")
    generate.set_defaults(run=cmd_generate)


def add_new_puzzle(sub: Commands) -> None:
    new = sub.add_parser("new-puzzle", help="write the skeleton of a puzzle plugin, ready to fill in",
                         description="Write a working plugin skeleton for a new puzzle named NAME, to fill in "
                                     "and install; prints each file written, one per line.")
    new.add_argument("name", metavar="NAME", help="the new puzzle's name, e.g. my-puzzle")
    new.add_argument("--dir", type=folder, default=Path("."), metavar="DIR",
                     help="write the plugin in this folder (default: the current folder)")
    new.set_defaults(run=cmd_new_puzzle)


def add_bench(sub: Commands) -> None:
    from gridsat.benchmarks import command as bench_command

    bench = sub.add_parser("bench", help="run a benchmark suite in isolated child processes")
    bench_command.add_arguments(bench)
    bench.set_defaults(run=bench_command.run)


def add_strength(sub: Commands) -> None:
    from gridsat import strength

    parser = sub.add_parser("strength", help="check which constraint encodings unit propagation makes complete")
    strength.add_arguments(parser)
    parser.set_defaults(run=strength.run)


def add_check_proof(sub: Commands) -> None:
    checking = sub.add_parser("check-proof", help="check a certificate that --proof DIR kept (the formula rebuilt)")
    checking.add_argument("folder", metavar="DIR", help="a folder that --proof DIR wrote")
    checking.add_argument("--keep-cover", action="store_true",
                          help="a split run's folder: write its cover proof there too (cover.cnf, cover.lrat)")
    checking.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    checking.set_defaults(run=cmd_check_proof)


def cmd_check_proof(args: argparse.Namespace) -> int:
    line = StageLine.on_terminal(args.quiet)  # a split run's check takes seconds to minutes: its stage, on a terminal
    try:
        verdict, what = api.check_proof(args.folder, keep_cover=args.keep_cover, on_stage=line)
    finally:
        if line is not None:
            line.close()
    if not verdict.certified:
        print(f"not certified: {verdict.failure}")
        return status.FAILED
    within = f" within its cube of {plural(verdict.cube, 'clause')}" if verdict.cube else \
        f" in {verdict.parts} parts whose cubes cover every solution" if verdict.parts else ""
    exactly = ("" if verdict.assumed else "exactly ") + plural(verdict.solutions, "solution")
    assuming = f", assuming {verdict.assumed}" if verdict.assumed else ""
    counts = f"{verdict.counts}; " if verdict.counts else ""  # as a count line says it: "tours: directed; "
    print(f"certified: {what} has {exactly}{within}{assuming} "
          f"({counts}{plural(verdict.blocking, 'blocking clause')}, "
          f"{plural(verdict.left_out, 'assignment') + ' the cubes leave out, ' if verdict.parts else ''}"
          f"{plural(verdict.cuts, 'cut clause')}, a proof of "
          f"{verdict.proof_steps:,} steps checked in {verdict.check_seconds:.3f} s)")
    return status.OK


def add_completion(sub: Commands) -> None:
    completion = sub.add_parser("completion", help="print a shell completion script (bash or zsh)")
    completion.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    completion.set_defaults(run=cmd_completion)


def cmd_completion(args: argparse.Namespace) -> int:
    try:
        import shtab  # an optional extra: only this command needs it
    except ImportError:
        raise BackendUnavailable("shell completion needs shtab: pip install 'gridsat[completion]'") from None
    print(shtab.complete(build_parser(), shell=args.shell), end="")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gridsat`` command."""
    # A count may have more digits than Python prints by default (4,300): tatami 2x30000 does. Input
    # numbers are capped at 18 digits before they are converted, so this opens no door to bad input.
    sys.set_int_max_str_digits(0)
    api.single_threaded_blas()  # before OR-Tools loads numpy: split runs can then fork their workers
    guard_streams()
    args = build_parser().parse_args(argv)
    done = run_command(args)
    lost = flush_quietly()
    return done if lost is None else lost


def run_command(args: argparse.Namespace) -> int:
    """Run the chosen command; every error it raises on purpose is one line and its status."""
    try:
        with sigterm_as_interrupt():
            return args.run(args)
    except GridsatError as error:
        if isinstance(error, StreamLost):  # stdout is gone: say so where the user can see it
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"gridsat: error: {said(error, args)}", file=sys.stderr)
        return status.BAD_INPUT
    except KeyboardInterrupt:
        print("gridsat: interrupted", file=sys.stderr)
        return status.INTERRUPTED
    except BrokenPipeError:  # e.g. `gridsat enumerate ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def said(error: GridsatError, args: argparse.Namespace) -> str:
    """An error's line as the command line says it: the options it names as this command's flags."""
    return str(error) if isinstance(error, InvalidInstance) else flagged(str(error), getattr(args, "flags", {}))


if __name__ == "__main__":
    sys.exit(main())
