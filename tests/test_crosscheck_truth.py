"""Cross-checks that cannot be fooled: a repeated solution is a failure, the golden count is the truth
where one is known, runs that differ with no golden count are disputed (no majority), and a run
alone is unchecked."""

from __future__ import annotations

import pytest

import gridsat
from conftest import gridsat as run_gridsat
from gridsat.models import get_puzzle
from gridsat.models.prime_grid import formulations as prime_formulations
from gridsat.models.prime_grid.symmetry import keeps_leaders
from gridsat.models.puzzle import Case
from gridsat.solvers import route


@pytest.fixture
def weak_symmetry(monkeypatch):
    """prime-grid's symmetry breaking weakened by hand: 3 of its 7 leader inequalities kept, so each
    orbit's images are partly listed again, and the orbit size multiplies them once more."""
    monkeypatch.setattr(prime_formulations, "keeps_leaders", lambda grid, encoding: keeps_leaders(grid, encoding)[:3])


def test_weakened_symmetry_breaking_makes_the_crosscheck_disagree(weak_symmetry):
    report = gridsat.crosscheck("prime-grid", "3x3", backends=["cpsat", "sat"])
    assert report.agree is False
    repeats = [p for p in report.problems if "more than once" in p]
    assert len(repeats) == 2 and all(p.split()[2].isdigit() and int(p.split()[2]) > 0 for p in repeats), repeats
    assert {p.split()[0] for p in repeats} == {o.label for o in report.outcomes}


def test_weakened_symmetry_breaking_fails_the_command_naming_the_run_and_its_repeats(weak_symmetry):
    done = run_gridsat("crosscheck", "prime-grid", "3x3", "--backends", "cpsat,sat")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("DISAGREE:") and "more than once" in line]
    assert any("cpsat:integer+parity+symmetry returned" in line for line in lines), done.stdout
    assert done.stdout.strip().splitlines()[-1].endswith("DISAGREE; 2 checked against the golden count")


def test_the_golden_count_is_the_truth_and_its_source_is_named(monkeypatch):
    wrong = Case("4x7", {}, 4, "a planted golden count")
    monkeypatch.setattr(route, "golden_count", lambda puzzle, instance: wrong)  # the route judges by it
    report = gridsat.crosscheck("tatami", "4x7", backends=["cpsat", "sat"])
    assert not report.agree and report.tally()["checked"] == 2
    assert all("the golden count is 4 (a planted golden count)" in p for p in report.problems)


def test_runs_that_differ_with_no_golden_count_are_disputed(monkeypatch):
    # Too strong: a leader inequality per pair of cells cuts fillings the rules allow, on the symmetry
    # encodings only; 2x3 from 1..9 has no golden count, so nothing says which side is right.
    monkeypatch.setattr(prime_formulations, "keeps_leaders",
                        lambda grid, encoding: [((0, 0), (0, 1)), ((0, 1), (0, 2))] if keeps_leaders(grid, encoding)
                        else [])
    done = run_gridsat("crosscheck", "prime-grid", "2x3", "-p", "max=9", "--backends", "cpsat,reference")
    assert done.returncode == 1
    assert done.stdout.strip().splitlines()[-1].endswith("DISAGREE; 2 disputed (no golden count to settle it)")


def test_agreeing_runs_with_no_golden_count_agree_and_a_run_alone_is_unchecked():
    puzzle = get_puzzle("prime-grid")
    assert route.golden_count(puzzle, puzzle.parse("2x3", {"max": "9"})) is None
    both = gridsat.crosscheck("prime-grid", "2x3", params={"max": "9"}, backends=["cpsat", "reference"])
    assert both.agree and both.tally() == {"checked": 0, "agreed": 2, "disputed": 0, "unchecked": 0}
    alone = gridsat.crosscheck("prime-grid", "2x3", params={"max": "9"}, backends=["cpsat"])
    assert alone.agree and alone.tally() == {"checked": 0, "agreed": 0, "disputed": 0, "unchecked": 1}
    summary = alone.summary()
    assert summary["golden"] is None and summary["verdicts"]["unchecked"] == 1
    assert both.compared and not alone.compared


def test_a_run_alone_with_no_golden_count_compared_nothing_and_exits_3():
    done = run_gridsat("crosscheck", "prime-grid", "2x3", "-p", "max=9", "--backends", "cpsat")
    assert done.returncode == 3, done.stdout
    assert done.stdout.splitlines()[-1] == ("prime-grid 2x3/1..9: 1 run, 68 solutions, but nothing was compared: no "
                                            "golden count, and no other run finished; 1 unchecked")


def test_a_backend_that_takes_no_encoding_runs_when_encodings_are_named_and_one_left_out_is_named():
    done = run_gridsat("crosscheck", "tatami", "9x17", "--backends", "sat,reference", "--encodings", "seqcounter")
    assert done.returncode == 0 and "reference:rowscan" in done.stdout, done.stdout
    assert done.stdout.splitlines()[-1].endswith(
        "2 runs agree: 0 solutions; 2 checked against one another only (no golden count)"), done.stdout
    alone = run_gridsat("crosscheck", "tatami", "9x17", "--backends", "cpsat,sat", "--encodings", "seqcounter")
    assert "note: cpsat: not run: it offers none of the encodings named (seqcounter)" in alone.stdout
    assert alone.returncode == 3, alone.stdout


def test_a_golden_instance_is_checked_whatever_its_parameters_spell():
    report = gridsat.crosscheck("prime-grid", "3x3", params={"max": "10"}, backends=["cpsat"])
    assert report.golden is not None and report.golden.count == 128
    assert report.tally()["checked"] == 1 and report.summary()["golden"]["count"] == 128


def test_notes_are_said_once_however_many_runs_bring_them():
    from gridsat.solvers.checks.crosscheck import Report
    from gridsat.solvers.run import Outcome

    runs = [Outcome("tatami", "4x7", "ganak", e, count=3, details={"guarantee": "probabilistic"}) for e in "abc"]
    report = Report("tatami", "4x7", runs, skipped=["sat:x: not run: why", "sat:x: not run: why"])
    assert report.notes == ["sat:x: not run: why",
                            "ganak: probabilistic counts (exact with high probability; pyganak offers no exact mode)"]
