"""The route a bound job takes, decided in one place below the API: a counting backend's own count (of
orbits, with ``up_to``; its layers split across threads or a cluster when the job is split), Burnside's
lemma, or a run of the listed solutions (of orbit representatives, with ``up_to``), in this process or
split into parts."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import COUNT, LAYERS, counts_only
from gridsat.solvers.checks.crosscheck import Config
from gridsat.solvers.gate import BURNSIDE, Bound, Job, admit
from gridsat.solvers.orbits.counting import OrbitVariant, burnside, tally_orbits
from gridsat.solvers.run import Outcome, Progress, Run, consume, tally
from gridsat.solvers.splitting.parallel import Split, launch


def make_count(puzzle: Puzzle, instance: Instance, bound: Bound,
               on_progress: Callable[[Progress], None] | None = None) -> Outcome:
    """The count of a job the gate let through, by the route its backend and job call for."""
    job = bound.job
    if counts_only(bound.backend):
        listen = notes_to(on_progress)
        bound = layered(bound)
        if job.up_to is not None:
            return tally_orbits(puzzle, instance, bound, listen)
        return tally(puzzle, instance, bound, listen)
    if job.method == BURNSIDE:  # the gate let it through with up_to
        return burnside(puzzle, instance, bound)
    run = launch(puzzle, instance, bound, variant=OrbitVariant(job.up_to), on_progress=on_progress)
    return consume(run, on_progress=on_progress if job.split is None else None)


def open_enumeration(puzzle: Puzzle, instance: Instance, bound: Bound,
                     on_progress: Callable[[Progress], None] | None = None) -> Run:
    """The verified solutions (orbit representatives, with ``up_to``) of a job the gate let through, as they
    come: from one search in this process or, when the job is split, part by part."""
    return launch(puzzle, instance, bound, variant=OrbitVariant(bound.job.up_to), deliver=True,
                  on_progress=on_progress)


def kept_run(puzzle: Puzzle, instance: Instance, split: Split | None) -> Callable[[Config, float | None], Outcome]:
    """How a cross-check runs one configuration of a listing backend: within its time limit, its solutions
    kept for the comparison, in parts when ``split``."""

    def run(config: Config, time_limit: float | None) -> Outcome:
        job = Job(COUNT, config.request, time_limit=time_limit, split=split, keep=True)
        return consume(launch(puzzle, instance, admit(config.backend, puzzle, job)))

    return run


def layered(bound: Bound) -> Bound:
    """A split given to a backend that partitions its own work (``LAYERS``), handed to it in its request."""
    split = bound.job.split
    if split is None or LAYERS not in bound.backend.can:
        return bound
    request = dataclasses.replace(bound.request, threads=split.jobs, scheduler=split.scheduler,
                                  checkpoint=None if split.checkpoint is None else Path(split.checkpoint))
    return bound.narrowed(request=request, split=None)


def notes_to(on_progress: Callable[[Progress], None] | None) -> Callable[[str], None] | None:
    """A counting backend's progress notes as the ``Progress`` a caller's ``on_progress`` sees."""
    if on_progress is None:
        return None
    started = time.monotonic()

    def progress(note: str) -> None:
        on_progress(Progress(0, 0, None, time.monotonic() - started, note=note))

    return progress
