"""Benchmark suites as data: the TOML loader's checks, the built-in suites, and the command's input errors."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from conftest import gridsat
from gridsat.benchmarks import command, report, spread
from gridsat.benchmarks.results import judge, verdicts
from gridsat.benchmarks.suite import SuiteError, Trial, builtin_suites, load, plan
from gridsat.models import PUZZLES, get_puzzle, names
from gridsat.models.errors import GridsatError, UnknownName
from gridsat.models.golden import counts
from gridsat.solvers.backend import BACKENDS, backend_class

BUILT_IN = ("tatami", "prime-grid", "shikaku", "knights-tour")
# Each built-in puzzle's reference algorithm when a suite names none (the puzzle's default).
DEFAULT_ALGORITHM = {"tatami": "rowscan", "prime-grid": "dfs", "shikaku": "propagate", "knights-tour": "backtrack"}


def suite_file(tmp_path: Path, text: str, name: str = "mine.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_builtin_suites_exist() -> None:
    assert {"smoke", "seeds", "scaling"} <= set(builtin_suites())


def test_unknown_top_level_key_is_named(tmp_path: Path) -> None:
    path = suite_file(tmp_path, 'timeout = 5\ntimout = 5\n')
    with pytest.raises(SuiteError, match=r"unknown key 'timout'; valid: description, mode, timeout"):
        load(path)


@pytest.mark.parametrize("memory", ["0.5", "2048.0", "0", "-1"])
def test_a_memory_limit_is_a_whole_number_of_mb(tmp_path: Path, memory: str) -> None:
    """int(0.5) is 0, which the runner reads as no limit at all: such a suite ran unbounded."""
    with pytest.raises(SuiteError, match=f"memory must be .*{memory}"):
        load(suite_file(tmp_path, f"memory = {memory}\n"))
    assert load(suite_file(tmp_path, "memory = 1\n")).memory == 1


def test_unknown_entry_key_names_the_entry(tmp_path: Path) -> None:
    path = suite_file(tmp_path, '[[entry]]\npuzzle = "tatami"\ninstances = ["4x7"]\nencoding = "each"\n')
    with pytest.raises(SuiteError, match=r"mine.toml: entry 1: unknown key 'encoding'; valid: .*encodings"):
        load(path)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('puzzle = "tatami"\ninstances = ["4x7"]\nbackends = ["nope"]', r"unknown backend 'nope'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nencodings = ["nope"]', r"unknown encoding 'nope'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nsolvers = ["nope"]', r"unknown solver 'nope'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nalgorithms = ["nope"]', r"unknown algorithm 'nope'"),
        ('puzzle = "tatami"\ninstances = ["4y7"]', r"instance '4y7'"),
        ('puzzle = "tatami"\ninstances = [{ name = "4x7", expect = 3 }]', r"unknown key 'expect'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nmode = "race"', r"unknown mode 'race'"),
        ('puzzle = "tatami"\ninstances = ["4x7"]\nencodings = "eech"', r"encodings must be one of 'default', "),
        ('puzzle = "no-such-puzzle"\ninstances = ["1"]', r"unknown puzzle 'no-such-puzzle'"),
    ],
)
def test_bad_entries_fail_before_any_run(tmp_path: Path, entry: str, message: str) -> None:
    with pytest.raises(GridsatError, match=message):
        plan(load(suite_file(tmp_path, f"[[entry]]\n{entry}\n")))


def test_bad_toml_and_unknown_suite(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="not valid TOML"):
        load(suite_file(tmp_path, "timeout = = 3\n"))
    with pytest.raises(UnknownName, match="unknown suite 'nope'; valid: .*smoke"):
        load("nope")


def test_optional_entry_of_a_missing_puzzle_is_skipped_with_a_note(tmp_path: Path) -> None:
    text = '[[entry]]\npuzzle = "not-yet"\ninstances = ["1"]\noptional = true\n'
    text += '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nbackends = ["reference"]\n'
    runs, notes = plan(load(suite_file(tmp_path, text)))
    assert [r.config for r in runs] == ["reference:rowscan"]
    assert any("'not-yet' skipped" in n for n in notes)


def test_encodings_scopes_and_per_backend_tables(tmp_path: Path) -> None:
    text = '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4", { name = "4x7", expected = 3 }]\n'
    text += 'backends = ["cpsat", "sat"]\nencodings = { sat = ["ladder", "totalizer"] }\nsolvers = ["minisat22"]\n'
    runs, _ = plan(load(suite_file(tmp_path, text)), repeat=2)
    configs = sorted({r.config for r in runs})
    assert configs == ["cpsat:mats+nosymmetry", "sat:mats+ladder+nosymmetry/minisat22",
                       "sat:mats+totalizer+nosymmetry/minisat22"]
    assert len(runs) == 2 * 3 * 2
    assert {r.expected for r in runs if r.instance == "4x7"} == {3}


def test_smoke_covers_every_registered_puzzle_with_two_encodings() -> None:
    runs, _ = plan(load("smoke"))
    for puzzle in names():
        encodings = {(r.backend, r.encoding) for r in runs if r.puzzle == puzzle and r.encoding is not None}
        assert len(encodings) >= 2, f"smoke suite: give puzzle {puzzle!r} an entry with at least two encodings"


def row(run: Trial) -> tuple:
    """What a planned run does: puzzle, case, what the worker parses, configuration, mode, repeat, expected count."""
    return (run.puzzle, run.case, run.source, run.config, run.mode, run.repeat, run.expected)


def test_a_suite_file_plans_exactly_its_runs_in_order(tmp_path: Path) -> None:
    (tmp_path / "tiny.txt").write_text("2 .\n. 2\n")  # a puzzle file beside the suite
    text = """mode = "count"
