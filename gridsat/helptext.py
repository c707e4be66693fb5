"""What each ``gridsat`` command's ``--help`` says above and below its options: a description and a
few examples, every one a command that runs as written on a fresh install."""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Mapping

WIDTH = 78  # the description is wrapped here: the raw formatter that keeps the examples' lines keeps its too

# command -> (description, examples as "command line  # what it does")
HELP: dict[str, tuple[str, tuple[str, ...]]] = {
    "list": ("List the puzzles (with their parameters, encodings and reference algorithms), the backends "
             "(and how to install those missing), the PySAT solvers and the at-most-one encodings.",
             ("gridsat list",
              "gridsat list --json            # the same, for scripts")),
    "solve": ("Find one solution of a puzzle instance and draw it; the answer is complete when a solution "
              "was found or the search proved there is none.",
              ("gridsat solve tatami 4x7",
               "gridsat solve knights-tour 8x8 --backend sat --format svg -o tour.svg",
               "gridsat solve shikaku 4x3:2a2b2a2_2a2a --json   # a game id from Tatham's Rectangles")),
    "count": ("Count the solutions, each one verified against the puzzle's rules; a run stopped by a limit "
              "says 'at least N'. --jobs splits the count into parts on worker processes (a count too short "
              "to gain runs alone, and says so).",
              ("gridsat count prime-grid 3x3",
               "gridsat count knights-tour 6x6 -p closed=true --backend sat --jobs 0 --checkpoint tours.json",
               "gridsat count tatami 3x4 --up-to symmetry --json")),
    "enumerate": ("Stream the solutions as they are found: drawn as text, one JSON object per line, or one SVG "
                  "sheet; a summary line says whether the run saw them all.",
                  ("gridsat enumerate tatami 3x4",
                   "gridsat enumerate prime-grid 3x3 --format jsonl --limit 5",
                   "gridsat enumerate knights-tour 3x4 --up-to symmetry --format svg -o tours.svg")),
    "crosscheck": ("Run several backends (every available one by default) on one instance and compare their "
                   "solution sets; any disagreement is printed and fails the command.",
                   ("gridsat crosscheck tatami 4x7",
                    "gridsat crosscheck prime-grid 3x3 --backends cpsat,sat,reference",
                    "gridsat crosscheck tatami 6x6 --encodings each --json")),
    "fuzz": ("Differential testing: draw random tiny instances (every puzzle with an oracle by default), run "
             "every encoding, backend and solver on each, and compare each solution set (or count) with the "
             "puzzle's brute-force oracle; each difference is printed with the one command that repeats it. "
             "Named with an instance and --backend, it runs that one pair.",
             ("gridsat fuzz --seed 1 --pairs 300 --jobs 1",
              "gridsat fuzz shikaku tatami --seed 2 --pairs 2000 --budget 120",
              "gridsat fuzz tatami 3x4 --backend sat --encoding seqcounter --solver glucose4   # one pair again")),
    "mutate": ("Inject bugs into a formulation's constraints, one at a time, and score how many the golden "
               "corpus (or the instances named) catches; survivors are listed with why they survived.",
               ("gridsat mutate tatami                        # the CP-SAT model, on the golden corpus",
                "gridsat mutate tatami 2x2 3x4 --backend sat  # your instances, counted by the reference search",
                "gridsat mutate shikaku --mutants 200 --seed 1 --jobs 2 --fail-under 90")),
    "export": ("Write an instance's formulation for other tools: the CNF as DIMACS (with its projection) or "
               "the CP-SAT model as protobuf text.",
               ("gridsat export prime-grid 3x3 --format dimacs -o prime.cnf",
                "gridsat export tatami 4x7 --format cpsat")),
    "animate": ("Replay the reference search step by step: an HTML page with the recorded search, or played "
                "in the terminal.",
                ("gridsat animate knights-tour 5x5 --algorithm backtrack -o search.html",
                 "gridsat animate tatami 3x6 --terminal --fps 40")),
    "generate": ("Write a random instance of a puzzle that has a generator, in the text form solve takes; the "
                 "same --seed gives the same puzzle.",
                 ("gridsat generate shikaku 10x10 --seed 7",
                  "gridsat generate shikaku 20x20 --seed 7 --unique --max-area 9 -o puzzle.txt")),
    "new-puzzle": ("Write a working plugin skeleton for a new puzzle named NAME, to fill in and install; prints "
                   "each file written, one per line.",
                   ("gridsat new-puzzle my-puzzle",
                    "gridsat new-puzzle hitori --dir plugins")),
    "bench": ("Run a benchmark suite, each run in an isolated child process with a time and memory limit; "
              "record every run, judge the answers and write the report (a rerun resumes).",
              ("gridsat bench smoke --out bench-out",
               "gridsat bench smoke --out bench-out --jobs 2 --time-limit 30 --no-plots")),
    "strength": ("Check the propagation strength of each constraint encoding gridsat writes, on small instances, "
                 "or of any DIMACS CNF: every partial assignment of at most K primary literals, unit propagation "
                 "on the constraint's own clauses against what they imply; one line per encoding with the part "
                 "checked and its scope, and a smallest witness when propagation misses something.",
                 ("gridsat strength",
                  "gridsat strength at-most-one -k 10 --json",
                  "gridsat strength --dimacs mine.cnf --primary 1,2,3,4 -k 4",
                  "gridsat strength --list")),
    "check-proof": ("Check again a certificate that --proof DIR kept, rebuilding the formula with this gridsat: "
                    "the formula is the puzzle's encoding, each blocking clause rules out exactly one verified "
                    "solution and a model, each cut clause is a valid cut, orbits are expanded and proved under "
                    "symmetry breaking, and gridsat's DRAT checker accepts the proof that no other solution "
                    "exists. A split run's folder is checked as a whole: every part, and a proof that the parts' "
                    "cubes cover every solution. Exit status 0 when it holds, 1 naming the first step that fails.",
                    ("gridsat check-proof tours     # after: gridsat count ... --backend sat --proof tours",
                     "gridsat check-proof tours     # a split run's folder (--jobs): its parts as one",
                     "gridsat check-proof tours/part-3   # one part of a split run, within its cube")),
    "completion": ("Print a shell completion script for gridsat's commands and options (made by shtab); load "
                   "it in your shell's start-up file.",
                   ("gridsat completion bash > ~/.local/share/bash-completion/completions/gridsat",
                    "gridsat completion zsh > ~/.zfunc/_gridsat   # with fpath+=(~/.zfunc) in ~/.zshrc")),
}


def epilog(examples: tuple[str, ...]) -> str:
    """The examples section, as ``--help`` prints it below the options."""
    return "examples:\n" + "\n".join(f"  {line}" for line in examples)


def document(commands: Mapping[str, argparse.ArgumentParser]) -> None:
    """Give each command's parser its description and examples (kept as written: line breaks matter)."""
    for name, parser in commands.items():
        description, examples = HELP[name]
        parser.description = textwrap.fill(description, WIDTH)
        parser.epilog = epilog(examples)
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
