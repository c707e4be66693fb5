"""Exported formulas keep their counts: every puzzle's default export, counted by a projected
enumeration that reads only the file (not gridsat's own solving loop), gives gridsat's count.

The DIMACS files are counted with PySAT's Glucose over the ``c p show`` variables, blocking each
projected assignment in full; the CP-SAT files are read back as protobuf text and enumerated by
CP-SAT, keeping the distinct values of the ``# gridsat primary`` variables.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gridsat
from conftest import golden
from conftest import gridsat as run_gridsat

# One instance per puzzle with several solutions, and its golden count (gridsat.models.golden, with sources).
CASES = [
    ("tatami", "3x4", {}, golden("tatami")["count"], {"room": "3x4"}),
    ("prime-grid", "3x3", {"max": "10"}, golden("prime_grid")["count"], {"grid": "3x3", "max": 10}),
    ("shikaku", "4x4:2a2b2a2_2a2b2a2", {}, golden("shikaku/golden")["count"],
     {"instance": "4x4:2a2b2a2_2a2b2a2"}),
    ("knights-tour", "3x4", {}, golden("knights_tour")["count"], {"board": "3x4", "params": {}}),
    ("knights-tour", "3x10", {"closed": "true"}, golden("knights_tour")["count"],
     {"board": "3x10", "params": {"closed": "true"}}),
]


def expected(entries: list[dict], match: dict) -> int:
    """The golden count of the entry whose fields match."""
    [entry] = [e for e in entries if all(e.get(k) == v for k, v in match.items())]
    return entry["count"]


def export(tmp_path: Path, puzzle: str, instance: str, params: dict[str, str], fmt: str, *extra: str) -> str:
    """``gridsat export`` into a file; its text."""
    target = tmp_path / f"out.{fmt}"
    flags = [f for key, value in params.items() for f in ("-p", f"{key}={value}")]
    done = run_gridsat("export", puzzle, instance, *flags, "--format", fmt, "-o", str(target), *extra)
    assert done.returncode == 0, done.stderr
    return target.read_text()


def count_dimacs(text: str) -> int:
    """Projected model count of a DIMACS file with ``c p show``: enumerate, block the projection."""
    from pysat.solvers import Solver

    shown = [int(v) for line in text.splitlines() if line.startswith("c p show ") for v in line.split()[3:]]
    assert shown and shown[-1] == 0
    shown = shown[:-1]
    header = next(line for line in text.splitlines() if line.startswith("p cnf "))
    nv, m = map(int, header.split()[2:])
    clauses = [[int(x) for x in line.split()[:-1]] for line in text.splitlines()
               if line and not line.startswith(("c", "p"))]
    assert len(clauses) == m and all(abs(lit) <= nv for c in clauses for lit in c) and max(shown) <= nv
    mentioned = {abs(lit) for c in clauses for lit in c}
    free = [v for v in shown if v not in mentioned]  # each doubles the count, as a model counter would say
    constrained = [v for v in shown if v in mentioned]
    count = 0
    with Solver(name="glucose4", bootstrap_with=clauses) as solver:
        while solver.solve():
            model = set(solver.get_model())
            count += 1
            solver.add_clause([-v if v in model else v for v in constrained])
            if not constrained:
                break
    return count * 2 ** len(free)


def count_cpsat(text: str) -> int:
    """Distinct values of the primary variables over every solution of a CP-SAT model in protobuf text."""
    from google.protobuf import text_format
    from ortools.sat import cp_model_pb2
    from ortools.sat.python import cp_model

    text_format.Parse(text, cp_model_pb2.CpModelProto())  # plain protobuf text, comments and all
    model = cp_model.CpModel()
    assert model.Proto().parse_text_format(text)
    primary = [int(m[1]) for m in re.finditer(r"^# gridsat primary (\d+) ", text, re.M)]
    variables = [model.GetIntVarFromProtoIndex(i) for i in primary]
    seen: set[tuple[int, ...]] = set()

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            seen.add(tuple(self.Value(v) for v in variables))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    assert solver.Solve(model, Collect()) == cp_model.OPTIMAL
    return len(seen)


@pytest.mark.parametrize("fmt, counter", [("dimacs", count_dimacs), ("cpsat", count_cpsat)], ids=["dimacs", "cpsat"])
@pytest.mark.parametrize("puzzle, instance, params, entries, match", CASES,
                         ids=[f"{c[0]} {c[1]}{' closed' if c[2].get('closed') else ''}" for c in CASES])
def test_default_export_counts_like_gridsat(tmp_path, puzzle, instance, params, entries, match, fmt, counter):
    text = export(tmp_path, puzzle, instance, params, fmt)
    mark = "c" if fmt == "dimacs" else "#"
    assert f"{mark} gridsat models-are solutions\n" in text
    counted = gridsat.count(puzzle, instance, params=params)
    assert counted.complete and counted.count == expected(entries, match)
    assert counter(text) == counted.count


def test_a_reduced_export_says_what_one_model_stands_for(tmp_path):
    text = export(tmp_path, "prime-grid", "3x3", {}, "dimacs", "--encoding", "symmetry")
    lines = text.splitlines()
    assert "c gridsat models-are orbits of size 8" in lines and "orbit of 8 solutions" in text
    assert count_dimacs(text) * 8 == 128  # 16 orbit leaders
    cpsat = export(tmp_path, "prime-grid", "3x3", {}, "cpsat", "--encoding", "symmetry")
    assert "# gridsat models-are orbits of size 8" in cpsat.splitlines() and count_cpsat(cpsat) == 16
    assert "encoding integer+parity+symmetry" in cpsat.splitlines()[0]


def test_the_cpsat_export_names_every_primary_variable(tmp_path):
    text = export(tmp_path, "tatami", "3x4", {}, "cpsat")
    legend = re.findall(r"^# gridsat primary (\d+) (\S+) (.+)$", text, re.M)
    assert len(legend) == 17 and legend[0] == ("0", "h_0_0", "('h', 0, 0)")
    names = re.findall(r'^  name: "(.*)"$', text, re.M)
    assert [name for _, name, _ in legend] == [names[int(i)] for i, _, _ in legend]


def projected_count(path: Path) -> int:
    """The models of a DIMACS file projected onto its ``c p show`` variables, by enumeration with PySAT."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    text = path.read_text()
    [shown] = [line.split()[3:-1] for line in text.splitlines() if line.startswith("c p show ")]
    projection = [int(v) for v in shown]
    count = 0
    with Solver(name="cadical195", bootstrap_with=CNF(from_string=text).clauses) as solver:
        while solver.solve():
            model = set(solver.get_model())
            solver.add_clause([-v if v in model else v for v in projection])
            count += 1
    return count


