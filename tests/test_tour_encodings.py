"""The added tour encodings: CNF ``transitive`` (Velev and Gao) and ``distance`` (Zhou), CP-SAT ``mtz``.

Counts against models/golden/knights_tour.toml, the sizes their docstrings state, and the pieces they
stand on (the chordal completion, the pruned domains); the cross-checks of tests/test_knights_tour.py
run them too (they are choices of the encoding axes).
"""

from __future__ import annotations

import itertools
import random

import pytest

from conftest import execute, golden, gridsat
from gridsat.models import get_puzzle
from gridsat.models.constraints import origins_of
from gridsat.models.constraints.distances import domains, shortest
from gridsat.models.constraints.elimination import chordal_edges, eliminate, triangles
from gridsat.models.knights_tour.board import verify
from gridsat.models.knights_tour.cnf import MAX_CLAUSES, clauses_estimate, elimination, root_node, tour_circuit
from gridsat.solvers.backend import Request

TOUR = get_puzzle("knights-tour")
FAST = [entry for entry in golden("knights_tour")["count"] if not entry.get("slow")]


def entry_id(entry: dict) -> str:
    return TOUR.describe(TOUR.parse(entry["board"], entry["params"]))


@pytest.mark.parametrize("backend, encoding", [("sat", "transitive"), ("sat", "distance"), ("cpsat", "mtz")])
@pytest.mark.parametrize("entry", FAST, ids=entry_id)
def test_golden_counts(entry, backend, encoding):
    board = TOUR.parse(entry["board"], entry["params"])
    outcome = execute(TOUR, board, backend, Request(encoding=encoding))
    assert (outcome.count, outcome.complete, outcome.invalid, outcome.duplicates) == (entry["count"], True, [], 0)


@pytest.mark.parametrize("backend, encoding", [("sat", "transitive"), ("sat", "distance"), ("cpsat", "mtz")])
def test_five_by_six_closed_tours_from_the_middle(backend, encoding):
    """16 directed closed tours on 5x6, as every other method counts them (test_knights_tour's cross-check)."""
    board = TOUR.parse("5x6", {"closed": "true", "start": "2,2"})
    outcome = execute(TOUR, board, backend, Request(encoding=encoding), keep=True)
    assert (outcome.count, outcome.complete, outcome.duplicates) == (16, True, 0)
    assert all(verify(board, tour) == [] for tour in outcome.solutions)


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["transitive", "distance"])
def test_six_by_six_closed_count(encoding):
    outcome = execute(TOUR, TOUR.parse("6x6", {"closed": "true"}), "sat", Request(encoding=encoding))
    assert (outcome.count, outcome.complete, outcome.duplicates) == (19724, True, 0)


def random_graph(size: int, edges: int, seed: int) -> dict[int, list[int]]:
    rng = random.Random(seed)
    pairs = rng.sample(list(itertools.combinations(range(size), 2)), edges)
    near: dict[int, set[int]] = {v: set() for v in range(size)}
    for a, b in pairs:
        near[a].add(b)
        near[b].add(a)
    return {v: sorted(ns) for v, ns in near.items()}


@pytest.mark.parametrize("seed", range(6))
def test_elimination_makes_a_chordal_completion_and_lists_each_triangle_once(seed):
    graph = random_graph(12, 20, seed)
    order = eliminate(graph)
    assert sorted(v for v, _ in order) == list(range(12))
    filled = set(chordal_edges(order))
    assert {(min(a, b), max(a, b)) for a, ns in graph.items() for b in ns} <= filled
    position = {v: i for i, (v, _) in enumerate(order)}
    for v, later in order:  # a perfect elimination order: the later neighbours are a clique
        assert all(position[w] > position[v] for w in later)
        assert all((a, b) in filled for a, b in itertools.combinations(later, 2))
    brute = sum(1 for a, b, c in itertools.combinations(range(12), 3)
                if {(a, b), (a, c), (b, c)} <= filled)
    assert triangles(order) == brute


@pytest.mark.parametrize("text, params", [("6x6", {"closed": "true"}), ("5x5", {}), ("4x5", {"start": "0,0"})])
def test_transitive_writes_the_clauses_its_docstring_counts(text, params):
    """One ``before`` variable per pair of the completion; two clauses per triangle; one per arc off the root."""
    board = TOUR.parse(text, params)
    formulation = TOUR.cnf(board, TOUR.cnf_encodings.resolve("transitive"))
    families = [o.family.split(":")[-1] for o in origins_of(formulation)]
    order = elimination(board)
    root = root_node(board)
    circuit = tour_circuit(board, formulation.pool)
    cycles = (families.count("no ordering cycle x<y<z<x"), families.count("no ordering cycle x<z<y<x"))
    assert cycles == (triangles(order), triangles(order))
    assert families.count("an arc orders its ends") == sum(1 for t, h, _ in circuit.arcs if root not in (t, h))
    befores = [k for k in formulation.pool.obj2id if k[0] == "before"]
    assert len(befores) == len(chordal_edges(order))


@pytest.mark.parametrize("text, params", [("5x6", {"closed": "true"}), ("5x5", {"start": "0,0"}), ("3x4", {})])
def test_every_tour_position_lies_in_its_pruned_domain(text, params):
    """Zhou's pruning loses no tour: each square's position (from the root) is in its domain, and the
    domain starts at the square's shortest knight distance from the first square."""
    board = TOUR.parse(text, params)
    circuit = tour_circuit(board, TOUR.cnf(board, TOUR.cnf_encodings.resolve("crt")).pool)
    root = root_node(board)
    values, ahead = domains(circuit, root), shortest(circuit, root)
    assert all(values[node].start == ahead[node] for node in range(circuit.size))
    outcome = execute(TOUR, board, "sat", Request(encoding="cutset"), keep=True)
    assert outcome.solutions
    offset = 0 if board.closed else 1  # an open tour's first square follows the dummy node
    for tour in outcome.solutions:
        for step, (r, c) in enumerate(tour):
            assert step + offset in values[r * board.cols + c], (tour, (r, c))


