"""Prime-sum grids: parsing, the verifier, symmetry and parity, golden counts and cross-checks."""

from __future__ import annotations

import pytest

from conftest import LISTING, execute, golden
from gridsat.models import get_puzzle
from gridsat.models.errors import InvalidInstance, UnknownEncoding
from gridsat.models.prime_grid.grid import Grid, parse
from gridsat.models.prime_grid.reference import fillings
from gridsat.models.prime_grid.rules import phases
from gridsat.models.prime_grid.solution import render, verify
from gridsat.models.prime_grid.symmetry import leader_orders, orbit, symmetries
from gridsat.solvers.backend import Request
from gridsat.solvers.checks.crosscheck import configurations, crosscheck
from gridsat.solvers.stop import Stop

PRIME_GRID = get_puzzle("prime-grid")
GOLDEN = golden("prime_grid")["count"]
SEED_FILLING = [[1, 2, 5], [4, 3, 8], [7, 10, 9]]  # the first filling in the seed's search order


def grid_of(entry: dict) -> Grid:
    params = {key: str(entry[key]) for key in ("max", "min") if key in entry}
    return parse(entry["grid"], params)


def test_parse_defaults_to_one_more_value_than_cells():
    assert parse("3x3", {}) == Grid(3, 3, 1, 10)
    assert parse("4x5", {"max": "20", "min": "2"}) == Grid(4, 5, 2, 20)
    assert PRIME_GRID.describe(parse("4x4", {"max": "16"})) == "4x4/1..16"


@pytest.mark.parametrize(
    "text, params, message",
    [
        ("3x3", {"max": "ten"}, "max='ten' is not an integer"),
        ("3x3", {"max": "-4"}, "max='-4' must be at least 1"),
        ("3x3", {"min": "-1"}, "min='-1' must be at least 1"),
        ("3x3", {"min": "0"}, "min='0' must be at least 1"),
        ("3x3", {"min": "5", "max": "4"}, "min=5 is larger than max=4"),
        ("3x3", {"size": "3"}, "unknown parameter 'size'"),
        ("3x3", {"max": "1000000"}, "max=1000000 is too large"),
        ("3y3", {}, "bad grid size '3y3'"),
        ("0x3", {}, "must be positive"),
        ("100x100", {"max": "20000"}, "too large"),
    ],
)
def test_bad_instances_are_input_errors_naming_the_value(text, params, message):
    with pytest.raises(InvalidInstance, match=message):
        parse(text, params)


def test_unknown_encoding_lists_the_valid_ones():
    with pytest.raises(UnknownEncoding, match="support"):
        execute(PRIME_GRID, parse("2x2", {}), "sat", Request(encoding="onehot"))


def test_verify_accepts_a_filling_and_names_each_broken_rule():
    grid = parse("3x3", {})
    assert verify(grid, SEED_FILLING) == []
    swapped = [[2, 1, 5], [4, 3, 8], [7, 10, 9]]  # 2+4 = 6
    assert any("2 at [0, 0] and 4 at [1, 0] sum to 6" in p for p in verify(grid, swapped))
    repeated = [[1, 2, 5], [4, 3, 8], [7, 10, 3]]
    assert any("more than once: [3]" in p for p in verify(grid, repeated))
    outside = [[1, 2, 5], [4, 3, 8], [7, 12, 9]]
    assert any("value 12 at [2, 1] is outside 1..10" in p for p in verify(grid, outside))
    assert verify(grid, [[1, 2, 5], [4, 3, 8]]) == [f"expected 3 rows, got {[[1, 2, 5], [4, 3, 8]]!r}"]
    assert "not an integer" in verify(grid, [[1, 2, 5], [4, 3, 8], [7, 10, 9.0]])[0]
    assert "should hold 3 values" in verify(grid, [[1, 2, 5], [4, 3], [7, 10, 9]])[0]
    assert verify(grid, ((1, 2, 5), (4, 3, 8), (7, 10, 9))) == []  # tuples: the same filling


