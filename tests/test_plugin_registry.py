"""Open registries: an at-most-one, domain, tour or symmetry-breaking encoding a plugin registers reaches the
built-in puzzles whose axis offers that kind whenever it is registered, after a puzzle was built and counted
too, and with it ``gridsat list``, ``gridsat strength`` (where it has a case family), the cross-check's
``each`` and fuzz."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import gridsat
from gridsat.cli import main
from gridsat.models import get_puzzle
from gridsat.models.constraints import amo as amo_package
from gridsat.plugin import amo
from gridsat.solvers.checks.fuzz import plan
from gridsat.solvers.strength import CASES, strengths

TATAMI_4X7 = 3  # models/golden/tatami.toml: the 4x7 board has 3 tatami tilings


def pairs(formula: gridsat.plugin.Formula, lits: list[int]) -> None:
    """The pairwise at-most-one, written here as a plugin would: one binary clause per pair."""
    for i, a in enumerate(lits):
        for b in lits[i + 1:]:
            formula.add([-a, -b])


def nothing(formula: gridsat.plugin.Formula, lits: list[int]) -> None:
    """A broken at-most-one: it writes no clause, so every count it takes part in grows."""


def split(formula: gridsat.plugin.Formula, lits: list[int]) -> None:
    """A correct at-most-one that unit propagation cannot use: a true ``a`` leaves ``z1 or z2`` open, so the
    ``not b`` it implies (b would falsify both z) is found only by a case split."""
    for i, a in enumerate(lits):
        for b in lits[i + 1:]:
            z1, z2 = formula.aux(), formula.aux()
            formula.extend([[-a, z1, z2], [-z1, -b], [-z2, -b]])


@pytest.fixture
def registered() -> Iterator[list[str]]:
    """Register the encodings a test names (in ``names``), and take them back after it."""
    names: list[str] = []
    yield names
    for name in names:
        del amo.ENCODINGS[name]
        for key in [k for k in amo_package._sizes if k[0] == name]:
            del amo_package._sizes[key]


def test_an_encoding_registered_after_a_count_is_one_of_the_built_in_puzzles_choices(
        registered: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert gridsat.count("tatami", "4x7", backend="sat").count == TATAMI_4X7  # the axis is built and used first
    with pytest.raises(gridsat.GridsatError, match="mypairs"):
        gridsat.count("tatami", "4x7", backend="sat", encoding="mypairs")
    amo.encoding("mypairs")(pairs)
    registered.append("mypairs")
    outcome = gridsat.count("tatami", "4x7", backend="sat", encoding="mypairs")
    assert (outcome.count, outcome.complete) == (TATAMI_4X7, True)
    assert "mypairs" in outcome.encoding
    tatami = next(p for p in gridsat.api.listing()["puzzles"] if p["name"] == "tatami")
    assert "mypairs" in tatami["cnf_encodings"]["amo"] and "mypairs" in gridsat.api.listing()["amo_encodings"]
    assert main(["strength", "--list", "at-most-one"]) == 0
    assert "at-most-one mypairs" in capsys.readouterr().out
    report = gridsat.crosscheck("tatami", "4x7", backends=["sat"], encodings="each")
    assert report.agree and any("mypairs" in o.encoding for o in report.outcomes)


def test_a_broken_plugin_encoding_is_caught_and_a_weak_one_is_found_weak(
        registered: list[str]) -> None:
    amo.encoding("mynothing")(nothing)
    registered.append("mynothing")
    # 3x4: every one of the 2^17 assignments of its 17 mats is a model, all but the 4 tilings refused
    outcome = gridsat.count("tatami", "3x4", backend="sat", encoding="mynothing", time_limit=30)
    assert outcome.invalid and "covered twice" in str(outcome.invalid[0][1])
    report = gridsat.crosscheck("tatami", "3x4", backends=["sat", "reference"], encodings="each", time_limit=30)
    assert not report.agree and any("mynothing" in problem for problem in report.problems)
    amo.encoding("mysplit")(split)
    registered.append("mysplit")
    assert gridsat.count("tatami", "4x7", backend="sat", encoding="mysplit").count == TATAMI_4X7
    (found,) = strengths(["at-most-one mysplit"], k=2)
    assert not found.holds and found.witness is not None
    assert "exactly-one mysplit" in CASES


def test_an_encoding_is_registered_once(registered: list[str]) -> None:
    amo.encoding("mypairs")(pairs)
    registered.append("mypairs")
    with pytest.raises(ValueError, match="mypairs.*twice"):
        amo.encoding("mypairs")(pairs)
    with pytest.raises(ValueError, match="needs"):
        amo.encoding("other", needs=("a quantum computer",))


def test_a_plugin_encoding_that_needs_cnf_plus_runs_only_where_cnf_plus_is_taken(registered: list[str]) -> None:
    """What an encoding needs is declared once and checked by the gate, for a plugin's encoding as for ``native``."""

    @amo.encoding("mycard", needs=(amo.CNF_PLUS,))
    def card(formula: gridsat.plugin.Formula, lits: list[int]) -> None:
        formula.atmost(lits, 1)

    registered.append("mycard")
    with pytest.raises(gridsat.GridsatError, match=r"the mycard at-most-one encoding is CNF\+.*solver 'cadical195' "
                                                   r"cannot take: choose backend sat with solver minicard"):
        gridsat.count("tatami", "4x7", backend="sat", encoding="mycard")
    assert gridsat.count("tatami", "4x7", backend="sat", encoding="mycard", solver="minicard").count == TATAMI_4X7
    report = gridsat.crosscheck("tatami", "4x7", backends=["sat"], encodings="each")
    assert report.agree and "mats+mycard+nosymmetry/minicard" in [o.encoding for o in report.outcomes]