repeat = 2

[[entry]]
puzzle = "prime-grid"
instances = [{ name = "3x3", params = { max = 10 }, expected = 128 }, "2x2"]
backends = ["cpsat", "reference"]
encodings = { cpsat = ["boolean"] }

[[entry]]
puzzle = "shikaku"
mode = "solve"
instances = ["tiny.txt", "2x2:2b2"]
backends = ["sat"]
encodings = ["pack"]
solvers = ["minisat22", "glucose4"]
"""
    runs, notes = plan(load(suite_file(tmp_path, text)))
    tiny = str((tmp_path / "tiny.txt").resolve())
    # Instance by instance, configuration by configuration, each repeated; a named choice keeps the
    # other axes' defaults (parity, symmetry; shikaku's product), and a file beside the suite is
    # parsed by its full path.
    prime = [("prime-grid", case, source, config, "count", k, expected)
             for case, source, expected in [("3x3 max=10", "3x3", 128), ("2x2", "2x2", None)]
             for config in ("cpsat:boolean+parity+symmetry", "reference:dfs") for k in (0, 1)]
    shikaku = [("shikaku", case, source, f"sat:product+pack+nosymmetry/{solver}", "solve", k, None)
               for case, source in [("tiny.txt", tiny), ("2x2:2b2", "2x2:2b2")]
               for solver in ("minisat22", "glucose4") for k in (0, 1)]
    assert [row(r) for r in runs] == prime + shikaku
    assert notes == []
    assert len({r.id for r in runs}) == len(runs)


def encoding_choices(text: str) -> list[str]:
    return text.split("/")[0].split("+")


def test_smoke_plans_each_puzzle_once_per_encoding_choice_on_every_backend() -> None:
    runs, notes = plan(load("smoke"))
    # A note may only say that an optional backend cannot run some puzzle; never that a puzzle or
    # one of the three core backends was left out.
    core = ("cpsat", "sat", "reference")
    assert all("backend '" in n and not any(f"backend '{b}'" in n for b in core) for n in notes), notes
    assert len({r.id for r in runs}) == len(runs)
    assert all((r.mode, r.repeat) == ("count", 0) for r in runs)
    cases = {(r.puzzle, r.case, r.source, r.expected) for r in runs if r.puzzle in BUILT_IN}
    assert cases == {("tatami", "4x7", "4x7", 3), ("prime-grid", "3x3", "3x3", 128), ("shikaku", "seed", "seed", 1),
                     ("knights-tour", "3x4", "3x4", 16)}
    for r in runs:  # the "*" entry: any other puzzle (a plugin) on its own example, judged by agreement
        if r.puzzle not in BUILT_IN:
            assert (r.instance, r.expected) == (get_puzzle(r.puzzle).example, None), row(r)
    for name in BUILT_IN:
        puzzle = get_puzzle(name)
        mine = [r for r in runs if r.puzzle == name]
        assert {r.backend for r in mine} >= {"cpsat", "sat", "reference"} and {r.backend for r in mine} <= set(BACKENDS)
        assert [r.config for r in mine if r.backend == "reference"] == [f"reference:{DEFAULT_ALGORITHM[name]}"]
        # the default solver, and minicard for native at-most-ones (CNF+)
        assert {r.solver for r in mine if r.backend == "sat" and "native" not in r.encoding} == {"cadical195"}
        assert {r.solver for r in mine if r.backend == "sat" and "native" in r.encoding} == {"minicard"}
        for backend, space in (("cpsat", puzzle.cpsat_encodings), ("sat", puzzle.cnf_encodings)):
            # "each": the default, and every other choice of every axis once, with the others at their defaults.
            planned = [encoding_choices(r.encoding) for r in mine if r.backend == backend]
            default = encoding_choices(space.resolve(None).name)
            assert planned[0] == default, (name, backend, planned)
            assert all(sum(a != b for a, b in zip(p, default, strict=True)) == 1 for p in planned[1:]), planned
            others = sorted(c for axis in space.axes for c in axis.choices if c not in default)
            assert sorted(c for p in planned[1:] for c in p if c not in default) == others, (name, backend)


def golden_case(puzzle: str, entry: dict) -> tuple[str, str] | None:
    """A golden entry as (puzzle, instance description), the key a planned run is compared by."""
    chosen = get_puzzle(puzzle)
    if puzzle == "tatami":
        text, params = entry["room"], {}
    elif puzzle == "prime-grid":
        text, params = entry["grid"], {k: str(entry[k]) for k in ("min", "max") if k in entry}
    elif puzzle == "knights-tour":
        text, params = entry["board"], entry["params"]
    else:
        text, params = entry["instance"], {}
        if text.endswith(".txt"):
            return None  # a file: suites name puzzles by game id or "seed"
    return puzzle, chosen.describe(chosen.parse(text, params))


@pytest.mark.parametrize("name", ["smoke", "seeds", "scaling"])
def test_expected_counts_of_the_builtin_suites_are_the_golden_counts(name: str) -> None:
    known = {}
    for puzzle, file in (("tatami", "tatami"), ("prime-grid", "prime_grid"), ("shikaku", "shikaku/golden"),
                         ("knights-tour", "knights_tour")):
        for entry in counts(file):
            key = golden_case(puzzle, entry)
            if key:
                known[key] = entry["count"]
    runs, _ = plan(load(name))
    compared = 0
    for r in runs:
        puzzle = get_puzzle(r.puzzle)
        key = (r.puzzle, puzzle.describe(puzzle.parse(r.source, dict(r.params))))
        if r.expected is not None and key in known:
            assert r.expected == known[key], row(r)
            compared += 1
    assert compared > 0, f"{name}: no expected count has a golden count to be checked against"


def test_seeds_and_scaling_plan_their_instances_modes_and_choices() -> None:
    seeds, _ = plan(load("seeds"))
    assert sorted({(r.puzzle, r.case, r.mode, r.expected) for r in seeds}) == [
        ("knights-tour", "9x10", "solve", None), ("prime-grid", "3x3", "count", 128), ("shikaku", "seed", "count", 1),
        ("tatami", "3x4", "count", 4), ("tatami", "4x7", "count", None)]
    assert [r.config for r in seeds if r.puzzle == "knights-tour" and r.backend == "reference"] == [
        "reference:backtrack", "reference:warnsdorff", "reference:divide"]
    scaling, _ = plan(load("scaling"))
    rooms = [r.case for r in scaling if r.puzzle == "tatami" and r.config == "cpsat:mats+nosymmetry"]
    assert rooms == ["4x7", "8x8", "10x16", "12x20", "14x24", "16x28", "18x30", "30x30"]
    series = [f"sat:mats+{e}+nosymmetry/cadical195" for e in ("ladder", "pairwise", "seqcounter", "totalizer")]
    assert [r.case for r in scaling if r.config in series[:1]] == rooms  # the default encodings' series
    others = [r.case for r in scaling if r.puzzle == "tatami" and r.config == "sat:mats+pairwise+symmetry/cadical195"]
    assert others == ["4x7", "10x16", "30x30"]  # the other choices on three rooms of it
    tours = [r for r in scaling if r.puzzle == "knights-tour"]
    assert {r.mode for r in tours} == {"solve"} and [r.case for r in tours
                                                     if r.config == "cpsat:circuit+nosymmetry"] == [
        "8x8", "9x10", "12x12", "16x16", "20x20"]
    every = {("cpsat", e) for e in ("circuit", "mtz")} | {
        ("sat", e) for e in ("cutset", "crt", "rank", "ordering", "binary", "position", "transitive", "distance")}
    planned = {(r.backend, r.config.split(":")[1].split("+")[0].split("/")[0]) for r in tours}
    assert every <= planned  # a row for every tour encoding
    assert {r.config for r in tours if r.backend == "reference"} == {"reference:warnsdorff", "reference:backtrack"}


def test_the_paper_suite_gives_every_puzzle_enough_instances_for_a_test_five_seeds_encodings_and_solvers() -> None:
    suite = load("paper")
    runs, notes = plan(suite)
    assert not notes and suite.seeds == 5 and suite.timeout == 60
    for puzzle in BUILT_IN:
        mine = [r for r in runs if r.puzzle == puzzle]
        assert len({r.case for r in mine}) >= 6, f"{puzzle}: under six instances, no paired test can be made"
        assert {r.backend for r in mine} == {"sat", "cpsat"}
        assert len({r.encoding for r in mine if r.backend == "sat"}) >= 2, f"{puzzle}: one CNF encoding"
        for config in {r.config for r in mine}:  # every configuration on every instance, from seeds 1..5
            assert sorted((r.case, r.seed) for r in mine if r.config == config) == sorted(
                (case, seed) for case in {r.case for r in mine} for seed in range(1, 6))
    assert {r.solver for r in runs if r.backend == "sat"} >= {"cadical195", "glucose4"}
    shikaku = [r for r in runs if r.puzzle == "shikaku"]
    assert all(Path(r.source).is_file() for r in shikaku)  # the generated puzzles ship beside the suite


PAPER_LEAST = 10  # instances a puzzle of the paper suite holds: 2 / 2**10 times 4 tests is 0.0078


def paper_tests(runs: list[Trial], puzzle: str, scatter: tuple[str, str] | None) -> tuple[int, int]:
    """A puzzle's instances and the paired tests its report makes (the scatter pair's first configuration
    against every other one, as ``report.section`` picks them)."""
    mine = [r for r in runs if r.puzzle == puzzle]
    configs = list(dict.fromkeys(r.config for r in mine))
    pair, _ = report.pick_pair(configs, scatter)
    return len({r.case for r in mine}), len(report.tested_pairs(pair, configs))


def test_the_paper_suite_can_call_a_configuration_that_wins_every_instance_significant() -> None:
    """With six instances no Holm-adjusted p fell below 0.0938, so nothing could be significant: every
    puzzle holds enough instances that a configuration faster on all of them gets p < 0.05."""
    suite = load("paper")
    runs, _ = plan(suite)
    for puzzle in BUILT_IN:
        instances, tests = paper_tests(runs, puzzle, suite.scatter)
        assert instances >= PAPER_LEAST and tests >= 3, (puzzle, instances, tests)
        assert spread.best_adjusted_p(instances, tests) < spread.SIGNIFICANT, (puzzle, instances, tests)
        assert spread.best_adjusted_p(6, tests) >= spread.SIGNIFICANT  # the suite as it was: the check can fail


def test_the_paper_suite_s_tatami_counts_are_the_frontier_dp_s() -> None:
    """The suite's expected tatami counts, counted again by the frontier DP (a transfer matrix, no SAT)."""
    from gridsat.solvers.backend import COUNT, Request
    from gridsat.solvers.gate import Job, bind
    from gridsat.solvers.run import tally

    tatami = get_puzzle("tatami")
    expected = {r.case: r.expected for r in plan(load("paper"))[0] if r.puzzle == "tatami"}
    assert len(expected) >= PAPER_LEAST and None not in expected.values()
    bound = bind("frontier", tatami, Job(COUNT, Request()))
    assert {room: tally(tatami, tatami.parse(room, {}), bound).count for room in expected} == expected


