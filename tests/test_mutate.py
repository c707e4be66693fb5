"""gridsat mutate: family recording, operators and selectors, redundancy proofs, scores and the command."""

from __future__ import annotations

import json

import pytest

import gridsat
from conftest import patience
from gridsat.cli import main
from gridsat.models import get_puzzle
from gridsat.models.constraints import Formula, Model
from gridsat.solvers.mutation.mutants import Mutant, build, mutate, to_message
from gridsat.solvers.mutation.redundancy import (
    BUDGET,
    PROOF_CONFLICTS,
    UNCOUNTED,
    Budget,
    OutOfBudget,
    cpsat_implied_both_ways,
    first_not_implied,
    implied_both_ways,
    implies,
    with_natives,
)

TATAMI = get_puzzle("tatami")
PRIME = get_puzzle("prime-grid")


def tatami_cnf(size: str = "3x4"):
    return build(TATAMI, TATAMI.parse(size, {}), "cnf", TATAMI.cnf_encodings.resolve(None))


def corner_family(built) -> str:
    """The family of the corner clauses (four mats, at least one crosses the corner), found by content."""
    return next(f for f, c in zip(built.families, built.formulation.cnf.clauses, strict=True)
                if len(c) == 4 and all(lit > 0 for lit in c) and not f.endswith(("at_least", "at_most")))


def test_families_are_named_by_owner_label_and_helper():
    built = tatami_cnf()
    families = set(built.families)
    assert "tatami:cnf:one mat per cell at_most" in families
    assert "tatami:cnf:one mat per cell at_least" in families
    assert "tatami:cnf:no four mats meet" in families
    # The pairwise at-most-one clauses of one cell are about every mat covering it, not just their two.
    at_most = [i for i, f in enumerate(built.families) if f.endswith("at_most")]
    assert all(len(built.keys[i]) >= 2 for i in at_most)
    assert max(len(built.keys[i]) for i in at_most) == 4


def test_a_sink_notes_families_itself_and_patches_nothing():
    formula = Formula("here")
    with formula.family("corners"):
        formula.add([1, 2])
        with formula.scope([1, 2, 3], "at_most"):
            formula.extend([[-1, -2], [-1, -3]])
            with formula.scope([1], "inner"):  # an inner scope keeps the outer one
                formula.add([-2, -3])
    formula.add([3])
    families = [o.family for o in formula.origins()]
    assert families == ["here:corners"] + ["here:corners at_most"] * 3 + ["here:unlabelled"]
    assert formula.origins()[1].scope == (1, 2, 3)
    model = Model("m")
    x = model.NewBoolVar("x")
    with model.family("one"):
        model.AddBoolOr([x])
    model.AddBoolOr([x.Not()])
    assert [o.family for o in model.origins()] == ["m:one", "m:unlabelled"]


def test_models_patch_no_pysat_or_ortools_class():
    """Families are noted by the sinks: nothing in models/ assigns to a PySAT or OR-Tools class."""
    import re
    from pathlib import Path

    patch = re.compile(r"(CNF|CNFPlus|CpModel|IDPool)\.\w+\s*=[^=]|setattr\((cp_model|CNF|pysat)|_getframe")
    root = Path(__file__).resolve().parent.parent / "models"
    found = [f"{path}:{n}" for path in root.rglob("*.py")
             for n, line in enumerate(path.read_text().splitlines(), 1) if patch.search(line)]
    assert not found


@pytest.mark.parametrize("name", ["tatami", "prime-grid", "shikaku", "knights-tour"])
def test_every_built_in_family_is_labelled_not_numbered_by_its_line(name):
    """A family named by its line number changes name (and a seeded sample its mutants) whenever the code
    above it is edited: the built-in formulations label every family they add."""
    puzzle = get_puzzle(name)
    case = puzzle.mutation.corpus()[0]
    instance = puzzle.parse(case.text, case.params)
    for kind in ("cnf", "cpsat"):
        for choice in puzzle.encodings(kind).variants():
            built = build(puzzle, instance, kind, puzzle.encodings(kind).resolve(choice.name))
            numbered = {f for f in built.families if f.split(":")[-1].split(" ")[0].isdigit()}
            assert not numbered, f"{name} {kind}:{choice.name}: label these with families.family(...): {numbered}"


