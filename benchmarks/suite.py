"""Suites as data: a TOML file lists puzzles, instances, backends, encodings, solvers and the mode.

A suite file has a few defaults at the top and one ``[[entry]]`` table per puzzle series::

    description = "what the suite is for"
    mode = "count"          # or "solve" (find one solution); entries may override it
    timeout = 20            # seconds per run (--time-limit overrides)
    memory = 2048           # MB of resident memory per run (--memory overrides)
    repeat = 1              # runs per configuration (--repeat overrides)
    seeds = 5               # runs per configuration, each from its own seed (--seeds overrides; default 0:
                            # one deterministic run): CP-SAT's random_seed with permuted variables, and
                            # for the CNF backends the formula scrambled from the seed
    workers = 1             # CP-SAT's workers (default 1, as every other solver runs on one thread)
    scatter = ["cpsat", "sat"]   # the two configurations of the scatter plots (label prefixes)

    [[entry]]
    puzzle = "tatami"
    instances = ["4x7", { name = "3x4", expected = 4 }, { name = "4x4", params = { max = 17 } }]
    backends = ["cpsat", "sat", "reference"]   # default: every backend installed here
    encodings = "each"      # "default", "each" (each choice once), "all" (the product), a list of
                            # names, or a table per backend: { cpsat = "each", sat = ["ladder"] }
                            # (a counter, d4 or ganak, takes an axis not named at its exact choice,
                            # as gridsat count does; "each" and "all" are the same for every backend)
    solvers = "default"     # PySAT solvers: "default", "each" or a list
    algorithms = "default"  # reference algorithms: "default", "each" or a list
    optional = true         # skip with a note while the puzzle is not registered

An entry with ``puzzle = "*"`` (and no ``instances``) stands for every registered puzzle that no
other entry names, plugins included, each on its own ``Puzzle.example`` instance.

Everything is checked when the suite is planned, before any run starts: an unknown key, puzzle,
backend, encoding, solver or algorithm, and an instance that does not parse, are input errors that
name the file, the entry and the bad value. A configuration a backend cannot run (a counter given a
lazy encoding, known once its CNF is built on the puzzle's small example) is left out of the plan,
with a note saying why.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridsat.benchmarks.schema import MapOf, OneOf, Table, check
from gridsat.models import get_puzzle, names
from gridsat.models.encoding import offers
from gridsat.models.errors import GridsatError, InvalidOption, UnknownName, did_you_mean
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import (
    BACKENDS,
    CNF,
    ENUMERATE,
    Backend,
    Request,
    backend_class,
    counts_only,
)
from gridsat.solvers.gate import resolve_encoding

SUITES_DIR = Path(__file__).parent / "suites"
MODES = ("count", "solve")
SCOPES = ("default", "each", "all")
# The TOML types of a suite file (benchmarks/schema.py), checked before any value is used.
PARAMS = MapOf((str, int, float, bool))
NAMES = OneOf((str, [str]))
INSTANCE = Table({"name": str, "params": PARAMS, "expected": int})
ENTRY = Table({"puzzle": str, "instances": [OneOf((str, INSTANCE))], "params": PARAMS, "backends": [str],
               "encodings": OneOf((str, [str], MapOf(NAMES))), "solvers": NAMES, "algorithms": NAMES, "mode": str,
               "optional": bool})
SUITE = Table({"description": str, "mode": str, "timeout": float, "memory": int, "repeat": int, "seeds": int,
               "workers": int, "scatter": [str], "entry": [ENTRY]})
SUITE_KEYS = tuple(SUITE.fields)
ENTRY_KEYS = tuple(ENTRY.fields)
INSTANCE_KEYS = tuple(INSTANCE.fields)
# Past these a limit is a typo (and an infinite one cannot be given to setrlimit).
MAX_TIMEOUT, MAX_MEMORY = 1e7, 1 << 30  # seconds (about 4 months); megabytes
MAX_SEEDS, MAX_WORKERS = 1000, 1024
MAX_REPEAT = 1000  # runs per configuration and instance (1e12 filled memory with planned runs)


class SuiteError(GridsatError):
    """A suite file that cannot be run as written."""


@dataclass(frozen=True)
class Trial:
    """One configuration on one instance: the unit the runner isolates in a child process."""

    puzzle: str
    instance: str  # as written in the suite
    source: str  # what the worker parses (a file next to the suite becomes an absolute path)
    params: tuple[tuple[str, str], ...]
    backend: str
    encoding: str | None
    solver: str | None
    algorithm: str | None
    mode: str
    repeat: int = 0
    expected: int | None = None
    seed: int | None = None  # None: the solver's own default, unscrambled
    workers: int = 1  # CP-SAT's num_workers

    @property
    def config(self) -> str:
        """The configuration's label, e.g. ``sat:ladder/cadical195`` or ``reference:rowscan``."""
        parts = [p for p in (self.encoding, self.solver, self.algorithm) if p is not None]
        return f"{self.backend}:{'/'.join(parts) or 'default'}"

    @property
    def case(self) -> str:
        """The instance with its parameters, e.g. ``4x4 max=17``: runs on one case must agree."""
        return " ".join([self.instance, *(f"{k}={v}" for k, v in self.params)])

    @property
    def id(self) -> str:
        """The key that resume uses to recognise a finished run."""
        seeded = "" if self.seed is None else f" | seed {self.seed}"
        return f"{self.puzzle} | {self.case} | {self.config} | {self.mode} | #{self.repeat}{seeded}"

    def request(self) -> Request:
        return Request(self.encoding, self.solver, self.algorithm, 1 if self.mode == "solve" else None,
                       seed=self.seed, workers=self.workers)


