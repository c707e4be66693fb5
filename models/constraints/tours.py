"""The open registries of tour encodings: the ``tour`` axes, one for CNF and one for CP-SAT.

A tour encoding makes the arcs of a digraph one Hamiltonian circuit. The successor arcs and the
nodes 0..size-1 (an open tour closed through a dummy node, as models/constraints/circuit.py says) are the
formulation's; the encoding only rules out the rest:

- ``CNF_TOURS``: ``write(circuit, formula, root, amo)`` adds clauses to ``formula`` (auxiliaries from
  ``formula.pool``) that leave only single circuits among the models of ``circuit``'s degree constraints
  (one arc in and one out of every node, already written, in the at-most-one encoding ``amo``), counting
  from ``root``. Every Hamiltonian circuit must keep exactly one model on the arcs (counts project onto
  them). The knight's tour CNF offers every one registered beside its own (models/knights_tour/cnf.py).
- ``CPSAT_TOURS``: ``write(model, arcs, size, root)`` adds to a ``Model`` the whole circuit over the
  (tail, head, literal) ``arcs``; every circuit must have exactly one assignment of every variable it adds
  (CP-SAT enumerates them all). ``circuit`` (CP-SAT's ``AddCircuit``) and ``mtz`` (models/constraints/mtz.py)
  are registered here.

An axis drawn from either reads it whenever its choices are asked for, so an encoding a plugin registers
after a puzzle was built or counted is one of its choices all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gridsat.models.constraints.circuit import Circuit
from gridsat.models.constraints.formula import Formula
from gridsat.models.constraints.model import Model
from gridsat.models.constraints.mtz import miller_tucker_zemlin
from gridsat.models.registries import Registry

CnfTour = Callable[[Circuit, Formula, int, str], None]
CpsatTour = Callable[[Model, Sequence[tuple[int, int, Any]], int, int], None]

# Open: the ``tour`` axis of a formulation drawn from one offers every encoding registered, whenever it is.
CNF_TOURS: Registry[CnfTour] = Registry("CNF tour encoding", "tour")
CPSAT_TOURS: Registry[CpsatTour] = Registry("CP-SAT tour encoding", "tour")


def cnf_tour(name: str, needs: Iterable[str] = ()) -> Callable[[CnfTour], CnfTour]:
    """Register ``write(circuit, formula, root, amo)`` as the CNF tour encoding ``name`` (see the module);
    ``needs`` says what it needs of a backend (``CNF_PLUS``, models/registries.py)."""
    return CNF_TOURS.entry(name, needs)


def cpsat_tour(name: str) -> Callable[[CpsatTour], CpsatTour]:
    """Register ``write(model, arcs, size, root)`` as the CP-SAT tour encoding ``name`` (see the module)."""
    return CPSAT_TOURS.entry(name)


@cpsat_tour("circuit")
def add_circuit(model: Model, arcs: Sequence[tuple[int, int, Any]], size: int, root: int) -> None:
    """CP-SAT's own circuit constraint (``AddCircuit``), which reasons on the whole graph."""
    with model.family("one circuit through every square"):
        model.AddCircuit(list(arcs))


cpsat_tour("mtz")(miller_tucker_zemlin)
