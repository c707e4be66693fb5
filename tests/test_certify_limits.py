"""A time limit or Ctrl-C that comes while a finished search is certified: the refutation ends soon, and the
answer, cut short ("at least N"), says nothing certified and keeps no folder."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gridsat as api
from gridsat.solvers.proof import prover, replay
from gridsat.solvers.stop import INTERRUPTED, Stop

pytest.importorskip("numba")


def pigeons(holes: int) -> list[list[int]]:
    """``holes`` + 1 pigeons in ``holes`` holes: unsatisfiable, and thousands of conflicts to refute."""
    from pysat.examples.genhard import PHP

    return [list(clause) for clause in PHP(holes).clauses]


@pytest.mark.parametrize("one_call", [False, True])
def test_a_refutation_looks_at_its_stop_between_slices(monkeypatch: pytest.MonkeyPatch, one_call: bool) -> None:
    monkeypatch.setattr(prover, "SLICE", 50)  # conflicts a call: the stop is looked at long before the end
    clauses = pigeons(7)
    observed = sorted({abs(lit) for clause in clauses for lit in clause})

    def refute(stop: Stop | None) -> prover.Refutation:
        if one_call:  # the cuts' propagator attached (none is asked for: no model exists)
            done = prover.refuted_in_one_call("cadical195", list(clauses), lambda model: [], observed, stop)
            assert done is not None
            return done
        return prover.refutation("cadical195", list(clauses), stop=stop)

    whole = refute(Stop())  # never stopped: slices make the same proof
    assert not whole.stopped and whole.model is None and whole.proof
    stop = Stop()
    stop.request(INTERRUPTED)
    cut = refute(stop)
    assert cut.stopped and not cut.proof and cut.model is None


def test_ctrl_c_while_cpsat_tours_are_certified_leaves_no_verdict_and_no_folder(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Planted: the Ctrl-C comes as CP-SAT's search ends, before the replay refutes the rest."""
    real = replay.CpsatReplay.finish

    def interrupted(self: replay.CpsatReplay, stop: Stop | None = None) -> Any:
        assert stop is not None
        stop.request(INTERRUPTED)
        return real(self, stop)

    monkeypatch.setattr(replay.CpsatReplay, "finish", interrupted)
    folder = tmp_path / "tours"
    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend="cpsat", certify=True, proof=folder)
    assert outcome.complete is False and outcome.reason == INTERRUPTED
    assert outcome.details["certified"] is None and not folder.exists()


def test_an_answer_cut_short_after_its_check_says_nothing_certified(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the Ctrl-C comes just after the check ended, before the reader saw the search end. The count
    then reads "at least 304", which a certificate of exactly 304 must not stand beside."""
    real = replay.CpsatReplay.finish

    def then_interrupted(self: replay.CpsatReplay, stop: Stop | None = None) -> Any:
        verdict = real(self, stop)
        assert verdict is not None and verdict.certified
        assert stop is not None
        stop.request(INTERRUPTED)
        return verdict

    monkeypatch.setattr(replay.CpsatReplay, "finish", then_interrupted)
    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend="cpsat", certify=True)
    assert outcome.complete is False and outcome.details["certified"] is None


def test_ctrl_c_while_a_split_run_is_checked_as_a_whole_gives_its_count_cut_short(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: Ctrl-C while the parts are checked as one (``check_proof``). The count came back "at least 304,
    interrupted", with nothing certified; before, the interrupt left the finished count unprinted."""
    from gridsat import Split, certification

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(certification, "check_proof", interrupted)
    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend="sat", certify=True,
                        split=Split(jobs=2, probe=0, parts=8))
    assert outcome.count == 304 and outcome.complete is False and outcome.reason == INTERRUPTED
    assert outcome.details["certified"] is None and not set(outcome.details) & set(certification.VERDICT[1:])


def test_a_verdict_taken_off_a_cut_short_answer_leaves_none_of_its_keys() -> None:
    from gridsat.certification import VERDICT
    from gridsat.solvers.proof.certificate import Judgement

    refused = Judgement(False, "step 3: not implied", 5, 10, 3, 0.1)
    assuming = Judgement(True, "", 5, 10, 3, 0.1, assumed="that the symmetry breaking keeps a member of every orbit")
    assert {"certificate_failure", "certificate_assumes"} <= set(refused.summary()) | set(assuming.summary())
    assert set(refused.summary()) | set(assuming.summary()) <= set(VERDICT)