@dataclass
class Suite:
    """A parsed suite file, with its defaults."""

    name: str
    path: Path
    description: str = ""
    mode: str = "count"
    timeout: float = 20.0
    memory: int = 2048
    repeat: int = 1
    seeds: int = 0
    workers: int = 1
    scatter: tuple[str, str] | None = None
    entries: list[dict[str, Any]] = field(default_factory=list)


def builtin_suites() -> list[str]:
    """The names of the suites shipped in ``benchmarks/suites``."""
    return sorted(p.stem for p in SUITES_DIR.glob("*.toml"))


def locate(name: str) -> Path:
    """A built-in suite's file, or the path given when it is a file."""
    path = Path(name)
    if path.suffix == ".toml" or path.is_file():
        if not path.is_file():
            raise SuiteError(f"suite file {name!r} does not exist")
        return path
    if (SUITES_DIR / f"{name}.toml").is_file():
        return SUITES_DIR / f"{name}.toml"
    if "/" in name or "." in name:  # meant as a path (mysuite.tom): say the file is missing, then the names
        raise SuiteError(f"no such suite file {name!r}, and no built-in suite of that name; "
                         f"built-in suites: {', '.join(builtin_suites())}")
    raise UnknownName("suite", name, builtin_suites())


def check_keys(table: dict[str, Any], valid: tuple[str, ...], where: str) -> None:
    """Reject a key the format does not know, naming it and the valid ones."""
    for key in table:
        if key not in valid:
            raise SuiteError(f"{where}: unknown key {key!r}; valid: {', '.join(valid)}")


def expect(value: Any, kind: type | tuple[type, ...], where: str, what: str) -> Any:
    """``value`` when it has the right TOML type, else an error naming it."""
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise SuiteError(f"{where}: {what} must be {names}, not {value!r}")
    return value


def positive(value: Any, where: str, what: str, most: float = math.inf) -> float:
    number = expect(value, (int, float), where, what)
    if not math.isfinite(number) or not 0 < number <= most:
        raise SuiteError(f"{where}: {what} must be positive{'' if most == math.inf else f' and at most {most:g}'}, "
                         f"not {value!r}")
    return number


