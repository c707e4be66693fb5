"""The exit statuses of the ``gridsat`` command: what a script can rely on, decided in one place.

=====  ==========================================================================================
0      the answer asked for: a solution, a complete count, or a count that stopped at ``--limit``
1      no solution exists (``solve``), a solution that breaks the rules or repeats one found before, a
       certificate the checker refused
       (``--certify``, ``check-proof``), or a cross-check disagreement
2      bad input: one line on stderr naming the bad value, nothing written; or standard output that
       cannot be written (a full device)
3      a cross-check or a fuzz in which nothing was compared: no run finished, or no run was checked
       against another or a golden count
4      gave up before the answer: a time limit (or a method that never sees every solution) ended
       the run first; what was found so far is printed, marked incomplete
130    interrupted by Ctrl-C (SIGINT) or SIGTERM, after printing the partial answer
=====  ==========================================================================================
"""

from __future__ import annotations

from gridsat.solvers.checks.crosscheck import Report
from gridsat.solvers.run import Outcome
from gridsat.solvers.stop import INTERRUPTED as STOPPED_BY_SIGNAL
from gridsat.solvers.stop import SOLUTION_LIMIT

OK = 0
FAILED = 1
BAD_INPUT = 2
NOTHING_FINISHED = 3
GAVE_UP = 4
INTERRUPTED = 130  # the shell's status for a Ctrl-C; SIGTERM gets the same, as it is handled the same way

SUMMARY = ("exit status: 0 the answer asked for; 1 no solution exists, an invalid or repeated solution, a refused "
           "certificate or a cross-check disagreement; 2 bad input; 3 a cross-check or fuzz in which nothing was "
           "compared; "
           "4 gave up at a time limit before the answer (partial answer printed); 130 interrupted by Ctrl-C or "
           "SIGTERM (partial answer printed)")


def of_run(outcome: Outcome, *, solve: bool = False) -> int:
    """The status of ``solve``, ``count`` or ``enumerate``.

    A signal wins (the run was cut short on purpose), then a broken rule or a repeated solution (a
    backend's bug: an encoding whose auxiliaries multiply a solution); ``solve`` fails when the
    search proved there is no solution. A run that stopped at the user's own ``--limit`` gave the
    answer that was asked for; any other incomplete run gave up.
    """
    if outcome.reason == STOPPED_BY_SIGNAL:
        return INTERRUPTED
    if outcome.invalid or outcome.duplicates or getattr(outcome, "problems", None):  # wrong solutions or orbits
        return FAILED
    if outcome.details.get("certified") is False:  # --certify: the checker refused the certificate
        return FAILED
    if solve and outcome.solution is None and outcome.complete:
        return FAILED
    if outcome.complete or outcome.reason == SOLUTION_LIMIT:
        return OK
    return GAVE_UP


def of_crosscheck(report: Report) -> int:
    """The status of ``crosscheck``: interrupted, disagreeing, nothing compared, or agreed."""
    if any(o.reason == STOPPED_BY_SIGNAL for o in report.outcomes):
        return INTERRUPTED
    if not report.agree:
        return FAILED
    return OK if report.compared else NOTHING_FINISHED
