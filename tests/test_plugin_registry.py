"""Open registries: an at-most-one encoding a plugin registers reaches the built-in puzzles whenever it is
registered, after a puzzle was built and counted too, and with it ``gridsat list``, ``gridsat strength``
and the cross-check's ``each``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import gridsat
from gridsat.cli import main
from gridsat.models.constraints import amo as amo_package
from gridsat.plugin import amo
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
