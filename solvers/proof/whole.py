"""A split run's certificate checked as a whole: its ``part-N`` folders, each a certificate within its cube,
add up to the run's count only if the cubes leave no solution out and no solution is counted twice.

``check_parts`` checks

1. every part's certificate (``solvers.proof.certificate.judge``), all of one puzzle, instance and encoding;
2. the solutions a part's cube leaves out because a run split again had counted them already (its blocking
   clauses, beside its unit clauses): each one, taken once, must be a model of the formula and decode to a
   solution the rule verifier accepts; they count towards the total;
3. no solution is counted twice, by two parts or by a part and a cube (so the parts are disjoint);
4. the cover: the formula, with each part's unit clauses negated (a clause "not this cube") and each
   solution of point 2 blocked, is unsatisfiable. CaDiCaL proves it now, writing an LRAT proof, and gridsat's
   checker checks that proof (a lazy formula's cuts are added as a search adds them, each vouched for by
   its witness). So every solution lies in some part's cube: a missing part is refused, as is a cube that
   contradicts itself (its part then covers nothing). ``check-proof --keep-cover`` keeps that formula and
   proof in the folder (``cover.cnf``, ``cover.lrat``) for other checkers;
5. under symmetry breaking, the orbits of all the parts' solutions and of point 2's, expanded and checked
   as for one run (``solvers.proof.orbits``), and proved now, in the same way, to hold every solution of the
   formula without the breaking (which a part alone cannot prove, its orbits leaving its cube); or, where the
   breaking is recognised as keeping every orbit's leader (``solvers.proof.leaders``), not proved again: the
   parts' proofs and the cover say every leader is blocked or counted.

The total is the sum of the parts' counts and the solutions of point 2, exact once point 5 is proved.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridsat.models.formulation import CnfFormulation
from gridsat.models.solution import dumps, freeze
from gridsat.solvers.proof.certificate import Build, Certificate, Judgement, judge, load, members_failure
from gridsat.solvers.proof.models import first_non_model
from gridsat.solvers.proof.orbits import blocked_values, expand

PROVER = "cadical195"


@dataclass
class Whole:
    """A split run's certificates checked as one (see the module docstring)."""

    parts: dict[str, Judgement] = field(default_factory=dict)
    failure: str = ""
    solutions: int = 0
    cover_steps: int = 0
    assumed: str = ""
    seconds: float = 0.0
    left_out: int = 0  # the assignments the cubes leave out (point 2)

    def judgement(self) -> Judgement:
        """The whole as one verdict: the parts' sizes and times added up, the cover proof's steps too."""
        parts = self.parts.values()
        return Judgement(not self.failure, self.failure, self.solutions, sum(v.proof_bytes for v in parts),
                         sum(v.proof_steps for v in parts) + self.cover_steps, self.seconds,
                         sum(v.blocking for v in parts), sum(v.cuts for v in parts), 0, self.assumed,
                         parts=len(self.parts), left_out=self.left_out)


def part_folders(folder: Path) -> list[Path]:
    """A split run's part folders (``part-N``), in the order of N."""
    found = [p for p in folder.iterdir() if p.is_dir() and p.name.startswith("part-")]
    return sorted(found, key=lambda p: (len(p.name), p.name))


def check_parts(folder: Path, build: Build, keep: bool = False,
                on_stage: Callable[[str], None] | None = None) -> tuple[Whole, Any, Any]:
    """Check a split run's certificate folder as a whole; with the puzzle and instance it names. ``keep``:
    write the cover's formula and proof into the folder too (``cover.cnf``, ``cover.lrat``), which
    cake_lpr or drat-trim's lrat-check can check. ``on_stage`` is told each stage as it starts (a progress
    line's text)."""
    whole, loaded = Whole(), []
    started = time.perf_counter()
    stage = on_stage or (lambda text: None)
    parts = part_folders(folder)
    for number, part in enumerate(parts, 1):
        stage(f"checking part {number} of {len(parts)} ({part.name})")
        try:
            certificate, puzzle, instance, difference = load(part, build)
        except ValueError as error:  # which part's files cannot be read
            raise ValueError(f"{part.name}: {error}") from None
        verdict = Judgement(False, difference, 0, 0, 0, 0.0) if difference else judge(certificate, puzzle, instance)
        whole.parts[part.name] = verdict
        loaded.append(certificate)
        if not verdict.certified:
            whole.failure = f"{part.name}: {verdict.failure}"
            return whole, puzzle, instance
        whole.solutions += verdict.solutions
        whole.assumed = whole.assumed or verdict.assumed
    stage(f"checking that the {len(parts)} parts count no solution twice")
    whole.failure = same_claim(loaded) or count_once(whole, loaded, puzzle, instance)
    if not whole.failure:
        stage(f"checking that the {len(parts)} parts' cubes cover every solution")
        whole.cover_steps, whole.failure = cover(loaded, folder if keep else None)
    if not whole.failure and loaded[0].unbroken is not None:
        stage("checking that the orbits of the parts' solutions hold every solution")
    whole.failure = whole.failure or orbits(whole, loaded, puzzle, instance)
    whole.seconds = time.perf_counter() - started
    return whole, puzzle, instance


def same_claim(certificates: list[Certificate]) -> str:
    """Why the parts are not parts of one run (empty when they are)."""
    first = certificates[0].identity
    for certificate in certificates[1:]:
        other = certificate.identity
        if (other.puzzle, other.instance, other.params, other.encoding) != \
                (first.puzzle, first.instance, first.params, first.encoding):
            return "the parts name different puzzles, instances or encodings"
    return ""