def test_render_aligns_columns():
    assert render(parse("3x3", {}), SEED_FILLING).splitlines() == [" 1  2  5", " 4  3  8", " 7 10  9"]


def test_the_symmetry_group_has_only_distinct_cell_permutations():
    assert len(symmetries(parse("1x1", {}))) == 1
    assert len(symmetries(parse("1x4", {}))) == 2  # a row's vertical flip moves no cell
    assert len(symmetries(parse("3x4", {}))) == 4
    assert len(symmetries(parse("5x5", {}))) == 8
    assert leader_orders(parse("3x3", {})) == [((0, 0), (0, 2)), ((0, 0), (2, 0)), ((0, 0), (2, 2)), ((0, 1), (1, 0))]


def test_an_orbit_holds_every_image_once_and_only_solutions():
    grid = parse("3x3", {})
    images = orbit(grid, SEED_FILLING)
    assert images[0] == SEED_FILLING and len({str(i) for i in images}) == 8
    assert all(verify(grid, image) == [] for image in images)


def test_phases_follow_the_supply_of_odd_and_even_values():
    assert phases(parse("5x5", {"max": "25"})) == (1,)  # 13 cells of (0, 0)'s colour, 13 odd values
    assert phases(parse("4x4", {"max": "16"})) == (1, 0)
    assert phases(parse("3x3", {"max": "8"})) == ()


def test_reference_follows_the_seed_order_and_counts_128():
    found = list(fillings(parse("3x3", {}), Stop()))
    assert len(found) == 128 and found[0] == SEED_FILLING
    assert found == sorted(found)


def golden_run(entry: dict, backend: str):
    """One golden count on one backend: as it is, under the slow marker, or skipped saying why.

    Measured on a loaded two-core machine: 4x5/20 and 4x5/21 take sat 1 s and 5 s, cpsat 5 s and
    16 s, the seed's DFS 10 s and 23 s; 5x5/25 takes 96 s or more on every backend."""
    why = None
    if entry["count"] > 100_000:
        why = "minutes on every backend; python -m gridsat.benchmarks.compare.prime_grid --full checks it"
    elif entry.get("slow") and backend != "sat":
        took = {"cpsat": "5-16 s", "reference": "10-23 s"}[backend]
        size = f"{entry['grid']}/{entry['max']}"
        why = f"{took} on {backend}; python -m gridsat.benchmarks.compare.prime_grid --sizes {size} checks it there"
    marks = [pytest.mark.skip(reason=why)] if why else [pytest.mark.slow] if entry.get("slow") else []
    return pytest.param(entry, backend, marks=marks, id=f"{backend}-{entry['grid']}-{entry.get('max')}")


@pytest.mark.parametrize("entry, backend", [golden_run(e, b) for e in GOLDEN for b in ("cpsat", "sat", "reference")])
def test_golden_counts(entry, backend):
    outcome = execute(PRIME_GRID, grid_of(entry), backend)
    assert (outcome.count, outcome.complete, outcome.invalid, outcome.duplicates) == (entry["count"], True, [], 0)


CROSSCHECK = [("1x1", {}), ("1x3", {}), ("2x2", {}), ("2x3", {}), ("3x2", {"min": "2", "max": "9"}),
              ("3x3", {}), ("3x3", {"max": "9"}), ("3x3", {"max": "8"}), ("3x4", {"max": "12"}),
              ("4x4", {"max": "16"})]


@pytest.mark.parametrize("text, params", [  # 4x4 with 2992 fillings on every encoding: about 8 s
    pytest.param(t, p, id=f"{t}-{p}", marks=[pytest.mark.slow] * (t == "4x4")) for t, p in CROSSCHECK])
