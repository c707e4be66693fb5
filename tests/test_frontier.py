"""The frontier backend: golden counts, exact counts past 2**64, conventions, refusals and stops."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

pytest.importorskip("numba")

from conftest import (
    execute,  # noqa: E402
    golden,  # noqa: E402
)
from gridsat.models import get_puzzle  # noqa: E402
from gridsat.models.errors import InvalidOption  # noqa: E402
from gridsat.models.golden import oeis_rooms  # noqa: E402
from gridsat.solvers.backend import COUNT, Request  # noqa: E402
from gridsat.solvers.backends.frontier_dp import FrontierBackend  # noqa: E402
from gridsat.solvers.frontier_engine import layers  # noqa: E402
from gridsat.solvers.frontier_engine.residues import crt, moduli_for  # noqa: E402
from gridsat.solvers.gate import Job, admit  # noqa: E402
from gridsat.solvers.stop import INTERRUPTED, TIME_LIMIT, Stop  # noqa: E402

TOUR, TATAMI = get_puzzle("knights-tour"), get_puzzle("tatami")
BACKEND = FrontierBackend()


def count(puzzle, text, params=None, *, up_to=None, request=None, stop=None, progress=None):
    """The frontier's tally of an instance given as on the command line."""
    instance = puzzle.parse(text, params or {})
    bound = admit(BACKEND, puzzle, Job(COUNT, request or Request(), up_to=up_to))  # as every run reaches it
    return BACKEND.tally(puzzle, instance, bound.request, stop or Stop(), up_to=up_to, progress=progress)


TOURS = golden("knights_tour")["count"]  # every entry, the slow ones too: the frontier counts each in under a second


@pytest.mark.parametrize("entry", TOURS, ids=lambda e: f"{e['board']}-{e['params']}")
def test_golden_tour_counts(entry):
    tally = count(TOUR, entry["board"], entry["params"])
    assert tally.count == entry["count"]


# The 30x30 room has 2 tilings but some 4 * 10**7 frontier states 30 cells wide: minutes, not a test.
ROOMS = [e for e in golden("tatami")["count"] if min(map(int, e["room"].split("x"))) <= 20]


@pytest.mark.parametrize("entry", ROOMS, ids=lambda e: e["room"])
def test_golden_tatami_counts(entry):
    assert count(TATAMI, entry["room"]).count == entry["count"]


def test_every_oeis_tatami_room():
    """A068920's first 13 antidiagonals: every room with r + s <= 14, odd areas (no tiling) included."""
    got = {(r, c): count(TATAMI, f"{r}x{c}").count for r, c in oeis_rooms()}
    assert got == oeis_rooms()


BIG = golden("frontier")["count"]


def case(entry: dict) -> object:
    """A golden entry as a test: marked slow when it takes seconds, skipped with its reason when the
    frontier cannot count it here (never left out silently)."""
    if "beyond" in entry:
        return pytest.param(entry, id=entry["id"], marks=pytest.mark.skip(reason=f"not counted: {entry['beyond']}"))
    if "minutes" in entry:
        reason = (f"takes about {entry['minutes']} minutes, more than the suite has: "
                  f"python -m gridsat.benchmarks.compare.frontier {entry.get('benchmark', '--full')} counts it")
        return pytest.param(entry, id=entry["id"], marks=pytest.mark.skip(reason=reason))
    return pytest.param(entry, id=entry["id"], marks=[pytest.mark.slow] if entry.get("slow") else [])


@pytest.mark.parametrize("entry", [case(e) for e in BIG])
def test_big_golden_counts(entry):
    """Counts past 2**64 (tatami 2x200: the residues of several primes rebuilt by the CRT) and OEIS tour counts."""
    puzzle = get_puzzle(entry["puzzle"])
    tally = count(puzzle, entry["instance"], entry.get("params"), up_to=entry.get("up_to"))
    assert tally.count == entry["count"]
    if entry["count"] >= 1 << 64:
        assert tally.details["lanes"] > 1