def kinds_run(runs: list[Trial]) -> dict[tuple[str, str], set[str]]:
    """The encoding choices the runs take, by puzzle and formulation kind (``cpsat`` or ``cnf``)."""
    taken: dict[tuple[str, str], set[str]] = {}
    for r in runs:
        if r.encoding is None:  # a backend with no encodings (reference, frontier)
            continue
        kind = backend_class(r.backend).formulation or "cnf"  # a counter counts the CNF
        choices = get_puzzle(r.puzzle).encodings(kind).resolve(r.encoding).choices
        taken.setdefault((r.puzzle, kind), set()).update(choice for _, choice in choices)
    return taken


def test_scaling_runs_every_encoding_choice_of_every_built_in_puzzle() -> None:
    """A new encoding (or a new choice on any axis) must join the scaling suite."""
    taken = kinds_run(plan(load("scaling"))[0])
    for name in PUZZLES:
        for kind in ("cpsat", "cnf"):
            offered = get_puzzle(name).encodings(kind).tokens()
            never = [choice for choice in offered if choice not in taken.get((name, kind), set())]
            assert not never, f"benchmarks/suites/scaling.toml never runs {name}'s {kind} choices {never}"


def test_the_coverage_check_sees_a_missing_choice(tmp_path: Path) -> None:
    text = '[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nbackends = ["sat"]\nencodings = ["ladder"]\n'
    taken = kinds_run(plan(load(suite_file(tmp_path, text)))[0])
    assert taken == {("tatami", "cnf"): {"mats", "ladder", "nosymmetry"}}


