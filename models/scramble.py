"""A CNF formulation scrambled from a seed, as the competitions' shufflers make them: variables renamed,
polarities flipped, clauses and the literals in each shuffled.

SAT solvers' running times spread widely over formulas that differ only in names, signs and order
(Brglez, Li and Stallmann, "On SAT instance classes and a method for reliable performance experiments
with SAT solvers", AMAI 2005: the "equivalence classes" of an instance; the SAT competitions'
shufflers do the same). Flipping polarities matters: without it every scramble keeps the solver's
default phase bias (all-false first), which favours at-most-one encodings where all false is
consistent. Running each configuration on a few scrambles of one formula, each from a recorded seed,
gives the spread instead of one number.

A scramble is the same formula: the pool is renamed with the variables, and a flipped variable is
true exactly when its key is false (``ScrambledCnf.flipped``), so the projection, the decoder, the
blocking clauses and a lazy formulation's refinement map back to the puzzle's own variables, and the
projected count does not change (a flip is a bijection on models). The same seed gives the same file.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable, Sequence
from itertools import compress

from gridsat.models.formulation import CnfFormulation, Key, Refine


@dataclasses.dataclass(kw_only=True)
class ScrambledCnf(CnfFormulation):
    """A scrambled CNF whose ``flipped`` variables (new names) are true exactly when their keys are false."""

    flipped: frozenset[int] = frozenset()

    @functools.cached_property
    def _flips(self) -> list[bool]:
        return [v in self.flipped for v in self.projection]

    def key_true(self, literal: int) -> bool:
        """Whether a model holding ``literal`` makes its variable's key true."""
        return (literal > 0) != (abs(literal) in self.flipped)

    def literal(self, key: Key, value: int) -> int:
        var = self.pool.id(key)
        return var if bool(value) != (var in self.flipped) else -var

    def values(self, model: list[int]) -> dict[Key, int]:
        values = self._all_false.copy()
        true = [(model[i] > 0) != flip for i, flip in zip(self._indices, self._flips, strict=True)]
        values.update(dict.fromkeys(compress(self.keys, true), 1))
        return values

    def blocking_clause(self, model: list[int]) -> list[int]:
        literals = [model[v - 1] for v in self.projection]
        if self.block_true_only:  # the literals that make a key true, as the unscrambled formula blocks them
            return [-lit for lit in literals if self.key_true(lit)]
        return [-lit for lit in literals]

    def blocking_of(self, row: Sequence[int]) -> list[int]:
        pairs = zip(self.keys, row, strict=True)
        return [-self.literal(key, value) for key, value in pairs if value or not self.block_true_only]

    def row_of(self, clause: Sequence[int]) -> tuple[int, ...]:
        row = [0] * len(self.projection)
        for literal in clause:
            if abs(literal) in self._positions:
                row[self._positions[abs(literal)]] = int(self.key_true(-literal))
        return tuple(row)

    def prefix_of(self, clause: Sequence[int], length: int) -> tuple[int, ...]:
        return self.row_of(clause)[:length]

    def legend(self) -> list[str]:
        """``v <id> <key>``, and ``v -<id> <key>`` for a flipped variable (its key is true when it is false)."""
        return [f"v {-v if v in self.flipped else v} {self.pool.obj(v)!r}" for v in sorted(self.pool.id2obj)
                if self.pool.obj(v) is not None]


def renaming(size: int, seed: int) -> list[int]:
    """A permutation of 1..size as a list: variable v becomes ``renamed[v]`` (index 0 unused)."""
    order = list(range(1, size + 1))
    random.Random(seed).shuffle(order)
    return [0, *order]


def flips(size: int, seed: int) -> frozenset[int]:
    """The variables (new names) whose polarity is flipped: each with probability one half, from ``seed``."""
    rng = random.Random(f"polarity {seed}")
    return frozenset(v for v in range(1, size + 1) if rng.random() < 0.5)


def literal_map(new: list[int], flipped: frozenset[int]) -> Callable[[int], int]:
    """An original literal's scrambled literal: renamed, and negated when its new variable is flipped."""
    def mapped(lit: int) -> int:
        var = new[abs(lit)]
        signed = var if lit > 0 else -var
        return -signed if var in flipped else signed

    return mapped


def scramble(formulation: CnfFormulation, seed: int) -> ScrambledCnf:
    """``formulation`` with its variables renamed, polarities flipped, and its clauses and their literals
    shuffled, from ``seed``."""
    from pysat.formula import CNF, CNFPlus, IDPool

    if isinstance(formulation, ScrambledCnf):  # its flips would have to be composed: scramble the original
        raise ValueError("scramble takes a formulation as built, not one already scrambled")
    rng = random.Random(f"clauses {seed}")
    size = max(formulation.cnf.nv, formulation.pool.top)
    new, flipped = renaming(size, seed), flips(size, seed)
    mapped = literal_map(new, flipped)
    clauses = [[mapped(lit) for lit in clause] for clause in formulation.cnf.clauses]
    for clause in clauses:
        rng.shuffle(clause)
    rng.shuffle(clauses)
    natives = getattr(formulation.cnf, "atmosts", None)  # a CNF+'s native at-most-ones, on the same literals
    cnf = CNF() if natives is None else CNFPlus()
    cnf.clauses, cnf.nv = clauses, size
    if natives is not None:
        cnf.atmosts = [([mapped(lit) for lit in lits], bound) for lits, bound in natives]
    pool = IDPool(start_from=size + 1)
    for key, var in formulation.pool.obj2id.items():
        pool.obj2id[key] = new[var]
        pool.id2obj[new[var]] = key
    refine = None if formulation.refine is None else scrambled_refine(formulation.refine, new, flipped)
    fields = {f.name: getattr(formulation, f.name) for f in dataclasses.fields(formulation)}
    return ScrambledCnf(**{**fields, "cnf": cnf, "pool": pool, "projection": [new[v] for v in formulation.projection],
                           "refine": refine}, flipped=flipped)


def scrambled_refine(refine: Refine, new: list[int], flipped: frozenset[int]) -> Callable[[list[int]], list[list[int]]]:
    """A lazy formulation's refinement, reading and writing the scrambled variables."""
    mapped = literal_map(new, flipped)

    def scrambled(model: list[int]) -> list[list[int]]:
        # The original variable v is true when its scrambled literal is: rebuild the model in the original order.
        original = [v if new[v] <= len(model) and model[new[v] - 1] == mapped(v) else -v for v in range(1, len(new))]
        return [[mapped(lit) for lit in clause] for clause in refine(original)]

    return scrambled
