"""The gate (solvers.gate.check): every refusal of what a backend cannot run, made in one place, in one
line, with the words it had before the gate; and the Backend base class, whose defaults refuse cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest

import gridsat as gs
from gridsat import api
from gridsat.models.errors import GridsatError, InvalidOption, UnknownName
from gridsat.solvers import backend as registry
from gridsat.solvers.backend import BACKENDS, Backend, Request, get_backend, reference_backend
from gridsat.solvers.backends import frontier_dp as frontier
from gridsat.solvers.backends.counters import D4Backend
from gridsat.solvers.backends.cpsat import CpsatBackend
from gridsat.solvers.gate import Job, check
from gridsat.solvers.host import machine
from gridsat.solvers.splitting.parallel import Split
from gridsat.solvers.stop import Stop

TATAMI = gs.get_puzzle("tatami")

REFUSALS = [
    (lambda: gs.count("tatami", "3x4", backend="frontier", limit=3),
     "backend 'frontier' counts without listing solutions, so it has no solution limit"),
    (lambda: gs.count("knights-tour", "3x4", backend="frontier", up_to="reversal", method="canonical"),
     "backend 'frontier' counts orbits its own way: method='canonical' does not apply"),
    (lambda: gs.count("tatami", "3x4", backend="frontier", split=Split(jobs=2, parts=8)),
     "parts=8 does not apply to backend 'frontier': it partitions each layer itself (jobs=, scheduler= and "
     "checkpoint= do apply)"),
    (lambda: gs.count("tatami", "3x4", backend="sat", spill="/tmp"),
     "spill='/tmp' does not apply to backend 'sat' (only frontier)"),
    (lambda: gs.count("prime-grid", "3x3", backend="frontier"),
     "prime-grid has no frontier formulation: count it with cpsat, sat, reference, d4 or ganak"),
    (lambda: gs.enumerate("tatami", "3x4", backend="frontier"),
     "backend 'frontier' counts without listing solutions: use it with count or crosscheck"),
    (lambda: gs.solve("tatami", "3x4", backend="frontier"),
     "backend 'frontier' counts without listing solutions: use it with count or crosscheck"),
    (lambda: gs.count("tatami", "3x4", up_to="symmetry", method="burnside", backend="reference"),
     "backend 'reference' has no formulation to count fixed points with, so it can only count canonical "
     "representatives (Burnside's lemma needs cpsat or sat)"),
    (lambda: gs.count("tatami", "3x4", method="burnside"),
     "method='burnside' counts orbits: it needs up_to= (symmetry or reversal)"),
    (lambda: gs.count("tatami", "3x4", up_to="symmetry", method="burnside", limit=1),
     "a solution limit needs the canonical method: Burnside's lemma counts, it finds no orbits"),
    (lambda: gs.count("tatami", "3x4", up_to="symmetry", method="burnside", split=Split(jobs=2, checkpoint="c.json")),
     "a checkpoint (checkpoint=) records one count: Burnside's lemma makes one per group element"),
    (lambda: gs.count("tatami", "3x4", solver="glucose4"),
     "solver='glucose4' does not apply to backend 'cpsat' (only sat)"),
    (lambda: gs.count("tatami", "3x4", backend="reference", memory=10),
     "memory=10 does not apply to backend 'reference' (only frontier)"),
    (lambda: gs.count("tatami", "3x4", limit=2, split=Split(jobs=2, checkpoint="c.json")),
     "a checkpoint (checkpoint=) records counts: it goes with count, without a solution limit (limit=)"),
    (lambda: gs.enumerate("tatami", "3x4", split=Split(jobs=2, checkpoint="c.json")),
     "a checkpoint (checkpoint=) records counts: it goes with count, without a solution limit (limit=)"),
    (lambda: gs.count("tatami", "3x4", backend="sat", solver="kissat404"),
     "solver 'kissat404' cannot solve incrementally: use it with 'solve' only"),
    (lambda: gs.count("prime-grid", "3x3", up_to="reversal"),
     "up_to='reversal' does not apply to puzzle 'prime-grid' (it counts up to: symmetry)"),
]


@pytest.mark.parametrize("call, message", REFUSALS, ids=[m[:50] for _, m in REFUSALS])
def test_each_refusal_is_one_line_with_its_words(call, message: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a checkpoint the refusal must come before is never written
    with pytest.raises(InvalidOption) as refused:
        call()
    assert str(refused.value) == message
    assert not list(tmp_path.iterdir())


def test_an_unknown_orbit_method_is_an_unknown_name() -> None:
    with pytest.raises(UnknownName, match="unknown orbit counting method 'fast'"):
        gs.count("tatami", "3x4", up_to="symmetry", method="fast")


def test_the_split_runner_is_refused_by_the_same_gate() -> None:
    sat = get_backend("sat")
    with pytest.raises(InvalidOption, match="^jobs=0: must be at least 1$"):
        check(sat, TATAMI, Job(registry.COUNT, split=Split(jobs=0)))
    check(sat, TATAMI, Job(registry.COUNT, split=Split(jobs=2)))  # a registered puzzle, no checkpoint: it runs


def test_a_counter_without_orbits_names_the_backends_that_count_them_from_the_registry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    job = Job(registry.COUNT, up_to="symmetry")
    with pytest.raises(InvalidOption) as refused:
        check(D4Backend(), TATAMI, job)
    # The frontier counts tatami's orbits (Burnside's lemma on folds), not prime-grid's (it has no frontier).
    assert str(refused.value) == ("backend 'd4' cannot count up to symmetry: count with cpsat, sat, reference or "
                                  "frontier")
    with pytest.raises(InvalidOption, match="count with cpsat, sat or reference$"):
        check(D4Backend(), gs.get_puzzle("prime-grid"), job)
    monkeypatch.setitem(BACKENDS, "extra", f"{__name__}:Extra")
    with pytest.raises(InvalidOption, match="count with cpsat, sat, reference, frontier or extra$"):
        check(D4Backend(), TATAMI, job)


class Extra(CpsatBackend):
    """One more enumerating backend, registered by a test: the refusals must name it."""

    name = "extra"


class Bare(Backend):
    """A backend that overrides nothing: it can do nothing, and says so."""


@pytest.mark.parametrize("verb, message", [
    (registry.COUNT, "backend 'unnamed' cannot count: count with cpsat, sat, reference, frontier, d4 or ganak"),
    (registry.ENUMERATE, "backend 'unnamed' cannot enumerate: enumerate with cpsat, sat or reference"),
    (registry.SOLVE, "backend 'unnamed' cannot solve: solve with cpsat, sat or reference"),
])
def test_a_backend_that_overrides_nothing_is_refused_cleanly(verb: str, message: str) -> None:
    with pytest.raises(InvalidOption) as refused:
        check(Bare(), TATAMI, Job(verb))
    assert str(refused.value) == message


def test_the_base_class_defaults_refuse_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    bare, room = Bare(), TATAMI.parse("3x4", {})
    assert bare.supported() and bare.refusal(TATAMI) is None and bare.choices(TATAMI) == {} and bare.listing() == {}
    assert bare.formulation is None and bare.takes == () and bare.can == frozenset()
    with pytest.raises(InvalidOption, match="^backend 'unnamed' cannot enumerate: enumerate with cpsat, sat or "):
        bare.prepare(TATAMI, room, Request())
    with pytest.raises(InvalidOption, match="^backend 'unnamed' cannot count: count with cpsat, "):
        bare.tally(TATAMI, room, Request(), Stop())
    monkeypatch.setitem(BACKENDS, "bare", f"{__name__}:Bare")
    for call in (gs.count, gs.enumerate, gs.solve):
        with pytest.raises(InvalidOption, match="^backend 'unnamed' cannot "):
            call("tatami", "3x4", backend="bare")


def test_a_listing_backend_has_no_count_of_its_own() -> None:
    with pytest.raises(InvalidOption, match="^backend 'cpsat' has no count of its own"):
        CpsatBackend().tally(TATAMI, TATAMI.parse("3x4", {}), Request(), Stop())


def test_what_the_api_used_to_name_comes_from_the_registry() -> None:
    assert registry.DEFAULT_BACKEND == next(iter(BACKENDS)) == "cpsat"
    assert api.MUTATE_BACKENDS == ("cpsat", "sat")
    assert reference_backend() == "reference"
    assert {name: get_backend(name).formulation for name in ("cpsat", "sat", "reference", "frontier")} == {
        "cpsat": "cpsat", "sat": "cnf", "reference": None, "frontier": None}
    assert D4Backend.formulation == "cnf"  # it counts the CNF, but lists no solution: no mutation testing


def test_one_cores_helper_serves_the_api_and_the_frontier() -> None:
    from gridsat.solvers.frontier_engine import layers

    assert api.cores is machine.cores and layers.cores is machine.cores
    assert not hasattr(frontier, "cores") and not hasattr(frontier, "cpus")
    assert not hasattr(machine, "idle_cores"), "no load-average guess: the frontier takes every core by default"
    assert machine.cores() >= 1


class Untimed(Backend):
    """A backend that counts but cannot stop at a time limit (no registered one is like that today)."""

    name = "untimed"
    can = frozenset({registry.COUNT})


def refused_api(tmp: Path) -> list[tuple[str, object]]:
    """One API call for each option a refusal below the API can name, with the option it names."""
    not_a_folder = tmp / "file"
    not_a_folder.write_text("")
    two = Split(jobs=2)
    return [
        ("method", lambda: gs.count("knights-tour", "3x4", backend="frontier", up_to="reversal", method="canonical")),
        ("method", lambda: gs.count("tatami", "3x4", method="burnside")),
        ("up_to", lambda: gs.count("tatami", "3x4", up_to="mirror")),
        ("up_to", lambda: gs.count("prime-grid", "3x3", up_to="reversal")),
        ("up_to", lambda: gs.count("tatami", "3x4", backend="sat", up_to="symmetry", certify=True)),
        ("encoding", lambda: gs.count("tatami", "3x4", backend="frontier", encoding="pairwise")),
        ("solver", lambda: gs.count("tatami", "3x4", solver="glucose4")),
        ("solver", lambda: gs.crosscheck("tatami", "3x4", backends=["cpsat"], solver="glucose4")),
        ("algorithm", lambda: gs.count("tatami", "3x4", algorithm="dfs")),
        ("memory", lambda: gs.count("tatami", "3x4", backend="reference", memory=10)),
        ("spill", lambda: gs.count("tatami", "3x4", backend="sat", spill=tmp)),
        ("spill", lambda: gs.count("tatami", "3x4", backend="frontier", spill=not_a_folder)),
        ("parts", lambda: gs.count("tatami", "3x4", backend="frontier", split=Split(jobs=2, parts=8))),
        ("jobs", lambda: gs.count("tatami", "3x4", backend="d4", split=two)),
        ("jobs", lambda: check(get_backend("sat"), TATAMI, Job(registry.COUNT, split=Split(jobs=0)))),
        ("scheduler", lambda: gs.count("tatami", "3x4", split=Split(jobs=2, scheduler="tls://127.0.0.1:1"))),
        ("scheduler", lambda: gs.count("tatami", "3x4", split=Split(jobs=2, scheduler="no address"))),
        ("checkpoint", lambda: gs.count("tatami", "3x4", limit=2, split=Split(jobs=2, checkpoint=tmp / "c.json"))),
        ("checkpoint", lambda: gs.count("tatami", "3x4", up_to="symmetry", method="burnside",
                                        split=Split(jobs=2, checkpoint=tmp / "c.json"))),
        ("checkpoint", lambda: gs.count("tatami", "3x4", backend="sat", certify=True,
                                        split=Split(jobs=2, checkpoint=tmp / "c.json"))),
        ("certify", lambda: gs.count("tatami", "3x4", backend="frontier", certify=True)),
        ("certify", lambda: gs.count("tatami", "3x4", backend="sat", solver="minisat22", certify=True)),
        ("time_limit", lambda: gs.count("tatami", "3x4", backend="sat", solver="lingeling", time_limit=5)),
        ("time_limit", lambda: check(Untimed(), TATAMI, Job(registry.COUNT, time_limit=5))),
        ("time_limit", lambda: api.mutate("knights-tour", ["6x6"], time_limit=0.01)),
        ("scramble", lambda: api.export("tatami", "4x7", format="cpsat", scramble=1)),
        ("mutant", lambda: api.fuzz(["tatami"], mutant="nothing")),
        ("mutant", lambda: api.fuzz(["tatami"], mutant="no such family drop [all]")),
        ("max_area", lambda: api.generate("shikaku", "5x5", max_area=0)),
    ]


def test_no_refusal_the_api_gives_names_a_flag(tmp_path: Path) -> None:
    """A Python caller is told of the keyword it passed (``parts=8``), never of a command-line flag."""
    for option, call in refused_api(tmp_path):
        with pytest.raises(GridsatError) as refused:
            call()
        message = str(refused.value)
        assert "--" not in message and "\n" not in message, message
        assert f"{option}=" in message, (option, message)


@pytest.mark.parametrize("argv, flag", [
    (["count", "tatami", "3x4", "--backend", "frontier", "--jobs", "2", "--parts", "8"],
     "--parts 8 does not apply to backend 'frontier': it partitions each layer itself (--jobs, --scheduler and "
     "--checkpoint do apply)"),
    (["count", "tatami", "3x4", "--method", "burnside"],
     "--method 'burnside' counts orbits: it needs --up-to (symmetry or reversal)"),
    (["count", "tatami", "3x4", "--backend", "frontier", "--certify"],
     "cannot certify its answers: --certify needs cpsat or sat"),
    (["count", "tatami", "3x4", "--backend", "sat", "--up-to", "symmetry", "--certify"],
     "--certify certifies solutions, not orbits: drop --up-to 'symmetry'"),
    (["count", "tatami", "3x4", "--backend", "d4", "--jobs", "2"],
     "drop the split (--jobs, --scheduler, --parts and --checkpoint)"),
    (["count", "tatami", "3x4", "--backend", "sat", "--solver", "lingeling", "--time-limit", "5"],
     "drop --time-limit or choose another solver"),
    (["count", "tatami", "3x4", "--backend", "sat", "--spill", "/tmp"], "--spill '/tmp' does not apply"),
    (["export", "tatami", "4x7", "--format", "cpsat", "--scramble", "1"], "--scramble 1 applies to the dimacs format"),
    (["crosscheck", "tatami", "3x4", "--backends", "cpsat", "--solver", "glucose4"], "--solver 'glucose4' applies"),
])
def test_the_command_line_names_the_flag(argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    from gridsat.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert flag in err and "=" not in err.replace("=True", "") and err.count("\n") == 1, err


def test_a_refusal_is_shown_with_the_parsers_own_flags() -> None:
    """The map from keyword to flag is read from the parser: no table of flags is kept by hand."""
    from gridsat.arguments import flagged, flags
    from gridsat.cli import build_parser

    count = build_parser().parse_args(["count", "tatami", "3x4"]).flags
    assert count["time_limit"] == ("--time-limit", False) and count["certify"] == ("--certify", True)
    assert flagged("drop time_limit= or up_to='x'; certify=True, parts=8 (jobs=)", count) == \
        "drop --time-limit or --up-to 'x'; --certify, --parts 8 (--jobs)"
    # values, paths, queries and keywords the command has no flag for are left as they are
    assert flagged("spill='/a/parts=3' ?jobs=2 total_budget=5 max=4", count) == \
        "--spill '/a/parts=3' ?jobs=2 total_budget=5 max=4"
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--go-fast", dest="fast", action="store_true")
    assert flags(parser)["fast"] == ("--go-fast", True)


def test_the_gate_binds_one_choice_that_the_backend_runs() -> None:
    """``bind`` decides the encoding, the solver (its default filled in) and what they need once, as a
    ``Choice`` in the bound request; the sat backend builds and solves exactly that."""
    from gridsat.models import get_puzzle
    from gridsat.solvers.backend import Choice
    from gridsat.solvers.gate import bind
    from gridsat.solvers.proof.claim import Certify

    tatami = get_puzzle("tatami")
    plain = bind("sat", tatami, Job(request=Request(encoding="seqcounter")))
    assert plain.choice == Choice("sat", tatami.cnf_encodings.resolve("seqcounter"), "cadical195")
    assert plain.choice.encoding == plain.request.resolved and not plain.choice.cnf_plus
    search = plain.backend.prepare(tatami, tatami.parse("4x7", {}), plain.request)
    assert search.label == "mats+seqcounter+nosymmetry/cadical195"
    native = bind("sat", tatami, Job(request=Request(encoding="native", solver="minicard")))
    assert (native.choice.solver, native.choice.cnf_plus, native.choice.proof) == ("minicard", True, False)
    proved = bind("sat", tatami, Job(request=Request(certify=Certify("4x7"))))
    assert proved.choice.proof and proved.choice.solver == "cadical195"
    cpsat = bind("cpsat", tatami, Job(request=Request()))
    assert (cpsat.choice.backend, cpsat.choice.solver, cpsat.choice.encoding.name) == ("cpsat", None, "mats+nosymmetry")
    with pytest.raises(ValueError, match="through the gate"):
        plain.backend.prepare(tatami, tatami.parse("4x7", {}), Request(encoding="seqcounter"))


def test_the_choice_holds_a_layered_counts_threads_and_a_certified_cpsat_runs_replay() -> None:
    """A frontier count split across threads gets them from the gate (its split handed down in the
    request); a certified CP-SAT run gets the CNF encoding it is replayed in, breaking the symmetry its
    model breaks, and none without certify."""
    from gridsat.models import get_puzzle
    from gridsat.solvers.gate import bind
    from gridsat.solvers.proof.claim import Certify

    tatami, grid = get_puzzle("tatami"), get_puzzle("prime-grid")
    layered = bind("frontier", tatami, Job(split=Split(jobs=2)))
    assert layered.choice.threads == 2 and layered.job.split is None and layered.request.threads == 2
    assert bind("frontier", tatami, Job()).choice.threads is None
    broken = bind("cpsat", grid, Job(request=Request(certify=Certify("3x3"))))
    assert broken.choice.encoding["symmetry"] == "symmetry" and broken.choice.replay["symmetry"] == "symmetry"
    whole = bind("cpsat", tatami, Job(request=Request(encoding="nosymmetry", certify=Certify("4x7"))))
    assert whole.choice.replay == tatami.cnf_encodings.resolve(None, exact=True)
    assert bind("cpsat", grid, Job()).choice.replay is None