def test_an_instance_longer_than_a_file_name_is_parsed_not_looked_up(tmp_path: Path) -> None:
    """A long game id is no file name (the lookup beside the suite failed with ENAMETOOLONG)."""
    long = "4x" + "7" * 300
    with pytest.raises(SuiteError, match="instance '4x7777"):
        plan(load(suite_file(tmp_path, f'[[entry]]\npuzzle = "tatami"\ninstances = ["{long}"]\n')))


def args(**given: object) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return parser.parse_args(["smoke", "--out", "unused", *[f"--{k}={v}" for k, v in given.items()]])


@pytest.mark.parametrize(("option", "value"), [("jobs", 0), ("jobs", 10_000), ("time-limit", -1), ("repeat", 0),
                                               ("time-limit", "1e309"), ("memory", 10**12), ("jobs", "²"),
                                               ("seeds", 1001), ("seeds", 999999999999999999)])
def test_bad_options_are_input_errors(option: str, value: object, tmp_path: Path) -> None:
    done = gridsat("bench", "smoke", "--out", str(tmp_path / "out"), f"--{option}={value}")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and f"--{option}" in done.stderr
    assert not (tmp_path / "out").exists()


def test_an_out_folder_in_use_through_a_link_is_refused(tmp_path: Path) -> None:
    from gridsat.solvers.host.locks import WriterLock

    (tmp_path / "res").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "res")
    holder = WriterLock(tmp_path / "res", "--out res")  # as a bench writing into res holds it
    holder.acquire()
    try:
        done = gridsat("bench", "smoke", "--out", str(tmp_path / "link"))
    finally:
        holder.release()
    assert done.returncode == 2 and "in use by another gridsat run" in done.stderr, done.stderr
    assert list((tmp_path / "res").iterdir()) == []


