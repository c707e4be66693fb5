"""The constraint library every formulation writes through.

- ``Formula`` (CNF: clauses, IDPool, native at-most constraints) and ``Model`` (a thin CpModel wrapper)
  are the sinks; both note each clause's or constraint's family and scope (``notes``), which
  ``gridsat mutate`` reads back with ``origins_of(formulation)``.
- ``amo``: at-most-one and exactly-one through a named encoding (the ``amo`` axis, ``amo.axis()``);
  ``cardinality``: any bound.
- ``circuit``: Hamiltonian circuits and paths in CNF.
"""

from __future__ import annotations

from gridsat.models.constraints import amo, cardinality
from gridsat.models.constraints.formula import Formula
from gridsat.models.constraints.model import Model
from gridsat.models.constraints.notes import Origin, origins_of

__all__ = ["Formula", "Model", "Origin", "amo", "cardinality", "origins_of"]
