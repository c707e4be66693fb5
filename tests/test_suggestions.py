""""Did you mean": an unknown name comes back with the closest valid ones, and an encoding of the other
formulation with the backend that takes it, in the one line of the error."""

from __future__ import annotations

import pytest

from conftest import gridsat
from gridsat.models.errors import UnknownName, closest


@pytest.mark.parametrize(("args", "line"), [
    (["count", "Tatami", "3x4"], "unknown puzzle 'Tatami'; did you mean 'tatami'? valid: tatami, "),
    (["count", "knights_tour", "3x4"], "unknown puzzle 'knights_tour'; did you mean 'knights-tour'? valid: "),
    (["count", "tatami", "3x4", "--backend", "SAT"], "unknown backend 'SAT'; did you mean 'sat'? valid: cpsat, "),
    (["count", "tatami", "3x4", "--backend", "sat", "--solver", "cadical"],
     "unknown solver 'cadical'; did you mean 'cadical"),
    (["count", "tatami", "3x4", "--backend", "sat", "--encoding", "ladder+seqcountr"],
     "unknown encoding 'ladder+seqcountr' for the CNF of tatami; did you mean 'seqcounter'? "
     "valid: mats, directions, pairwise, "),
    (["count", "prime-grid", "3x3", "-p", "mx=3"], "unknown parameter 'mx'; did you mean 'max'? valid: max, min"),
    (["count", "tatami", "3x4", "--encoding", "seqcounter"],
     "unknown encoding 'seqcounter' for the CP-SAT model of tatami; valid: mats, directions, nosymmetry, symmetry; "
     "'seqcounter' is a sat encoding: choose backend sat"),
    (["count", "prime-grid", "3x3", "--backend", "sat", "--encoding", "boolean+parity"],
     "'boolean+parity' is a cpsat encoding: choose backend cpsat"),
])
def test_an_unknown_name_comes_with_a_suggestion(args: list[str], line: str) -> None:
    done = gridsat(*args)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert line in done.stderr, done.stderr


def test_suggestions_fold_case_and_dashes_first_then_take_close_names() -> None:
    assert closest("KNIGHTS_TOUR", ["tatami", "knights-tour"]) == ["knights-tour"]
    assert closest("cadical", ["cadical195", "glucose4", "cadical103"]) == ["cadical195", "cadical103"]
    assert closest("zchaff", ["cadical195", "glucose4"]) == []
    assert str(UnknownName("suite", "nope", ["smoke", "seeds"])) == "unknown suite 'nope'; valid: smoke, seeds"
    assert "did you mean 'smoke'?" in str(UnknownName("suite", "smok", ["smoke", "seeds"]))
    # a huge name is compared quickly, and suggests nothing
    assert closest("x" * 100_000, ["tatami"]) == []
