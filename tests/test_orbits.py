"""Counting up to symmetry: golden orbit counts, canonical representatives against Burnside's lemma on
every puzzle and backend, degenerate boards, and a wrong group or encoding caught."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import pytest

import gridsat
from conftest import LISTING, burnside, count_canonical, golden, orbits_of
from conftest import gridsat as run_cli
from gridsat.models import get_puzzle
from gridsat.models.errors import InvalidOption, UnknownName
from gridsat.models.parts import Symmetry
from gridsat.models.prime_grid.symmetry import symmetries
from gridsat.models.symmetry import Element, Group, motions
from gridsat.solvers.backend import Request
from gridsat.solvers.checks.crosscheck import Runs, configurations
from gridsat.solvers.orbits.counting import crosscheck_orbits

ALL_GOLDEN = golden("orbits")["count"]
GOLDEN = [entry for entry in ALL_GOLDEN if not entry.get("slow")]
TATAMI, PRIME, SHIKAKU, TOUR = (get_puzzle(n) for n in ("tatami", "prime-grid", "shikaku", "knights-tour"))


def instance_of(entry: dict):
    puzzle = get_puzzle(entry["puzzle"])
    return puzzle, puzzle.parse(entry["instance"], entry.get("params", {}))


def entry_id(entry: dict) -> str:
    params = "".join(f" {k}={v}" for k, v in entry.get("params", {}).items())
    return f"{entry['puzzle']} {entry['instance']}{params} up to {entry['up_to']}"


# A slow entry is counted once, on the configuration that counts it fastest, measured on a loaded
# two-core machine (1-5 s each there); its other configurations take 1-16 s on sat and cpsat (the
# 6x6 closed tours minutes on cpsat), and python -m gridsat.benchmarks.compare.orbits [--six] counts
# them on both backends both ways.
SLOW_FASTEST = {("knights-tour", "6x6", "reversal"): ("sat", "burnside"),
                ("knights-tour", "6x6", "symmetry"): ("sat", "burnside"),
                ("prime-grid", "4x5", "symmetry"): ("sat", "canonical")}


def golden_run(entry: dict, backend: str, method: str):
    """One golden orbit count on one backend by one method: as it is, slow-marked, or skipped saying why."""
    why = None
    if backend == "reference" and entry["solutions"] > 500:
        why = "the seed's plain backtracking takes tens of seconds past a few hundred solutions (see test_knights_tour)"
    elif backend not in entry.get("backends", [backend]):
        why = f"{backend} takes long here: the golden data runs this entry on {', '.join(entry['backends'])} only"
    elif entry.get("slow") and (backend, method) != SLOW_FASTEST[entry["puzzle"], entry["instance"], entry["up_to"]]:
        why = ("a slow entry is counted on its fastest configuration only; "
               "python -m gridsat.benchmarks.compare.orbits [--six] counts it on cpsat and sat both ways")
    marks = [pytest.mark.skip(reason=why)] if why else [pytest.mark.slow] if entry.get("slow") else []
    return pytest.param(entry, backend, method, marks=marks, id=f"{entry_id(entry)}-{backend}-{method}")


# The reference backend has no formulation, so Burnside's lemma does not apply to it.
RUNS = [golden_run(entry, backend, method) for entry in ALL_GOLDEN for backend in ("cpsat", "sat", "reference")
        for method in ("canonical", "burnside") if not (backend == "reference" and method == "burnside")]


@pytest.mark.parametrize("entry, backend, method", RUNS)
def test_golden_orbit_counts(entry, backend, method):
    puzzle, instance = instance_of(entry)
    counter = count_canonical if method == "canonical" else burnside
    outcome = counter(puzzle, instance, backend, up_to=entry["up_to"])
    assert (outcome.count, len(outcome.group), outcome.complete) == (entry["count"], entry["group"], True)
    assert (outcome.invalid, outcome.problems, outcome.duplicates) == ([], [], 0)
    # The orbits hold every solution (canonical), and the identity fixes every solution (Burnside).
    held = outcome.held if method == "canonical" else outcome.fixed["identity"]
    assert held == entry["solutions"]


# Small instances of every puzzle, every encoding choice once (each backend's default on the larger
# boards): canonical representatives on every backend and Burnside on every formulation must give
# one count and one set of representatives.
SMALL = [
    ("tatami", "3x4", {}, "symmetry"),
    ("tatami", "2x6", {}, "symmetry"),
    ("tatami", "1x6", {}, "symmetry"),
    ("prime-grid", "2x3", {}, "symmetry"),
    ("prime-grid", "3x3", {"max": "10"}, "symmetry"),
    ("prime-grid", "1x3", {}, "symmetry"),
    ("shikaku", "4x4:2a2b2a2_2a2b2a2", {}, "symmetry"),
    ("shikaku", "3x3:a3a3a3c", {}, "symmetry"),
    ("knights-tour", "3x4", {}, "symmetry"),
    ("knights-tour", "3x4", {}, "reversal"),
    ("knights-tour", "3x4", {"start": "1,1"}, "symmetry"),
    ("knights-tour", "5x5", {"start": "2,2"}, "symmetry"),  # the centre: all 8 motions, no reversal
    ("knights-tour", "3x10", {"closed": "true"}, "symmetry"),
    ("knights-tour", "1x1", {}, "symmetry"),
    ("knights-tour", "1x1", {"closed": "true"}, "symmetry"),
]


@pytest.mark.parametrize("name, text, params, up_to", SMALL, ids=[f"{n} {t} {p} {u}" for n, t, p, u in SMALL])
def test_canonical_and_burnside_agree_on_every_backend_and_encoding(name, text, params, up_to):
    puzzle = get_puzzle(name)
    instance = puzzle.parse(text, params)
    larger = name == "knights-tour" and text in ("5x5", "3x10")
    configs = configurations(puzzle, LISTING, scope="default" if larger else "each", plan=Runs(up_to=up_to))
    if "closed" in params:  # plain backtracking of closed 3x10 takes seconds; the golden test runs it once
        configs = [c for c in configs if c.backend.name != "reference"]
    report = crosscheck_orbits(puzzle, instance, configs, up_to=up_to, time_limit=60)
    counts = {o.label: (o.count, o.complete) for o in report.outcomes}
    assert report.agree, f"{name} {text} {params}: {report.problems}; counts {counts}"
    # Warnsdorff's rule and divide and conquer find one tour: incomplete by design, and still compared.
    one_tour = ("warnsdorff", "divide")
    assert all((o.complete or o.encoding in one_tour) and not o.invalid for o in report.outcomes), counts
    methods = {o.method for o in report.outcomes}
    formulations = [c for c in configs if c.backend.name != "reference"]
    burnsides = [o for o in report.outcomes if o.method == "burnside"]
    assert methods == {"canonical", "burnside"} and len(burnsides) + len(report.skipped) == len(formulations)


def test_burnside_skips_only_the_closed_tour_position_encoding_when_a_motion_moves_the_root():
    board = TOUR.parse("3x10", {"closed": "true"})

    def sat(up_to: str) -> list:
        runs = Runs(up_to=up_to)
        return [runs.named("sat", TOUR), runs.named("sat", TOUR, Request(encoding="position"))]

    report = crosscheck_orbits(TOUR, board, sat("symmetry"), up_to="symmetry")
    assert report.agree and len(report.skipped) == 1 and "position" in report.skipped[0], report.skipped
    # Up to reversal the root stays put, so even the position encoding permutes its steps.
    reversal = crosscheck_orbits(TOUR, board, sat("reversal"), up_to="reversal")
    assert reversal.agree and reversal.notes == []  # nothing skipped, and the group is whole
    with pytest.raises(InvalidOption, match="position encoding"):
        burnside(TOUR, board, "sat", Request(encoding="position"), up_to="symmetry")


def test_motions_are_d4_on_square_boards_d2_otherwise_and_distinct_on_degenerate_ones():
    sizes = {(3, 3): 8, (2, 2): 8, (3, 4): 4, (4, 3): 4, (1, 4): 2, (4, 1): 2, (1, 1): 1, (1, 2): 2}
    for (rows, cols), size in sizes.items():
        found = motions(rows, cols)
        perms = {m.permutation() for m in found}
        assert len(found) == len(perms) == size and found[0].name == "identity"
        # A group: closed under composition.
        assert all(tuple(q[i] for i in p) in perms for p, q in itertools.product(perms, repeat=2))
    assert [m.name for m in motions(1, 4)] == ["identity", "mirror-lr"]
    # prime-grid's leader constraints use the same permutations.
    assert symmetries(PRIME.parse("3x4", {})) == tuple(m.permutation() for m in motions(3, 4))


def test_a_motion_maps_cells_and_rectangles():
    rot90 = next(m for m in motions(3, 3) if m.name == "rot90")
    assert rot90((0, 0)) == (0, 2) and rot90((0, 2)) == (2, 2)  # clockwise: top-left to top-right
    assert rot90.rect((0, 0, 1, 2)) == (0, 2, 2, 1)  # a flat domino at the top-left stands at the right


def test_the_start_square_on_an_axis_keeps_the_motions_that_fix_it():
    corner = TOUR.symmetry.groups["symmetry"](TOUR.parse("5x5", {"start": "0,0"}))
    assert corner.names == ["identity", "transpose"] and "move the start square" in corner.note
    middle = TOUR.symmetry.groups["symmetry"](TOUR.parse("5x5", {"start": "2,2"}))
    assert len(middle) == 8 and "reverse" not in " ".join(middle.names)
    edge = TOUR.symmetry.groups["symmetry"](TOUR.parse("5x6", {"start": "2,0"}))
    assert edge.names == ["identity", "mirror-ud"]
    closed = TOUR.symmetry.groups["symmetry"](TOUR.parse("6x6", {"closed": "true", "start": "0,1"}))
    assert len(closed) == 16 and closed.note is None  # a closed tour's start is only where it is written


def test_a_shikaku_whose_clues_are_not_symmetric_keeps_only_the_identity():
    group = SHIKAKU.symmetry.groups["symmetry"](SHIKAKU.parse("seed", {}))
    assert group.names == ["identity"] and "move the clues" in group.note


def test_prime_grid_symmetry_encoding_counts_leaders_without_listing_orbits():
    grid = PRIME.parse("4x4", {"max": "16"})
    leaders = orbits_of(PRIME, grid, "sat", up_to="symmetry")
    assert sum(1 for _ in leaders) == 374 and leaders.leaders
    assert leaders.run.outcome.count == 374  # the solver's own solutions: one per orbit, none listed
    every = orbits_of(PRIME, grid, "sat", Request(encoding="nosymmetry"), up_to="symmetry")
    assert sum(1 for _ in every) == 374 and not every.leaders and every.run.outcome.count == 2992


def test_a_formulation_that_keeps_two_solutions_of_an_orbit_is_caught():
    def pretend(grid, encoding):  # every filling, each claiming to stand for its own orbit
        formulation = PRIME.cpsat(grid, PRIME.cpsat_encodings.resolve("nosymmetry"))
        return replace(formulation, images=lambda filling: [filling], orbits_of="symmetry")

    liar = replace(PRIME, cpsat=pretend)
    outcome = count_canonical(liar, PRIME.parse("2x3", {}), "cpsat", up_to="symmetry")
    assert outcome.count == 3 and len(outcome.invalid) == 9
    assert "kept two solutions of one orbit" in outcome.invalid[0][1][0]


def broken_tatami() -> gridsat.Puzzle:
    """Tatami whose mirror-lr maps tilings right but leaves the variables alone (so it 'fixes' everything)."""

    def group(room):
        right = TATAMI.symmetry.groups["symmetry"](room)
        wrong = [replace(e, key=lambda k: k) if e.name == "mirror-lr" else e for e in right.elements]
        return Group(tuple(wrong))

    return replace(TATAMI, symmetry=Symmetry({"symmetry": group}))


def test_a_wrong_key_map_makes_burnside_disagree_loudly():
    bad = broken_tatami()
    room = bad.parse("3x4", {})
    outcome = burnside(bad, room, "cpsat", up_to="symmetry")
    # mirror-lr now 'fixes' all 4 tilings, but the verifier sees that 2 of them are not fixed.
    assert outcome.fixed["mirror-lr"] == 2 and len(outcome.invalid) == 2
    report = crosscheck_orbits(bad, room, configurations(bad, ["cpsat", "reference"], plan=Runs(up_to="symmetry")),
                               up_to="symmetry")
    assert not report.agree and any("fixed points break the rules" in p for p in report.problems)


def test_an_element_that_is_not_a_symmetry_makes_the_orbits_miss_solutions():
    def group(room):  # 'shift': moves every mat one column right, which is no symmetry of the room
        move = Element("shift", lambda t: [[[r, c + 1] for r, c in mat] for mat in t], lambda k: k)
        return Group((TATAMI.symmetry.groups["symmetry"](room).elements[0], move))

    bad = replace(TATAMI, symmetry=Symmetry({"symmetry": group}))
    outcome = count_canonical(bad, bad.parse("3x4", {}), "reference", up_to="symmetry")
    assert outcome.problems and "not closed under the group" in outcome.problems[0]


def test_the_api_takes_up_to_and_method():
    assert gridsat.count("tatami", "3x4", up_to="symmetry").count == 2
    assert gridsat.count("tatami", "3x4", up_to="symmetry", method="burnside", backend="sat").count == 2
    with gridsat.enumerate("knights-tour", "3x4", up_to="symmetry") as orbits:
        found = list(orbits)
    assert sorted(o.size for o in found) == [4, 4, 8] and orbits.outcome.complete
    report = gridsat.crosscheck("tatami", "2x4", up_to="symmetry")
    assert report.agree and {o.method for o in report.outcomes} == {"canonical", "burnside"}
    with pytest.raises(InvalidOption, match="does not apply to puzzle 'prime-grid'"):
        gridsat.count("prime-grid", "3x3", up_to="reversal")
    with pytest.raises(UnknownName, match="'mirror'"):
        gridsat.count("tatami", "3x4", up_to="mirror")
    with pytest.raises(InvalidOption, match="needs up_to"):
        gridsat.count("tatami", "3x4", method="burnside")
    with pytest.raises(InvalidOption, match="only count canonical representatives"):
        gridsat.count("tatami", "3x4", up_to="symmetry", method="burnside", backend="reference")


def test_a_limit_counts_orbits_and_the_representative_is_the_smallest_image():
    outcome = gridsat.count("knights-tour", "3x8", up_to="symmetry", limit=5, backend="sat")
    assert (outcome.count, outcome.complete, outcome.reason) == (5, False, "solution limit")
    group = TOUR.symmetry.groups["symmetry"](TOUR.parse("3x8", {}))
    for orbit in gridsat.enumerate("knights-tour", "3x8", up_to="symmetry", limit=5, backend="sat"):
        images = [e.solution(orbit.solution) for e in group.elements]
        assert orbit.solution == min(images) and orbit.size == len({json.dumps(i) for i in images})


def test_cli_prints_what_was_counted():
    assert run_cli("count", "tatami", "3x4", "--up-to", "symmetry").stdout == "2 (up to symmetry; group of 4)\n"
    undirected = run_cli("count", "knights-tour", "3x4", "--up-to", "reversal").stdout
    assert undirected == "8 (tours: undirected; group of 2)\n"
    done = run_cli("count", "knights-tour", "3x4", "--up-to", "symmetry", "--method", "burnside", "--json")
    record = json.loads(done.stdout)
    assert {k: record[k] for k in ("count", "up_to", "group", "method", "tours", "solutions")} == {
        "count": 3, "up_to": "symmetry", "group": 8, "method": "burnside", "tours": "up to symmetry", "solutions": 16}
    assert sum(record["fixed"].values()) == 24 and record["fixed"]["identity"] == 16


def test_cli_names_the_group_it_shrank():
    done = run_cli("count", "knights-tour", "5x5", "-p", "start=0,0", "--up-to", "symmetry")
    assert done.stdout == "152 (tours: up to symmetry; group of 2)\n" and done.returncode == 0
    assert "gridsat: note: 2 of 16 symmetries kept (identity, transpose)" in done.stderr
    check = run_cli("crosscheck", "knights-tour", "3x4", "-p", "start=1,1", "--up-to", "symmetry", "--backends",
                    "cpsat,sat")
    assert check.returncode == 0 and "note: 2 of 8 symmetries kept (identity, mirror-ud)" in check.stdout


@pytest.mark.parametrize("args, named", [
    (["count", "tatami", "3x4", "--up-to", "reversal"], "'tatami'"),
    (["enumerate", "shikaku", "seed", "--up-to", "reversal"], "'shikaku'"),
    (["crosscheck", "prime-grid", "2x2", "--up-to", "reversal"], "'prime-grid'"),
    (["count", "tatami", "3x4", "--up-to", "sideways"], "'sideways'"),
    (["count", "tatami", "3x4", "--method", "burnside"], "needs --up-to"),
    (["count", "tatami", "3x4", "--up-to", "symmetry", "--method", "burnside", "--limit", "1"], "solution limit"),
    (["count", "tatami", "3x4", "--up-to", "symmetry", "--method", "burnside", "--backend", "reference"],
     "'reference'"),
])
def test_cli_orbit_options_reject_what_does_not_apply_in_one_line(args, named):
    done = run_cli(*args)
    assert done.returncode == 2 and named in done.stderr and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_cli_enumerate_prints_one_representative_per_orbit_with_its_size():
    lines = run_cli("enumerate", "tatami", "3x4", "--up-to", "symmetry", "--format", "jsonl").stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r.get("orbit_size") for r in records[:-1]] == [2, 2]
    assert records[-1]["summary"]["count"] == 2 and records[-1]["summary"]["orbit_sizes"] == {"2": 2}
    text = run_cli("enumerate", "tatami", "3x4", "--up-to", "symmetry").stdout
    assert "# orbit 2 (2 solutions)" in text and "# 2 orbits (up to symmetry; group of 4; complete)" in text


def test_cli_crosscheck_agrees_on_tatami_3x10_and_fails_loudly_on_a_wrong_group(monkeypatch):
    done = run_cli("crosscheck", "tatami", "3x10", "--up-to", "symmetry")
    # cpsat, sat and the frontier (on folds of the room) count orbits by Burnside's lemma
    assert done.returncode == 0 and "6 runs agree: 5 orbits (up to symmetry; group of 4)" in done.stdout
    assert done.stdout.count(" burnside") == 3 and done.stdout.count(" canonical") == 3  # a long label wraps
    monkeypatch.setattr("gridsat.api.get_puzzle", lambda name: broken_tatami())
    done = run_cli("crosscheck", "tatami", "3x4", "--up-to", "symmetry")
    assert done.returncode == 1 and "DISAGREE:" in done.stdout