def test_cpsat_constraints_are_recorded_per_add_call():
    built = build(TATAMI, TATAMI.parse("3x4", {}), "cpsat", TATAMI.cpsat_encodings.resolve(None))
    assert len(built.families) == len(built.proto.constraints) == 12 + 6
    assert len(set(built.families)) == 2 and "unrecorded" not in built.families


def test_selectors_pick_what_they_say():
    built = tatami_cnf()
    corners = corner_family(built)
    members = built.members(corners)
    assert len(members) == 6  # 2 x 3 interior corners
    last_row = built.chosen(corners, "last-row")
    assert 0 < len(last_row) < len(members)
    assert all(any(k[1] == 2 for k in built.keys[i]) for i in last_row)
    even = built.chosen(corners, "even")
    odd = built.chosen(corners, "odd")
    assert sorted(even + odd) == members and even and odd
    hashed = built.chosen(corners, "hash")
    assert hashed == tatami_cnf().chosen(corners, "hash")  # deterministic
    assert built.chosen(corners, "all") == members


def test_cnf_operators_change_what_they_say():
    built = tatami_cnf()
    corners = corner_family(built)
    clauses = built.formulation.cnf.clauses
    picked = built.chosen(corners, "last-row")
    dropped = mutate(Mutant(corners, "drop", "last-row"), built, TATAMI).cnf.clauses
    assert len(dropped) == len(clauses) - len(picked)
    shorter = mutate(Mutant(corners, "drop-literal", "all"), built, TATAMI).cnf.clauses
    assert all(shorter[i] == clauses[i][:-1] for i in built.members(corners))
    flipped = mutate(Mutant(corners, "flip", "all"), built, TATAMI).cnf.clauses
    first = built.members(corners)[0]
    assert flipped[first] == [*clauses[first][:-1], -clauses[first][-1]]
    wider = mutate(Mutant(corners, "add-literal", "all"), built, TATAMI).cnf.clauses
    assert len(wider[first]) == 5 and wider[first][:4] == list(clauses[first])
    assert list(clauses) == list(tatami_cnf().formulation.cnf.clauses)  # the original is untouched
    # Tatami's clauses are all positive or all negative: swapping signs changes nothing, so no mutant.
    assert mutate(Mutant(corners, "swap", "all"), built, TATAMI) is None


def test_a_mutant_blocks_whole_projections():
    """A weakened "one value per cell" lets a model set two values; the true-only blocking clause of the right
    filling would hide it, so a mutant's enumeration blocks every projection variable."""
    puzzle = get_puzzle("prime-grid")
    built = build(puzzle, puzzle.parse("2x2", {"max": "4"}), "cnf", puzzle.cnf_encodings.resolve(None))
    assert built.formulation.block_true_only
    family = next(f for f in built.families if f.endswith("one value per cell at_most"))
    mutated = mutate(Mutant(family, "drop", "all"), built, puzzle)
    assert mutated is not None and not mutated.block_true_only


@pytest.mark.slow
def test_prime_grids_direct_one_value_per_cell_mutants_are_all_killed(monkeypatch):
    """The survivors of the direct encoding's pairwise "one value per cell" (drops, wider clauses) are killed
    (the default CNF's mutants only: every encoding's take four minutes, `gridsat mutate prime-grid --backend sat`)."""
    import gridsat.solvers.mutation.mutate as mutation

    # A redundant mutant's run on a ladder instance is timed against the unmutated run's, at least a second:
    # on a busy machine it could time out, and a mutant not settled in time survives. The floor and the cap
    # grow with the load; no mutant times out on an idle machine, so they cost nothing there.
    monkeypatch.setattr(mutation, "SLACK_FLOOR", patience(mutation.SLACK_FLOOR))
    report = gridsat.mutate("prime-grid", backend="sat", encoding="direct", mutants="all",
                            time_limit=patience(5)).summary()
    assert report["survived"] == 0 and report["score"] == 100, report["survivors"]


