"""Hamiltonian circuits, and the open registries of tour encodings (the ``tour`` axes of the knight's tour).

``cnf_tour("name")`` registers ``write(circuit, formula, root, amo)``: clauses that leave only single
circuits among the models of a ``Circuit``'s degree constraints (already written), counting from node
``root``, with exactly one model on the arcs per circuit. ``cpsat_tour("name")`` registers
``write(model, arcs, size, root)``: the whole circuit over the ``(tail, head, literal)`` arcs in a
``Model``, with exactly one assignment per circuit. A registered encoding is a choice of every ``tour`` axis
drawn from its registry (the knight's tour's CNF or CP-SAT), whenever it is registered.
"""

from __future__ import annotations

from gridsat.models.constraints.circuit import Circuit
from gridsat.models.constraints.tours import CNF_TOURS, CPSAT_TOURS, CnfTour, CpsatTour, cnf_tour, cpsat_tour

__all__ = ["CNF_TOURS", "CPSAT_TOURS", "Circuit", "CnfTour", "CpsatTour", "cnf_tour", "cpsat_tour"]