def test_distance_prunes_positions_and_arcs():
    board = TOUR.parse("8x8", {"closed": "true"})
    sizes = {name: TOUR.cnf(board, TOUR.cnf_encodings.resolve(name)).size() for name in ("distance", "rank")}
    assert sizes["distance"]["variables"] < sizes["rank"]["variables"] / 1.8  # parity halves, distances trim
    assert sizes["distance"]["clauses"] < sizes["rank"]["clauses"] / 1.8
    values = domains(tour_circuit(board, TOUR.cnf(board, TOUR.cnf_encodings.resolve("crt")).pool), root_node(board))
    corner = values[63]  # h8, six knight moves from a1 (and back)
    assert (corner.start, corner[-1], corner.step) == (6, 64 - 6, 2)
    # On a 3x4 board, from a corner: arcs no position fits are false up front (unit clauses).
    small = TOUR.parse("3x4", {"start": "0,0"})
    assert any(len(c) == 1 for c in TOUR.cnf(small, TOUR.cnf_encodings.resolve("distance")).cnf.clauses)


@pytest.mark.parametrize("text, params", [("5x5", {"start": "0,0"}), ("6x6", {"closed": "true"})])
def test_mtz_has_the_constraints_its_docstring_counts(text, params):
    board = TOUR.parse(text, params)
    formulation = TOUR.cpsat(board, TOUR.cpsat_encodings.resolve("mtz"))
    families = [o.family.split(":")[-1] for o in origins_of(formulation)]
    nodes = board.area + (0 if board.closed else 1)
    circuit = tour_circuit(board, TOUR.cnf(board, TOUR.cnf_encodings.resolve("crt")).pool)
    off_root = sum(1 for _, head, _ in circuit.arcs if head != root_node(board))
    assert families.count("one arc out of every node") == families.count("one arc into every node") == nodes
    assert families.count("MTZ, an arc's head ranks above its tail") == off_root
    assert families.count("an arc's head ranks at most one above its tail") == off_root


@pytest.mark.parametrize("encoding", ["transitive", "distance"])
def test_size_estimates_are_close(encoding):
    for text, params in [("8x8", {}), ("8x8", {"closed": "true"}), ("10x10", {"start": "0,0"})]:
        board, chosen = TOUR.parse(text, params), TOUR.cnf_encodings.resolve(encoding)
        built = len(TOUR.cnf(board, chosen).cnf.clauses)
        assert 0.5 < clauses_estimate(board, chosen) / built < 2, (text, encoding)


@pytest.mark.parametrize("encoding", ["transitive", "distance"])
def test_oversized_tour_encodings_are_refused_in_one_line(encoding):
    done = gridsat("solve", "knights-tour", "50x50", "--backend", "sat", "--encoding", encoding)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
    assert encoding in done.stderr and f"{MAX_CLAUSES:,}" in done.stderr


def test_tour_axis_names_each_model_and_refuses_the_other_backends_names():
    assert TOUR.cpsat_encodings.axes[0].choices == ("circuit", "mtz")
    done = gridsat("solve", "knights-tour", "5x5", "--encoding", "transitive")
    assert done.returncode == 2 and "backend sat" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_side_by_side_benchmark_prints_one_table_and_the_winners(monkeypatch, capsys):
    from gridsat.benchmarks.compare import tour_encodings

    monkeypatch.setattr(tour_encodings, "TOURS", [("6x6", {})])
    tour_encodings.main(["--tour-limit", "20", "--count-limit", "0.5"])
    out = capsys.readouterr().out
    labels = [f"cpsat:{e}" for e in ("circuit", "mtz")] + [f"sat:{e}" for e in TOUR.cnf_encodings.axes[0].choices]
    rows = [line.split()[:3] for line in out.splitlines() if line.startswith("6x6 ") and ": " not in line]
    assert sorted(r[2 if r[1] == "closed" else 1] for r in rows) == sorted(labels * 2), out  # tour and count rows
    assert out.count("vs cpsat:circuit") == 1 and "WRONG" not in out and "time limit" in out
    assert "6x6: fastest " in out and "6x6 closed: " in out


def test_transitive_propagation_falsifies_the_arc_that_would_close_a_subtour():
    """The docstring's claim: once the arcs of a path avoiding the root are set, unit propagation
    falsifies the arc back to its first square (a chordal completion shortens every cycle to a triangle)."""
    from pysat.solvers import Solver

    board = TOUR.parse("6x6", {"closed": "true"})
    formulation = TOUR.cnf(board, TOUR.cnf_encodings.resolve("transitive"))
    pool, rng, checked = formulation.pool, random.Random(1), 0
    with Solver(name="minisat22", bootstrap_with=formulation.cnf.clauses) as solver:
        for _ in range(100):
            path = [rng.choice([q for q in board.squares() if q != board.root])]
            while len(path) < 8 and (ahead := [v for v in board.jumps(path[-1]) if v not in path and v != board.root]):
                path.append(rng.choice(ahead))
            for k in range(3, len(path) + 1):
                if path[0] not in board.jumps(path[k - 1]):
                    continue
                arcs = [pool.id(("arc", u, v)) for u, v in zip(path[:k], path[1:k], strict=False)]
                consistent, derived = solver.propagate(assumptions=arcs)
                assert not consistent or -pool.id(("arc", path[k - 1], path[0])) in derived, path[:k]
                checked += 1
    assert checked > 30
