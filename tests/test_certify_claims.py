"""check-proof recomputes the claim: each way a reviewer made it certify a wrong count, planted in a kept
certificate, is refused (exit 1), and a symmetry-broken run's count is the sum of its orbits, proved over
the formula without the breaking."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("numba")

from conftest import gridsat  # noqa: E402

# prime-grid's values one-hot, at-most-ones by a sequential counter: its breaking is not recognised by rule
# (``solvers.proof.leaders`` wants the binary clauses that make each value defined), so its orbits are proved
SEQUENTIAL = "direct+support+seqcounter+parity+symmetry"


def kept(tmp_path: Path, *args: str) -> Path:
    folder = tmp_path / "kept"
    done = gridsat("count", *args, "--backend", "sat", "--proof", str(folder))
    assert done.returncode == 0, done.stderr
    return folder


def test_tatami_with_symmetry_breaking_checks_to_the_runs_count(tmp_path: Path) -> None:
    folder = tmp_path / "mats"
    done = gridsat("count", "tatami", "4x7", "--backend", "sat", "--encoding", "mats+pairwise+symmetry",
                   "--proof", str(folder))
    assert done.returncode == 0 and done.stdout.startswith("3 (certified"), done.stdout
    assert (folder / "orbits.lrat").is_file()
    again = gridsat("check-proof", str(folder))
    assert again.returncode == 0 and "has exactly 3 solutions" in again.stdout, again.stdout


def test_a_rotated_leader_blocked_beside_the_leaders_is_refused(tmp_path: Path) -> None:
    folder = kept(tmp_path, "prime-grid", "3x3")
    assert "exactly 128 solutions" in gridsat("check-proof", str(folder)).stdout
    variable = {("x", r, c, v): 1 + 10 * (3 * r + c) + v - 1 for r in range(3) for c in range(3) for v in range(1, 11)}
    rotated = [[7, 4, 1], [10, 3, 2], [9, 8, 5]]  # a quarter turn of [[1,2,5],[4,3,8],[7,10,9]], the first leader
    true = {variable["x", r, c, rotated[r][c]] for r in range(3) for c in range(3)}
    clause = " ".join(str(-v if v in true else v) for v in range(1, 91))
    assert "c p show 1 2 3 " in (folder / "formula.cnf").read_text()
    with (folder / "blocking.cnf").open("a") as blocking:
        blocking.write(f"c gridsat solution {json.dumps(rotated, separators=(',', ':'))}\n{clause} 0\n")
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 1 and "136" not in done.stdout, done.stdout
    assert done.stdout.startswith("not certified: blocking clause 17: the assignment it rules out is no model"), \
        done.stdout


def test_a_weakened_leader_constraint_is_refused_by_run_and_check(tmp_path: Path, monkeypatch) -> None:
    from gridsat import api
    from gridsat.models.prime_grid import symmetry

    full = symmetry.leader_orders
    monkeypatch.setattr(symmetry, "leader_orders", lambda grid: full(grid)[:3])
    outcome = api.count("prime-grid", "3x3", backend="sat", proof=tmp_path / "weak")
    assert outcome.details["certified"] is False, outcome.details
    assert "stands for a solution that blocked assignment" in outcome.details["certificate_failure"]
    verdict, _ = api.check_proof(tmp_path / "weak")
    assert not verdict.certified and "stands for a solution that blocked assignment" in verdict.failure


@pytest.mark.parametrize(("literals", "refusal"), [
    ("1 -1 0", "the cube contradicts itself: it holds both 1 and -1"),
    # The repro with no cube literals: the two unit clauses are then the cube's blocking clauses,
    # and neither blocks a solution.
    ("0", "cube clause 1: it is neither a literal of the cube nor the blocking clause of a projection"),
])
def test_a_cube_of_two_contradicting_unit_clauses_is_refused(tmp_path: Path, literals: str, refusal: str) -> None:
    folder = kept(tmp_path, "tatami", "4x7")
    text = (folder / "formula.cnf").read_text().replace("c gridsat cube 0", "c gridsat cube 2") \
        .replace("c gridsat cube-literals 0", f"c gridsat cube-literals {literals}")
    (folder / "formula.cnf").write_text(text + "1 0\n-1 0\n")
    (folder / "blocking.cnf").write_text("")
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 1 and done.stdout == f"not certified: {refusal}\n", done.stdout


def test_a_cube_without_its_literals_line_is_refused(tmp_path: Path) -> None:
    folder = kept(tmp_path, "tatami", "4x7")
    text = (folder / "formula.cnf").read_text().replace("c gridsat cube 0", "c gridsat cube 1")
    text = text.replace("c gridsat cube-literals 0\n", "")
    (folder / "formula.cnf").write_text(text + "1 0\n")
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 1 and "no 'c gridsat cube-literals' line" in done.stdout, done.stdout


def test_a_blocking_clause_of_one_literal_in_a_cube_is_no_literal_of_it() -> None:
    """The case single-literal reading got wrong: a one-variable projection's solution blocked in a cube
    is the unit clause of the negated literal, beside the cube's own literal of that variable's negation."""
    from gridsat.solvers.proof.certificate import cube_problem

    assert cube_problem([-7], [[-7], [-7]]) == ""  # a literal, and a blocking clause that repeats it
    assert cube_problem([5], [[5], [-5]]) == ""  # -5: a blocking clause (of the projection 5 true), not a literal
    assert cube_problem([5, -5], [[5], [-5]]).startswith("the cube contradicts itself")
    assert cube_problem([5], [[-5], [5]]).startswith("the cube's clauses do not begin")


def test_a_blocked_assignment_that_is_no_model_is_refused(tmp_path: Path) -> None:
    folder = kept(tmp_path, "tatami", "4x7")
    first = next(line for line in (folder / "blocking.cnf").read_text().splitlines() if not line.startswith("c"))
    true = next(-int(lit) for lit in first.split() if int(lit) < 0)  # a variable the first solution sets
    text = (folder / "formula.cnf").read_text().replace("c gridsat cube 0", "c gridsat cube 1") \
        .replace("c gridsat cube-literals 0", f"c gridsat cube-literals {-true} 0")
    (folder / "formula.cnf").write_text(text + f"{-true} 0\n")  # a cube that leaves the first solution out
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 1 and done.stdout.startswith("not certified: blocking clause 1: the assignment it "
                                                           "rules out is no model"), done.stdout


def test_two_blocked_assignments_of_one_solution_are_refused(tmp_path: Path, monkeypatch) -> None:
    from gridsat.certification import build
    from gridsat.solvers.proof.certificate import identity, judge, read

    folder = kept(tmp_path, "tatami", "4x7")
    ident = identity(folder)
    puzzle, instance, formulation, _ = build(ident)
    certificate, _ = read(folder, ident, formulation)
    assert judge(certificate, puzzle, instance).certified
    first = json.loads(certificate.blocking[0][1])
    monkeypatch.setattr(formulation, "decode", lambda values: first)  # a decoder that reads every model as one
    certificate.blocking = [(clause, certificate.blocking[0][1]) for clause, _ in certificate.blocking]
    verdict = judge(certificate, puzzle, instance)
    assert not verdict.certified
    assert verdict.failure == "blocked assignment 2: it stands for a solution that blocked assignment 1 stands for too"


def test_cpsat_enumeration_is_certified_and_its_certificate_checks_again(tmp_path: Path) -> None:
    folder = tmp_path / "tours"
    done = gridsat("count", "knights-tour", "5x5", "-p", "start=0,0", "--backend", "cpsat", "--certify", "--json",
                   "--proof", str(folder))
    record = json.loads(done.stdout)
    assert done.returncode == 0 and (record["count"], record["certified"]) == (304, True), done.stdout
    again = gridsat("check-proof", str(folder))
    # a knight's-tour count says what it counts, as the count line does
    assert again.returncode == 0 and "has exactly 304 solutions (tours: directed; " in again.stdout, again.stdout
    blocking = (folder / "blocking.cnf").read_text().splitlines()
    (folder / "blocking.cnf").write_text("\n".join(blocking[2:]) + "\n")  # one of CP-SAT's solutions left out
    assert gridsat("check-proof", str(folder)).returncode == 1


@pytest.mark.parametrize("args, starts", [
    (["count", "prime-grid", "3x3"], "128 (certified"),  # CP-SAT keeps one filling per orbit: leaders by rule
    (["count", "shikaku", "seed", "--limit", "2"], "1 (unique; certified"),
    (["solve", "prime-grid", "3x3", "-p", "max=9"], "no solution exists (certified"),
    (["enumerate", "tatami", "4x7"], ""),
])
def test_cpsat_answers_are_certified(args: list[str], starts: str) -> None:
    done = gridsat(*args, "--backend", "cpsat", "--certify")
    assert done.stdout.startswith(starts) and "certified: proof of" in done.stdout, done.stdout


def test_cpsat_solutions_the_cnf_does_not_hold_are_refused(monkeypatch) -> None:
    from gridsat import api
    from gridsat.solvers.proof import replay

    real = replay.CpsatReplay.add
    monkeypatch.setattr(replay.CpsatReplay, "add",
                        lambda self, values, n: None if self.reported else real(self, values, n))
    outcome = api.count("tatami", "4x7", backend="cpsat", certify=True)  # the replay sees only the first solution
    assert outcome.count == 3 and outcome.details["certified"] is False
    assert outcome.details["certificate_failure"].startswith("the CNF has a solution CP-SAT did not report")


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
def test_a_split_run_is_checked_as_a_whole(tmp_path: Path, backend: str) -> None:
    import shutil

    from gridsat import Split, api

    folder = tmp_path / "parts"
    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend=backend, proof=folder,
                        split=Split(jobs=2, probe=0, parts=8))
    assert (outcome.count, outcome.details["certified"]) == (304, True), outcome.details
    parts = sorted(folder.glob("part-*"))
    assert len(parts) > 1
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 0 and "has exactly 304 solutions in " in done.stdout, done.stdout
    assert "every solution (tours: directed; " in done.stdout, done.stdout
    fullest = max(parts, key=lambda p: len((p / "blocking.cnf").read_text()))
    shutil.copytree(fullest, folder / "part-999")  # an extra part: its solutions counted twice
    extra = gridsat("check-proof", str(folder))
    assert extra.returncode == 1 and "count the same solution" in extra.stdout, extra.stdout
    shutil.rmtree(folder / "part-999")
    shutil.rmtree(fullest)  # a missing part: its solutions lie in no other part's cube
    missing = gridsat("check-proof", str(folder))
    assert missing.returncode == 1 and "lies in no part's cube" in missing.stdout, missing.stdout
    # a part's formula gone: which part, and which file (it read as no certificate at all, naming neither)
    other = sorted(folder.glob("part-*"))[0]
    (other / "formula.cnf").unlink()
    unnamed = gridsat("check-proof", str(folder))
    assert unnamed.returncode == 2 and f"{other.name}: formula.cnf is missing" in unnamed.stderr, unnamed.stderr


@pytest.mark.parametrize("literal", [-2**63, -(2**32 + 1), -10**20, -92])
def test_a_literal_that_names_no_variable_is_refused_not_crashed_on(tmp_path: Path, literal: int) -> None:
    # Written over a blocking clause's first literal: -2**63 crashed the LRAT check (a segmentation fault),
    # 2**32 + 1 asked it for an array that large, 10**20 overflowed a 64-bit integer (tracebacks). 92 is one
    # past prime-grid 3x3's 91 variables.
    folder = kept(tmp_path, "prime-grid", "3x3", "-p", "max=10")
    lines = (folder / "blocking.cnf").read_text().splitlines()
    first, *rest = lines[1].split()
    lines[1] = " ".join([str(literal), *rest])
    (folder / "blocking.cnf").write_text("\n".join(lines) + "\n")
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 1, (done.returncode, done.stderr[-300:])
    assert done.stdout.startswith(f"not certified: blocking.cnf, clause 1: the literal {literal} names no "
                                  "variable of the formula (1 to 91)"), done.stdout


def test_a_solution_nested_past_the_parser_and_an_unreadable_cube_count_are_named(tmp_path: Path) -> None:
    # Each was a traceback: a RecursionError from the JSON parser, and int()'s message naming no line.
    import shutil

    folder = kept(tmp_path, "prime-grid", "3x3", "-p", "max=10")
    deep = tmp_path / "deep"
    shutil.copytree(folder, deep)
    lines = (deep / "blocking.cnf").read_text().splitlines()
    lines[0] = "c gridsat solution " + "[" * 100_000 + "]" * 100_000
    (deep / "blocking.cnf").write_text("\n".join(lines) + "\n")
    done = gridsat("check-proof", str(deep))
    assert done.returncode == 1, done.stderr[-300:]
    assert done.stdout.startswith("not certified: blocking clause 1: the solution beside it is unreadable"), done.stdout
    text = (folder / "formula.cnf").read_text()
    assert "c gridsat cube 0\n" in text
    (folder / "formula.cnf").write_text(text.replace("c gridsat cube 0\n", "c gridsat cube abc\n"))
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 2 and "formula.cnf: unreadable 'c gridsat cube' line" in done.stderr, done.stderr[-300:]


def test_a_blocking_or_cut_file_gone_is_named_not_read_as_empty(tmp_path: Path) -> None:
    # Both are written even when empty. Read as empty, a missing blocking.cnf failed the proof at a step that
    # names neither file, and a missing cuts.cnf passed unnoticed.
    import shutil

    folder = kept(tmp_path, "prime-grid", "3x3", "-p", "max=10")
    for name in ("blocking.cnf", "cuts.cnf"):
        copy = tmp_path / name
        shutil.copytree(folder, copy)
        (copy / name).unlink()
        done = gridsat("check-proof", str(copy))
        assert done.returncode == 1 and done.stdout.startswith(f"not certified: {name} is missing"), done.stdout


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
def test_a_split_run_says_certified_only_once_its_parts_check_as_a_whole(tmp_path: Path, backend: str) -> None:
    """With or without a kept folder, a certified split run checks its parts together (the cover proof) before
    it says certified; a part gone missing (planted: the bug that once lost a cube) makes it NOT certified."""
    import shutil

    from gridsat import Split, api
    from gridsat.certification import judge_whole

    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend=backend, certify=True,
                        split=Split(jobs=2, probe=0, parts=8))
    assert (outcome.count, outcome.details["certified"], outcome.details["certified_as_whole"]) == (304, True, True)
    folder = tmp_path / "parts"
    kept = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend=backend, proof=folder,
                     split=Split(jobs=2, probe=0, parts=8))
    assert kept.details["certified"] and kept.parts > 1
    shutil.rmtree(max(folder.glob("part-*"), key=lambda p: len((p / "blocking.cnf").read_text())))
    kept.details.pop("certified_as_whole")
    judge_whole(kept, folder)
    assert kept.details["certified"] is False
    assert kept.details["certificate_failure"].startswith("the parts as a whole: a solution lies in no part's cube")


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
def test_a_split_enumeration_says_certified_only_once_its_parts_check_as_a_whole(monkeypatch, tmp_path: Path,
                                                                                backend: str) -> None:
    """An enumeration split into parts is checked as a whole once read to its end, as a count is; a part the
    whole check cannot see (planted: the folder of the part with most solutions hidden from it) makes it NOT
    certified, and its temporary folder is removed either way (looked for in a temporary folder of this
    test's own: other tests running beside it make theirs in the shared one)."""
    import tempfile

    from gridsat import Split, api
    from gridsat.solvers.proof import whole

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def enumerated() -> tuple[int, dict]:
        run = api.enumerate("knights-tour", "5x5", params={"start": "0,0"}, backend=backend, certify=True,
                            split=Split(jobs=2, probe=0, parts=8))
        seen = sum(1 for _ in run)
        assert run.outcome.parts > 1 and run.outcome.count == seen
        return seen, run.outcome.details

    before = set(Path(tempfile.gettempdir()).glob("gridsat-certificate-*"))
    seen, details = enumerated()
    assert (seen, details["certified"], details["certified_as_whole"]) == (304, True, True), details
    real = whole.part_folders
    monkeypatch.setattr(whole, "part_folders", lambda folder: sorted(real(folder), key=lambda p: len(
        (p / "blocking.cnf").read_text()))[:-1])
    seen, details = enumerated()
    assert seen == 304 and details["certified"] is False
    assert details["certificate_failure"].startswith("the parts as a whole: a solution lies in no part's cube")
    assert set(Path(tempfile.gettempdir()).glob("gridsat-certificate-*")) <= before


def test_a_split_run_under_symmetry_breaking_is_exact_only_as_a_whole(tmp_path: Path) -> None:
    from gridsat import Split, api

    folder = tmp_path / "parts"
    outcome = api.count("prime-grid", "3x3", backend="sat", proof=folder, split=Split(jobs=2, probe=0, parts=4))
    # Each part alone assumes the breaking keeps an orbit's member; the run checks the parts as a whole: proved.
    assert (outcome.count, outcome.details["certified"]) == (128, True), outcome.details
    assert outcome.details["certified_as_whole"] and "certificate_assumes" not in outcome.details
    part = gridsat("check-proof", str(sorted(folder.glob("part-*"))[0]))
    assert part.returncode == 0 and "exactly" not in part.stdout and ", assuming that the symmetry" in part.stdout
    whole = gridsat("check-proof", str(folder))
    assert whole.returncode == 0 and "has exactly 128 solutions in " in whole.stdout, whole.stdout


def test_a_model_is_evaluated_not_taken_from_the_solver() -> None:
    from gridsat.solvers.proof.clausal import from_lists
    from gridsat.solvers.proof.models import first_non_model, satisfies

    formula = [[1, 2], [-1, 3]]
    assert satisfies(from_lists(formula), [1, -2, 3]) and not satisfies(from_lists(formula), [1, -2, -3])
    assert first_non_model(formula, [[-1, -3], [1, -2]]) is None  # {1, 3} and {-1, 2} are models
    assert first_non_model(formula, [[-1, -3], [-1, 3]]) == 2  # {1, -3} breaks the second clause
    assert first_non_model(formula, [[1, 2]]) == 1  # {-1, -2} breaks the first


def test_keep_cover_writes_the_split_runs_cover_proof_which_checks_from_its_files(tmp_path: Path) -> None:
    from gridsat import Split, api
    from gridsat.solvers.proof.clausal import read_cnf
    from gridsat.solvers.proof.lrat import check

    folder = tmp_path / "parts"
    api.count("prime-grid", "3x3", backend="sat", proof=folder, split=Split(jobs=2, probe=0, parts=4))
    assert not (folder / "cover.cnf").exists()
    done = gridsat("check-proof", "--keep-cover", str(folder))
    assert done.returncode == 0 and "has exactly 128 solutions in " in done.stdout, done.stdout
    text, proof = (folder / "cover.cnf").read_bytes(), (folder / "cover.lrat").read_bytes()
    assert check(read_cnf(text), proof).accepted  # the file holds the clauses as the proof numbers them
    lines = text.decode().splitlines()
    header, kept = lines[:2], lines[2:-1]  # the last clause (a part's cube negated) left out
    cut = "\n".join([header[0], f"p cnf {header[1].split()[2]} {len(kept)}", *kept]) + "\n"
    assert not check(read_cnf(cut.encode()), proof).accepted


def test_a_blocking_clause_of_true_variables_only_needs_propagation_to_fix_the_rest() -> None:
    from gridsat.solvers.proof.models import first_not_one

    # At most one of 1, 2, 3: once 1 is true, propagation sets 2 and 3 false, so the clause -1 rules
    # out exactly one projection (1 true, 2 and 3 false) among the formula's models.
    assert first_not_one([[-1, -2], [-1, -3], [-2, -3]], [[-1]], [1, 2, 3]) is None
    # Without the at-most-one, -1 rules out (1, 2, 3) and (1, -2, -3) alike: refused.
    assert first_not_one([[1, 2, 3]], [[-1]], [1, 2, 3]) == 1


def test_a_knights_tour_certificate_blocks_each_tour_by_its_arcs_and_a_clause_cut_short_is_refused(
        tmp_path: Path) -> None:
    folder = tmp_path / "tours"
    done = gridsat("count", "knights-tour", "5x6", "-p", "closed=true", "--backend", "sat", "--proof", str(folder))
    assert done.returncode == 0 and "certified" in done.stdout and "NOT" not in done.stdout, done.stdout
    lines = (folder / "blocking.cnf").read_text().splitlines()
    first = lines[1].split()
    assert all(int(lit) < 0 for lit in first[:-1]) and len(first) - 1 == 30  # a closed tour's 30 arcs
    lines[1] = " ".join(first[1:])  # one arc fewer: it no longer rules out a tour
    (folder / "blocking.cnf").write_text("\n".join(lines) + "\n")
    refused = gridsat("check-proof", str(folder))
    assert refused.returncode == 1 and refused.stdout.startswith("not certified: blocking clause 1:"), refused.stdout


def test_propagation_counts_the_formulas_own_units_and_a_search_finds_what_it_leaves_open() -> None:
    from gridsat.solvers.proof.models import first_non_model, first_not_one

    # 2 and 3 are false in every model (unit clauses): -1 rules out exactly one projection.
    assert first_not_one([[-2], [-3], [1, 2, 3]], [[-1]], [1, 2, 3]) is None
    # 4 and 5 stay open after 1 and 3 are set: 4 set false propagates 5 true, and that is evaluated.
    assert first_non_model([[1, 2], [-1, 3], [4, 5]], [[-1, -3]]) is None
    # 4 and 5 stay open too, but no values of them satisfy the last four clauses: neither value of 4
    # propagates without a conflict, the search finds no model either, and the assignment is refused.
    assert first_non_model([[1, 2], [4, 5], [-4, -5], [4, -5], [-4, 5]], [[-1]]) == 1


def test_models_are_asked_only_of_the_assignments_flagged() -> None:
    """``first_unjustified``'s ``models`` flags each assignment: one not flagged is not asked to be a model (a
    member known to be one), the next, flagged, is, and is refused by its own number."""
    from gridsat.solvers.proof.models import NO_MODEL, first_unjustified

    none = [[1, 2], [4, 5], [-4, -5], [4, -5], [-4, 5]]  # no values of 4 and 5 satisfy it
    assert first_unjustified(none, [[-1], [-1]], None, models=[False, False]) is None
    assert first_unjustified(none, [[-1], [-1]], None, models=[False, True]) == (NO_MODEL, 2)
    assert first_unjustified(none, [[-1], [-1]], None) == (NO_MODEL, 1)


def test_an_orbit_member_blocked_by_its_true_variables_needs_propagation_to_fix_the_rest(
        tmp_path: Path, monkeypatch) -> None:
    from gridsat import api
    from gridsat.solvers.proof import certified, orbits

    # (an encoding whose orbits are proved: SEQUENTIAL's breaking is not recognised by rule)
    outcome = api.count("prime-grid", "3x3", backend="sat", encoding=SEQUENTIAL, proof=tmp_path / "short")
    members = (tmp_path / "short" / "orbits.cnf").read_text().splitlines()[-128:]  # after the formula
    assert outcome.details["certified"] and outcome.count == 128, outcome.details
    assert all(len(line.split()) == 9 + 1 for line in members)  # a member's nine true cells, then 0
    full = orbits.unbroken_of

    def weakened(*args):  # the unbroken formula without its at-most-ones: a cell may take two values
        unbroken = full(*args)
        f = unbroken.formulation
        shown = set(f.projection)
        f.cnf.clauses = [c for c in f.cnf.clauses if not (len(c) == 2 and all(-lit in shown for lit in c))]
        return unbroken

    monkeypatch.setattr(certified, "unbroken_of", weakened)
    outcome = api.count("prime-grid", "3x3", backend="sat", certify=True)
    assert outcome.details["certified"] is False, outcome.details
    assert outcome.details["certificate_failure"].startswith("orbit member 1: it names only some")


def test_check_proof_reads_a_proof_larger_than_its_chunk_a_chunk_at_a_time(tmp_path: Path, monkeypatch) -> None:
    from gridsat import api
    from gridsat.solvers.proof import clausal

    folder = kept(tmp_path, "prime-grid", "3x3", "--solver", "cadical153")  # binary DRAT (1.9.5 writes LRAT)
    sizes = [(folder / "proof.drat").stat().st_size]  # the leaders recognised by rule: the one proof
    assert min(sizes) > 4 * 256
    parsed: list[int] = []
    whole = clausal._read_binary

    def spy(data):
        parsed.append(len(data))
        return whole(data)

    monkeypatch.setattr(clausal, "CHUNK", 256)
    monkeypatch.setattr(clausal, "_read_binary", spy)
    verdict, _ = api.check_proof(folder)
    assert verdict.certified and verdict.solutions == 128, verdict
    # each proof in pieces of one chunk and what is left of a step cut by its end; never the file at once
    assert len(parsed) >= sum(sizes) // 256 and max(parsed) < 2 * 256 <= min(sizes), parsed


def test_a_cpsat_part_split_again_blocks_what_was_counted_as_the_check_requires() -> None:
    # A CP-SAT part split again carries the solutions counted before it; they enter its cube in the CNF's
    # own blocking form, which the check requires (a run split again under load was refused before).
    from types import SimpleNamespace

    from pysat.solvers import Solver

    from gridsat.models import get_puzzle
    from gridsat.models.encoding import resolve_for
    from gridsat.solvers.proof.certificate import cube_blocked_problem
    from gridsat.solvers.proof.claim import Certify
    from gridsat.solvers.proof.replay import CpsatReplay

    puzzle = get_puzzle("knights-tour")
    instance = puzzle.parse("5x5", {"start": "0,0"})
    source = puzzle.cpsat(instance, resolve_for(puzzle, "cpsat", None))
    replay = CpsatReplay.start(Certify("5x5", (("start", "0,0"),)), puzzle, instance, source, "default",
                               resolve_for(puzzle, "cnf", None, exact=True))
    f = replay.certificate.formulation
    with Solver(name="cadical195", bootstrap_with=f.cnf.clauses) as solver:
        assert solver.solve() and f.refine is None
        values = f.values(solver.get_model())
    row = tuple(values[key] for key in f.keys)
    replay.restrict(SimpleNamespace(fixed=(), blocked=[row]), list(f.keys))
    assert replay.certificate.cube_blocked == [f.blocking_of(row)] and f.block_true_only
    assert cube_blocked_problem(replay.certificate, puzzle, instance) == ""


@pytest.mark.parametrize(("name", "text", "params"), [("prime-grid", "3x3", {"max": "10"}),
                                                      ("knights-tour", "5x5", {"start": "0,0"})])
def test_the_replay_reads_cpsat_values_into_the_cnf_models_row(name: str, text: str, params: dict[str, str]) -> None:
    """The replay's reading (one-hot values of CP-SAT's integers, or variables of the same key) gives a CNF
    model's own projection from the CP-SAT values that model stands for; a key CP-SAT lacks is named."""
    from pysat.solvers import Solver

    from gridsat.models import get_puzzle
    from gridsat.models.encoding import resolve_for
    from gridsat.solvers.proof.replay import reading

    puzzle = get_puzzle(name)
    instance = puzzle.parse(text, params)
    f = puzzle.cnf(instance, resolve_for(puzzle, "cnf", None, exact=True))
    keys = list(puzzle.cpsat(instance, resolve_for(puzzle, "cpsat", None)).primary)
    plan = reading(f, keys)
    assert not isinstance(plan, str) and plan.keys == f.keys
    with Solver(name="cadical195", bootstrap_with=f.cnf.clauses) as solver:
        rows = []
        while len(rows) < 5 and solver.solve():
            values = f.values(solver.get_model())
            rows.append([values[key] for key in f.keys])
            solver.add_clause(f.blocking_of(rows[-1]))
    for row in rows:
        true = [key for key, value in zip(f.keys, row, strict=True) if value]
        # CP-SAT's values: an integer per key where the CNF is one-hot (its true variable's last part), else 0/1
        cpsat = {key: next((k[-1] for k in true if k[1:-1] == key), None) if key not in f.keys else int(key in true)
                 for key in keys}
        assert plan.read([cpsat[key] for key in keys]) == row
    missing = reading(f, keys[1:])
    assert isinstance(missing, str) and missing.startswith("the CNF variable ") and "stands for no CP-SAT" in missing


def test_under_proved_orbits_the_orbits_proof_alone_certifies_and_a_missing_orbit_is_refused(tmp_path: Path) -> None:
    """With the orbits proved, orbits.lrat proves the count by itself (every solution of the formula without
    the breaking is a member, each member a verified solution, no two the same): the certificate holds no
    proof.lrat. An orbit left out of the files is refused all the same (left out by the run: test_certify).
    (SEQUENTIAL: the breaking's leaders are not recognised by rule, so the orbits are proved.)"""
    folder = kept(tmp_path, "prime-grid", "3x3", "--encoding", SEQUENTIAL)
    assert sorted(p.name for p in folder.iterdir()) == ["blocking.cnf", "cuts.cnf", "formula.cnf", "orbits.cnf",
                                                        "orbits.lrat"]
    check_a_leader_left_out_and_a_missing_proof_are_refused(folder, "orbits.lrat")


def check_a_leader_left_out_and_a_missing_proof_are_refused(folder: Path, proof: str) -> None:
    """The kept certificate checks; with its second leader (and so that leader's orbit) left out of
    blocking.cnf, ``proof`` no longer refutes it; with ``proof`` removed, it is missing."""
    checked = gridsat("check-proof", str(folder)).stdout
    assert "has exactly 128 solutions (" in checked and "tours" not in checked, checked  # prime-grid names no kind
    lines = (folder / "blocking.cnf").read_text().splitlines()
    (folder / "blocking.cnf").write_text("\n".join(lines[:2] + lines[4:]) + "\n")  # the second leader gone
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 1 and done.stdout.startswith(f"not certified: {proof}: "), done.stdout
    (folder / proof).unlink()
    (folder / "blocking.cnf").write_text("\n".join(lines) + "\n")
    done = gridsat("check-proof", str(folder))
    assert done.returncode == 1 and done.stdout == f"not certified: {proof} is missing\n", done.stdout


def test_cut_and_cube_clauses_are_evaluated_on_the_model_and_searched_with_where_it_fails_one() -> None:
    from gridsat.solvers.proof.models import NO_MODEL, first_unjustified

    # Propagation on [1, 2] from 1 leaves 2 and 3 open, set false: a model of the formula, not of the extra
    # clause 3; the search with every clause finds 3 true, a model of both.
    assert first_unjustified([[1, 2], [-3, 1]], [[-1]], None, extra=[[3]]) is None
    # An extra clause the second assignment breaks (it sets 1): no model, named; the first (2 true) is one.
    assert first_unjustified([[1, 2], [-3, 1]], [[-2], [-1]], None, extra=[[-1]]) == (NO_MODEL, 2)


def test_formula_cnf_is_compared_with_the_built_encoding_clause_by_clause_as_sets() -> None:
    from gridsat.solvers.proof.certificate import _difference
    from gridsat.solvers.proof.clausal import from_lists

    written = from_lists([[1, 2, 2], [-3, 1], [4], [5, 6]])  # the last clause: the cube's
    assert _difference(written, 3, [[2, 1], [1, -3], [4]]) == ""  # order and repeats within a clause aside
    assert _difference(written, 3, [[2, 1], [1, 3], [4]]) == "formula.cnf clause 2 is not clause 2 of the " \
                                                             "puzzle's encoding"
    assert _difference(written, 3, [[2, 1], [1, -3], [4, 5]]).startswith("formula.cnf clause 3 is not")
    assert _difference(written, 3, [[2, 1], [1, -3]]) == "formula.cnf has 3 clauses before its cube, the " \
                                                         "puzzle's encoding 2"


def test_an_orbit_the_run_counts_short_is_refused_against_its_members_on_the_variables(monkeypatch) -> None:
    """The run counts each leader as its images; the judge computes the same orbit on the variables of the
    formula without the breaking (arrays, ``orbits.member_rows``): an image left out is one solution too
    few, refused."""
    from gridsat import api
    from gridsat.models.prime_grid import symmetry

    whole = symmetry.orbit
    monkeypatch.setattr(symmetry, "orbit", lambda grid, filling: whole(grid, filling)[:-1])
    outcome = api.count("prime-grid", "3x3", backend="sat", certify=True)
    assert outcome.count == 112 and outcome.details["certified"] is False, outcome.details
    assert outcome.details["certificate_failure"] == \
        "blocked assignment 1: its orbit on the variables (8 assignments) is not its orbit of 7 solutions"


def test_a_group_element_that_maps_keys_wrong_is_refused(monkeypatch) -> None:
    """An element whose action on keys is not its action on solutions (here the identity's, for a quarter
    turn) makes an orbit on the variables smaller than the orbit counted: refused."""
    from dataclasses import replace

    from gridsat import api
    from gridsat.models.prime_grid import symmetry

    group = symmetry.group

    def wrong(grid):
        found = group(grid)
        broken = replace(found.elements[-1], key=lambda k: k)
        return replace(found, elements=(*found.elements[:-1], broken))

    monkeypatch.setitem(api.get_puzzle("prime-grid").symmetry.groups, "symmetry", wrong)
    outcome = api.count("prime-grid", "3x3", backend="sat", certify=True)
    assert outcome.details["certified"] is False, outcome.details
    assert outcome.details["certificate_failure"].startswith("blocked assignment 1: its orbit on the variables (7 "), \
        outcome.details


def test_orbits_on_the_variables_that_meet_are_refused() -> None:
    """Each orbit the size the run counted, yet one assignment in two orbits: fewer assignments than the count."""
    import numpy as np

    from gridsat.solvers.proof.orbits import orbits_failure

    members = np.array([[1, 4], [2, 5], [2, 5], [3, 6]])  # orbits {14, 25} and {25, 36}
    assert orbits_failure([2, 2], np.array([2, 2]), members) == "two orbits on the variables share an assignment"
    assert orbits_failure([2, 2], np.array([2, 2]), members[[0, 1, 3, 3]] + [[0, 0], [0, 0], [0, 0], [1, 1]]) == ""
    assert orbits_failure([2, 3], np.array([2, 2]), members).startswith("blocked assignment 2: its orbit on the")


def test_members_are_checked_one_by_one_where_the_group_is_no_automorphism_of_the_formula(monkeypatch) -> None:
    """Where every element maps the formula without the breaking onto itself, only each orbit's first member
    is checked to be a model (the others are automorphisms' images of it). A clause that rules out one
    rotated member breaks that symmetry: the members are then checked one by one, and that one is refused
    (were it taken as a model, the count would be 128 where the formula has 127)."""
    from gridsat import api
    from gridsat.models import get_puzzle
    from gridsat.models.breaking import unbroken_encoding
    from gridsat.solvers.proof import certified, orbits
    from gridsat.solvers.proof.automorphism import automorphic

    puzzle = get_puzzle("prime-grid")
    instance = puzzle.parse("3x3", {})
    group = puzzle.symmetry.groups["symmetry"](instance)
    full = puzzle.cnf(instance, unbroken_encoding(puzzle.cnf_encodings.resolve(None), group))
    assert automorphic(full, group)
    index = dict(zip(full.keys, full.projection, strict=True))
    rotated = [[7, 4, 1], [10, 3, 2], [9, 8, 5]]  # a quarter turn of the first leader, [[1,2,5],[4,3,8],[7,10,9]]
    member = [-index["x", r, c, rotated[r][c]] for r in range(3) for c in range(3)]
    full.cnf.clauses.append(member)
    assert not automorphic(full, group)
    whole = orbits.unbroken_of

    def excluding(*args):
        unbroken = whole(*args)
        unbroken.formulation.cnf.clauses.append(member)
        return unbroken

    monkeypatch.setattr(certified, "unbroken_of", excluding)
    outcome = api.count("prime-grid", "3x3", backend="sat", certify=True)
    assert outcome.details["certified"] is False, outcome.details
    failure = outcome.details["certificate_failure"]
    assert failure.startswith("orbit member ") and not failure.startswith("orbit member 1:"), failure


def test_leaders_recognised_by_rule_let_the_proof_with_the_breaking_certify_and_a_missing_leader_is_refused(
        tmp_path: Path) -> None:
    """prime-grid's default breaking (leader inequalities on one-hot values, pairwise at-most-ones) is recognised
    clause by clause as keeping every orbit's lexicographic leader (``solvers.proof.leaders``): proof.lrat, over
    the formula with the breaking, proves the count with the orbits checked, and no orbits proof is made. A
    leader left out of the files is refused by that proof."""
    folder = kept(tmp_path, "prime-grid", "3x3")
    assert sorted(p.name for p in folder.iterdir()) == ["blocking.cnf", "cuts.cnf", "formula.cnf", "proof.cnf",
                                                        "proof.lrat"]
    check_a_leader_left_out_and_a_missing_proof_are_refused(folder, "proof.lrat")


def test_under_the_rule_a_blocked_leader_is_not_asked_again_to_be_a_model_but_its_propagation_is(monkeypatch) -> None:
    """Under leaders recognised by rule, every clause of the formula without the breaking is one of the formula
    with it, so a member that is a blocked leader (a model of the latter, checked) is a model of the former:
    only the propagation that fixes its projection is checked again, on the formula without the breaking.
    A clause the first member breaks is still refused by it (a conflict), and with the formula's at-most-ones
    taken out, that propagation fixes too little and the first member is refused again."""
    from gridsat import api
    from gridsat.solvers.proof import certified
    from gridsat.solvers.proof.certificate import members_failure, orbit_count

    kept_run: list[certified.Recorder] = []
    finish = certified.Recorder.finish

    def keeping(self: certified.Recorder, *args: object) -> object:
        kept_run.append(self)
        return finish(self, *args)

    monkeypatch.setattr(certified.Recorder, "finish", keeping)
    assert api.count("prime-grid", "3x3", backend="sat", certify=True).details["certified"] is True
    run = kept_run[0]
    certificate, unbroken = run.certificate, run.certificate.unbroken
    assert certificate.keeps_leaders and unbroken.acts_by_automorphisms()
    counted = orbit_count(certificate, run.puzzle, run.instance)
    blocked = {tuple(sorted(c)) for c, _ in certificate.blocking}
    first = counted.chosen([0])[0]
    assert tuple(sorted(first)) in blocked and members_failure(unbroken, counted, blocked) == ""
    clauses = unbroken.formulation.cnf.clauses
    broken = [-first[0], -first[1]]  # false in the first member's assignment (both its literals' cells true)
    clauses.append([-lit for lit in broken])
    assert members_failure(unbroken, counted, blocked).startswith("orbit member 1: it names only some")
    clauses.pop()
    assert members_failure(unbroken, counted, blocked) == ""
    shown = set(unbroken.formulation.projection)
    clauses[:] = [c for c in clauses if not (len(c) == 2 and all(-lit in shown for lit in c))]
    assert members_failure(unbroken, counted, blocked).startswith("orbit member 1: it names only some")


def test_a_breaking_that_loses_orbits_is_not_recognised_and_its_run_is_refused(monkeypatch) -> None:
    """A leader inequality no element of the group gives (x[0,0] < x[1,1]) keeps no member of some orbits: the
    rule refuses it (point 2 of ``solvers.proof.leaders``), the orbits proof is tried instead and finds a
    solution in no orbit. Were the rule to accept it, the proof with the breaking would certify too few."""
    from gridsat import api
    from gridsat.models import get_puzzle
    from gridsat.models.encoding import resolve_for
    from gridsat.models.prime_grid import symmetry
    from gridsat.solvers.proof import leaders
    from gridsat.solvers.proof.orbits import unbroken_of

    full = symmetry.leader_orders
    monkeypatch.setattr(symmetry, "leader_orders", lambda grid: [*full(grid), ((0, 0), (1, 1))])
    puzzle = get_puzzle("prime-grid")
    instance = puzzle.parse("3x3", {})
    encoding = resolve_for(puzzle, "cnf", None)
    f = puzzle.cnf(instance, encoding)
    unbroken = unbroken_of(puzzle, instance, f, encoding)
    assert unbroken is not None and unbroken.acts_by_automorphisms()
    assert leaders.failure(f, unbroken.formulation, unbroken.group, True).startswith("a clause of the breaking, ")
    outcome = api.count("prime-grid", "3x3", backend="sat", certify=True)
    assert outcome.count < 128 and outcome.details["certified"] is False, outcome.details
    assert "in no orbit of the solutions blocked" in outcome.details["certificate_failure"], outcome.details


def test_the_rule_wants_the_values_defined_and_distinct_and_the_group_an_automorphism() -> None:
    """Points 1, 3 and 4 of ``solvers.proof.leaders``: each planted gap is named, and the formula as built passes."""
    from gridsat.models import get_puzzle
    from gridsat.models.encoding import resolve_for
    from gridsat.solvers.proof import leaders
    from gridsat.solvers.proof.orbits import unbroken_of

    puzzle = get_puzzle("prime-grid")
    instance = puzzle.parse("3x3", {})
    encoding = resolve_for(puzzle, "cnf", None)
    f = puzzle.cnf(instance, encoding)
    unbroken = unbroken_of(puzzle, instance, f, encoding)
    full, group = unbroken.formulation, unbroken.group
    assert leaders.failure(f, full, group, True) == ""
    assert leaders.failure(f, full, group, False) == \
        "the group does not map the formula without the breaking onto itself"
    index = dict(zip(full.keys, full.projection, strict=True))
    same_value = sorted([-index["x", 0, 0, 1], -index["x", 2, 2, 1]])
    one_value = sorted([-index["x", 0, 0, 1], -index["x", 0, 0, 2]])
    clauses = full.cnf.clauses
    for gap, named in ((same_value, "does not forbid cells (0, 0) and (2, 2) one value"),
                       (one_value, "does not give cell (0, 0) exactly one value")):
        full.cnf.clauses = [c for c in clauses if sorted(c) != gap]
        f_clauses, f.cnf.clauses = f.cnf.clauses, [c for c in f.cnf.clauses if sorted(c) != gap]
        assert named in leaders.failure(f, full, group, True)
        f.cnf.clauses = f_clauses
    full.cnf.clauses = [*clauses, [index["x", 1, 1, 5]]]  # a clause the formula with the breaking does not hold
    assert leaders.failure(f, full, group, True).startswith("a clause of the formula without the breaking is missing")


def test_the_rule_wants_a_group_that_moves_cells_and_keeps_values() -> None:
    """The lex-leader argument compares an orbit's least member with each element's image of it, cells moved
    whole and values kept: seven of the eight motions (no group), or an element that changes a value, are
    refused (``leaders.leader_pairs``)."""
    from dataclasses import replace

    from gridsat.models import get_puzzle
    from gridsat.models.symmetry import Element
    from gridsat.solvers.proof import leaders

    puzzle = get_puzzle("prime-grid")
    instance = puzzle.parse("3x3", {})
    group = puzzle.symmetry.groups["symmetry"](instance)
    keys = puzzle.cnf(instance, puzzle.cnf_encodings.resolve(None)).keys
    assert len(group.elements) == 8 and isinstance(leaders.leader_pairs(group, keys), set)
    assert leaders.leader_pairs(replace(group, elements=group.elements[:-1]), keys) == \
        "the elements are not closed under composition (not a group)"
    turn = group.elements[1]
    swapped = Element(turn.name, turn.solution, lambda k: (*turn.key(k)[:-1], 11 - k[-1]))  # values 1..10 reversed
    assert leaders.leader_pairs(replace(group, elements=(group.elements[0], swapped)), keys) == \
        f"{turn.name} does not map each cell's value to a value of a cell"


@pytest.mark.parametrize(("encoding", "proofs"), [(None, ["the cover proof"]),
                                                  (SEQUENTIAL, ["the cover proof", "the orbits proof"])])
def test_a_split_run_proves_its_orbits_again_only_where_the_leaders_are_not_recognised(
        tmp_path: Path, monkeypatch, encoding: str | None, proofs: list[str]) -> None:
    """As a whole, a split run's parts and cover say every leader is blocked or counted: where the breaking is
    recognised as keeping every orbit's leader that makes the count exact, and the orbits are not refuted
    again (``whole.orbits``); elsewhere they are."""
    from gridsat import Split, api
    from gridsat.solvers.proof import whole

    made, refute_now = [], whole.refute_now

    def spy(clauses, f, satisfiable, name, keep=None):
        made.append(name)
        return refute_now(clauses, f, satisfiable, name, keep)

    folder = tmp_path / "parts"
    api.count("prime-grid", "3x3", backend="sat", encoding=encoding, proof=folder,
              split=Split(jobs=2, probe=0, parts=4))
    monkeypatch.setattr(whole, "refute_now", spy)
    verdict, _ = api.check_proof(folder)
    assert verdict.certified and verdict.solutions == 128 and not verdict.assumed, verdict
    assert made == proofs