def cube_solutions(certificates: list[Certificate]) -> list[list[int]]:
    """The blocking clauses (over every projection variable) of the solutions the cubes leave out, each once."""
    f = certificates[0].formulation
    rows = {f.row_of(c) for certificate in certificates for c in certificate.cube_blocked}
    return [[-v if value else v for v, value in zip(f.projection, row, strict=True)] for row in sorted(rows)]


def count_once(whole: Whole, certificates: list[Certificate], puzzle: Any, instance: Any) -> str:
    """Add the cubes' solutions to the total; why a solution is counted twice or a cube's is none."""
    f = certificates[0].formulation
    seen: dict[Hashable, str] = {}
    for name, verdict in whole.parts.items():
        for solution in verdict.kept:
            if solution in seen:
                return f"{name} and {seen[solution]} count the same solution"
            seen[solution] = name
    extra = cube_solutions(certificates)
    whole.left_out = len(extra)
    if (i := first_non_model(f.cnf.clauses, extra)) is not None:
        return f"a solution a cube leaves out (number {i}) is no model of the formula"
    for clause in extra:
        solutions = cube_images(f, clause)
        for solution in solutions:
            problems = puzzle.verify(instance, solution)
            if problems:
                return f"a solution a cube leaves out is none: {problems[0]}"
            if freeze(solution) in seen:
                return f"a cube leaves out {dumps(solution)[:60]}, which {seen[freeze(solution)]} counts"
            seen[freeze(solution)] = "a cube"
        whole.solutions += len(solutions)
    return ""


def cube_images(f: CnfFormulation, clause: list[int]) -> list[Any]:
    """The solutions a blocked projection stands for (its orbit, when the formula keeps one per orbit)."""
    return f.solutions_of(blocked_values(f, clause))


def cover(certificates: list[Certificate], keep: Path | None = None) -> tuple[int, str]:
    """Prove (CaDiCaL, LRAT) and check (gridsat) that every solution lies in some part's cube (``keep``: a
    folder to write the formula and proof in, as ``cover.cnf`` and ``cover.lrat``)."""
    f = certificates[0].formulation
    clauses = [*f.cnf.clauses, *cube_solutions(certificates),
               *([-lit for lit in certificate.fixed] for certificate in certificates)]
    return refute_now(clauses, f, "a solution lies in no part's cube (a part is missing?)", "the cover proof",
                      keep / "cover" if keep is not None else None)


def orbits(whole: Whole, certificates: list[Certificate], puzzle: Any, instance: Any) -> str:
    """Under symmetry breaking, prove that the orbits of every part's solutions (and the cubes') hold every
    solution of the formula without the breaking, as ``orbits.lrat`` does for a run not split: the count
    is then exact. Why not (empty when proved, or when the formula keeps every solution)."""
    first = certificates[0]
    if first.unbroken is None:
        return ""
    leaders = [clause for certificate in certificates for clause, _ in certificate.blocking]
    counted = expand(first.formulation, first.unbroken, [*leaders, *cube_solutions(certificates)], puzzle, instance)
    failure = counted.failure or members_failure(first.unbroken, counted)
    if not failure and counted.solutions != whole.solutions:
        failure = f"the orbits hold {counted.solutions} solutions, the parts count {whole.solutions}"
    if failure:
        return failure
    if first.unbroken.keeps_leaders(first.formulation):  # solvers.proof.leaders: every leader is blocked by some
        whole.assumed = ""  # part (its proof) or counted by a cube (the cover proof), so every orbit is counted
        return ""
    steps, failure = refute_now([*first.unbroken.formulation.cnf.clauses, *counted.members], first.unbroken.formulation,
                                "the formula without symmetry breaking has a solution in no orbit", "the orbits proof")
    whole.cover_steps += steps
    whole.assumed = whole.assumed if failure else ""
    return failure


def refute_now(clauses: list[list[int]], f: CnfFormulation, satisfiable: str, name: str,
               keep: Path | None = None) -> tuple[int, str]:
    """Prove ``clauses`` unsatisfiable now (CaDiCaL, LRAT; a lazy formula's cuts added, each vouched for by
    its witness) and check the proof with gridsat's checker: its steps, and why not (``satisfiable``: a
    model that needs no cut was found, named after it). ``keep``: the formula (cuts included, numbered as
    the proof numbers it: ``lrat.numbered``) and the proof written as ``keep.cnf`` and ``keep.lrat``."""
    from gridsat.solvers.proof.certificate import proof_format, proved, replace_file, write_dimacs
    from gridsat.solvers.proof.lrat import numbered
    from gridsat.solvers.proof.prover import refutation

    def cuts_for(model: list[int]) -> list[list[int]]:
        cuts = f.refine(model) if f.refine is not None else []
        vouched = [c for c in cuts if f.vouch and f.witness and f.vouch(c, f.witness(c)) is None]
        return cuts if len(vouched) == len(cuts) else []

    clauses = list(clauses)
    done = refutation(PROVER, clauses, cuts_for, f.projection if f.refine is not None else None)
    if done.model is not None:
        return 0, f"{satisfiable}: {dumps(f.decode(f.values(done.model)))[:80]}"
    form = proof_format(PROVER)
    if keep is not None:
        write_dimacs(keep.with_suffix(".cnf"), numbered(clauses) if form == "lrat" else clauses,
                     f"c gridsat {name}: refuted by {keep.name}.{form}")
        replace_file(keep.with_suffix(f".{form}"), done.proof)
    return proved(clauses, done.proof, name, form)
