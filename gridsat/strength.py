"""``gridsat strength``: the propagation strength of each constraint encoding gridsat writes, or of a CNF.

For every registered claim (``gridsat.solvers.strength``) it tries every partial assignment of at
most ``-k`` primary literals on small instances and prints one line: the claim's name and its
verdict with its scope (the part of the encoding checked, up to which n exhaustively), or the
negation with a smallest witness, the assignment and a literal unit propagation misses. ``--dimacs
FILE --primary LIST`` checks any CNF, the listed variables primary and the rest auxiliary. Exit status
0 whatever the verdicts (they are findings); an unknown name or a bad value is a one-line error
(exit status 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gridsat.arguments import positive_int
from gridsat.models.errors import InvalidOption

if TYPE_CHECKING:
    from gridsat.solvers.strength import Claim, Strength
    from gridsat.solvers.strength.check import Witness

# The checks (numpy and every encoding's claims) are imported when the command runs: the command line builds this
# parser for every gridsat command, and importing them there cost each one about 80 ms of its start.

DEFAULT_K = 4  # enough for a Hall set of two cells (the direct all-different's witness); about a minute in all


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``strength`` options."""
    parser.add_argument("names", nargs="*", metavar="ENCODING",
                        help="encodings to check, or the start of their names (at-most-one, tour); default: all")
    parser.add_argument("-k", type=positive_int, default=DEFAULT_K, metavar="K",
                        help=f"try every partial assignment of at most K primary literals (default {DEFAULT_K})")
    parser.add_argument("--dimacs", metavar="FILE", help="check this DIMACS CNF instead of gridsat's encodings")
    parser.add_argument("--primary", metavar="LIST",
                        help="with --dimacs: the primary variables, comma-separated (1,2,3); the rest are auxiliary")
    parser.add_argument("--list", action="store_true", help="list the encodings and what each instance holds")
    parser.add_argument("--json", action="store_true", help="print the verdicts, witnesses and counts as JSON")


def chosen(names: list[str]) -> list[str]:
    """The registered names that the given names or name prefixes pick, in registry order."""
    from gridsat.solvers.strength import claims

    registered = claims()
    if not names:
        return list(registered)
    for name in names:
        if not any(case == name or case.startswith(name + " ") for case in registered):
            groups = sorted({case.split(" ")[0] for case in registered})
            raise InvalidOption(f"no encoding named {name!r} to check; names start with: {', '.join(groups)}")
    return [case for case in registered if any(case == name or case.startswith(name + " ") for name in names)]


def primaries(text: str | None) -> list[int]:
    """``--primary 1,2,3``: distinct positive variable numbers."""
    if not text:
        raise InvalidOption("--dimacs needs --primary LIST: the primary variables, comma-separated (1,2,3)")
    found = []
    for item in text.split(","):
        if not item.strip().isascii() or not item.strip().isdigit() or int(item) < 1:
            raise InvalidOption(f"--primary: {item.strip()!r} is not a variable number (1 or more)")
        found.append(int(item))
    if len(set(found)) != len(found):
        raise InvalidOption(f"--primary: {text!r} names a variable twice")
    return found


def dimacs_claim(path: str, primary: list[int]) -> Claim:
    """A claim of propagation-completeness on the CNF in ``path``, ``primary`` its primary variables."""
    from pysat.formula import CNF

    from gridsat.solvers.strength import Claim, Constraint

    try:
        cnf = CNF(from_file=path)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise InvalidOption(f"--dimacs {path!r}: cannot read a DIMACS CNF ({error})") from None
    clauses = [list(clause) for clause in cnf.clauses]
    constraint = Constraint(clauses, primary, {v: str(v) for v in primary}, Path(path).name, {"dimacs": len(clauses)})
    return Claim(f"dimacs {Path(path).name}", "propagation", lambda: [constraint],
                 f"{len(clauses)} clauses over {cnf.nv} variables, {len(primary)} of them primary")


def said(witness: Witness | None) -> dict[str, Any] | None:
    if witness is None:
        return None
    return {"assignment": [witness.constraint.literal(lit) for lit in witness.assignment],
            "missed": witness.constraint.literal(witness.missed), "instance": witness.constraint.about}


def as_json(found: Strength) -> dict[str, Any]:
    return {"name": found.case.name, "verdict": found.verdict, "strength": found.strength,
            "claimed": found.case.claimed, "part": found.case.part, "unchecked": found.case.unchecked,
            "holds": found.holds, "uc": found.uc, "k": found.k, "n": found.n,
            "exhaustive": found.exhaustive, "exhaustive_up_to_n": found.upto, "clauses": found.clauses,
            "families": found.families, "assignments_tried": found.tried, "instance": found.case.summary,
            "witness": said(found.witness), "refutation": said(found.refutation)}


def run(args: argparse.Namespace) -> int:
    from gridsat.solvers.strength import claims, strength, strengths

    if args.dimacs is not None:
        if args.names or args.list:
            raise InvalidOption("--dimacs checks the CNF it names: give no encoding names and no --list with it")
        found = [strength(dimacs_claim(args.dimacs, primaries(args.primary)), args.k)]
    elif args.primary is not None:
        raise InvalidOption("--primary goes with --dimacs FILE")
    else:
        names = chosen(args.names)
        if args.list:
            width = max(map(len, names))
            for name in names:
                print(f"{name:<{width}}  {claims()[name].summary}")
            return 0
        found = strengths(names, args.k)
    if args.json:
        print(json.dumps([as_json(s) for s in found], indent=2))
        return 0
    width = max(len(s.case.name) for s in found)
    for one in found:
        print(one.line(width))
    return 0