def load(name: str) -> Suite:
    """Read and check a suite's top level (entries are checked by ``plan``)."""
    path = locate(name)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise SuiteError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise SuiteError(f"{path}: not UTF-8 text (byte {error.start + 1}): not a suite file") from None
    except RecursionError:  # tomllib parses nested arrays recursively
        raise SuiteError(f"{path}: arrays or tables nested too deep for a suite file") from None
    except OSError as error:
        raise SuiteError(f"{path}: cannot read it: {error.strerror or error}") from None
    where = str(path)
    check(data, SUITE, "", lambda message: SuiteError(f"{where}: {message}".replace(": : ", ": ")))
    check_keys(data, SUITE_KEYS, where)
    suite = Suite(path.stem, path)
    suite.description = expect(data.get("description", ""), str, where, "description")
    suite.mode = pick_mode(data.get("mode", "count"), where)
    suite.timeout = positive(data.get("timeout", suite.timeout), where, "timeout", MAX_TIMEOUT)
    # A whole number of MB: int(0.5) would be 0, which the runner reads as no limit at all.
    suite.memory = int(positive(expect(data.get("memory", suite.memory), int, where, "memory"), where, "memory",
                                MAX_MEMORY))
    suite.repeat = int(positive(expect(data.get("repeat", 1), int, where, "repeat"), where, "repeat", MAX_REPEAT))
    if "seeds" in data:
        suite.seeds = int(positive(expect(data["seeds"], int, where, "seeds"), where, "seeds", MAX_SEEDS))
    suite.workers = int(positive(expect(data.get("workers", 1), int, where, "workers"), where, "workers", MAX_WORKERS))
    if "scatter" in data:
        pair = expect(data["scatter"], list, where, "scatter")
        if len(pair) != 2 or not all(isinstance(x, str) for x in pair):
            raise SuiteError(f"{where}: scatter must be two configuration labels, not {pair!r}")
        suite.scatter = (pair[0], pair[1])
    entries = expect(data.get("entry", []), list, where, "entry")
    for i, entry in enumerate(entries, 1):
        check_keys(expect(entry, dict, where, f"entry {i}"), ENTRY_KEYS, f"{where}: entry {i}")
        if "puzzle" not in entry:
            raise SuiteError(f"{where}: entry {i} has no puzzle")
    suite.entries = entries
    return suite


def pick_mode(value: Any, where: str) -> str:
    if value not in MODES:
        raise SuiteError(f"{where}: unknown mode {value!r}; valid: {', '.join(MODES)}")
    return value


def params_of(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    """A ``params`` table as sorted ``(key, text)`` pairs, the way ``-p key=value`` gives them."""
    table = expect(value, dict, where, "params")
    text = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in table.items()}
    return tuple(sorted(text.items()))


def name_list(spec: Any, where: str, what: str) -> list[str]:
    """A list of names, where a scope (``default``, ``each``, ``all``) was not given."""
    if not isinstance(spec, list) or not all(isinstance(x, str) for x in spec):
        scopes = ", ".join(map(repr, SCOPES))
        raise SuiteError(f"{where}: {what} must be one of {scopes} or a list of names, not {spec!r}")
    return spec


def scoped(spec: Any, choices: list[str], where: str, what: str) -> list[str | None]:
    """``default`` (None: the backend's own default), ``each``/``all`` (every choice) or a checked list."""
    if spec in (None, "default"):
        return [None]
    if spec in ("each", "all"):
        return list(choices)
    for name in name_list(spec, where, what):
        if name not in choices:
            raise SuiteError(f"{where}: unknown {what[:-1]} {name!r}; valid: {', '.join(choices)}")
    return list(spec)


