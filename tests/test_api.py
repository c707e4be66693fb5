"""The Python API: what ``import gridsat`` offers, its results and its errors (the README's examples run in
test_docs_examples.py)."""

from __future__ import annotations

import doctest
import re
import threading
import time
import typing

import pytest

import gridsat as gs
from conftest import gridsat, patience
from gridsat.models.knights_tour.board import Board
from gridsat.models.knights_tour.board import verify as verify_tour


def test_solve_returns_a_verified_canonical_solution() -> None:
    started = time.perf_counter()
    result = gs.solve("knights-tour", "5x5", params={"start": "0,0"}, backend="sat")
    elapsed = time.perf_counter() - started
    assert result.solution[0] == [0, 0] and verify_tour(Board(5, 5, start=(0, 0)), result.solution) == []
    # Solving took time, and building plus solving fit inside the call that did both.
    assert result.count == 1 and 0 < result.seconds and 0 < result.build_seconds
    assert result.build_seconds + result.seconds <= elapsed


def test_solve_says_when_there_is_no_solution() -> None:
    result = gs.solve("tatami", "3x5")
    assert result.solution is None and result.complete


def test_count_takes_params_as_a_dict_of_numbers_and_booleans() -> None:
    assert gs.count("prime-grid", "3x3", params={"max": 10}).count == 128
    started = time.perf_counter()
    closed = gs.count("knights-tour", "3x10", params={"closed": True}, backend="sat", time_limit=60)
    elapsed = time.perf_counter() - started
    assert (closed.count, closed.complete, closed.duplicates, closed.invalid) == (32, True, 0, [])
    # A CNF was built (build_seconds > 0) and the time limit, which counts building, was not reached.
    assert closed.size["variables"] > 0 and 0 < closed.build_seconds and 0 < closed.seconds
    assert closed.build_seconds + closed.seconds <= min(elapsed, 60)


def test_count_with_a_limit_is_incomplete() -> None:
    result = gs.count("tatami", "3x4", limit=2)
    assert (result.count, result.complete, result.reason) == (2, False, "solution limit")


def test_enumerate_yields_canonical_solutions_and_its_outcome() -> None:
    solutions = gs.enumerate("tatami", "3x4", backend="reference")
    found = list(solutions)
    assert len(found) == 4 and solutions.outcome.complete and solutions.outcome.count == 4
    tatami = gs.get_puzzle("tatami")
    room = tatami.parse("3x4", {})
    assert all(tatami.verify(room, tiling) == [] for tiling in found)
    assert len({str(tiling) for tiling in found}) == 4


@pytest.mark.parametrize("backend", ["cpsat", "sat", "reference"])
def test_closing_enumerate_early_stops_the_solver(backend: str) -> None:
    before = threading.active_count()
    started = time.monotonic()
    with gs.enumerate("prime-grid", "4x4", params={"max": 16}, backend=backend) as solutions:
        first = [next(solutions) for _ in range(3)]
    assert len(first) == 3 and time.monotonic() - started < patience(10)
    assert (solutions.outcome.complete, solutions.outcome.reason) == (False, "closed by the caller")
    assert solutions.outcome.count == 3
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert threading.active_count() == before  # no solver thread left running


def test_crosscheck_reports_agreement_and_the_runs() -> None:
    report = gs.crosscheck("tatami", "4x7", encodings="each", backends=["cpsat", "sat", "reference"])
    runs = len(list(gs.get_puzzle("tatami").cpsat_encodings.variants())) + len(
        list(gs.get_puzzle("tatami").cnf_encodings.variants())) + 1  # every choice once, and the reference
    assert report.agree and report.complete and len(report.outcomes) == runs
    assert {o.count for o in report.outcomes} == {3}


