"""``gridsat strength``: the propagation strength of each constraint encoding gridsat writes.

For every registered encoding (``gridsat.solvers.strength``) it tries every partial assignment of
at most ``-k`` primary literals on small instances and prints one line: the encoding's name and its
verdict, ``propagation-complete`` (``arc-consistent`` for a finite domain's value literals) or the
negation with a witness, the assignment and a literal unit propagation misses. Exit status 0 whatever
the verdicts (they are findings); an unknown name is a one-line error (exit status 2).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from gridsat.arguments import whole
from gridsat.models.errors import InvalidOption
from gridsat.solvers.strength import CASES, Strength, strengths

DEFAULT_K = 4  # enough for a Hall set of two cells (the direct all-different's witness); about ten seconds in all


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``strength`` options."""
    parser.add_argument("names", nargs="*", metavar="ENCODING",
                        help="encodings to check, or the start of their names (at-most-one, tour); default: all")
    parser.add_argument("-k", type=whole, default=DEFAULT_K, metavar="K",
                        help=f"try every partial assignment of at most K primary literals (default {DEFAULT_K})")
    parser.add_argument("--list", action="store_true", help="list the encodings and what each instance holds")
    parser.add_argument("--json", action="store_true", help="print the verdicts, witnesses and counts as JSON")


def chosen(names: list[str]) -> list[str]:
    """The registered names that the given names or name prefixes pick, in registry order."""
    if not names:
        return list(CASES)
    for name in names:
        if not any(case == name or case.startswith(name + " ") for case in CASES):
            groups = sorted({case.split(" ")[0] for case in CASES})
            raise InvalidOption(f"no encoding named {name!r} to check; names start with: {', '.join(groups)}")
    return [case for case in CASES if any(case == name or case.startswith(name + " ") for name in names)]


def as_json(found: Strength) -> dict[str, Any]:
    witness = found.witness
    return {"name": found.case.name, "verdict": found.verdict, "holds": found.holds, "k": found.k,
            "assignments_tried": found.tried, "exhaustive": found.exhaustive, "instance": found.case.summary,
            "witness": None if witness is None else {
                "assignment": [witness.constraint.literal(lit) for lit in witness.assignment],
                "missed": witness.constraint.literal(witness.missed), "instance": witness.constraint.about}}


def run(args: argparse.Namespace) -> int:
    names = chosen(args.names)
    if args.list:
        width = max(map(len, names))
        for name in names:
            print(f"{name:<{width}}  {CASES[name].summary}")
        return 0
    found = strengths(names, args.k)
    if args.json:
        print(json.dumps([as_json(s) for s in found], indent=2))
        return 0
    width = max(len(s.case.name) for s in found)
    for one in found:
        print(one.line(width))
    return 0