def encodings_for(puzzle: Puzzle, name: str, backend: Backend, spec: Any, where: str) -> list[str]:
    """The resolved encoding names backend ``name`` runs, from a scope, a list or a per-backend table.
    A counter takes an axis not named at its exact choice, as ``gridsat count`` does; ``each`` and
    ``all`` plan the same encodings as for the other backends (exact choices on every axis would make
    Ganak's preprocessing several times slower on prime-grid, whose default keeps one grid per orbit)."""
    exact = counts_only(backend)
    kind = backend.formulation or CNF  # asked of the backend; one with no formulation of its own: the CNF's
    space = puzzle.encodings(kind)
    table = isinstance(spec, dict)
    if table:
        spec = spec.get(name, "default")
    if spec in (None, "default"):
        return [space.resolve(None, exact=exact).name]
    if spec == "each":
        return [e.name for e in space.variants()]
    if spec == "all":
        return [e.name for e in space.all()]
    names = []
    for text in name_list(spec, where, "encodings"):
        if table or offers(space, text):  # a plain list may name the other kind's encodings too
            try:
                names.append(resolve_encoding(puzzle, kind, text, exact=exact).name)
            except GridsatError as error:
                raise SuiteError(f"{where}: encodings of {name}: {error}") from None
    return list(dict.fromkeys(names)) or [space.resolve(None, exact=exact).name]


def check_encoding_names(puzzle: Puzzle, spec: Any, where: str) -> None:
    """Every name in a plain list must belong to at least one of the puzzle's encoding spaces; a
    table's keys must be backends (its names are checked against each backend's own space)."""
    if isinstance(spec, dict):
        for key in spec:
            if key not in BACKENDS:
                raise SuiteError(f"{where}: encodings: unknown backend {key!r}; {did_you_mean(key, BACKENDS)}"
                                 f"valid: {', '.join(BACKENDS)}")
    if not isinstance(spec, list):
        return
    for text in spec:
        if not any(offers(space, text) for space in (puzzle.cpsat_encodings, puzzle.cnf_encodings)):
            valid = puzzle.cpsat_encodings.tokens() + puzzle.cnf_encodings.tokens()
            raise SuiteError(f"{where}: unknown encoding {text!r}; {did_you_mean(text, valid)}"
                             f"valid: {', '.join(valid) or 'default'}")


def countable(name: str, puzzle: Puzzle, sample: Instance, encodings: list[str | None], where: str,
              notes: list[str]) -> list[str | None]:
    """The encodings counter ``name`` can count; the others are left out with a note saying why (one
    note for those whose reason is the same but for the encoding's name)."""
    kept, out = [], {}
    for encoding in encodings:
        why = refusal(name, puzzle, sample, encoding) if encoding is not None else None
        if why:
            out.setdefault(why.replace(encoding, ""), {})[encoding] = why
        else:
            kept.append(encoding)
    for same in out.values():
        first = next(iter(same.values()))
        if len(same) > 1:
            notes.append(f"{where}: {len(same)} encodings left out ({', '.join(same)}), each for the reason given "
                         f"for the first: {first}")
        else:
            notes.append(f"{where}: encoding {next(iter(same))} left out: {first}")
    return kept


def refusal(name: str, puzzle: Puzzle, sample: Instance, encoding: str) -> str | None:
    """Why counter ``name`` cannot count ``encoding``, or None: it is lazy (its models include
    non-solutions, known once its CNF is built, here on a small instance), or native (CNF+, which a
    DIMACS counter cannot read)."""
    from gridsat.solvers.backends.counters import check_eager
    from gridsat.solvers.gate import check_needs, settle

    backend, request = backend_class(name)(), Request(encoding)
    chosen = settle(backend, puzzle, request)
    if chosen is None:  # a counter counts a CNF, so the gate resolves its encoding: never here
        return None
    try:
        formulation = puzzle.cnf(sample, chosen)
    except GridsatError:
        return None  # not buildable on the sample: the runs will say what they can do
    try:
        check_eager(name, puzzle, chosen, formulation)
        check_needs(puzzle.cnf_encodings.needs(chosen), backend.refuses_cnf_plus(request))
    except InvalidOption as error:
        return str(error)
    return None