def test_a_domain_encoding_registered_late_is_a_choice_of_prime_grid() -> None:
    """The ``domain`` axis is open too: a plugin's integer encoding (here the order encoding under another
    name, so its count must be prime-grid's) is one of prime-grid's CNF choices once registered."""
    from gridsat.plugin import domains

    before = gridsat.count("prime-grid", "3x3", params={"max": 10}, backend="sat", encoding="order")
    domains.domain("myorder")(type("MyOrder", (domains.OrderInt,), {}))
    try:
        again = gridsat.count("prime-grid", "3x3", params={"max": 10}, backend="sat", encoding="myorder")
        grid = next(p for p in gridsat.api.listing()["puzzles"] if p["name"] == "prime-grid")
        assert "myorder" in grid["cnf_encodings"]["domain"]
    finally:
        del domains.DOMAINS["myorder"]
    assert again.count == before.count and again.complete and "myorder" in again.encoding


KNIGHTS_3X4 = 16  # models/golden/knights_tour.toml: 16 directed open tours of 3x4 (OEIS A169696)
TATAMI_3X4 = 4  # models/golden/tatami.toml: the 3x4 room has 4 tilings


def test_a_tour_encoding_registered_late_is_a_choice_of_the_knights_tour() -> None:
    """The ``tour`` axes are open: a plugin's CNF tour encoding (here Heule's residues under another name, so
    its count must be the golden one) and CP-SAT one reach the knight's tour after it was counted, and with
    them ``gridsat list`` and the cross-check's ``each``; a broken one is caught."""
    from gridsat.plugin import tours

    assert gridsat.count("knights-tour", "3x4", backend="sat").count == KNIGHTS_3X4
    with pytest.raises(gridsat.GridsatError, match="myresidues"):
        gridsat.count("knights-tour", "3x4", backend="sat", encoding="myresidues")

    @tours.cnf_tour("myresidues")
    def residues(circuit: tours.Circuit, formula: gridsat.plugin.Formula, root: int, amo_name: str) -> None:
        circuit.forbid_two_cycles(formula)
        circuit.residues(formula, root, amo_name)

    tours.cpsat_tour("mycircuit")(lambda model, arcs, size, root: model.AddCircuit(list(arcs)))
    tours.cnf_tour("mynothing")(lambda circuit, formula, root, amo_name: None)  # subtours left in
    try:
        assert gridsat.count("knights-tour", "3x4", backend="sat", encoding="myresidues").count == KNIGHTS_3X4
        assert gridsat.count("knights-tour", "3x4", backend="cpsat", encoding="mycircuit").count == KNIGHTS_3X4
        tour = next(p for p in gridsat.api.listing()["puzzles"] if p["name"] == "knights-tour")
        assert tour["cnf_encodings"]["tour"][-2:] == ["myresidues", "mynothing"]
        assert tour["cpsat_encodings"]["tour"] == ["circuit", "mtz", "mycircuit"]
        broken = gridsat.count("knights-tour", "3x4", backend="sat", encoding="mynothing")
        assert broken.invalid and "never visited" in str(broken.invalid[0][1])  # subtours, refused by the verifier
        report = gridsat.crosscheck("knights-tour", "3x4", backends=["sat", "cpsat"], encodings="each")
        ran = [o.encoding for o in report.outcomes]
        assert any("myresidues" in e for e in ran) and any("mycircuit" in e for e in ran)
        assert not report.agree and all("mynothing" in problem for problem in report.problems)
        fuzzed = [c.request.encoding or "" for c in plan(get_puzzle("knights-tour"), random.Random(0))]
        assert any("myresidues" in e for e in fuzzed) and any("mycircuit" in e for e in fuzzed)
    finally:
        del tours.CNF_TOURS["myresidues"], tours.CNF_TOURS["mynothing"], tours.CPSAT_TOURS["mycircuit"]