@pytest.mark.parametrize(
    "call, error, cli",
    [
        (lambda: gs.count("chess", "4x4"), gs.UnknownName, ["count", "chess", "4x4"]),
        (lambda: gs.count("tatami", "4by7"), gs.InvalidInstance, ["count", "tatami", "4by7"]),
        (lambda: gs.count("tatami", "4x7", backend="gurobi"), gs.UnknownName,
         ["count", "tatami", "4x7", "--backend", "gurobi"]),
        (lambda: gs.count("tatami", "4x7", backend="sat", encoding="magic"), gs.UnknownName,
         ["count", "tatami", "4x7", "--backend", "sat", "--encoding", "magic"]),
        (lambda: gs.count("prime-grid", "3x3", params={"max": "ten"}), gs.InvalidInstance,
         ["count", "prime-grid", "3x3", "-p", "max=ten"]),
        (lambda: gs.solve("tatami", "4x7", solver="glucose4"), gs.InvalidOption,
         ["solve", "tatami", "4x7", "--solver", "glucose4"]),
    ],
)
def test_bad_input_raises_a_value_error_with_the_cli_message(call, error, cli) -> None:
    """The same line, but that the API names an option by its keyword and the CLI by its flag."""
    from gridsat.arguments import flagged
    from gridsat.cli import build_parser

    with pytest.raises(error) as raised:
        call()
    assert isinstance(raised.value, ValueError) and "--" not in str(raised.value)
    said = flagged(str(raised.value), build_parser().parse_args(cli).flags)
    assert gridsat(*cli).stderr == f"gridsat: error: {said}\n"
    if error is gs.InvalidOption:
        assert said.startswith("--solver 'glucose4' does not apply") and str(raised.value).startswith("solver=")


@pytest.mark.parametrize("limits", [{"limit": 0}, {"limit": 1.5}, {"time_limit": -1}, {"time_limit": "soon"}])
def test_bad_limits_are_value_errors(limits: dict) -> None:
    with pytest.raises(gs.InvalidOption):
        gs.count("tatami", "4x7", **limits)


def test_the_package_docstring_example_runs() -> None:
    failures, tried = doctest.testmod(gs)
    assert tried >= 2 and failures == 0


def test_load_is_part_of_the_package_as_the_readme_shows() -> None:
    puzzle, instance = gs.load("knights-tour", "5x5", {"start": "0,0"})
    assert "load" in gs.__all__ and puzzle.name == "knights-tour" and instance == Board(5, 5, start=(0, 0))
    assert gs.count(puzzle, instance, backend="sat").count == 304  # a parsed instance passes through


@pytest.mark.parametrize("instance", [(4, 7), 47, ["4x7"], Board])
def test_an_instance_of_the_wrong_type_is_one_clear_error(instance: object) -> None:
    with pytest.raises(gs.InvalidInstance, match=re.escape(repr(instance))) as raised:
        gs.count("tatami", instance)
    assert "\n" not in str(raised.value) and "4x7" in str(raised.value)  # names the value and the text it takes


def test_enumerate_is_annotated_with_the_runs_it_returns() -> None:
    returned = typing.get_args(typing.get_type_hints(gs.enumerate)["return"])
    assert gs.Enumeration in returned and gs.Orbits in returned
    with gs.enumerate("tatami", "4x7") as plain, gs.enumerate("tatami", "4x7", up_to="symmetry") as orbits, \
            gs.enumerate("tatami", "4x7", split=gs.Split(jobs=1, parts=2)) as split:
        assert [type(plain), type(orbits)] == [gs.Enumeration, gs.Orbits] and type(split) in returned
    assert type(split).__name__ == "SplitRun"


def test_a_crosscheck_runs_exactly_the_encodings_named_as_a_list_or_a_comma_string() -> None:
    for encodings in (["crt", "rank"], "crt,rank"):
        report = gs.crosscheck("knights-tour", "5x5", params={"start": "0,0"}, backends=["sat"],
                                    encodings=encodings)
        labels = [o.label for o in report.outcomes]
        assert report.agree and len(labels) == 2
        assert labels[0].startswith("sat:crt+") and labels[1].startswith("sat:rank+")
    by_string = gs.crosscheck("tatami", "3x4", backends="cpsat,sat")
    assert [o.backend for o in by_string.outcomes] == ["cpsat", "sat"]  # not 'c', 'p', 's', ...


