"""How results show themselves: a short ``repr``, and in a notebook HTML with a table of runs and an SVG."""

from __future__ import annotations

import pickle
import pydoc
import re

import pytest

import gridsat as gs
from gridsat.solvers.reprs import REPR_LIMIT


def shown(result: object) -> str:
    """The result's ``repr``, checked short (a notebook cell once printed a megabyte)."""
    text = repr(result)
    assert len(text) <= REPR_LIMIT == 500, text[:200]
    return text


def test_every_result_of_a_small_run_has_a_short_repr() -> None:
    solved = gs.solve("tatami", "4x7")
    assert shown(solved).startswith("Outcome(puzzle='tatami', instance='4x7'") and "count=1" in repr(solved)
    counted = gs.count("tatami", "4x7", up_to="symmetry")
    assert shown(counted).startswith("OrbitOutcome(") and "up_to='symmetry'" in repr(counted)
    with gs.enumerate("knights-tour", "3x10", backend="sat") as run:
        first = next(run)
        assert "the run is open" in shown(run) and len(repr(first)) > 100  # a tour's own repr is long
    assert "closed by the caller" in shown(run)
    with gs.enumerate("tatami", "4x7", up_to="symmetry") as orbits:
        orbit = next(orbits)
        assert shown(orbit).startswith("Orbit(size=") and shown(orbits).startswith("Orbits(")
    report = gs.crosscheck("tatami", "4x7", backends=["cpsat", "sat"], up_to="symmetry")
    assert shown(report).startswith("OrbitReport(") and "agree=True" in repr(report)


def test_a_mutation_report_has_a_short_repr_and_a_table_per_encoding() -> None:
    mutation = gs.mutate("tatami", mutants=2, time_limit=5)
    rows = re.findall(r"<tr><td>([a-z+]+)</td><td>(\d+)</td>", mutation._repr_html_())
    assert rows and sum(int(n) for _, n in rows) == 2  # a row per encoding the seeded sample picked
    assert shown(mutation).startswith("MutationReport(puzzle='tatami'") and "mutants=2" in repr(mutation)


def test_a_crosscheck_of_every_knights_tour_on_5x5_has_a_short_repr() -> None:
    report = gs.crosscheck("knights-tour", "5x5", backends=["cpsat", "sat"])  # 3 s; its repr was 1 MB
    assert report.agree and sum(len(o.solutions) for o in report.outcomes) == 2 * 1728
    assert "'cpsat:circuit+nosymmetry: 1728'" in shown(report) and all(shown(o) for o in report.outcomes)
    assert report._repr_html_().count("<svg") == 1  # one sheet: the first tours of one run


def test_a_solved_outcome_draws_its_solution_under_a_table_of_its_run() -> None:
    page = gs.solve("tatami", "4x7")._repr_html_()
    assert page.startswith("<div>") and page.count("<svg") == 1 and "tatami 4x7 · cpsat:mats+nosymmetry" in page
    assert "<th>backend</th><th>encoding</th><th>count</th><th>complete</th><th>seconds</th>" in page
    assert "<td>cpsat</td><td>mats+nosymmetry</td><td>1</td><td>yes</td>" in page


def test_a_count_without_solutions_shows_its_table_and_no_picture() -> None:
    page = gs.count("tatami", "4x7")._repr_html_()
    assert "<td>3</td><td>yes</td>" in page and "<svg" not in page


def test_a_crosscheck_shows_a_row_per_run_and_the_solutions_it_compared() -> None:
    report = gs.crosscheck("tatami", "4x7", backends=["cpsat", "sat", "reference"])
    page = report._repr_html_()
    assert page.count("<tr><td>") == 3 and page.count("<td>3</td><td>yes</td>") == 3 and "3 runs agree" in page
    assert page.count("<svg") == 1 and "3 solutions (complete)" in page  # a sheet of the three


def test_an_enumeration_shows_what_it_saw_so_far_and_then_its_solutions() -> None:
    run = gs.enumerate("tatami", "4x7")
    assert "so far: the run is open" in run._repr_html_() and "<svg" not in run._repr_html_()
    assert len(list(run)) == 3 and "(complete)" in run._repr_html_()
    assert "3 solutions (complete)" in run._repr_html_() and run.outcome.solutions is None  # drawn, not kept
    with gs.enumerate("prime-grid", "3x3", params={"max": 10}) as partial:
        assert len([next(partial) for _ in range(15)]) == 15
        assert "12 solutions (the first 12 of 15 so far)" in partial._repr_html_()
    kept = gs.enumerate("tatami", "4x7", split=gs.Split(jobs=1, parts=2))
    list(kept)
    assert type(kept).__name__ == "SplitRun" and kept.outcome.count == 3 and kept.outcome.board is not None


def test_a_long_run_draws_only_its_first_solutions() -> None:
    report = gs.crosscheck("prime-grid", "3x3", params={"max": 10}, backends=["sat"])
    assert report.outcomes[0].count == 128
    assert "12 solutions (the first 12 of 128)" in report._repr_html_()


def test_a_pickled_outcome_leaves_its_board_behind() -> None:
    outcome = gs.solve("tatami", "4x7")
    back = pickle.loads(pickle.dumps(outcome))  # as a worker process's outcome crosses back
    assert outcome.board is not None and back.board is None and back == outcome
    assert "<svg" not in back._repr_html_() and "<td>1</td>" in back._repr_html_()


def test_ipython_formats_results_as_html() -> None:
    formatters = pytest.importorskip("IPython.core.formatters", reason="IPython is not installed")
    data, _ = formatters.DisplayFormatter().format(gs.solve("tatami", "4x7"))
    assert data["text/plain"].startswith("Outcome(") and "<svg" in data["text/html"]


def test_help_shows_the_fields_and_not_the_merge_machinery() -> None:
    page = pydoc.render_doc(gs.Outcome, renderer=pydoc.plaintext)
    assert "summary(self)" in page and "solution" in page and "complete = True" in page
    hidden = ("merge_record", "check_parts", "deliver", "emptied", "solution_of", "merge(", "record(")
    assert [name for name in hidden if name in page] == []
    assert len(page.splitlines()) <= 84  # 97 lines before the machinery was underscored; 82 with solve_cpu_seconds