def rec(backend: str, count: int, *, mode: str = "count", invalid: int = 0, status: str = "ok",
        puzzle: str = "p", instance: str = "i", expected: int | None = None, duplicates: int = 0) -> dict:
    return {"puzzle": puzzle, "instance": instance, "params": {}, "mode": mode, "backend": backend,
            "config": backend, "count": count, "invalid": invalid, "duplicates": duplicates, "status": status,
            "expected": expected, "message": None}


def test_judge_takes_no_majority_for_the_truth() -> None:
    records = [rec("a", 4), rec("b", 4), rec("c", 3), rec("d", 9, status="timeout")]
    problems = judge(records)
    assert [r["status"] for r in records] == ["ok", "ok", "ok", "timeout"]
    assert [r["verdict"] for r in records] == ["disputed", "disputed", "disputed", None]
    assert len(problems) == 1 and "c 3" in problems[0]
    assert problems[0].startswith("DISPUTED p i (count): no count is known")
    assert verdicts(records) == {"checked": 0, "agreed": 0, "disputed": 1, "unchecked": 0}
    records = [rec("reference", 4), rec("c", 3)]  # the reference search is no tie-breaker either
    judge(records)
    assert {r["verdict"] for r in records} == {"disputed"}


def test_judge_agreed_unchecked_and_faults() -> None:
    records = [rec("a", 4), rec("b", 4)]
    assert judge(records) == [] and {r["verdict"] for r in records} == {"agreed"}
    alone = [rec("a", 4), rec("b", 9, status="timeout")]
    assert judge(alone) == [] and verdicts(alone)["unchecked"] == 1
    records = [rec("a", 4, invalid=1), rec("b", 4), rec("c", 4, duplicates=2)]
    judge(records)
    assert [r["status"] for r in records] == ["wrong", "ok", "wrong"]
    assert records[2]["message"] == "returned 2 solutions more than once"


