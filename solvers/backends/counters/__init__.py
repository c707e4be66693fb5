"""Exact model counters as backends: d4 (package ``d4Solver``, module ``py_d4``) and Ganak (``pyganak``).

Both count the puzzle's CNF without listing a solution, projected onto the puzzle's own variables
(``CnfFormulation.projection``), so an encoding's auxiliary variables never multiply a count:

- the formula is written as DIMACS into a temporary folder, with ``c p show`` when the projection
  leaves variables out. d4 reads that line itself and counts projected (its binding has no other
  way to name a projection); Ganak gets the same variables as its sampling set. When the projection
  is every variable the line is left out: d4's projected mode costs several times as much for the
  same count (the README quotes the measurement). The file carries no ``c ind`` line: d4
  1.0.0 refuses a file with one ("DpllStyleMethod requires exactly one quantification block").
- an empty projection (a puzzle whose solutions have no variables) counts 1 when the formula is
  satisfiable: the unprojected count is capped at 1.

An encoding is counted eagerly and exactly. Axes the user did not name take their ``exact`` choice
(knight's tours: ``crt`` instead of the lazy ``cutset``; prime-grid: ``nosymmetry``). A lazy encoding
the user named is refused (its models are a superset of the solutions); a reduced one the user
named (one model per symmetry orbit) is counted and multiplied back by the orbit size.

Neither binding can be interrupted (d4 and Ganak hold the GIL in C++ until they are done), so the
count runs in a process of its own (``counter_process.py``, run by path so that it imports no gridsat and
starts several times faster than a ``multiprocessing`` spawn), which gridsat kills at the deadline,
on Ctrl-C or SIGTERM, or when the stop is requested. Its stdout and stderr go to a log file, so the
counters' statistics never reach gridsat's stdout; their tail is kept in the Tally's details as
``counter_output``.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from gridsat.models.encoding import Encoding
from gridsat.models.errors import InvalidOption
from gridsat.models.formulation import BuildExpired, CnfFormulation, build_deadline
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import CNF, COUNT, TIME_LIMIT, Backend, Request, Tally, bound_encoding
from gridsat.solvers.stop import INTERRUPTED, Stop
from gridsat.solvers.stop import TIME_LIMIT as TIME_LIMIT_REASON

INSTALL = "pip install 'gridsat[counters]'"
TICK = 0.05  # seconds between looks at the stop while the worker counts
PROGRESS_EVERY = 1.0  # seconds between progress notes
OUTPUT_LINES = 40  # the counter's chatter kept in the details: its last lines
OUTPUT_CHARS = 4000
WRITE_CHUNK = 100_000  # clauses written between looks at the deadline
DIGITS = 4000  # decimal digits converted at once (Python's default limit is 4,300)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class DimacsFile:
    """A DIMACS file ready for a counter, and what it holds."""

    path: Path
    variables: int
    clauses: int
    projection: list[int] | None  # None: every variable (plain counting)
    empty_projection: bool = False  # the count is then 1 if satisfiable, else 0


def counted_variables(f: CnfFormulation) -> int:
    """The variables the file declares: every clause's and every projection variable's."""
    return max([f.cnf.nv, *f.projection, 0])


def projection_of(f: CnfFormulation, variables: int) -> list[int] | None:
    """The variables to project onto, or None when that is all of them (plain counting is faster)."""
    shown = sorted(set(f.projection))
    return None if len(shown) == variables else shown


def write_formula(f: CnfFormulation, folder: Path, stop: Stop, header: Iterable[str] = ()) -> DimacsFile | None:
    """The formula as DIMACS with its projection line; None when the stop came while writing."""
    variables = counted_variables(f)
    projection = projection_of(f, variables) if f.projection else None
    path = folder / "formula.cnf"
    clauses = f.cnf.clauses
    with path.open("w") as out:
        for line in header:
            out.write(f"c {line}\n")
        if projection is not None:
            out.write(f"c p show {' '.join(map(str, projection))} 0\n")
        out.write(f"p cnf {variables} {len(clauses)}\n")
        for begin in range(0, len(clauses), WRITE_CHUNK):
            if stop.expired():
                return None
            out.write("".join(" ".join(map(str, c)) + " 0\n" for c in clauses[begin:begin + WRITE_CHUNK]))
    return DimacsFile(path, variables, len(clauses), projection, empty_projection=not f.projection)


def trimmed(log: Path) -> str:
    """The last lines of the counter's chatter, without colour codes."""
    try:
        text = ANSI.sub("", log.read_text(errors="replace"))
    except OSError:
        return ""
    lines = [line.rstrip() for line in text.splitlines() if line.strip() not in ("", "c", "c o")]
    return "\n".join(lines[-OUTPUT_LINES:])[-OUTPUT_CHARS:]


WORKER = Path(__file__).with_name("counter_process.py")


