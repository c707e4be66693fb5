"""A certified search in one solver call (solvers.proof.blocker): its own LRAT proof, renumbered
(solvers.proof.external), and the ways back to a fresh refutation when that proof cannot be used."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gridsat as api
from gridsat.solvers.proof import blocker, certified, external, lrat, prover
from gridsat.solvers.proof.external import renumbered

pytest.importorskip("numba")

TOURS = ("knights-tour", "5x6", {"closed": "true"}, 16)


def refutations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every fresh refutation a run makes (``certified.refute``), recorded as it is made."""
    seen: list[Any] = []
    refute = certified.refute

    def spy(*args: Any) -> str:
        seen.append(args)
        return refute(*args)

    monkeypatch.setattr(certified, "refute", spy)
    return seen


@pytest.mark.parametrize("puzzle, instance, params, count", [
    TOURS, ("knights-tour", "5x5", {"start": "0,0"}, 304), ("tatami", "4x5", {}, 3), ("shikaku", "seed", {}, 1)])
def test_a_certified_search_proves_its_count_with_its_own_proof(monkeypatch: pytest.MonkeyPatch, puzzle: str,
                                                                instance: str, params: dict[str, str],
                                                                count: int) -> None:
    """No second solver: the search's LRAT proof, renumbered, is the certificate's, and it checks."""
    seen = refutations(monkeypatch)
    outcome = api.count(puzzle, instance, params=params, backend="sat", certify=True)
    assert outcome.count == count and outcome.details["certified"] is True, outcome.details
    assert seen == [] and outcome.details["proof_steps"] > 0


