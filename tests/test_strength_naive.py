"""The strength checker against a naive one written here: every model by brute force, unit propagation
by a plain fixpoint loop, every partial assignment of the primary variables. Random small CNFs, 0
disagreements: PC and UC verdicts, the witness's size (a smallest one) and that it is a real gap."""

from __future__ import annotations

import importlib
import itertools
import json
import random
from pathlib import Path

import pytest
from naive_propagation import propagate

from conftest import gridsat
from gridsat.solvers.strength.check import CONFLICT, Constraint, check


def models(clauses: list[list[int]], variables: list[int]) -> list[set[int]]:
    """Every total assignment of ``variables`` satisfying ``clauses``."""
    out = []
    for signs in itertools.product((1, -1), repeat=len(variables)):
        model = {s * v for s, v in zip(signs, variables, strict=True)}
        if all(model & set(clause) for clause in clauses):
            out.append(model)
    return out


Gap = tuple[tuple[int, ...], int]


def gaps(clauses: list[list[int]], primary: list[int], variables: list[int], k: int) -> list[Gap]:
    """Every (partial assignment of at most k primary literals, literal or CONFLICT propagation misses)."""
    every = models(clauses, variables)
    found = []
    for size in range(k + 1):
        for chosen in itertools.combinations(primary, size):
            for signs in itertools.product((1, -1), repeat=size):
                given = {s * v for s, v in zip(signs, chosen, strict=True)}
                derived = propagate(clauses, given)
                if derived is None:
                    continue
                fitting = [m for m in every if given <= m]
                if not fitting:
                    found.append((tuple(sorted(given)), CONFLICT))
                    continue
                common = set.intersection(*fitting)
                found += [(tuple(sorted(given)), lit) for lit in common if abs(lit) in primary and lit not in derived]
    return found


def random_cnf(rng: random.Random, primaries: int, auxiliaries: int) -> list[list[int]]:
    """A few clauses of one to three literals over ``primaries + auxiliaries`` variables."""
    variables = primaries + auxiliaries
    clauses = []
    for _ in range(rng.randint(1, 3 * variables)):
        width = rng.choice((1, 2, 2, 3, 3, 3))
        chosen = rng.sample(range(1, variables + 1), min(width, variables))
        clauses.append([v if rng.random() < 0.5 else -v for v in chosen])
    return clauses


def agree(clauses: list[list[int]], primary: list[int], variables: list[int], k: int) -> None:
    """The checker's verdicts are the naive ones: PC, UC, a smallest witness and a real one."""
    expected = gaps(clauses, primary, variables, k)
    found = check(Constraint(clauses, primary), k)
    assert (found.witness is None) == (not expected), (clauses, expected, found)
    if found.witness is not None:
        assert len(found.witness.assignment) == min(len(given) for given, _ in expected), (clauses, found)
        assert (tuple(sorted(found.witness.assignment)), found.witness.missed) in expected
    refutations = [gap for gap in expected if gap[1] == CONFLICT]
    if found.uc_decided:
        assert (found.refutation is None) == (not refutations), (clauses, refutations, found)
    if found.refutation is not None:
        assert (tuple(sorted(found.refutation.assignment)), CONFLICT) in refutations
        assert len(found.refutation.assignment) == min(len(given) for given, _ in refutations)


def test_the_checker_agrees_with_the_naive_one_on_a_thousand_random_cnfs() -> None:
    rng = random.Random(51)
    holds = 0
    for _ in range(1000):
        primaries, auxiliaries = rng.randint(1, 4), rng.randint(0, 2)
        clauses = random_cnf(rng, primaries, auxiliaries)
        primary = list(range(1, primaries + 1))
        k = rng.randint(1, primaries)
        agree(clauses, primary, list(range(1, primaries + auxiliaries + 1)), k)
        holds += check(Constraint(clauses, primary), k).witness is None
    assert 100 < holds < 900  # both verdicts were exercised


def test_past_the_model_cap_the_sat_calls_agree_with_the_naive_checker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.import_module("gridsat.solvers.strength.check"), "MODEL_CAP", 0)
    rng = random.Random(49)
    for _ in range(300):
        primaries, auxiliaries = rng.randint(1, 4), rng.randint(0, 2)
        clauses = random_cnf(rng, primaries, auxiliaries)
        agree(clauses, list(range(1, primaries + 1)), list(range(1, primaries + auxiliaries + 1)), primaries)