@pytest.mark.parametrize("text, params", [
    ("3x4", {}), ("3x4", {"start": "1,1"}), ("4x5", {"start": "0,0"}), ("5x5", {"start": "2,2"}),
    ("3x10", {"closed": "true"}), ("1x1", {}), ("1x1", {"closed": "true"}), ("2x3", {}),
])
def test_tours_agree_with_the_sat_backend_live(text, params):
    """Directed counts, the same convention as enumeration: open tours from a start, closed tours once per direction."""
    board = TOUR.parse(text, params)
    assert count(TOUR, text, params).count == execute(TOUR, board, "sat").count


@pytest.mark.parametrize("room", ["3x4", "4x7", "5x6", "6x6"])
def test_tatami_agrees_with_the_sat_backend_live(room):
    assert count(TATAMI, room).count == execute(TATAMI, TATAMI.parse(room, {}), "sat").count


@pytest.mark.parametrize("text, params, directed, undirected", [
    ("5x5", {}, 1728, 864),
    ("5x5", {"start": "0,0"}, 304, 304),  # reversal begins elsewhere: not a symmetry of tours from a start
    ("6x6", {"closed": "true"}, 19724, 9862),
    ("6x6", {"closed": "true", "start": "2,3"}, 19724, 9862),
])
def test_up_to_reversal_halves_the_directed_count(text, params, directed, undirected):
    """The identity's count with the reversal proved to fix none (Burnside's lemma, tests/test_frontier_orbits.py)."""
    assert count(TOUR, text, params).count == directed
    assert count(TOUR, text, params, up_to="reversal").count == undirected


def test_refusals_are_one_line():
    assert BACKEND.refusal(TOUR) is None and BACKEND.refusal(TATAMI) is None
    why = BACKEND.refusal(get_puzzle("prime-grid"))
    assert why.startswith("prime-grid has no frontier formulation: count it with") and "\n" not in why
    # Knight's tours and tatami list what each element fixes (Burnside on folds); a frontier without that list
    # is refused up to symmetry by its spec, in one line.
    without_folds = replace(TATAMI, frontier=replace(TATAMI.frontier, fixed=None))
    with pytest.raises(InvalidOption, match="^the frontier backend counts tatami tilings, and their orbits up to "
                       "symmetry, not up to symmetry$"):
        count(without_folds, "4x7", up_to="symmetry")
    with pytest.raises(InvalidOption, match="counts without listing"):
        BACKEND.prepare(TATAMI, TATAMI.parse("4x7", {}), Request())
    with pytest.raises(InvalidOption, match="counts without listing"):
        BACKEND.vet(TATAMI, Request(), counting=False)


def test_a_memory_budget_below_the_layers_sends_them_to_disk(tmp_path):
    """An engine budget of one megabyte is below 6x6 closed tours' widest layers: they go to spill files, and
    the count holds (a budget that even one partition cannot fit ends the run: see test_frontier_layers.py)."""
    spec = TOUR.frontier.spec(TOUR.parse("6x6", {"closed": "true"}))
    run = layers.run_spec(spec, Stop(), memory=1 << 20, spill=tmp_path)
    assert run.count * spec.scale[None] == 19724 and run.spilled > 0
    assert run.peak_memory <= 1 << 20 and list(tmp_path.iterdir()) == []


def test_tables_kept_from_earlier_layers_count_against_the_budget(tmp_path, monkeypatch):
    """Each thread keeps its merge table for the run (``layers.Tables``), and a small layer's plan named none of
    them: 4 runs of 40 of the count above held 1,126,368 bytes at a budget of 1 MB, when the main thread's table and
    both workers' were kept. Planted here for every run: a quarter of the budget kept by a thread that left."""
    import numpy as np

    made = layers.Engine.__post_init__

    def with_a_table_kept(engine: layers.Engine) -> None:
        made(engine)
        table = np.zeros((1 << 15, 1), np.uint64)
        engine.tables.held[(-1, "table")] = table  # no thread has that ident: only a plan can let it go
        engine.meter.add(table.nbytes)

    monkeypatch.setattr(layers.Engine, "__post_init__", with_a_table_kept)
    spec = TOUR.frontier.spec(TOUR.parse("6x6", {"closed": "true"}))
    run = layers.run_spec(spec, Stop(), memory=1 << 20, spill=tmp_path)
    assert run.count * spec.scale[None] == 19724
    assert run.peak_memory <= 1 << 20, run.memory