def test_a_kept_one_call_certificate_checks_again_from_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "tours"
    puzzle, instance, params, count = TOURS
    outcome = api.count(puzzle, instance, params=params, backend="sat", certify=True, proof=str(folder))
    assert outcome.details["certified"] is True
    done = subprocess.run([sys.executable, "-m", "gridsat", "check-proof", str(folder)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and f"exactly {count} solutions" in done.stdout, done.stdout + done.stderr
    # the renumbered proof is plain LRAT over proof.cnf, the clauses in the order it names them
    clauses = [[int(t) for t in line.split()[:-1]] for line in (folder / "proof.cnf").read_text().splitlines()
               if line and line[0] not in "cp"]
    assert lrat.check(clauses, (folder / "proof.lrat").read_bytes()).accepted


def one_call_proof() -> tuple[list[list[int]], list[list[int]], bytes, list[tuple[int, int]]]:
    """The formula of the 5x6 closed tours, the clauses the search gave its solver (blocking, then cuts, as
    the certificate lists them), the search's proof as CaDiCaL wrote it, and the order it was given them."""
    puzzle, instance, params, _ = TOURS
    kept: dict[str, Any] = {}
    proof = blocker.proof

    def keep(oracle: Any, found: blocker.Blocker, base: list[list[int]]) -> bytes | None:
        kept.update(raw=prover.proof_of(oracle), given=list(found.given), base=base,
                    certificate=found.recorder.certificate)
        return proof(oracle, found, base)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(blocker, "proof", keep)
        api.count(puzzle, instance, params=params, backend="sat", certify=True)
    certificate = kept["certificate"]
    given = [c for c, _ in certificate.blocking] + [c for c, _ in certificate.cuts]
    return kept["base"], given, kept["raw"], kept["given"]


def test_the_clauses_given_during_the_call_are_the_gaps_in_the_lemma_numbers() -> None:
    base, given, raw, order = one_call_proof()
    blocked = sum(1 for kind, _ in order if kind == blocker.BLOCK)
    places = [len(base) + 1 + (i if kind == blocker.BLOCK else blocked + i) for kind, i in order]
    proof = renumbered(raw, len(base), places)
    assert proof is not None and lrat.check([*base, *given], proof).accepted
    # the proof as CaDiCaL wrote it names the clauses given by numbers no formula of them has
    assert not lrat.check([*base, *given], raw).accepted
    # a clause given too many or too few: the gaps do not match, and the proof is not used
    assert renumbered(raw, len(base), places[:-1]) is None
    assert renumbered(raw, len(base), [*places, len(base) + len(places) + 1]) is None


def test_a_wrong_guess_at_the_numbers_is_refused_by_the_checker() -> None:
    """Nothing rests on the renumbering: two clauses given swapped make hints name the wrong clauses."""
    base, given, raw, order = one_call_proof()
    blocked = sum(1 for kind, _ in order if kind == blocker.BLOCK)
    places = [len(base) + 1 + (i if kind == blocker.BLOCK else blocked + i) for kind, i in order]
    refused = 0
    for a, b in ((0, 1), (0, len(places) - 1), (3, 7)):
        swapped = list(places)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        proof = renumbered(raw, len(base), swapped)
        assert proof is not None
        refused += not lrat.check([*base, *given], proof).accepted
    assert refused == 3


def test_a_proof_whose_numbers_do_not_match_falls_back_to_a_fresh_refutation(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = refutations(monkeypatch)
    monkeypatch.setattr(blocker, "renumbered", lambda *args: None)
    puzzle, instance, params, count = TOURS
    outcome = api.count(puzzle, instance, params=params, backend="sat", certify=True)
    assert outcome.count == count and outcome.details["certified"] is True and len(seen) == 1


def test_true_only_clauses_that_rule_out_more_are_made_short_and_refuted_afresh(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-call search blocks by true variables alone; where unit propagation does not fix the rest of a
    projection from them (planted here: the check says so once), the clauses are made short, as a search
    with a fresh refutation makes them, and the count is certified that way."""
    from gridsat.solvers.proof import models

    seen = refutations(monkeypatch)
    first, told = models.first_unjustified, []

    def once_not_one(*args: Any, **kwargs: Any) -> Any:
        if len(told) < 2:  # the judge's first check, then ``shortened``'s
            told.append(kwargs.get("models", True))
            return models.NOT_ONE, 1
        return first(*args, **kwargs)

    monkeypatch.setattr(models, "first_unjustified", once_not_one)
    short = []
    block = certified.Recorder.block
    monkeypatch.setattr(certified.Recorder, "block", lambda self, *a: short.append(1) or block(self, *a))
    puzzle, instance, params, count = TOURS
    outcome = api.count(puzzle, instance, params=params, backend="sat", certify=True)
    assert told == [True, False] and len(short) == count and len(seen) == 1
    assert outcome.details["certified"] is True and outcome.count == count


def test_a_limit_and_a_time_limit_stop_a_one_call_search_uncertified() -> None:
    done = subprocess.run([sys.executable, "-m", "gridsat", "count", "knights-tour", "6x6", "-p", "closed=true",
                           "--backend", "sat", "--certify", "--limit", "3", "--json"],
                          capture_output=True, text=True, check=False)
    record = json.loads(done.stdout)
    assert record["count"] == 3 and record["complete"] is False and record["certified"] is None
    done = subprocess.run([sys.executable, "-m", "gridsat", "count", "knights-tour", "6x6", "-p", "closed=true",
                           "--backend", "sat", "--certify", "--time-limit", "1", "--json"],
                          capture_output=True, text=True, check=False)
    record = json.loads(done.stdout)
    assert record["complete"] is False and record["reason"] == "time limit" and record.get("certified") is None
    assert record["count"] < 19724


def test_the_judge_decodes_itself_a_clause_whose_model_the_search_recorded_otherwise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge takes the search's decoding of a blocking clause only where the clause rules out exactly the
    model recorded beside it. Planted: the second model's clause kept with the first model's record and
    solution; the judge decodes that clause itself and names it."""
    from gridsat.models.knights_tour import board

    records: list[Any] = []
    block = blocker.Blocker.block

    def mixed_up(self: blocker.Blocker, model: list[int], solution: Any, orbit: list[Any],
                 true: tuple[int, ...]) -> list[int]:
        records.append((model, solution, orbit))
        if len(records) == 2:
            clause = block(self, model, records[0][1], records[0][2], true)  # kept with the first model's solution
            first_true = self.recorder.certificate.searched[tuple(self.recorder.certificate.blocking[0][0])][0]
            # and its record (true variables, solution and orbit)
            self.recorder.certificate.searched[tuple(clause)] = first_true, records[0][1], records[0][2]
            return clause
        return block(self, model, solution, orbit, true)

    decoded = []
    decode = board.decode
    monkeypatch.setattr(board, "decode", lambda *a: decoded.append(1) or decode(*a))
    monkeypatch.setattr(blocker.Blocker, "block", mixed_up)
    puzzle, instance, params, count = TOURS
    outcome = api.count(puzzle, instance, params=params, backend="sat", certify=True)
    assert outcome.details["certified"] is False
    assert outcome.details["certificate_failure"] == \
        "blocking clause 2: the assignment it rules out is not the solution written beside it"
    assert len(decoded) == len(records) + 1  # the search's, and the judge's one of the clause mixed up


def one_call_refutations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What each refutation in one call (``prover.refuted_in_one_call``) returned, recorded as it returns."""
    seen: list[Any] = []
    real = prover.refuted_in_one_call

    def spy(*args: Any) -> Any:
        seen.append(real(*args))
        return seen[-1]

    monkeypatch.setattr(prover, "refuted_in_one_call", spy)
    return seen


def test_cpsat_tours_are_replayed_in_the_lazy_cnf_their_cuts_given_inside_one_call(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The replay's CNF is the default one (cut-sets against subtours, added lazily); its refutation takes the
    cuts inside one solver call, and the renumbered proof checks again from the kept files."""
    seen = one_call_refutations(monkeypatch)
    folder = tmp_path / "tours"
    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend="cpsat", certify=True, proof=folder)
    assert (outcome.count, outcome.details["certified"]) == (304, True), outcome.details
    assert len(seen) == 1 and seen[0] is not None and seen[0].proof and seen[0].model is None
    assert "cutset" in (folder / "formula.cnf").read_text().splitlines()[0]
    assert (folder / "cuts.cnf").read_text().count(" 0\n") > 0  # cuts were given during the call
    done = subprocess.run([sys.executable, "-m", "gridsat", "check-proof", str(folder)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and "exactly 304 solutions" in done.stdout, done.stdout + done.stderr


def test_a_tour_cpsat_did_not_report_ends_the_one_call_refutation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the replay sees CP-SAT's first tour only. The solver finds another tour, which needs no cut,
    inside its one call: not certified, and the tour named."""
    from gridsat.solvers.proof import replay

    seen = one_call_refutations(monkeypatch)
    real = replay.CpsatReplay.add
    monkeypatch.setattr(replay.CpsatReplay, "add",
                        lambda self, values, n: None if self.reported else real(self, values, n))
    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend="cpsat", certify=True)
    assert outcome.count == 304 and outcome.details["certified"] is False
    assert outcome.details["certificate_failure"].startswith("the CNF has a solution CP-SAT did not report: [[0,0],")
    assert len(seen) == 1 and seen[0].model is not None


def test_a_one_call_refutation_whose_numbers_do_not_match_falls_back_to_fresh_solvers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen = one_call_refutations(monkeypatch)
    monkeypatch.setattr(external, "renumbered", lambda *args: None)
    outcome = api.count("knights-tour", "5x5", params={"start": "0,0"}, backend="cpsat", certify=True)
    assert (outcome.count, outcome.details["certified"]) == (304, True) and seen == [None]


def test_a_cut_that_numbered_would_change_is_not_taken_as_given() -> None:
    assert prover.numbered_as_given([[1, 2], [-3, 4, 5]], [[1, 5]])
    assert not prover.numbered_as_given([[1]], [[1, 5]])  # a unit: split in two
    assert not prover.numbered_as_given([[1, 1, 2]], [[1, 5]])  # a literal twice: shortened
    assert not prover.numbered_as_given([[1, 6]], [[1, 5]])  # a variable above the rest: fresh variables move


def test_cpsat_tours_under_symmetry_breaking_are_replayed_where_their_orbits_are_proved() -> None:
    """Orbits are proved over an eager formula only: a CP-SAT model that breaks symmetry is replayed in the
    exact CNF, and its count assumes nothing (in the lazy CNF it would assume the breaking keeps every orbit)."""
    outcome = api.count("knights-tour", "5x6", params={"closed": "true"}, backend="cpsat", encoding="symmetry",
                        certify=True)
    assert (outcome.count, outcome.details["certified"]) == (16, True), outcome.details
    assert "certificate_assumes" not in outcome.details