def test_judge_checks_every_run_against_the_suite_or_the_golden_count() -> None:
    records = [rec("a", 4, expected=5), rec("b", 5, expected=5)]
    judge(records)
    assert [r["status"] for r in records] == ["wrong", "ok"] and "the suite says 5" in records[0]["message"]
    records = [rec("a", 4, puzzle="tatami", instance="4x7"), rec("b", 3, puzzle="tatami", instance="4x7")]
    judge(records)
    assert [r["status"] for r in records] == ["wrong", "ok"] and {r["verdict"] for r in records} == {"checked"}
    assert "the golden count (the tatami seed write-up asks for the 4x7 room" in records[0]["message"]


def test_judge_in_solve_mode_compares_satisfiability() -> None:
    records = [rec("a", 1, mode="solve"), rec("b", 1, mode="solve"), rec("c", 0, mode="solve")]
    judge(records)
    assert {r["verdict"] for r in records} == {"disputed"}
    assert judge(records[:2]) == []
    records = [rec("a", 1, mode="solve", expected=0)]
    judge(records)
    assert records[0]["status"] == "wrong" and records[0]["verdict"] == "checked"


def test_a_star_entry_runs_every_puzzle_no_other_entry_names_on_its_example(tmp_path: Path) -> None:
    path = tmp_path / "star.toml"
    path.write_text('[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\n\n[[entry]]\npuzzle = "*"\n')
    runs, _ = plan(load(str(path)))
    cases = {(r.puzzle, r.instance) for r in runs}
    assert cases == {("tatami", "3x4"), ("prime-grid", "3x3"), ("shikaku", "seed"), ("knights-tour", "3x4")}


@pytest.mark.parametrize(("table", "message"), [
    ('{ sat = ["nope"] }',
     r"encodings of sat: unknown encoding 'nope' for the CNF of tatami; valid: mats, directions, pairwise"),
    ('{ sat = ["ladder", "seqcountr"] }', r"encodings of sat: .*'seqcountr' .*did you mean 'seqcounter'\?"),
    ('{ cpsat = ["seqcounter"] }', r"encodings of cpsat: .*'seqcounter' is a sat encoding: choose backend sat"),
    ('{ sta = "each" }', r"encodings: unknown backend 'sta'; did you mean 'sat'\?"),
])
def test_an_encodings_table_naming_an_unknown_encoding_is_refused(tmp_path: Path, table: str, message: str) -> None:
    text = f'[[entry]]\npuzzle = "tatami"\ninstances = ["3x4"]\nbackends = ["cpsat", "sat"]\nencodings = {table}\n'
    with pytest.raises(SuiteError, match=r"mine.toml: entry 1 \(tatami\): " + message):
        plan(load(suite_file(tmp_path, text)))