def test_a_solver_that_has_learnt_clauses_would_hide_a_gap() -> None:
    """The planted bug: propagation on a solver that has solved uses its learnt clauses too. Pigeonhole
    3 into 2 with a guard g: g -> the pigeons cannot all fly. A fresh propagation misses the conflict
    after g (so g is not PC on its guard); a solver that refuted g once finds it at once, and would say PC."""
    from pysat.solvers import Solver

    g = 7
    pigeons = [[1, 2], [3, 4], [5, 6]]
    holes = [[-a, -b] for a, b in itertools.combinations((1, 3, 5), 2)] + \
            [[-a, -b] for a, b in itertools.combinations((2, 4, 6), 2)]
    clauses = [[*p, -g] for p in pigeons] + holes
    found = check(Constraint(clauses, [g]), 1)
    assert found.witness is not None and found.witness.missed == -g
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        assert solver.propagate(assumptions=[g])[0]
        assert not solver.solve(assumptions=[g])
        assert not solver.propagate(assumptions=[g])[0]


@pytest.mark.slow
def test_gridsat_strength_on_a_dimacs_file_agrees_with_the_naive_checker(tmp_path: Path) -> None:
    """Random CNFs of four primary and two auxiliary variables, through the
    command, ``holds`` as the naive checker says, 0 disagreements."""
    rng = random.Random(4)
    path = tmp_path / "f.cnf"
    verdicts = []
    for _ in range(300):
        clauses = random_cnf(rng, 4, 2)
        path.write_text(f"p cnf 6 {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses))
        done = gridsat("strength", "--dimacs", str(path), "--primary", "1,2,3,4", "-k", "4", "--json")
        (record,) = json.loads(done.stdout)
        assert record["holds"] == (not gaps(clauses, [1, 2, 3, 4], list(range(1, 7)), 4)), clauses
        assert record["exhaustive"] and record["n"] == 4 and record["clauses"] == len(clauses)
        verdicts.append(record["holds"])
    assert 30 < sum(verdicts) < 270


@pytest.mark.parametrize(("args", "named"), [(("--primary", "1,x"), "'x'"), (("--primary", "1,1"), "twice"),
                                             (("--primary", "0"), "'0'"), ((), "--primary"),
                                             (("--primary", "1", "-k", "0"), "'0'")])
def test_a_bad_dimacs_check_is_one_line(tmp_path: Path, args: tuple[str, ...], named: str) -> None:
    path = tmp_path / "f.cnf"
    path.write_text("p cnf 2 1\n1 2 0\n")
    done = gridsat("strength", "--dimacs", str(path), *args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and named in done.stderr
    missing = gridsat("strength", "--dimacs", str(tmp_path / "none.cnf"), "--primary", "1")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "none.cnf" in missing.stderr


@pytest.mark.slow
def test_the_binary_tour_witness_is_a_smallest_one() -> None:
    """No gap of one literal, and the two-literal witness is a real one (the old checker, whose propagation
    used clauses learnt by its earlier SAT calls, reported three literals on this encoding)."""
    from gridsat.solvers.strength import strengths

    (found,) = strengths(["tour binary"], k=3)
    assert found.witness is not None and len(found.witness.assignment) == 2
    constraint = found.witness.constraint
    variables = sorted({abs(lit) for clause in constraint.clauses for lit in clause} | set(constraint.primary))
    assert not gaps(constraint.clauses, constraint.primary, variables, 1)
    assert (tuple(sorted(found.witness.assignment)), found.witness.missed) in gaps(
        constraint.clauses, constraint.primary, variables, 2)


@pytest.mark.slow
def test_guarded_pigeonhole_variants_get_the_naive_verdict() -> None:
    """The issue's case: pigeonhole formulas whose clauses are switched on by guard literals, primary the
    guards (and a pigeon's holes in some variants). A checker whose propagation used learnt clauses called
    many of these propagation-complete; the naive checker and this one agree on every variant: none is."""
    rng = random.Random(75)
    verdicts = []
    for _ in range(40):
        holes = rng.choice((2, 3))
        pigeon = [[p * holes + h + 1 for h in range(holes)] for p in range(holes + 1)]
        clauses = [list(row) for row in pigeon] + [[-a, -b] for h in range(holes)
                                                   for a, b in itertools.combinations([row[h] for row in pigeon], 2)]
        top = (holes + 1) * holes
        guards = list(range(top + 1, top + 1 + rng.randint(1, 3)))
        guarded = [[*clause, -rng.choice(guards)] if rng.random() < 0.7 else clause for clause in clauses]
        primary = guards + (pigeon[0] if rng.random() < 0.5 else [])
        agree(guarded, primary, list(range(1, guards[-1] + 1)), len(primary))
        verdicts.append(check(Constraint(guarded, primary), len(primary)).witness is None)
    assert len(verdicts) == 40 and not any(verdicts)  # pigeonhole is hard for propagation: never complete


def test_primary_without_dimacs_and_dimacs_with_names_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.cnf"
    path.write_text("p cnf 2 1\n1 2 0\n")
    for args, said in ((("--primary", "1"), "--primary goes with --dimacs"),
                       (("tour", "--dimacs", str(path), "--primary", "1"), "no encoding names")):
        done = gridsat("strength", *args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and said in done.stderr