def test_a_symmetry_breaking_encoding_registered_late_reaches_every_puzzle_with_its_group(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The ``symmetry`` axis is open: a plugin's comparison (here lex_leq under another name, so it keeps one
    solution per orbit and every count is the golden one) reaches tatami and the knight's tour (both declare
    the ``symmetry`` group), not prime-grid (whose leaders are its own), and ``gridsat strength``; one that
    breaks nothing lists every orbit once per member, and the run sees the repeats."""
    from gridsat.plugin import symmetry_breaking as breaking

    assert gridsat.count("tatami", "3x4", backend="sat", encoding="symmetry").count == TATAMI_3X4
    breaking.encoding("mylex")(breaking.lex_leq)
    breaking.encoding("mynone")(lambda sink, xs, ys: 0)
    try:
        for backend in ("sat", "cpsat"):
            outcome = gridsat.count("tatami", "3x4", backend=backend, encoding="mylex")
            assert (outcome.count, outcome.complete, outcome.duplicates) == (TATAMI_3X4, True, 0)
        assert gridsat.count("knights-tour", "3x4", backend="sat", encoding="mylex").count == KNIGHTS_3X4
        listing = {p["name"]: p for p in gridsat.api.listing()["puzzles"]}
        assert "mylex" in listing["shikaku"]["cnf_encodings"]["symmetry"]
        assert "mylex" not in listing["prime-grid"]["cnf_encodings"]["symmetry"]
        assert main(["strength", "--list", "lex-leader"]) == 0
        assert "lex-leader mylex" in capsys.readouterr().out
        assert any("mylex" in (c.request.encoding or "") for c in plan(get_puzzle("shikaku"), random.Random(0)))
        assert gridsat.count("tatami", "3x4", backend="sat", encoding="mynone").duplicates > 0
        with pytest.raises(ValueError, match="mylex.*twice"):
            breaking.encoding("mylex")(breaking.lex_leq)
    finally:
        del breaking.BREAKINGS["mylex"], breaking.BREAKINGS["mynone"]
    with pytest.raises(gridsat.GridsatError, match="mylex"):
        gridsat.count("tatami", "3x4", backend="sat", encoding="mylex")