def start_worker(counter: str, formula: DimacsFile, log: IO[bytes]) -> subprocess.Popen[bytes]:
    """The counter's process, its stdout and stderr going to ``log``, in a session of its own (Ctrl-C in
    a terminal reaches gridsat only, which then kills it)."""
    command = [sys.executable, str(WORKER), counter, str(formula.path), str(result_path(formula)), str(os.getpid())]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)


def result_path(formula: DimacsFile) -> Path:
    return formula.path.with_suffix(".json")


def log_path(formula: DimacsFile) -> Path:
    return formula.path.with_suffix(".log")


def run_worker(counter: str, formula: DimacsFile, stop: Stop, progress: Callable[[str], None] | None
               ) -> dict[str, Any] | None:
    """The worker's answer, or None when the stop (deadline, Ctrl-C, SIGTERM, a request) ended the count
    first. A worker that dies or fails ends the count too, its reason said in the stop."""
    started = last = time.monotonic()
    with log_path(formula).open("wb") as log:
        worker = start_worker(counter, formula, log)
        try:
            while worker.poll() is None:
                if stop.expired():
                    return None
                remaining = stop.remaining()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    worker.wait(TICK if remaining is None else max(0.001, min(TICK, remaining)))
                if progress is not None and time.monotonic() - last >= PROGRESS_EVERY:
                    last = time.monotonic()
                    progress(f"{counter} counting, {last - started:.0f} s")
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM turned into one: no count, never a partial one
            stop.request(INTERRUPTED)
            return None
        finally:
            if worker.poll() is None:
                worker.kill()
            worker.wait()
    return answer_of(counter, formula, worker.returncode, stop)


def answer_of(counter: str, formula: DimacsFile, status: int, stop: Stop) -> dict[str, Any] | None:
    """What the worker wrote, or None with the reason in the stop when it died or failed."""
    try:
        answer: dict[str, Any] = json.loads(result_path(formula).read_text())
    except (OSError, ValueError):
        last = trimmed(log_path(formula)).splitlines()[-1:]
        stop.request(f"the {counter} process died (exit status {status}){': ' + last[0] if last else ''}")
        return None
    if "error" in answer:
        stop.request(f"{counter} failed: {answer['error']}")
        return None
    return answer


def decimal(text: str) -> int:
    """The int a string of decimal digits spells, of any length: ``int(text)`` refuses more than 4,300
    digits by default (sys.set_int_max_str_digits), and a 2x25000 tatami strip has 8,300."""
    value = 0
    for begin in range(0, len(text), DIGITS):
        chunk = text[begin:begin + DIGITS]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def check_eager(name: str, puzzle: Puzzle, encoding: Encoding, f: CnfFormulation) -> None:
    """Refuse a lazy encoding (its models include non-solutions, which a counter would count) and one that keeps
    a solution per orbit when the orbits differ in size (a model count would not say how many solutions)."""
    if f.images is not None and not f.orbit_size:
        raise InvalidOption(f"the {encoding.name} encoding keeps one solution per symmetry orbit and the orbits differ "
                            f"in size, so the {name} backend cannot count solutions with it: count with nosymmetry "
                            "(the default for counting)")
    if f.refine is None:
        return
    eager = [axis.exact for axis in puzzle.cnf_encodings.axes if axis.exact and encoding[axis.name] != axis.exact]
    instead = f": count with {'+'.join(eager)} (the default for counting)" if eager else ""
    raise InvalidOption(f"the {encoding.name} encoding is lazy (it adds clauses while solving), so the {name} "
                        f"backend cannot count it{instead}")