def test_a_mutant_of_a_family_the_instance_lacks_changes_nothing():
    assert mutate(Mutant("nowhere:cnf:1", "drop", "all"), tatami_cnf(), TATAMI) is None


def test_cpsat_operators_edit_the_model_copy():
    grid = PRIME.parse("3x3", {"max": "10"})
    built = build(PRIME, grid, "cpsat", PRIME.cpsat_encodings.resolve(None))
    table = next(f for f, c in zip(built.families, built.proto.constraints, strict=True) if c.HasField("table"))
    alldiff = next(f for f, c in zip(built.families, built.proto.constraints, strict=True) if c.HasField("all_diff"))
    i = built.members(table)[0]
    width = len(built.proto.constraints[i].table.exprs) or len(built.proto.constraints[i].table.vars)
    before = len(built.proto.constraints[i].table.values)
    for operator, change in (("drop-tuple", -width), ("add-tuple", width)):
        model = to_message(mutate(Mutant(table, operator, "all"), built, PRIME).model)
        assert len(model.constraints[i].table.values) == before + change
    j = built.members(alldiff)[0]
    model = to_message(mutate(Mutant(alldiff, "drop-var", "all"), built, PRIME).model)
    assert len(model.constraints[j].all_diff.exprs) == len(built.proto.constraints[j].all_diff.exprs) - 1
    model = to_message(mutate(Mutant(alldiff, "drop", "all"), built, PRIME).model)
    assert model.constraints[j].WhichOneof("constraint") is None  # emptied: holds always
    assert to_message(built.formulation.model) == built.proto  # the original is untouched


def test_implication_proves_what_is_implied_and_only_that():
    assert implies([[1, 2], [-1, 2]], [2])
    assert not implies([[1, 2], [-1, 2]], [1])
    built = tatami_cnf("3x4")
    f = built.formulation
    # A clause repeated is implied by its copy; the corner clauses of 3x4 are not implied by the rest.
    import dataclasses

    from pysat.formula import CNF

    doubled = CNF(from_clauses=[*f.cnf.clauses, f.cnf.clauses[0]])
    assert implied_both_ways(dataclasses.replace(f, cnf=doubled), f)[0]
    corners = corner_family(built)
    dropped = mutate(Mutant(corners, "drop", "all"), built, TATAMI)
    ok, why = implied_both_ways(f, dropped)
    assert not ok and "own variables" in why
    # On 2x2 both tilings (two mats side by side) cross the one corner: the rest implies its clause.
    small = tatami_cnf("2x2")
    assert implied_both_ways(small.formulation, mutate(Mutant(corners, "drop", "all"), small, TATAMI))[0]


def test_implied_clauses_are_proved_together_in_one_call():
    """Zhou's positions without "at most one above" on an open 5x5 board: every dropped clause follows by
    counting (the ranks of a tour are all of 0..n-1). One call per clause spent 81,513 conflicts; one call
    for them all, each negation behind a selector, about a tenth of that."""
    tour = get_puzzle("knights-tour")
    built = build(tour, tour.parse("5x5", {}), "cnf", tour.cnf_encodings.resolve("distance"))
    family = "knights_tour:cnf:an arc's head ranks at most one above its tail"
    dropped = mutate(Mutant(family, "drop", "all"), built, tour)
    budget = Budget(30_000)
    assert implied_both_ways(built.formulation, dropped, budget) == (True, "")
    assert 0 < budget.spent < 30_000
    # The call that finds a model returns a clause it breaks, from the first list that has one.
    assert first_not_implied([[1, 2], [-1, 2]], [[2], [1]], [[-2]]) == [1]
    assert first_not_implied([[1, 2], [-1, 2]], [[2]], [[1], [-2]]) in ([1], [-2])