def test_a_named_encoding_no_backend_offers_is_refused() -> None:
    with pytest.raises(gs.UnknownName, match="'rnk'; did you mean 'rank'"):
        gs.crosscheck("knights-tour", "5x5", params={"start": "0,0"}, backends=["sat"], encodings=["crt", "rnk"])
    with pytest.raises(gs.InvalidOption, match="non-empty list"):
        gs.crosscheck("tatami", "3x4", encodings=[])


def test_each_leaves_out_algorithms_that_do_not_count_and_says_so() -> None:
    report = gs.crosscheck("knights-tour", "5x5", params={"start": "0,0"}, backends=["reference"],
                                encodings="each")
    assert report.agree and not [o.label for o in report.outcomes if "warnsdorff" in o.label]
    assert any("warnsdorff: not run: it does not search for every solution" in note for note in report.skipped)


def test_formulate_returns_the_formula_export_writes_byte_for_byte() -> None:
    import io

    from gridsat.plugin import CnfFormulation, CpsatFormulation

    for puzzle, instance, params, encoding in [("knights-tour", "5x5", {"start": "0,0"}, "crt"),
                                               ("tatami", "4x7", None, None), ("prime-grid", "3x3", None, "conflict")]:
        formulation = gs.formulate(puzzle, instance, params=params, backend="sat", encoding=encoding, exact=True)
        assert isinstance(formulation, CnfFormulation)
        body = io.StringIO()
        formulation.cnf.to_fp(body)
        flags = [f"-p{k}={v}" for k, v in (params or {}).items()] + (["--encoding", encoding] if encoding else [])
        shown = gridsat("export", puzzle, instance, *flags, "--format", "dimacs").stdout
        assert shown[shown.index("p cnf"):] == body.getvalue()
        legend = {line.split()[2]: line for line in shown.splitlines() if line.startswith("c v ")}
        assert str(formulation.projection[0]) in legend  # the projection's variables are named in the file
    model = gs.formulate("tatami", "4x7", backend="cpsat")
    assert isinstance(model, CpsatFormulation) and len(model.primary) == 45
    with pytest.raises(gs.InvalidOption, match="has no formulation"):
        gs.formulate("tatami", "4x7", backend="reference")


@pytest.mark.parametrize("backend", ["sat", "d4", "cpsat"])
def test_formulate_builds_what_count_solves_and_names_it(backend: str) -> None:
    """knights-tour 5x5 from 0,0: count on sat solves cutset (240 variables), where formulate built crt (578)."""
    formulation = gs.formulate("knights-tour", "5x5", params={"start": "0,0"}, backend=backend)
    counted = gs.count("knights-tour", "5x5", params={"start": "0,0"}, backend=backend)
    assert counted.count == 304 and formulation.encoding and counted.encoding.split("/")[0] == formulation.encoding
    if backend == "sat":
        assert formulation.encoding.startswith("cutset+") and formulation.cnf.nv == 240


def test_a_crosschecks_total_budget_lists_the_runs_it_left() -> None:
    report = gs.crosscheck("tatami", "3x4", backends=["cpsat", "sat"], encodings="each", total_budget=1e-9)
    left = [note for note in report.notes if "not run: the cross-check's budget of 1e-09 s was spent" in note]
    assert report.outcomes == [] and len(left) > 2
    done = gridsat("crosscheck", "tatami", "3x4", "--encodings", "each", "--budget", "1e-9")
    assert done.returncode == 3 and "budget of 1e-09 s was spent" in done.stdout
    with pytest.raises(gs.InvalidOption, match="must be a positive number"):
        gs.crosscheck("tatami", "3x4", total_budget=-1)
