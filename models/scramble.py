"""A CNF formulation scrambled from a seed: variables renamed, clauses and the literals in each shuffled.

SAT solvers' running times spread widely over formulas that differ only in names and order (Brglez,
Li and Stallmann, "On SAT instance classes and a method for reliable performance experiments with
SAT solvers", AMAI 2005: the "equivalence classes" of an instance). Running each configuration on a
few scrambles of one formula, each from a recorded seed, gives that spread instead of one number.

A scramble is the same formula: the pool is renamed with the variables, so every key (and so the
projection, the decoder, the blocking clauses and a lazy formulation's refinement) maps back to the
puzzle's own variables, and the count does not change. The same seed gives the same file.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

from gridsat.models.formulation import CnfFormulation, Refine


def renaming(size: int, seed: int) -> list[int]:
    """A permutation of 1..size as a list: variable v becomes ``renamed[v]`` (index 0 unused)."""
    order = list(range(1, size + 1))
    random.Random(seed).shuffle(order)
    return [0, *order]


def scramble(formulation: CnfFormulation, seed: int) -> CnfFormulation:
    """``formulation`` with its variables renamed and its clauses and their literals shuffled, from ``seed``."""
    from pysat.formula import CNF, IDPool

    rng = random.Random(f"clauses {seed}")
    size = max(formulation.cnf.nv, formulation.pool.top)
    new = renaming(size, seed)
    clauses = [[new[lit] if lit > 0 else -new[-lit] for lit in clause] for clause in formulation.cnf.clauses]
    for clause in clauses:
        rng.shuffle(clause)
    rng.shuffle(clauses)
    cnf = CNF()
    cnf.clauses, cnf.nv = clauses, size
    pool = IDPool(start_from=size + 1)
    for key, var in formulation.pool.obj2id.items():
        pool.obj2id[key] = new[var]
        pool.id2obj[new[var]] = key
    refine = None if formulation.refine is None else renamed_refine(formulation.refine, new)
    return dataclasses.replace(formulation, cnf=cnf, pool=pool, projection=[new[v] for v in formulation.projection],
                               refine=refine)


def renamed_refine(refine: Refine, new: list[int]) -> Callable[[list[int]], list[list[int]]]:
    """A lazy formulation's refinement, reading and writing the renamed variables."""

    def scrambled(model: list[int]) -> list[list[int]]:
        # The original variable v is true when its new name is: rebuild the model in the original order.
        original = [v if new[v] <= len(model) and model[new[v] - 1] > 0 else -v for v in range(1, len(new))]
        return [[new[lit] if lit > 0 else -new[-lit] for lit in clause] for clause in refine(original)]

    return scrambled
