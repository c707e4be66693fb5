"""Propagation strength: which of gridsat's constraint encodings let unit propagation derive all they imply.

``check.py`` holds the test (every partial assignment of at most k primary literals, propagation on
the constraint's own clauses against what its models imply), ``cases.py`` the registry of claims it
runs on; ``strengths`` runs them. A verdict says its scope: the part of the encoding its instances
hold, the sizes n it covers exhaustively, and below that the k it was tried to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from gridsat.models.errors import InvalidOption
from gridsat.solvers.strength.cases import CASES, Claim, claims, register
from gridsat.solvers.strength.check import Constraint, Finding, Witness, check

__all__ = ["CASES", "Claim", "Constraint", "Finding", "Strength", "Witness", "check", "claims", "register", "strength",
           "strengths"]


@dataclass(frozen=True)
class Strength:
    """One claim's verdict: whether it holds, the (smallest) witness when not, and what was tried.

    ``n`` is the most primary variables of its instances, ``upto`` the most of an instance checked
    exhaustively (0: none), ``uc`` whether unit propagation refutes every assignment without a model
    (None: undecided within the budget).
    """

    case: Claim
    holds: bool
    witness: Witness | None
    tried: int
    exhaustive: bool
    k: int
    n: int = 0
    upto: int = 0
    clauses: int = 0
    families: dict[str, int] = field(default_factory=dict)
    uc: bool | None = None
    refutation: Witness | None = None

    @property
    def strength(self) -> str:
        """The verdict on the part checked, without its scope: ``propagation-complete``, ``holds for every
        assignment of at most 4 literals``, ``not arc-consistent``..."""
        word = self.case.word
        if not self.holds:
            return f"not {word}"
        if self.exhaustive:
            return word
        if self.upto:
            return f"{word} up to n = {self.upto}; up to n = {self.n} {self.tried_to}"
        return self.tried_to

    @property
    def tried_to(self) -> str:
        return f"holds for every assignment of at most {self.k} literal{'s' if self.k > 1 else ''}"

    @property
    def uc_note(self) -> str:
        """Where it differs from PC (PC fails, UC holds): ``; unit-refutation complete`` and its reach."""
        if self.holds or not self.uc:
            return ""
        return "; unit-refutation complete" + ("" if self.exhaustive else f" ({self.tried_to})")

    @property
    def verdict(self) -> str:
        """The strength with its scope: which part of the encoding, and what was not checked."""
        return self.case.scoped(self.strength + self.uc_note)

    def short(self) -> str:
        """In few characters, for a table: ``PC``, ``not AC``, ``PC to k = 3``; a claim about part of an
        encoding in brackets with its scope, so that no tour encoding reads as PC."""
        word = {"propagation": "PC", "arc": "AC"}[self.case.kind]
        said = word if self.holds and self.exhaustive else f"{word} to k = {self.k}" if self.holds else f"not {word}"
        return f"({self.case.scoped(said)})" if self.case.part or self.case.unchecked else said

    def line(self, width: int = 0) -> str:
        """``name  verdict``, with the witness after the strength when it fails."""
        witness = f": {self.witness}" if self.witness else ""
        return f"{self.case.name:<{width}}  {self.case.scoped(self.strength + witness + self.uc_note)}"


def held(case: Claim, constraint: Constraint) -> None:
    """Refuse ``case`` when its instance lacks a clause of a family the claim is about."""
    missing = [family for family in case.families
               if not any(label.startswith(family) and count for label, count in constraint.families.items())]
    if not constraint.clauses or missing:
        lacks = "any clause" if not constraint.clauses else "a clause of " + ", ".join(repr(f) for f in missing)
        raise InvalidOption(f"claim {case.name!r}: its instance {constraint.about!r} lacks {lacks}, "
                            "so it tests nothing")


def strength(case: Claim, k: int) -> Strength:
    """Check every instance of ``case``; the smallest witness over them decides."""
    if k < 1:
        raise InvalidOption(f"k must be at least 1 (got {k}): a verdict on the empty assignment alone says nothing")
    built = case.build()
    found: list[tuple[Constraint, Finding]] = []
    for constraint in built:
        held(case, constraint)
        found.append((constraint, check(constraint, k)))
    witnesses = [f.witness for _, f in found if f.witness]
    refutations = [f.refutation for _, f in found if f.refutation]
    families: dict[str, int] = {}
    for constraint in built:
        for label, count in constraint.families.items():
            families[label] = families.get(label, 0) + count
    uc = False if refutations else None if any(not f.uc_decided for _, f in found) else True
    return Strength(
        case, not witnesses, min(witnesses, key=lambda w: len(w.assignment), default=None),
        sum(f.tried for _, f in found), all(f.exhaustive for _, f in found), k,
        n=max(len(c.primary) for c in built), upto=max((len(c.primary) for c, f in found if f.exhaustive), default=0),
        clauses=sum(len(c.clauses) for c in built), families=families, uc=uc,
        refutation=min(refutations, key=lambda w: len(w.assignment), default=None))


def strengths(names: Iterable[str] | None = None, k: int = 3) -> list[Strength]:
    """The verdicts of the named cases (every registered case by default), in registry order."""
    registered = claims()
    wanted = list(registered) if names is None else list(names)
    return [strength(registered[name], k) for name in wanted]