def test_crosscheck_every_backend_and_encoding(text, params):
    grid = parse(text, params)
    report = crosscheck(PRIME_GRID, grid, configurations(PRIME_GRID, LISTING, scope="each"))
    counts = {o.label: o.count for o in report.outcomes}
    assert report.agree, f"prime-grid {PRIME_GRID.describe(grid)}: {report.problems}; counts {counts}"
    assert all(o.complete and not o.duplicates for o in report.outcomes), counts
    cnf, cpsat = PRIME_GRID.cnf_encodings, PRIME_GRID.cpsat_encodings
    assert len(report.outcomes) == len(list(cnf.variants())) + len(list(cpsat.variants())) + 1


@pytest.mark.parametrize("text", ["1x2", "2x2", "2x3"])
def test_crosscheck_the_full_product_of_encodings(text):
    report = crosscheck(PRIME_GRID, parse(text, {}), configurations(PRIME_GRID, LISTING, scope="all"))
    assert report.agree, report.problems
    assert all(o.complete and not o.duplicates for o in report.outcomes)


@pytest.mark.parametrize("encoding", ["integer+nosymmetry", "boolean+noparity+nosymmetry"])
def test_cpsat_models_without_orbits_see_every_filling_once(encoding):
    outcome = execute(PRIME_GRID, parse("3x3", {}), "cpsat", Request(encoding))
    assert (outcome.count, outcome.duplicates) == (128, 0)


DOMAINS = ("order", "log", "hall")


def domain_run(entry: dict, domain: str):
    """A golden count on one CNF domain encoding: the quick ones as they are, 4x5/20 under the slow marker."""
    slow = entry.get("slow") and entry["count"] <= 10_000
    marks = [pytest.mark.slow] if slow else [pytest.mark.skip(reason="minutes")] if entry.get("slow") else []
    return pytest.param(entry, domain, marks=marks, id=f"{domain}-{entry['grid']}-{entry.get('max')}")


@pytest.mark.parametrize("entry, domain", [domain_run(e, d) for e in GOLDEN for d in DOMAINS])
def test_golden_counts_on_every_domain_encoding(entry, domain):
    outcome = execute(PRIME_GRID, grid_of(entry), "sat", Request(encoding=domain))
    assert (outcome.count, outcome.complete, outcome.invalid, outcome.duplicates) == (entry["count"], True, [], 0)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("extra", ["+nosymmetry", "+noparity+nosymmetry", "+conflict", "+ladder"])
def test_every_domain_sees_each_filling_once(domain, extra):
    """Without symmetry breaking every filling is one model of the projection (order literals or bits):
    128 fillings, none twice."""
    outcome = execute(PRIME_GRID, parse("3x3", {}), "sat", Request(encoding=domain + extra))
    assert (outcome.count, outcome.complete, outcome.invalid, outcome.duplicates) == (128, True, [], 0)


@pytest.mark.parametrize("domain", DOMAINS)
def test_symmetry_breaking_keeps_one_leader_per_orbit_on_every_domain(domain):
    from gridsat.models.prime_grid.formulations import cnf

    formulation = cnf(parse("3x3", {}), PRIME_GRID.cnf_encodings.resolve(domain))
    assert formulation.orbit_size == 8 and formulation.images is not None
    outcome = execute(PRIME_GRID, parse("3x3", {}), "sat", Request(encoding=domain))
    assert outcome.count == 128


def test_the_domain_encodings_differ_in_size_as_their_formulas_say():
    from gridsat.models.prime_grid.formulations import cnf

    grid = parse("3x3", {})
    sizes = {d: cnf(grid, PRIME_GRID.cnf_encodings.resolve(f"{d}+noparity+nosymmetry")).size()
             for d in ("direct", *DOMAINS)}
    assert sizes["direct"]["variables"] == 9 * 10
    assert sizes["order"]["variables"] == 9 * 9  # x >= v for v = 2..10
    assert sizes["log"]["variables"] == 9 * 4  # four bits for ten values
    assert sizes["hall"]["variables"] > sizes["order"]["variables"]  # the A_ilu and the counters
