"""A cross-check a user can watch: runs fastest first, a time budget per run, a progress line, aligned results."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

import gridsat.api as gs
from conftest import gridsat
from gridsat import status
from gridsat.models import get_puzzle
from gridsat.runline import LABEL_WIDTH, RunLine, describe_turn, fit, result_row
from gridsat.solvers.backend import BACKENDS, Request, backend_class
from gridsat.solvers.backends.reference import ReferenceBackend
from gridsat.solvers.checks.crosscheck import RUN_BUDGET, Runs, Turn, budget, configurations, fastest_first
from gridsat.solvers.run import Outcome
from gridsat.solvers.stop import Stop

TATAMI = get_puzzle("tatami")


@dataclass
class Waiting:
    """The reference search, which then waits (``wait``) until its run is stopped; records its budget."""

    inner: Any
    wait: bool
    budgets: list[float | None] = field(default_factory=list)
    label: str = "waiting"
    exhaustive: bool = True

    def size(self) -> dict[str, int]:
        return {}

    def solutions(self, stop: Stop) -> Iterator[Any]:
        self.budgets.append(None if stop.deadline is None else stop.deadline - stop.started)
        yield from self.inner.solutions(stop)
        while self.wait and not stop.expired():
            time.sleep(0.01)


BUDGETS: list[float | None] = []


class Slow(ReferenceBackend):
    name = "slow"

    def prepare(self, puzzle, instance, request):
        return Waiting(super().prepare(puzzle, instance, request), wait=True, budgets=BUDGETS)


class Quick(ReferenceBackend):
    name = "quick"

    def prepare(self, puzzle, instance, request):
        return Waiting(super().prepare(puzzle, instance, request), wait=False, budgets=BUDGETS)


@pytest.fixture
def fakes(monkeypatch):
    BUDGETS.clear()
    monkeypatch.setitem(BACKENDS, "slow", f"{__name__}:Slow")
    monkeypatch.setitem(BACKENDS, "quick", f"{__name__}:Quick")


# Order


def test_unnamed_backends_run_the_plain_backtracking_search_last():
    names = [c.backend.name for c in configurations(TATAMI)]
    assert "reference" in names and names[-1] == "reference" and names.count("reference") == 1
    assert names[0] == "cpsat"  # the others keep the registry's order


def test_every_reference_algorithm_runs_after_every_solver_and_counter():
    names = [c.backend.name for c in configurations(TATAMI, scope="each")]
    first = names.index("reference")
    assert first > 0 and set(names[first:]) == {"reference"}


def test_named_backends_run_in_the_order_given():
    named = configurations(TATAMI, ["reference", "sat", "cpsat"])
    assert [c.backend.name for c in named] == ["reference", "sat", "cpsat"]


def test_the_order_is_asked_of_the_backend_not_its_name(monkeypatch):
    monkeypatch.setattr(backend_class("cpsat"), "cost_rank", 5)
    assert fastest_first(["cpsat", "reference", "sat"]) == ["sat", "reference", "cpsat"]


# Budget


def test_each_run_gets_the_default_budget(fakes):
    turns: list[Turn] = []
    report = gs.crosscheck("tatami", "3x4", backends=["cpsat", "quick"], on_start=turns.append)
    assert RUN_BUDGET == 60.0
    assert [(t.number, t.of, t.config.backend.name, t.time_limit) for t in turns] == [
        (1, 2, "cpsat", RUN_BUDGET), (2, 2, "quick", RUN_BUDGET)]
    assert BUDGETS == [pytest.approx(RUN_BUDGET)]  # the run's own stop got it
    assert report.agree and all(o.complete for o in report.outcomes)


def test_no_budget_when_asked_for_none(fakes):
    gs.crosscheck("tatami", "3x4", backends=["quick"], time_limit=None)
    assert BUDGETS == [None]


def test_a_run_out_of_budget_is_unfinished_and_the_finished_runs_still_agree(fakes):
    report = gs.crosscheck("tatami", "3x4", backends=["cpsat", "slow", "sat"], time_limit=0.3)
    slow = report.outcomes[1]
    assert (slow.complete, slow.reason, slow.count) == (False, "time limit", 4)
    assert [o.complete for o in report.outcomes] == [True, False, True]
    assert report.agree and report.complete and not report.problems
    assert status.of_crosscheck(report) == status.OK  # as before: unfinished runs do not fail a cross-check


def test_the_command_line_shows_the_unfinished_run_and_the_verdict(fakes):
    done = gridsat("crosscheck", "tatami", "3x4", "--backends", "cpsat,slow", "--time-limit", "0.3")
    assert done.returncode == 0, done.stderr
    assert "(incomplete: time limit)" in done.stdout
    assert "1 of 2 runs finished and agree: 4 solutions; the 1 unfinished (time limit)" in done.stdout


def test_the_default_budget_is_in_the_help():
    assert "default 60" in " ".join(gridsat("crosscheck", "--help").stdout.split())


def test_a_run_that_cannot_be_stopped_runs_to_its_end_and_says_so():
    notes: list[str] = []
    assert budget(Runs().named("sat", TATAMI), 60.0, notes) == 60.0 and not notes
    assert budget(Runs().named("sat", TATAMI, Request(solver="lingeling")), 60.0, notes) is None
    assert notes == ["sat:default/lingeling: no time limit: it cannot be stopped at one, so it ran to its end"]
    assert budget(Runs().named("sat", TATAMI, Request(solver="lingeling")), None, notes) is None and len(notes) == 1


# What the user sees


def test_the_progress_line_says_which_run_and_for_how_long():
    turn = Turn(3, 7, Runs().named("sat", TATAMI, Request(encoding="seqcounter")), 60.0)
    assert describe_turn(turn, 12.7) == "crosscheck: run 3 of 7: sat:seqcounter  0:12 elapsed (budget 1:00)"
    unlimited = Turn(1, 1, Runs().named("reference", TATAMI), None)
    expected = "crosscheck: run 1 of 1: reference:default  1:02:05 elapsed (no time limit)"
    assert describe_turn(unlimited, 3725) == expected


def test_a_long_progress_line_is_cut_to_the_terminal():
    assert fit("abcdef", 10) == "abcdef"
    assert fit("abcdefghijkl", 6) == "abcde…"


def test_the_progress_line_is_cleared_before_a_result_and_at_the_end():
    stream = io.StringIO()
    line = RunLine(stream)
    with line:
        line.start(Turn(1, 2, Runs().named("cpsat", TATAMI), 60.0))
        drawn = stream.getvalue()
        line.end()
    assert drawn.startswith("\rcrosscheck: run 1 of 2: cpsat:default  0:00 elapsed") and drawn.endswith("\033[K")
    assert stream.getvalue() == drawn + "\r\033[K"  # cleared once, nothing drawn after
    assert not line.ticker.is_alive()


def outcome(label: str, count: int, **fields: Any) -> Outcome:
    backend, _, encoding = label.partition(":")
    return Outcome("tatami", "4x7", backend, encoding, count=count, seconds=0.5, **fields)


def test_counts_stay_in_one_column_however_long_the_labels():
    long = "ganak:support+" + "x" * 80
    rows = [result_row(outcome("sat:pairwise", 3)), result_row(outcome(long, 3)),
            result_row(outcome("d4:pairwise", 0, known=False, complete=False, reason="time limit"))]
    assert rows[1].splitlines()[0] == long  # the long label whole, on its own line
    ends = [row.splitlines()[-1] for row in rows]
    assert len({line.index(" s  (") for line in ends}) == 1
    assert all(line[LABEL_WIDTH + 1:LABEL_WIDTH + 11].strip() in ("3", "-") for line in ends)
    assert ends[2].endswith("-      0.500 s  (incomplete: time limit)")  # no count known is not 0