def instances_of(entry: dict[str, Any], suite: Suite, where: str) -> list[tuple[str, str, tuple, int | None]]:
    """Each instance as (name, source, params, expected); a file beside the suite becomes a path."""
    common = params_of(entry.get("params", {}), where)
    out = []
    for item in expect(entry.get("instances", []), list, where, "instances"):
        if isinstance(item, str):
            item = {"name": item}
        check_keys(expect(item, dict, where, "an instance"), INSTANCE_KEYS, f"{where}: instance {item!r}")
        name = expect(item.get("name"), str, where, "an instance's name")
        params = tuple(sorted({**dict(common), **dict(params_of(item.get("params", {}), where))}.items()))
        expected = item.get("expected")
        if expected is not None:
            expect(expected, int, where, f"expected count of {name}")
        beside = suite.path.parent / name
        source = str(beside.resolve()) if is_file(beside) else name
        out.append((name, source, params, expected))
    if not out:
        raise SuiteError(f"{where}: no instances")
    return out


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file; a name no file can have (a long game id) is none."""
    try:
        return path.is_file()
    except OSError:  # ENAMETOOLONG: an instance text, not a path
        return False


def backends_of(entry: dict[str, Any], where: str, notes: list[str]) -> list[tuple[str, Any]]:
    """The registered names and backend objects an entry runs on; missing packages are noted."""
    names = entry.get("backends")
    if names is None:
        names = list(BACKENDS)
    for name in expect(names, list, where, "backends"):
        if name not in BACKENDS:
            raise SuiteError(f"{where}: unknown backend {name!r}; valid: {', '.join(BACKENDS)}")
    chosen = []
    for name in names:
        backend = backend_class(name)()
        if backend.supported():
            chosen.append((name, backend))
        else:
            notes.append(f"{where}: backend {name!r} skipped: its package is not installed")
    return chosen


def plan(suite: Suite, repeat: int | None = None, seeds: int | None = None,
         scramble: int | None = None) -> tuple[list[Trial], list[str]]:
    """Every run of the suite, checked; and notes on what was skipped and why. With seeds (``seeds``, else
    the suite's), every repeat runs once per seed 1..K; with ``scramble``, once from that seed alone."""
    seeded: list[int | None] = list(range(1, (seeds if seeds is not None else suite.seeds) + 1)) or [None]
    if scramble is not None:
        seeded = [scramble]
    runs: list[Trial] = []
    notes: list[str] = []
    for i, entry in enumerate(expand(suite, notes), 1):
        name = entry["puzzle"]
        where = f"{suite.path.name}: entry {i} ({name})"
        if name not in names():
            if expect(entry.get("optional", False), bool, where, "optional"):
                notes.append(f"puzzle {name!r} skipped: not registered yet (entry {i} of {suite.path.name})")
                continue
            raise SuiteError(f"{where}: unknown puzzle {name!r}; valid: {', '.join(names())}")
        try:
            puzzle = get_puzzle(name)
        except ImportError as error:
            if not entry.get("optional", False):
                raise SuiteError(f"{where}: puzzle {name!r} cannot be loaded: {error}") from None
            notes.append(f"puzzle {name!r} skipped: it cannot be loaded yet ({error})")
            continue
        mode = pick_mode(entry.get("mode", suite.mode), where)
        check_encoding_names(puzzle, entry.get("encodings"), where)
        instances = instances_of(entry, suite, where)
        for inst, source, params, _ in instances:
            try:
                puzzle.parse(source, dict(params))
            except GridsatError as error:
                raise SuiteError(f"{where}: instance {inst!r}: {error}") from None
        configs = configurations(puzzle, entry, where, notes, mode, sample_of(puzzle, instances))
        for inst, source, params, expected in instances:
            for backend, encoding, solver, algorithm in configs:
                runs += [Trial(name, inst, source, params, backend, encoding, solver, algorithm, mode, k, expected,
                               seed, suite.workers)
                         for k in range(repeat or suite.repeat) for seed in seeded]
    ids = [r.id for r in runs]
    if len(ids) != len(set(ids)):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        raise SuiteError(f"{suite.path.name}: the same run is listed twice: {twice[0]}")
    return runs, notes


def expand(suite: Suite, notes: list[str]) -> list[dict[str, Any]]:
    """The entries, an entry for ``puzzle = "*"`` becoming one per registered puzzle that no other
    entry names (plugins included), on the puzzle's own ``example`` instance."""
    named = {entry["puzzle"] for entry in suite.entries}
    out = []
    for entry in suite.entries:
        if entry["puzzle"] != "*":
            out.append(entry)
            continue
        if "instances" in entry:
            raise SuiteError(f"{suite.path.name}: the entry for puzzle '*' takes each puzzle's example, not instances")
        for name in names():
            if name in named:
                continue
            try:
                example = get_puzzle(name).example
            except GridsatError as error:
                notes.append(f"puzzle {name!r} skipped: {error}")
                continue
            if example is None:
                notes.append(f"puzzle {name!r} skipped: it has no example instance (Puzzle.example)")
                continue
            out.append({**entry, "puzzle": name, "instances": [example]})
    return out


def sample_of(puzzle: Puzzle, instances: list[tuple[str, str, tuple, int | None]]) -> Instance:
    """A small instance to build formulations on while planning: the puzzle's example, else the entry's first."""
    if puzzle.example is not None:
        return puzzle.parse(puzzle.example, {})
    _, source, params, _ = instances[0]
    return puzzle.parse(source, dict(params))


def configurations(puzzle: Puzzle, entry: dict[str, Any], where: str, notes: list[str], mode: str,
                   sample: Instance) -> list[tuple]:
    """(backend, encoding, solver, algorithm) for each configuration an entry asks for in ``mode``; a
    backend that cannot run the puzzle, or cannot solve in solve mode, and an encoding a counter
    cannot count (tried on ``sample``), are left out with a note."""
    configs = []
    for name, backend in backends_of(entry, where, notes):
        try:
            choices = backend.choices(puzzle)
            refusal = backend.refusal(puzzle)
        except (ImportError, GridsatError) as error:
            notes.append(f"{where}: backend {name!r} skipped: {error}")
            continue
        if refusal:
            notes.append(f"{where}: backend {name!r} skipped: {refusal}")
            continue
        if mode == "solve" and ENUMERATE not in backend.can:
            notes.append(f"{where}: backend {name!r} skipped: it counts, it finds no solution to solve with")
            continue
        encodings: list[str | None] = [None]
        solvers: list[str | None] = [None]
        algorithms: list[str | None] = [None]
        if "encoding" in backend.takes:
            encodings = encodings_for(puzzle, name, backend, entry.get("encodings"), where)
        if counts_only(backend) and "encoding" in backend.takes:
            encodings = countable(name, puzzle, sample, encodings, f"{where}: backend {name!r}", notes)
        if "solver" in backend.takes:
            solvers = scoped(entry.get("solvers"), choices["solver"], where, "solvers")
            solvers = [s or choices["solver"][0] for s in solvers]
        if "algorithm" in backend.takes:
            if not choices["algorithm"]:
                notes.append(f"{where}: backend {name!r} skipped: nothing for {puzzle.name}")
                continue
            algorithms = scoped(entry.get("algorithms"), choices["algorithm"], where, "algorithms")
            algorithms = [a or choices["algorithm"][0] for a in algorithms]
        named = entry.get("solvers") not in (None, "default")
        configs += [(name, e, s if named else cnf_plus_solver(puzzle, e, s), a)
                    for e in encodings for s in solvers for a in algorithms]
    return configs


def cnf_plus_solver(puzzle: Puzzle, encoding: str | None, solver: str | None) -> str | None:
    """The solver a run of ``encoding`` gets when the entry names none: an encoding that needs CNF+ runs on
    the first solver that takes it, anything else on ``solver``."""
    from gridsat.models.registries import CNF_PLUS
    from gridsat.solvers.backend import backend_class

    if solver is None or encoding is None or CNF_PLUS not in puzzle.cnf_encodings.needs(
            resolve_encoding(puzzle, "cnf", encoding)):
        return solver
    return backend_class("sat").cnf_plus_solvers[0]