@pytest.mark.parametrize("counter", ["d4", "ganak"])
def test_a_counter_is_not_planned_on_a_lazy_encoding_and_the_plan_says_why(tmp_path: Path, counter: str) -> None:
    if not backend_class(counter)().supported():
        pytest.skip(f"{counter} is not installed")
    text = f'[[entry]]\npuzzle = "knights-tour"\ninstances = ["3x4"]\nbackends = ["{counter}"]\nencodings = "each"\n'
    runs, notes = plan(load(suite_file(tmp_path, text)))
    tours, cards, symmetry = get_puzzle("knights-tour").cnf_encodings.axes
    assert [r.encoding for r in runs] == [f"{t}+{cards.default}+nosymmetry" for t in tours.choices if t != "cutset"]
    lazy = ", ".join(f"cutset+{c}+nosymmetry" for c in cards.choices)
    broken = [f"cutset+{cards.default}+{s}" for s in symmetry.choices if s != "nosymmetry"]
    where = f"mine.toml: entry 1 (knights-tour): backend '{counter}'"
    assert notes == [f"{where}: {len(cards.choices)} encodings left out ({lazy}), each for the reason given for the "
                     f"first: the cutset+{cards.default}+nosymmetry encoding is lazy (it adds clauses while solving), "
                     f"so the {counter} backend cannot count it: count with crt (the default for counting)",
                     f"{where}: {len(broken)} encodings left out ({', '.join(broken)}), each for the reason given for "
                     f"the first: the {broken[0]} encoding keeps one solution per symmetry orbit and the orbits "
                     f"differ in size, so the {counter} backend cannot count solutions with it: count with "
                     "nosymmetry (the default for counting)"]
    # "default" is the counter's own default: the exact choice (crt) on an axis not named, as gridsat count does
    runs, notes = plan(load(suite_file(tmp_path, text.replace('"each"', '"default"'))))
    assert [r.encoding for r in runs] == [f"crt+{cards.default}+nosymmetry"] and notes == []


@pytest.mark.parametrize("counter", ["d4", "ganak"])
def test_a_counter_is_not_planned_on_a_native_at_most_one_and_the_plan_says_why(tmp_path: Path, counter: str) -> None:
    """CNF+ has no DIMACS form: planned, the run would only be refused when it starts."""
    if not backend_class(counter)().supported():
        pytest.skip(f"{counter} is not installed")
    text = (f'[[entry]]\npuzzle = "prime-grid"\ninstances = [{{ name = "2x2", params = {{ max = 4 }} }}]\n'
            f'backends = ["{counter}"]\nencodings = "each"\n')
    runs, notes = plan(load(suite_file(tmp_path, text)))
    assert runs and not [r.encoding for r in runs if "native" in r.encoding.split("+")]
    native = [n for n in notes if "native" in n]
    assert len(native) == 1 and native[0].startswith(f"mine.toml: entry 1 (prime-grid): backend '{counter}': "
                                                     "encoding direct+support+native+")
    assert native[0].endswith(f"which the {counter} backend (it counts a DIMACS CNF) cannot take: choose backend "
                              "sat with solver minicard (or gluecard3, gluecard4), or another amo encoding")


def test_an_array_of_either_kind_is_described_in_plain_words() -> None:
    from gridsat.benchmarks.schema import Table, describe

    assert describe([str]) == "an array of strings"
    assert describe([(str, Table({}))]) == "an array whose items are each a string or a table"


def test_a_suite_path_that_is_no_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(GridsatError, match="no such suite file 'mysuite.tom'.*built-in suites: .*smoke"):
        load("mysuite.tom")