def version_of(distribution: str) -> str | None:
    """The installed version of a distribution (without importing it)."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


class ModelCounter(Backend):
    """An exact model counter run on the puzzle's CNF in a worker process (see the module docstring)."""

    # What a count promises: "exact", or "probabilistic" (exact with high probability only), said in its details.
    guarantee = "exact"

    module = ""  # the import name
    distribution = ""  # the pip name
    takes = ("encoding",)
    can = frozenset({COUNT, TIME_LIMIT})
    formulation = CNF

    def supported(self) -> bool:
        return importlib.util.find_spec(self.module) is not None  # without importing it: listing stays fast

    def missing(self) -> str | None:
        """How to install this backend in one line, or None when it is installed."""
        return None if self.supported() else f"backend {self.name!r} is not installed: {self.install}"

    def choices(self, puzzle: Puzzle) -> dict[str, list[str]]:
        return {"encoding": puzzle.cnf_encodings.tokens()}

    def refusal(self, puzzle: Puzzle) -> str | None:
        if getattr(puzzle, "cnf", None) is None:
            return f"{puzzle.name} has no CNF formulation, which the {self.name} backend counts"
        return None

    def vet(self, puzzle: Puzzle, request: Request, *, counting: bool) -> None:
        """Only counts, and only of encodings the puzzle's CNF offers (a lazy one is refused once built)."""
        super().vet(puzzle, request, counting=counting)

    def refuses_cnf_plus(self, request: Request) -> str | None:
        return f"the {self.name} backend (it counts a DIMACS CNF)"  # CNF+ has no DIMACS form

    def listing(self) -> dict[str, Any]:
        """The installed counter's version, for ``gridsat list --json``."""
        return {f"{self.name}_version": version_of(self.distribution)}

    def tally(self, puzzle: Puzzle, instance: Instance, request: Request, stop: Stop, *, up_to: str | None = None,
              progress: Callable[[str], None] | None = None) -> Tally:
        """The exact number of solutions (never of orbits: ``can`` has no UP_TO), or ``Tally(None, ...)`` when
        ``stop`` ended the count first."""
        encoding = bound_encoding(request)  # the gate resolved it exact: the user's choices, else exact ones
        started = time.perf_counter()
        details: dict[str, Any] = {"counter": self.name, "counter_version": version_of(self.distribution),
                                   "guarantee": self.guarantee}
        if encoding.exact_instead:
            # e.g. crt for knight's tours, whose default cutset is lazy
            details["exact_for_counting"] = list(encoding.exact_instead)
        try:
            with build_deadline(stop.deadline):
                f = puzzle.cnf(instance, encoding)
        except BuildExpired:
            stop.request(TIME_LIMIT_REASON)
            return Tally(None, encoding.name, details=details, build_seconds=time.perf_counter() - started)
        check_eager(self.name, puzzle, encoding, f)
        if request.seed is not None:  # a benchmark's spread: the same formula scrambled from the seed
            from gridsat.models.scramble import scramble

            f = scramble(f, request.seed)
            details["scrambled_from"] = request.seed
        if any(not clause for clause in f.cnf.clauses):
            # An empty clause (a puzzle refuted while building, e.g. clues that do not fill the grid) has
            # no model; DIMACS cannot say so (d4 refuses the line, Ganak drops it), so no counter runs.
            details |= {"variables": f.cnf.nv, "clauses": len(f.cnf.clauses), "empty_clause": True}
            return Tally(0, encoding.name, f.size(), details, build_seconds=time.perf_counter() - started)
        with tempfile.TemporaryDirectory(prefix=f"gridsat-{self.name}-") as folder:
            formula = write_formula(f, Path(folder), stop, [f"gridsat {puzzle.name} {puzzle.describe(instance)} "
                                                            f"encoding {encoding.name}"])
            build_seconds = time.perf_counter() - started
            if formula is None:
                return Tally(None, encoding.name, f.size(), details, build_seconds=build_seconds)
            size = {"variables": formula.variables, "clauses": formula.clauses, "projection": len(set(f.projection))}
            details |= {**size, "projected": formula.projection is not None}
            counting = time.perf_counter()
            result = run_worker(self.name, formula, stop, progress)
            seconds = time.perf_counter() - counting
            details["counter_output"] = trimmed(log_path(formula))
        if result is None:
            return Tally(None, encoding.name, size, details, seconds, build_seconds)
        return Tally(self.solutions(result, f, formula, details), encoding.name, size, details, seconds,
                     build_seconds)

    @staticmethod
    def solutions(result: dict[str, Any], f: CnfFormulation, formula: DimacsFile, details: dict[str, Any]) -> int:
        """The number of solutions the counter's model count stands for (its statistics go into ``details``)."""
        models = decimal(result.pop("models"))
        details |= result
        details["models"] = models
        if formula.empty_projection:
            models = min(models, 1)  # no projection variable: one solution if the formula is satisfiable
        if f.images is not None:
            # A reduced encoding keeps one model per symmetry orbit, and every orbit has orbit_size solutions.
            details["orbit_size"] = f.orbit_size
            return models * f.orbit_size
        return models


class D4Backend(ModelCounter):
    """d4, a top-down knowledge compiler (decision-DNNF), counting projected on ``c p show``."""

    name = "d4"
    summary = "d4 exact model counter (pip d4Solver), projected onto the puzzle's own variables"
    module = "py_d4"
    distribution = "d4Solver"
    install = f"{INSTALL} (or pip install d4Solver)"


class GanakBackend(ModelCounter):
    """Ganak, a projected model counter with Arjun preprocessing, run in its default mode: probabilistic.

    Ganak's component cache keys are hashes, so a count is exact with high probability, not for sure
    (its paper's guarantee: wrong with probability at most delta). Its command line can turn that off;
    pyganak 2.8 cannot: ``Counter(verbose=0, seed=0)`` takes no other option (read from its installed
    module and its README), so every Ganak count is labelled ``probabilistic``."""

    name = "ganak"
    guarantee = "probabilistic"
    summary = ("Ganak model counter (pip pyganak), projected onto the puzzle's own variables; probabilistic: exact "
               "with high probability (pyganak offers no exact mode)")
    module = "pyganak"
    distribution = "pyganak"
    install = f"{INSTALL} (or pip install pyganak)"
