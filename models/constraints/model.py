"""``Model``: a CP-SAT model a formulation writes through, noting each constraint's family
(models/constraints/notes.py). A thin wrapper: every ``CpModel`` method is reached through it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gridsat.models.constraints.notes import Noted

if TYPE_CHECKING:
    from ortools.sat.python import cp_model


class Model(Noted):
    """``Model("tatami:cpsat")``: ``model.NewBoolVar(...)``, ``model.AddExactlyOne(...)`` and every other
    ``CpModel`` method act on ``model.cp``; constraints added inside ``with model.family("label"):``
    belong to that family."""

    def __init__(self, owner: str) -> None:
        from ortools.sat.python import cp_model

        self.cp: cp_model.CpModel = cp_model.CpModel()
        super().__init__(owner, self.constraints)

    def constraints(self) -> int:
        """How many constraints the model has."""
        return len(self.cp.Proto().constraints)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "cp":  # copy and pickle look these up before ``cp`` exists
            raise AttributeError(name)
        return getattr(self.cp, name)

    def parts(self) -> dict[str, Any]:
        """``CpsatFormulation(**model.parts(), primary=..., decode=...)``: the CpModel and the notes."""
        return {"model": self.cp, "notes": self}
