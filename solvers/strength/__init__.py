"""Propagation strength: which of gridsat's constraint encodings let unit propagation derive all they imply.

``check.py`` holds the test (every partial assignment of at most k primary literals, propagation
against SAT calls), ``cases.py`` the registry of encodings it runs on; ``strengths`` runs them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gridsat.solvers.strength.cases import CASES, Claim, register
from gridsat.solvers.strength.check import Constraint, Finding, Witness, check

__all__ = ["CASES", "Claim", "Constraint", "Finding", "Strength", "Witness", "check", "register", "strengths"]


@dataclass(frozen=True)
class Strength:
    """One encoding's verdict: whether it holds, the witness when not, and how much was tried."""

    case: Claim
    holds: bool
    witness: Witness | None
    tried: int
    exhaustive: bool
    k: int

    @property
    def verdict(self) -> str:
        return self.case.verdict(self.holds)

    def line(self, width: int = 0) -> str:
        """``name  verdict`` and, when it fails, the witness."""
        text = f"{self.case.name:<{width}}  {self.verdict}"
        return f"{text}: {self.witness}" if self.witness else text


def strength(case: Claim, k: int) -> Strength:
    """Check every instance of ``case``; the first witness decides."""
    tried, exhaustive = 0, True
    for constraint in case.build():
        found: Finding = check(constraint, k)
        tried += found.tried
        exhaustive = exhaustive and found.exhaustive
        if found.witness:
            return Strength(case, False, found.witness, tried, found.exhaustive, k)
    return Strength(case, True, None, tried, exhaustive, k)


def strengths(names: Iterable[str] | None = None, k: int = 3) -> list[Strength]:
    """The verdicts of the named cases (every registered case by default), in registry order."""
    wanted = list(CASES) if names is None else list(names)
    return [strength(CASES[name], k) for name in wanted]