def test_five_scrambles_of_one_formula_are_five_files_with_one_count(tmp_path: Path) -> None:
    plain = tmp_path / "plain.cnf"
    assert run_gridsat("export", "prime-grid", "3x3", "--format", "dimacs", "-o", str(plain)).returncode == 0
    paths = []
    for seed in range(1, 6):
        paths.append(tmp_path / f"s{seed}.cnf")
        assert run_gridsat("export", "prime-grid", "3x3", "--format", "dimacs", "--scramble", str(seed),
                       "-o", str(paths[-1])).returncode == 0
    texts = {p.read_text() for p in [plain, *paths]}
    assert len(texts) == 6
    assert {projected_count(p) for p in [plain, *paths]} == {128}
    again = tmp_path / "again.cnf"
    run_gridsat("export", "prime-grid", "3x3", "--format", "dimacs", "--scramble", "3", "-o", str(again))
    assert again.read_text() == paths[2].read_text()  # a recorded seed gives the same formula


def test_scramble_is_for_dimacs_only() -> None:
    done = run_gridsat("export", "tatami", "4x7", "--format", "cpsat", "--scramble", "1")
    assert done.returncode == 2 and "--scramble 1 applies to the dimacs format" in done.stderr


def test_a_dimacs_file_names_the_variables_with_a_key_and_says_the_others_have_none():
    text = run_gridsat("export", "tatami", "3x4", "--encoding", "seqcounter", "--format", "dimacs").stdout
    named = [line for line in text.splitlines() if line.startswith("c v ")]
    header = next(line for line in text.splitlines() if line.startswith("p cnf"))
    assert (len(named), header) == (17, "p cnf 35 68")  # seqcounter's 18 auxiliaries have no key
    assert "names each variable that has\nc a key (the auxiliaries a PySAT cardinality encoding adds have none)" in text