def test_a_cnf_plus_proof_takes_its_native_at_most_ones():
    """The proofs' solvers take clauses only: a CNF+'s native at-most-ones join them as clauses, so what
    those imply is proved implied (a Shikaku cell's at-least-one, weakened, with the areas filling the grid)."""
    from pysat.formula import CNFPlus

    plus = CNFPlus()
    plus.append([1, 2, 3])
    plus.append([[1, 2, 3], 1], is_atmost=True)
    assert first_not_implied(plus.clauses, [[-1, -2]]) == [-1, -2]
    assert first_not_implied(with_natives(plus), [[-1, -2]]) is None
    shikaku = get_puzzle("shikaku")
    built = build(shikaku, shikaku.parse("seed", {}), "cnf", shikaku.cnf_encodings.resolve("native"))
    weakened = mutate(Mutant("shikaku:cnf:one rectangle per cell at_least", "add-literal", "all"), built, shikaku)
    assert implied_both_ways(built.formulation, weakened) == (True, "")


def test_a_proof_past_its_conflict_budget_proves_nothing():
    # A random 3-CNF past the threshold: unsatisfiable, so it implies [1], but not by propagation alone,
    # nor by counting (tests/test_relaxation.py has the pigeonholes that counting proves).
    import random

    rng = random.Random(1)
    formula = [[v * rng.choice((1, -1)) for v in rng.sample(range(1, 61), 3)] for _ in range(360)]
    assert first_not_implied(formula, [[1]]) is None
    budget = Budget(10)
    with pytest.raises(OutOfBudget):
        first_not_implied(formula, [[1]], budget=budget)
    assert budget.spent >= 10  # the conflicts are counted, so that one budget can span several proofs
    # A mutant whose earlier proofs spent its budget gets no more calls, and the answer says why.
    built = tatami_cnf("3x4")
    dropped = mutate(Mutant(corner_family(built), "drop", "all"), built, TATAMI)
    ok, why = implied_both_ways(built.formulation, dropped, Budget(spent=PROOF_CONFLICTS))
    assert not ok and why == f"{BUDGET} of {PROOF_CONFLICTS:,} conflicts {UNCOUNTED}"


def test_cpsat_implication_proves_a_dropped_constraint_only_when_the_rest_implies_it():
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x, y, z = (model.NewBoolVar(n) for n in "xyz")
    model.AddExactlyOne([x, y])  # 0
    model.AddBoolOr([x, y])  # 1: implied by 0
    model.AddBoolOr([y, z])  # 2: not implied
    model.Add(x + z <= 1)  # 3: linear, not implied by 0 and 2
    proto = to_message(model)
    assert cpsat_implied_both_ways(proto, model, {1: None}, 5)
    assert not cpsat_implied_both_ways(proto, model, {2: None}, 5)
    assert not cpsat_implied_both_ways(proto, model, {3: None}, 5)
    weaker = type(proto.constraints[3])()
    weaker.CopyFrom(proto.constraints[3])
    weaker.linear.domain[:] = [weaker.linear.domain[0], 2]  # x + z <= 2 holds always: dropping was the same
    assert not cpsat_implied_both_ways(proto, model, {3: weaker}, 5)


SAMPLES = [  # (puzzle, backend, encoding, mutants, least score): a small seeded sample each
    ("tatami", "sat", "seqcounter", 12, 0.95),
    ("tatami", "cpsat", None, 10, 0.95),
    ("prime-grid", "cpsat", "integer", 8, 0.8),
    ("shikaku", "sat", "pack", 8, 0.8),
    ("knights-tour", "cpsat", None, 6, 0.8),
    ("knights-tour", "sat", "crt", 4, 0.75),
]


@pytest.mark.parametrize("name, backend, encoding, mutants, least", SAMPLES, ids=lambda v: str(v))
def test_seeded_sample_scores_and_repeats(name, backend, encoding, mutants, least):
    def once():
        report = gridsat.mutate(name, backend=backend, encoding=encoding, mutants=mutants, seed=7, time_limit=5)
        return {k: v for k, v in report.summary().items() if k != "seconds"}

    first = once()
    assert first["mutants"] == mutants
    assert first["killed"] + first["redundant"] + first["survived"] == mutants
    assert first["score"] is not None and first["score"] >= 100 * least, first["survivors"]
    if name == "tatami":
        assert once() == first  # the same seed, the same report


