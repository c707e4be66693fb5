"""The collector pauses of a certified run (solvers.proof.heap) hide nothing from it for good."""
from __future__ import annotations

import gc

import pytest

import gridsat
from gridsat.solvers.proof.heap import settle, uncollected


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_restored_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with uncollected(settled=True):
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(ValueError), uncollected():
            raise ValueError
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_cycle_settled_is_still_collected() -> None:
    class Node:
        pass

    gc.collect()
    with uncollected(settled=True):
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
    assert gc.get_freeze_count() == 0
    del a, b
    assert gc.collect() >= 2  # the two nodes (and their dicts): settling froze nothing for good
    settle()
    assert gc.get_freeze_count() == 0


def test_a_run_that_is_not_split_keeps_no_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """A certified count with ``Split(jobs=1)`` (the command line's default) is one plain search: its
    certificate is judged in memory, not written to a scratch folder to be judged whole."""
    import gridsat.certification as certification

    def refused(*args: object) -> None:
        raise AssertionError("a scratch folder for a run that is not split")

    monkeypatch.setattr(certification, "kept_somewhere", refused)
    outcome = gridsat.count("tatami", "3x4", backend="sat", certify=True, split=gridsat.Split(jobs=1))
    assert outcome.details["certified"] is True
