"""The encodings atlas: every at-most-one encoding's declared size and strength agree with the clauses
written and with ``gridsat strength``; a wrong declaration is caught; the docs build writes the atlas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT, gridsat
from gridsat.models.constraints import amo
from gridsat.solvers.strength import CASES, Claim, Constraint, Strength, atlas, strength, strengths


@pytest.fixture(scope="module")
def cardinality() -> list[Strength]:
    return atlas.cardinality_strengths()


@pytest.mark.slow
def test_every_declared_size_and_strength_agrees_with_the_code(cardinality: list[Strength]) -> None:
    assert atlas.disagreements(cardinality) == []
    declared = {name for name, d in amo.DECLARED.items() if d.size is not None}
    assert declared >= set(amo.ENCODINGS) - {"mtotalizer"}  # the modulo totalizer has no closed form here
    assert all(s.holds and s.exhaustive and s.upto == 10 for s in cardinality)


def split(formula, lits: list[int]) -> None:  # noqa: ANN001
    """A correct at-most-one that propagation cannot use: each pair's clause split on a fresh variable z,
    (-a -b z) and (-a -b -z), whose resolvent (-a -b) is never written."""
    for i, a in enumerate(lits):
        for b in lits[i + 1:]:
            z = formula.aux()
            formula.clauses.extend([[-a, -b, z], [-a, -b, -z]])


@pytest.fixture
def planted() -> Iterator[str]:
    """A plugin's at-most-one, registered after gridsat loaded, declaring a wrong size and a wrong strength."""
    name = "test-split"
    amo.encoding(name, amo.Declared("a planted bug", "0; n(n-1)/2", lambda n: (0, n * (n - 1) // 2)))(split)
    try:
        yield name
    finally:
        del amo.ENCODINGS[name], amo.DECLARED[name]
        for group in ("at-most-one", "exactly-one"):
            CASES.pop(f"{group} {name}", None)


@pytest.mark.slow
def test_a_wrong_declaration_is_caught_and_a_plugins_encoding_is_checked(planted: str) -> None:
    assert atlas.size_disagreements(planted, amo.DECLARED[planted])[0] == (
        f"{planted} at n = 3: declared (0, 3), measured (3, 6)")
    done = gridsat("strength", f"at-most-one {planted}", "-k", "10", "--json")
    (record,) = json.loads(done.stdout)
    assert record["holds"] is False and record["exhaustive"] and record["uc"] is True
    assert record["witness"]["assignment"] == ["x0"] and record["witness"]["missed"] == "-x1"
    found = strengths([f"at-most-one {planted}", f"exactly-one {planted}"], 10)
    assert [line.split(":")[0] for line in atlas.strength_disagreements(found)] == [
        f"at-most-one {planted}", f"exactly-one {planted}"]


@pytest.mark.slow
def test_the_docs_build_writes_the_atlas_the_encodings_page_includes(tmp_path: Path,
                                                                    cardinality: list[Strength]) -> None:
    files = {path.name: path.read_text(encoding="utf-8") for path in atlas.write(tmp_path, cardinality, k=1)}
    assert set(files) == {"atlas-amo.md", "atlas-claims.md"}
    rows = [line for line in files["atlas-amo.md"].splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows[1:]] == list(amo.DECLARED)  # under the header
    assert "| `bitwise` |" in files["atlas-amo.md"] and "2,401" in files["atlas-amo.md"]  # totalizer at n = 64
    claims = [line for line in files["atlas-claims.md"].splitlines() if line.startswith("| ") and "---" not in line]
    assert len(claims) - 1 == sum(not name.startswith(("at-most-one ", "exactly-one ")) for name in CASES)
    assert any(row.startswith("| tour cutset |") and "subtour elimination: not checked" in row for row in claims)
    page = (ROOT / "docs" / "explanation" / "encodings.md").read_text(encoding="utf-8")
    assert "```{include} ../_build/generated/atlas-amo.md" in page
    assert "```{include} ../_build/generated/atlas-claims.md" in page
    assert "atlas.write(GENERATED)" in (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")


@pytest.mark.slow
def test_every_other_claim_declares_a_strength_the_checker_does_not_contradict() -> None:
    found = atlas.other_strengths()
    assert all(s.case.claimed for s in found)
    assert atlas.strength_disagreements(found) == []
    confirmed = [s.case.name for s in found if atlas.confirmation(s).endswith(": confirmed")]
    assert {"tour cutset", "tour transitive", "tour binary", "prime-grid all-different hall", "lex-leader"} <= set(
        confirmed)


@pytest.mark.parametrize(("claimed", "clauses", "contradicted"), [
    ("propagation-complete", [[1, 2], [1, -2]], True),  # 1 is implied with nothing set, and not propagated
    ("not propagation-complete", [[-1, 2]], True),  # a binary clause misses nothing
    ("propagation-complete", [[-1, 2]], False),
    ("not propagation-complete", [[1, 2], [1, -2]], False),
])
def test_a_declared_strength_the_checker_refutes_is_caught(claimed: str, clauses: list[list[int]],
                                                          contradicted: bool) -> None:
    case = Claim("test declared", "propagation", lambda: [Constraint(clauses, [1, 2])], claimed=claimed)
    found = strength(case, 2)
    assert atlas.contradicted(found) is contradicted
    assert bool(atlas.strength_disagreements([found])) is contradicted
    assert atlas.confirmation(found) == f"{claimed}: " + ("**contradicted**" if contradicted else "confirmed")
