"""Formulations as files: DIMACS CNF with its projection and legend, and CP-SAT models as protobuf text."""

from __future__ import annotations

from typing import IO

from gridsat.models.encoding import Encoding
from gridsat.models.formulation import CnfFormulation, CpsatFormulation
from gridsat.models.puzzle import Instance, Puzzle


def write_dimacs(out: IO[str], puzzle: Puzzle, instance: Instance, encoding: Encoding, f: CnfFormulation) -> None:
    """The CNF with ``c p show``/``c ind`` lines (the projection) and one ``c v`` line per named variable."""
    shown = " ".join(map(str, f.projection))
    out.write(f"c gridsat {puzzle.name} {puzzle.describe(instance)} encoding {encoding.name}\n")
    out.write(f"c p show {shown} 0\nc ind {shown} 0\n")
    for line in f.legend():
        out.write(f"c {line}\n")
    out.write(f"p cnf {f.cnf.nv} {len(f.cnf.clauses)}\n")
    for clause in f.cnf.clauses:
        out.write(" ".join(map(str, clause)) + " 0\n")


def write_cpsat(out: IO[str], f: CpsatFormulation) -> None:
    """The CP-SAT model as protobuf text."""
    out.write(str(f.model.Proto()))
