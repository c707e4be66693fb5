"""The route a bound job takes, decided in one place below the API: a counting backend's own count (of
orbits, with ``up_to``; its layers split across threads or a cluster when the job is split), Burnside's
lemma, or a run of the listed solutions (of orbit representatives, with ``up_to``), in this process or
split into parts. Beside it, a cross-check's route (``cross_check``): which runs it makes, their budgets,
and the golden count they are judged against."""

from __future__ import annotations

import time
from collections.abc import Callable

from gridsat.models.errors import InvalidOption
from gridsat.models.golden import golden_count
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import backends_where, counts_only
from gridsat.solvers.checks.crosscheck import TOTAL_BUDGET, Report, Runs, Turn, configurations, left_out
from gridsat.solvers.checks.crosscheck import crosscheck as compare_runs
from gridsat.solvers.gate import BURNSIDE, Bound
from gridsat.solvers.orbits.counting import OrbitReport, burnside, crosscheck_orbits, tally_orbits, variant_of
from gridsat.solvers.run import Outcome, Progress, Run, consume, tally
from gridsat.solvers.splitting.parallel import Split, launch


def make_count(puzzle: Puzzle, instance: Instance, bound: Bound,
               on_progress: Callable[[Progress], None] | None = None) -> Outcome:
    """The count of a job the gate let through, by the route its backend and job call for."""
    job = bound.job
    if counts_only(bound.backend):
        listen = notes_to(on_progress)
        if job.up_to is not None:
            return tally_orbits(puzzle, instance, bound, listen)
        return tally(puzzle, instance, bound, listen)
    if job.method == BURNSIDE:  # the gate let it through with up_to
        return burnside(puzzle, instance, bound)
    return consume(open_count(puzzle, instance, bound, on_progress),
                   on_progress=on_progress if job.split is None else None)


def open_count(puzzle: Puzzle, instance: Instance, bound: Bound,
               on_progress: Callable[[Progress], None] | None = None) -> Run:
    """The run that counts a job on a searching backend, not by Burnside's lemma: its solutions, or its orbits'
    representatives (``up_to``), in this process or split into parts, as ``count`` runs it."""
    return launch(puzzle, instance, bound, variant=variant_of(bound.job.up_to), on_progress=on_progress)


def open_enumeration(puzzle: Puzzle, instance: Instance, bound: Bound,
                     on_progress: Callable[[Progress], None] | None = None) -> Run:
    """The verified solutions (orbit representatives, with ``up_to``) of a job the gate let through, as they
    come: from one search in this process or, when the job is split, part by part."""
    return launch(puzzle, instance, bound, variant=variant_of(bound.job.up_to), deliver=True,
                  on_progress=on_progress)


DEFAULT_TOTAL = "default"  # a cross-check's total budget when the caller gives none: see ``cross_check``


def cross_check(puzzle: Puzzle, instance: Instance, *, backends: list[str] | None, scope: str | list[str],
                solver: str | None, time_limit: float | None, total_budget: float | None | str = DEFAULT_TOTAL,
                up_to: str | None = None, split: Split | None = None,
                on_outcome: Callable[[Outcome], None] | None = None,
                on_start: Callable[[Turn], None] | None = None) -> Report | OrbitReport:
    """The cross-check of checked arguments, by its route: the runs (per backend, or every backend not left
    out, the encodings of ``scope``; ``solver`` gated on every run that takes it), each within
    ``time_limit``; the whole within ``total_budget``, which by default (``DEFAULT_TOTAL``) is
    ``TOTAL_BUDGET`` for more than the defaults and none for the defaults; their counts judged against
    the instance's golden count, or with ``up_to`` orbits counted both ways and compared."""
    skipped = [] if backends is not None else [f"{n}: not run: {why}" for n, why in left_out(puzzle).items()]
    configs = configurations(puzzle, backends, scope, solver, notes=skipped, plan=Runs(split, up_to))
    if solver is not None and not any(c.request.solver is not None for c in configs):
        named = backends_where(lambda b: "solver" in b.takes)
        raise InvalidOption(f"solver={solver!r} applies to the {' and '.join(named)} backend, which this "
                            "cross-check does not run")
    if up_to is not None:
        return crosscheck_orbits(puzzle, instance, configs, up_to=up_to, time_limit=time_limit, on_outcome=on_outcome,
                                 on_start=on_start, skipped=skipped)
    if total_budget == DEFAULT_TOTAL:  # the default bounds only a cross-check of more than the defaults
        total_budget = None if scope == "default" else TOTAL_BUDGET
    return compare_runs(puzzle, instance, configs, time_limit=time_limit, on_outcome=on_outcome, on_start=on_start,
                        skipped=skipped, golden=golden_count(puzzle, instance),
                        total=total_budget)  # type: ignore[arg-type]


def notes_to(on_progress: Callable[[Progress], None] | None) -> Callable[[str], None] | None:
    """A counting backend's progress notes as the ``Progress`` a caller's ``on_progress`` sees."""
    if on_progress is None:
        return None
    started = time.monotonic()

    def progress(note: str) -> None:
        on_progress(Progress(0, 0, None, time.monotonic() - started, note=note))

    return progress
