"""A count from a backend that counts without listing solutions (a frontier DP, a model counter).

The backend answers with a ``Tally``; this turns it into the ``Outcome`` every other run gives, so
reports, exit statuses and the cross-check treat it like any count. A counter has no partial
count: stopped early, its outcome says no count is known (``known`` False), never 0.
"""

from __future__ import annotations

from collections.abc import Callable

from gridsat.models.errors import InvalidOption
from gridsat.models.puzzle import Instance, Puzzle
from gridsat.solvers.backend import ENUMERATE, UP_TO, Backend, Counter, Request, Tally, check_request
from gridsat.solvers.orbits import OrbitOutcome, group_of
from gridsat.solvers.run import Outcome
from gridsat.solvers.stop import INTERRUPTED, Stop


def refuse_listing(backend: Backend) -> None:
    """``solve`` and ``enumerate`` need solutions, which a counting backend never lists."""
    if ENUMERATE not in backend.can:
        raise InvalidOption(f"backend {backend.name!r} counts without listing solutions: use it with count or "
                            "crosscheck")


def check_countable(backend: Counter, puzzle: Puzzle, request: Request, up_to: str | None) -> None:
    """Refuse, in one line, what this counting backend cannot count at all."""
    check_request(backend, request)
    refusal = backend.refusal(puzzle)
    if refusal:
        raise InvalidOption(refusal)
    if up_to is not None and UP_TO not in backend.can:
        raise InvalidOption(f"backend {backend.name!r} cannot count up to {up_to}: count with cpsat, sat or reference")


def tally(
    puzzle: Puzzle,
    instance: Instance,
    backend: Counter,
    request: Request,
    *,
    time_limit: float | None = None,
    up_to: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Outcome:
    """Count with ``backend`` to the end, the time limit or Ctrl-C; an exact count, or none known."""
    check_countable(backend, puzzle, request, up_to)
    group = group_of(puzzle, instance, up_to) if up_to is not None else None
    stop = Stop(time_limit)
    try:
        found = backend.tally(puzzle, instance, request, stop, up_to=up_to, progress=progress)
    except KeyboardInterrupt:
        stop.request(INTERRUPTED)
        found = Tally(None, request.encoding or "default")
    described = puzzle.describe(instance)
    if group is None:
        outcome = Outcome(puzzle.name, described, backend.name, found.label)
    else:
        outcome = OrbitOutcome(puzzle.name, described, backend.name, found.label, up_to=up_to, method="native",
                               group=group.names, group_note=group.note)
    outcome.count, outcome.known = found.count or 0, found.count is not None
    outcome.size, outcome.details = found.size, found.details
    outcome.seconds, outcome.build_seconds = found.seconds, found.build_seconds
    outcome.complete = outcome.known
    outcome.reason = None if outcome.known else stop.reason or "no count known"
    return outcome
