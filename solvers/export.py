"""Formulations as files: DIMACS CNF with its projection and legend, and CP-SAT models as protobuf text.

Both begin with comment lines that say what the file is and what one of its models stands for,
in words and as a line a program can read: ``gridsat models-are solutions`` when the models
(projected onto the puzzle's own variables) are exactly the solutions, ``gridsat models-are orbits
of size 8`` when the encoding keeps one solution per symmetry orbit. Exports use an exact encoding
unless the user names a reduced one (see ``EncodingSpace.resolve``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from gridsat.models.encoding import Encoding, EncodingSpace
from gridsat.models.errors import InvalidOption, UnknownName
from gridsat.models.formulation import CnfFormulation, CpsatFormulation, Formulation
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import formulate
from gridsat.solvers.gate import check_needs, resolve_encoding

WIDTH = 100


def models_are(f: Formulation) -> str:
    """The machine-readable part of the header: ``solutions``, ``orbits of size N``, or ``superset``
    (a lazy formulation's eager part, whose models include non-solutions)."""
    if getattr(f, "refine", None) is not None:
        return "superset"
    if f.images is None:
        return "solutions"
    return f"orbits of size {f.orbit_size}" if f.orbit_size else "orbits"


def meaning(f: Formulation, encoding: Encoding, space: EncodingSpace) -> str:
    """What one model stands for, in words (with what to do when it is not one solution)."""
    exact = [axis.exact for axis in space.axes if axis.exact and encoding[axis.name] != axis.exact]
    if getattr(f, "refine", None) is not None:
        return ("This is a lazy formulation's eager part only: gridsat's sat backend adds refinement clauses "
                "while solving (cut-sets against subtours), so a model of this CNF alone may not be a solution "
                f"and a model count over-counts. Export with {'+'.join(exact)} (the default) for a formula whose "
                "models are exactly the solutions.")
    if f.images is None:
        return ("Each model, projected onto the puzzle's own variables, is exactly one solution, so a projected "
                "model count is the number of solutions.")
    instead = f"Export with {'+'.join(exact)} (the default) for a formula whose models are exactly the solutions."
    if not f.orbit_size:
        return ("Each model stands for a whole symmetry orbit (this encoding keeps the lex-leader of each orbit), "
                f"and orbits differ in size, so a projected model count is the number of orbits. {instead}")
    return (f"Each model stands for a whole symmetry orbit of {f.orbit_size} solutions (this encoding keeps one "
            f"solution per orbit): multiply a projected model count by {f.orbit_size}. {instead}")


def header(puzzle: Puzzle, instance: Instance, encoding: Encoding, space: EncodingSpace, f: Formulation) -> list[str]:
    """The comment lines every export starts with (without the comment mark)."""
    return [
        f"gridsat {puzzle.name} {puzzle.describe(instance)} encoding {encoding.name}",
        f"gridsat models-are {models_are(f)}",
        *textwrap.wrap(meaning(f, encoding, space), WIDTH),
    ]


def write_dimacs(out: IO[str], puzzle: Puzzle, instance: Instance, encoding: Encoding, f: CnfFormulation,
                 scramble: int | None = None) -> None:
    """The CNF with ``c p show``/``c ind`` lines (the projection) and one ``c v`` line per variable with a
    key (a PySAT cardinality encoding's auxiliaries have none); a scrambled one says its seed."""
    shown = " ".join(map(str, f.projection))
    for line in header(puzzle, instance, encoding, puzzle.cnf_encodings, f):
        out.write(f"c {line}\n")
    if scramble is not None:
        out.write(f"c gridsat scrambled from seed {scramble}: variables renamed, polarities flipped, clauses and "
                  "their literals\nc shuffled; the projection and the legend name the renamed variables, and "
                  "'c v -ID KEY' a flipped\nc one: KEY is true when ID is false.\n")
    out.write("c The projection (the puzzle's own variables) is listed twice: 'c p show' for projected model\n"
              "c counters such as Ganak and d4, 'c ind' for ApproxMC; 'c v ID KEY' names each variable that has\n"
              "c a key (the auxiliaries a PySAT cardinality encoding adds have none).\n")
    out.write(f"c p show {shown} 0\nc ind {shown} 0\n")
    for line in f.legend():
        out.write(f"c {line}\n")
    out.write(f"p cnf {f.cnf.nv} {len(f.cnf.clauses)}\n")
    for clause in f.cnf.clauses:
        out.write(" ".join(map(str, clause)) + " 0\n")


def write_cpsat(out: IO[str], puzzle: Puzzle, instance: Instance, encoding: Encoding, f: CpsatFormulation) -> None:
    """The CP-SAT model as protobuf text, after ``#`` comments: the header and the primary variables.

    ``# gridsat primary INDEX NAME KEY`` gives each of the puzzle's own variables (its index in
    ``variables``, 0-based, its name in the model and its key); solutions are projected onto them.
    """
    for line in header(puzzle, instance, encoding, puzzle.cpsat_encodings, f):
        out.write(f"# {line}\n")
    out.write("# The puzzle's own variables, onto which solutions are projected (the others are auxiliary):\n")
    for key, var in f.primary.items():
        out.write(f"# gridsat primary {var.index} {var.name} {key!r}\n")
    out.write(str(f.model.Proto()))


FORMATS = ("dimacs", "cpsat")


@dataclass(frozen=True)
class Export:
    """A formulation ready to be written as a file (``write``), with what its reader should know first (``notes``)."""

    puzzle: Puzzle
    instance: Instance
    encoding: Encoding
    formulation: Formulation
    writer: Callable[..., None]
    scramble: int | None = None  # the seed the CNF was scrambled from

    def write(self, out: IO[str]) -> None:
        """The whole file: its header, then the formula or the model."""
        self.writer(out, self.puzzle, self.instance, self.encoding, self.formulation,
                    **({} if self.scramble is None else {"scramble": self.scramble}))

    def notes(self) -> list[str]:
        """When the file's models are not exactly the solutions: one line each way they are not."""
        f, name = self.formulation, self.encoding.name
        notes = []
        if f.images is not None:
            stands = f"{f.orbit_size} solutions" if f.orbit_size else "a whole orbit (orbits differ in size)"
            notes.append(f"encoding {name} keeps one solution per symmetry orbit: each model of the file stands "
                         f"for {stands} (its header says so)")
        if getattr(f, "refine", None) is not None:
            notes.append(f"encoding {name} is lazy: the file holds its eager part, whose models include "
                         "non-solutions (its header says so)")
        return notes


def exporting(puzzle: Puzzle, instance: Instance, format: str, encoding: str | None,
              scramble: int | None = None) -> Export:
    """The formulation ``format`` writes (``dimacs``: the CNF; ``cpsat``: the CP-SAT model), built with an
    exact encoding (its models are the solutions) unless ``encoding`` names a reduced one; ``scramble``: the
    CNF's variables renamed, their polarities flipped and its clauses and literals shuffled from that seed
    (models/scramble.py)."""
    if scramble is not None and format != "dimacs":
        raise InvalidOption(f"scramble={scramble} applies to the dimacs format, not {format}")
    if format == "dimacs":
        chosen = resolve_encoding(puzzle, "cnf", encoding, exact=True)
        check_needs(puzzle.cnf_encodings.needs(chosen), "a DIMACS file")
        formulation = formulate(puzzle, instance, "cnf", chosen)
        if scramble is None:
            return Export(puzzle, instance, chosen, formulation, write_dimacs)
        from gridsat.models.scramble import scramble as scrambled

        return Export(puzzle, instance, chosen, scrambled(formulation, scramble), write_dimacs, scramble)
    if format == "cpsat":
        chosen = resolve_encoding(puzzle, "cpsat", encoding, exact=True)
        return Export(puzzle, instance, chosen, formulate(puzzle, instance, "cpsat", chosen), write_cpsat)
    raise UnknownName("export format", format, FORMATS)