def test_a_tiny_corpus_scores_visibly_lower_than_the_golden_one():
    tiny = gridsat.mutate("tatami", ["2x2"], backend="sat", encoding="pairwise", time_limit=5).summary()
    full = gridsat.mutate("tatami", backend="sat", encoding="pairwise", time_limit=5).summary()
    assert tiny["mutants"] == full["mutants"]  # the same bugs, judged on less
    assert full["score"] >= 95
    assert tiny["score"] <= full["score"] - 20
    # What survives the tiny corpus comes with a larger room that kills it.
    assert any(s.get("suggestion") for s in tiny["survivors"])


def test_cli_json_and_fail_under(capsys):
    assert main(["mutate", "tatami", "--backend", "sat", "--encoding", "pairwise", "--mutants", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("mutants", "killed", "redundant", "survived", "score"):
        assert key in out and key in out["encodings"]["mats+pairwise+nosymmetry"]
    assert main(["mutate", "tatami", "2x2", "--backend", "sat", "--encoding", "pairwise", "--fail-under", "99",
                 "--no-search"]) == 1
    assert "under 99%" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["mutate", "tatami", "--backend", "frontier"], "invalid choice"),
    (["mutate", "tatami", "--fail-under", "150"], "percentage"),
    (["mutate", "tatami", "--mutants", "0"], "at least 1"),
    (["mutate", "tatami", "--encoding", "nosuch", "--backend", "sat"], "nosuch"),
    (["mutate", "tatami", "2x2", "--corpus", "golden"], "not both"),
])
def test_bad_input_is_one_line_and_status_2(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_default_is_every_mutant_when_few_else_a_sample(monkeypatch):
    """With no --mutants, a small catalogue is judged whole and a large one sampled, said in the report
    with an interval for the whole catalogue's score; 'all' judges every mutant whatever their number."""
    import gridsat.solvers.mutation.mutate as mutation

    # one encoding's catalogue (45 mutants): the default's three encodings take 20 s a run
    every = gridsat.mutate("tatami", encoding="mats")
    assert not every.sampled and every.catalogue == len(every.verdicts) and every.interval() is None
    monkeypatch.setattr(mutation, "DEFAULT_SAMPLE", 10)
    sample = gridsat.mutate("tatami", encoding="mats")
    assert sample.sampled and len(sample.verdicts) == 10 and sample.catalogue == every.catalogue
    low, high = sample.interval()
    assert 0 <= low <= sample.total.score <= high <= 1
    assert sample.summary()["score_interval_95"] is not None
    # Which mutants 'all' plans is the claim, not their verdicts (judged above): each is marked, not judged again.
    monkeypatch.setattr(mutation, "judge_in_worker", lambda task, mutant: mutation.Verdict(mutant, task.encoding,
                                                                                           "killed"))
    planned = gridsat.mutate("tatami", encoding="mats", mutants="all").verdicts
    assert sorted(map(repr, (v.mutant for v in planned))) == sorted(map(repr, (v.mutant for v in every.verdicts)))


def test_an_interrupted_run_reports_the_mutants_judged_and_says_it_is_incomplete(monkeypatch, capsys):
    import gridsat.solvers.mutation.mutate as mutation

    judged = mutation.judge_in_worker

    def judge_then_interrupt(task, mutant):
        if judge_then_interrupt.calls == 3:
            raise KeyboardInterrupt  # as Ctrl-C or SIGTERM (handled as Ctrl-C) would, mid-run
        judge_then_interrupt.calls += 1
        return judged(task, mutant)

    judge_then_interrupt.calls = 0
    monkeypatch.setattr(mutation, "judge_in_worker", judge_then_interrupt)
    assert main(["mutate", "tatami", "--backend", "sat", "--encoding", "pairwise", "--mutants", "10"]) == 130
    out = capsys.readouterr().out
    assert out.startswith("INCOMPLETE: interrupted after 3 of the 10 mutants planned")
    assert "a sample of 10 of its" in out and "(95%)" not in out  # no interval from an ordered prefix
    judge_then_interrupt.calls = 0
    report = gridsat.mutate("tatami", backend="sat", encoding="pairwise", mutants=10)
    assert report.interrupted and len(report.verdicts) == 3 and report.summary()["complete"] is False
