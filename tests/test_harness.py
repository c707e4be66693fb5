"""The runner and the cross-check harness catch wrong backends: a count that is off must fail."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from conftest import LISTING, execute, patience
from gridsat import status
from gridsat.cli import describe_count, report_problems
from gridsat.models import get_puzzle
from gridsat.models.encoding import Axis, EncodingSpace
from gridsat.models.errors import BackendUnavailable, GridsatError, UnknownEncoding, UnknownName
from gridsat.models.solution import digest
from gridsat.solvers.backend import BACKENDS, Request, get_backend
from gridsat.solvers.backends.reference import ReferenceBackend
from gridsat.solvers.checks.crosscheck import Runs, compare, configurations, crosscheck
from gridsat.solvers.stop import Stop

TATAMI = get_puzzle("tatami")


@dataclass
class EditedJob:
    """The reference job with its stream edited by ``change``."""

    inner: Any
    change: str
    label: str = "edited"
    exhaustive: bool = True

    def size(self) -> dict[str, int]:
        return {}

    def solutions(self, stop: Stop) -> Iterator[Any]:
        solutions = list(self.inner.solutions(stop))
        if self.change == "drop":
            solutions = solutions[1:]
        elif self.change == "repeat":
            solutions = solutions + solutions[:1]
        elif self.change == "break":
            solutions = [solutions[0][1:]] + solutions[1:]
        yield from solutions


def fake(change: str, registered: str) -> type:
    class Fake(ReferenceBackend):
        name = registered  # a backend's name is its registry entry's

        def prepare(self, puzzle, instance, request):
            return EditedJob(super().prepare(puzzle, instance, request), change)

    return Fake


WrongCount, Repeating, Breaking = fake("drop", "wrongcount"), fake("repeat", "repeating"), fake("break", "breaking")


def runs(*names: str) -> list:
    """The cross-check runs of the backends ``names`` on tatami, gated."""
    return [Runs().named(name, TATAMI) for name in names]


@pytest.fixture
def fakes(monkeypatch):
    for name in ("WrongCount", "Repeating", "Breaking"):
        monkeypatch.setitem(BACKENDS, name.lower(), f"{__name__}:{name}")


def test_a_backend_with_a_wrong_count_makes_the_crosscheck_fail(fakes):
    room = TATAMI.parse("3x4", {})
    report = crosscheck(TATAMI, room, runs("cpsat", "sat", "wrongcount"))
    assert not report.agree
    assert any("counts 3" in p and "counts 4" in p for p in report.problems), report.problems


def test_a_repeated_solution_is_counted_once_and_fails_the_crosscheck(fakes):
    outcome = execute(TATAMI, TATAMI.parse("3x4", {}), "repeating")
    assert (outcome.count, outcome.duplicates) == (4, 1)
    report = crosscheck(TATAMI, TATAMI.parse("3x4", {}), runs("cpsat", "repeating"))
    assert not report.agree
    assert report.problems == ["repeating:edited returned 1 solution more than once: a projection that is not "
                               "one-to-one, or symmetry breaking too weak"]


def test_a_repeated_solution_fails_count_in_words_and_status(fakes, capsys):
    """A repeat is a bug, never dropped quietly: ``count`` says so on both streams and exits 1."""
    outcome = execute(TATAMI, TATAMI.parse("3x4", {}), "repeating")
    assert describe_count(TATAMI, outcome, with_verdict=False) == "4 (1 REPEATED solution not counted)"
    report_problems(outcome)
    assert capsys.readouterr().err.startswith("gridsat: REPEATED solutions from repeating:edited: 1 returned again")
    assert status.of_run(outcome) == status.FAILED
    assert status.of_run(execute(TATAMI, TATAMI.parse("3x4", {}), "reference")) == status.OK


def test_a_solution_that_breaks_the_rules_fails_verification(fakes):
    report = crosscheck(TATAMI, TATAMI.parse("3x4", {}), runs("cpsat", "breaking"))
    assert not report.agree
    assert any("break the rules" in p and "uncovered" in p for p in report.problems)


def test_limits_give_a_partial_answer_marked_incomplete():
    big = TATAMI.parse("30x30", {})
    timed = execute(TATAMI, big, "reference", time_limit=0.3)
    assert (timed.complete, timed.reason) == (False, "time limit")
    assert timed.seconds < patience(5, margin=1)
    limited = execute(TATAMI, TATAMI.parse("3x4", {}), "sat", limit=2, keep=True)
    assert (limited.count, limited.complete, limited.reason) == (2, False, "solution limit")
    exact = execute(TATAMI, TATAMI.parse("3x4", {}), "cpsat", limit=5)
    assert (exact.count, exact.complete) == (4, True)


def test_a_cpsat_run_halted_by_its_time_limit_says_time_limit():
    # CP-SAT's clock can run out a little before the run's own deadline; a run split into parts
    # takes any other reason as final (it then stops with the probe's partial count).
    prime = get_puzzle("prime-grid")
    grid = prime.parse("3x3", {})
    reasons = {execute(prime, grid, "cpsat", time_limit=0.01).reason for _ in range(40)}
    assert reasons <= {None, "time limit"}


def test_digests_tell_solutions_apart_and_equal_ones_alike():
    # The duplicate checks keep digests: equal solutions must give equal digests however they were
    # built (shared objects, strings made at run time, dicts filled in another order).
    square = [0, 0]
    tour = [[0, 0], [1, 2], [0, 0]]
    assert digest(tour) == digest([square, [1, 2], square]) == digest([list(s) for s in tour])
    made = "".join(["ma", "t"])
    assert digest({"mat": [1], "b": 2}) == digest({"b": 2, made: [1]})
    assert len({digest(s) for s in ([[0, 0], [1, 2]], [[0, 0], [2, 1]], [[1]], [1], [[1, 2]], [[12]], [])}) == 7


def test_incomplete_runs_are_checked_as_subsets():
    room = TATAMI.parse("4x10", {})
    whole = execute(TATAMI, room, "cpsat", keep=True)
    partial = execute(TATAMI, room, "sat", limit=2, keep=True)
    assert not partial.complete and compare([whole, partial]) == []
    partial.solutions.append([[[0, 0], [0, 1]]])
    assert compare([partial, whole]) == [
        "sat:mats+pairwise+nosymmetry/cadical195 (incomplete) found 1 solutions that "
        "cpsat:mats+nosymmetry does not have"]


def test_configurations_cover_each_encoding_once():
    labels = [(c.backend.name, c.request.encoding) for c in configurations(TATAMI, LISTING, scope="each")]
    assert labels[0] == ("cpsat", "mats+nosymmetry") and ("cpsat", "mats+symmetry") in labels
    assert ("sat", "mats+sortnetwrk+nosymmetry") in labels and labels[-1] == ("reference", None)
    assert len(configurations(TATAMI, LISTING)) == 3
    # Named none, a cross-check runs the counting backends too, those that can count the puzzle, and the
    # plain backtracking search last (fastest first, tests/test_crosscheck_runs.py).
    assert [c.backend.name for c in configurations(TATAMI)][:3] == ["cpsat", "sat", "frontier"]
    assert [c.backend.name for c in configurations(TATAMI)][-1] == "reference"
    assert "frontier" not in {c.backend.name for c in configurations(get_puzzle("prime-grid"))}


def test_options_that_a_backend_would_ignore_are_refused():
    with pytest.raises(GridsatError, match="solver='glucose4' does not apply to backend 'cpsat'"):
        execute(TATAMI, TATAMI.parse("3x4", {}), "cpsat", Request(solver="glucose4"))
    with pytest.raises(UnknownName, match="unknown algorithm 'dfs'"):
        execute(TATAMI, TATAMI.parse("3x4", {}), "reference", Request(algorithm="dfs"))


def test_unknown_backend_and_missing_package(monkeypatch):
    with pytest.raises(UnknownName, match="valid: cpsat, sat, reference, frontier, d4, ganak"):
        get_backend("gurobi")
    monkeypatch.setattr(ReferenceBackend, "supported", lambda self: False)
    with pytest.raises(BackendUnavailable, match="not installed"):
        get_backend("reference")


def test_encoding_space_resolves_names_on_their_axes():
    space = EncodingSpace((Axis("rule", ("conflict", "support")), Axis("card", ("pairwise", "ladder"))))
    assert space.resolve(None).name == "conflict+pairwise"
    assert space.resolve("ladder").name == "conflict+ladder"
    assert space.resolve("ladder+support")["rule"] == "support"
    assert [e.name for e in space.variants()] == ["conflict+pairwise", "support+pairwise", "conflict+ladder"]
    assert len(list(space.all())) == 4
    with pytest.raises(UnknownEncoding, match="unknown encoding 'bogus'; valid: conflict, support, pairwise"):
        space.resolve("bogus")
    with pytest.raises(UnknownEncoding, match="conflict and support are both rule"):
        space.resolve("conflict+support")
    assert EncodingSpace().resolve("default").name == "default"
    exacting = EncodingSpace((Axis("sym", ("on", "off"), exact="off"), Axis("card", ("pairwise", "ladder"))))
    assert exacting.resolve(None).name == "on+pairwise"
    assert exacting.resolve(None, exact=True).name == "off+pairwise"  # what export takes unless told
    assert exacting.resolve("on+ladder", exact=True).name == "on+ladder"