def test_the_memory_option_bounds_the_whole_process(monkeypatch):
    """``memory`` is the process's budget: the engine gets it less what the process holds and an 8th; a
    budget below what the process holds already is refused in one line naming it."""
    from gridsat.solvers.backends import frontier_dp
    from gridsat.solvers.host import machine

    monkeypatch.setattr(machine, "resident_bytes", lambda: 300 << 20)
    assert frontier_dp.engine_share(1600 << 20) == (1600 - 300 - 200) << 20
    with pytest.raises(InvalidOption, match=r"^memory=200: the budget bounds the whole process, which holds 300 MB"):
        frontier_dp.engine_share(200 << 20)
    seen = []
    monkeypatch.setattr(layers, "run_spec", lambda spec, stop, **kw: seen.append(kw["memory"]))
    count(TOUR, "6x6", {"closed": "true"}, request=Request(memory=1600))
    assert seen == [(1600 - 300 - 200) << 20]  # what the engine was handed, not the whole 1600 MB


def test_time_limit_gives_no_count():
    stop = Stop(time_limit=0)
    assert count(TOUR, "6x6", {"closed": "true"}, stop=stop).count is None
    assert stop.reason == TIME_LIMIT


def test_ctrl_c_is_reported_as_interrupted(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(layers, "run_spec", interrupted)
    stop = Stop()
    assert count(TATAMI, "4x7", stop=stop).count is None
    assert stop.reason == INTERRUPTED


def test_progress_and_details(monkeypatch):
    monkeypatch.setattr(layers, "PROGRESS_EVERY", 0.0)
    lines: list[str] = []
    tally = count(TOUR, "5x5", {"closed": "false"}, progress=lines.append)
    assert lines and lines[-1].startswith("layer ") and " of 48: " in lines[-1]
    assert lines[-1].endswith(" MB at the peak, in memory")
    details = tally.details
    assert details["order"] == "column-major edges" and details["peak_states"] == max(details["states_per_layer"])
    assert details["peak_memory"] > 0 and details["layers"] == 48 and tally.size["elements"] == 48


def test_the_step_bound_into_expand_makes_the_same_children(monkeypatch):
    """``kernels.expander`` (the step compiled into expand, used from ``BIND_FROM`` parents) makes the
    children, partitions and completed counts that ``kernels.expand`` makes through the function type; a
    count with every layer using it is exact (knight's tours closed and open, tatami)."""
    import numpy as np

    from gridsat.solvers.frontier_engine import kernels

    spec = TOUR.frontier.spec(TOUR.parse("6x6", {"closed": "true"}))
    data = np.ascontiguousarray(spec.data, dtype=np.int64)
    parents = np.zeros((1, spec.words), np.uint64)
    parents[0, -1] = np.uint64(1) << np.uint64(64 - spec.spare_bits)
    moduli = np.zeros(1, np.uint64)
    for layer in range(spec.elements):
        made = []
        for kernel in (lambda *a: kernels.expand(spec.step, *a), kernels.expander(spec.step)):
            children = np.empty((parents.shape[0] * spec.choices, spec.words), np.uint64)
            part, acc = np.empty(children.shape[0], np.int64), np.zeros((1, 1), np.uint64)
            m = kernel(data, layer, parents, 0, parents.shape[0], spec.words, spec.choices, moduli, spec.scratch,
                       np.uint64(7), children, part, acc, 0, 64 - spec.spare_bits)
            made.append((children[:m].copy(), part[:m].copy(), int(acc[0, 0])))
        (c1, p1, a1), (c2, p2, a2) = made
        assert np.array_equal(c1, c2) and np.array_equal(p1, p2) and a1 == a2
        parents = np.unique(c1, axis=0)  # the merged states' counts differ (not checked here): the states do not
        if parents.shape[0] == 0:
            break
    monkeypatch.setattr(layers, "BIND_FROM", 0)
    monkeypatch.setattr(layers, "SMALL_LAYER", 0)
    for text, params, native in (("6x6", {"closed": "true"}, 9862), ("5x5", {}, 864), ("3x12", None, None)):
        puzzle = TOUR if params is not None else TATAMI
        bound = layers.run_spec(puzzle.frontier.spec(puzzle.parse(text, params or {})), Stop(), threads=2)
        monkeypatch.setattr(layers, "BIND_FROM", 1 << 60)
        plain = layers.run_spec(puzzle.frontier.spec(puzzle.parse(text, params or {})), Stop(), threads=2)
        monkeypatch.setattr(layers, "BIND_FROM", 0)
        assert bound.count == plain.count and (native is None or bound.count == native)


def test_partitioned_layers_count_the_same_as_one(monkeypatch):
    """Every layer here is split into many partitions and many slices, on one thread and on two."""
    monkeypatch.setattr(layers, "SMALL_LAYER", 0)
    monkeypatch.setattr(layers, "PART_ROWS", 64)
    monkeypatch.setattr(layers, "CHUNK", 128)
    monkeypatch.setattr(layers, "MIN_SLICE", 16)
    for text, params, native in (("5x5", {}, 864), ("3x10", {"closed": "true"}, 16), ("3x200", None, None)):
        puzzle = TOUR if params is not None else TATAMI
        spec = puzzle.frontier.spec(puzzle.parse(text, params or {}))
        one = layers.run_spec(spec, Stop(), threads=1)
        two = layers.run_spec(spec, Stop(), threads=2)
        assert one.count == two.count and two.partitions >= 2
        assert native is None or one.count == native


@pytest.mark.parametrize("text, params, native, first_slot", [
    ("5x5", {}, 864, 11), ("5x5", {"start": "2,2"}, 64, 11), ("3x10", {"closed": "true"}, 16, 11),
    ("5x6", {"closed": "true"}, 8, 11), ("6x6", {"closed": "true"}, 9862, 9),
])
def test_states_of_two_words(text, params, native, first_slot):
    """Boards of 8 rows and more pack their frontier into two words: the same counts on small boards whose
    slots are moved up so that they straddle the two words."""
    from gridsat.models.knights_tour.frontier import build

    spec = build(TOUR.parse(text, params), first_slot=first_slot)
    assert spec.words == 2 and spec.details["frontier_slots"] > 16
    assert layers.run_spec(spec, Stop()).count == native


@pytest.mark.parametrize("text, params, along, native, numberings", [
    ("6x6", {"closed": "true"}, None, 9862, 4), ("5x5", {}, None, 864, 3), ("8x3", {}, "columns", 396, 5),
])
def test_every_line_order_counts_the_same(text, params, along, native, numberings):
    """Each order of a line's squares walks other states to the same count: 6x6 closed and 5x5 open tours,
    and 3x8's 396 open tours (OEIS A169696) swept along its 8-square columns, the searched permutation's."""
    from gridsat.models.knights_tour.frontier import LINE_ORDERS, build, order

    board = TOUR.parse(text, params)
    runs = {rule: layers.run_spec(build(board, along=along, rule=rule), Stop(), threads=1) for rule in LINE_ORDERS}
    assert {rule: run.count for rule, run in runs.items()} == dict.fromkeys(LINE_ORDERS, native)
    distinct = {rule: tuple(sorted(order(board, along, rule)[1].items())) for rule in LINE_ORDERS}
    # tuned is colour or parity off 8-square lines, mixed colour on even lines and parity on odd ones, mirror
    # pairs on even lines and parity on odd ones
    assert len(set(distinct.values())) == numberings
    assert len({sum(run.states) for run in runs.values()}) == numberings  # one walk an order
    assert sorted(order(board, along, "tuned")[1].values()) == list(range(board.area))
    with pytest.raises(ValueError, match="no line order 'zigzag'"):
        order(board, along, "zigzag")


def test_tatami_states_of_several_words():
    from gridsat.models.tatami.frontier import build

    assert layers.run_spec(build(4, 7, least_words=2), Stop()).count == 3
    assert layers.run_spec(build(8, 100, least_words=2), Stop()).count == 3021


def test_chinese_remainders_rebuild_big_counts():
    rng = random.Random(20)
    for bits in (10, 64, 65, 200, 700):
        mods = moduli_for(bits)
        for _ in range(20):
            x = rng.getrandbits(bits)
            assert crt([x % m for m in mods], mods) == x


def test_children_scattered_into_their_pieces_and_merged_piece_by_piece_as_when_copied():
    """``scatter_into`` (each partition's rows copied through the address of its piece) puts in each piece the
    rows ``scatter`` orders into that partition, in order; ``insert_pieces`` then ``collect`` on pieces cut
    anywhere make the states and counts ``merge`` makes of the rows in one array (packed rows and a column a
    lane with two lanes). A piece left out of the merge is seen: its counts are missing from the total."""
    import numpy as np

    from gridsat.solvers.frontier_engine import kernels

    rng = np.random.default_rng(55)
    for shift, width, moduli in ((8, 2, np.zeros(1, np.uint64)), (0, 4, np.array([0, 1_000_003], np.uint64))):
        m, parts = 5000, 8
        rows = np.zeros((m, width), np.uint64)
        rows[:, 0] = rng.integers(0, 300, m, dtype=np.uint64)  # few distinct states: many merge
        rows[:, 1] = rng.integers(0, 3, m, dtype=np.uint64)
        if shift:
            rows[:, 1] |= rng.integers(1, 50, m, dtype=np.uint64) << np.uint64(shift)
        else:
            rows[:, 2] = rng.integers(1, 50, m, dtype=np.uint64)
            rows[:, 3] = rows[:, 2] % moduli[1]
        part = rng.integers(0, parts, m).astype(np.int64)
        starts, ordered = np.empty(parts + 1, np.int64), np.empty_like(rows)
        kernels.scatter(rows, part, m, ordered, starts)
        counted = np.empty(parts + 1, np.int64)
        kernels.count_parts(part, m, counted)
        assert np.array_equal(starts, counted)
        pieces = [np.empty((starts[p + 1] - starts[p], width), np.uint64) for p in range(parts)]
        addresses = np.array([piece.__array_interface__["data"][0] for piece in pieces], np.uint64)
        kernels.scatter_into(rows, part, m, addresses)
        for p in range(parts):
            assert np.array_equal(pieces[p], ordered[starts[p] : starts[p + 1]])
        table = np.zeros((1 << kernels.table_bits(m), width), np.uint64)
        words = 2  # the state's words; the rest of a row is its count lanes
        whole, whole_total = kernels.merge(rows, words, moduli, table, shift)
        cuts = [0, 1, 1, 700, 2400, m]  # an empty piece and a piece of one row among them
        cut = [rows[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
        n, bits = kernels.insert_pieces(cut, words, moduli, table, shift)
        states = np.empty((n, width), np.uint64)
        total = kernels.collect(table, bits, states, words, shift)
        assert n == whole.shape[0] and total == whole_total and not table.any()
        assert np.array_equal(np.unique(states, axis=0), np.unique(whole, axis=0))
        counts = rows[:, 1] >> np.uint64(shift) if shift else rows[:, 2]
        assert whole.shape[0] < m and total == float(sum(int(c) for c in counts))
        short, bits = kernels.insert_pieces(cut[:-1], words, moduli, table, shift)  # the last piece left out
        assert kernels.collect(table, bits, np.empty((short, width), np.uint64), words, shift) < total
