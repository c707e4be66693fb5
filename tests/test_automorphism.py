"""``solvers.proof.automorphism``: a clause table (clauses packed into integers where they fit, compared as tuples
where they do not) looked up and compared with an image exactly as the sets of literals they are; and a group's
automorphisms checked on elements that generate it, with the same verdict as every element checked."""
from __future__ import annotations

import random
from collections import Counter

import numpy as np

from gridsat.solvers.proof.automorphism import ClauseTable, as_set, automorphic, generators


def random_clauses(rng: random.Random, variables: int, count: int, longest: int) -> list[list[int]]:
    """Clauses of 1 to ``longest`` literals, some naming a literal twice (shorter as sets)."""
    out = []
    for _ in range(count):
        clause = [rng.choice((-1, 1)) * rng.randint(1, variables) for _ in range(rng.randint(1, longest))]
        if rng.random() < 0.1:
            clause.append(clause[0])
        out.append(clause)
    return out


def test_a_lookup_agrees_with_a_set_of_the_clauses_packed_or_not() -> None:
    """Lengths that pack into 63 bits and lengths that do not (9 variables: 5 bits a literal, 12 a row packed at
    most; clauses up to 16 long), clauses asked that hold a literal twice, name a variable the table never names,
    or are empty: each answered as the set of clauses answers."""
    rng = random.Random(7)
    clauses = random_clauses(rng, 9, 400, 16)
    table = ClauseTable(clauses)
    assert {k for k in table.rows} - set(table.codes), "some length too long to pack"
    known = {as_set(c) for c in clauses}
    asked = [*clauses, *random_clauses(rng, 12, 600, 16), [], [40, -40], [1, 1, 1]]
    assert table.holds(asked).tolist() == [bool(c) and as_set(c) in known for c in asked]
    # 5 bits a literal (top 9): 33 + 9 overflows its slot into -8's, where [-8, 1] would be read
    assert ClauseTable([[-8, 1], [2, 9]]).holds([[-8, 33], [-8, 1]]).tolist() == [False, True]


def image_of(clauses: list[list[int]], image: list[int]) -> Counter:
    return Counter(as_set([image[abs(lit)] * (1 if lit > 0 else -1) for lit in c]) for c in clauses)


def test_an_image_is_the_clause_set_exactly_when_its_clauses_are_the_same_multiset() -> None:
    """A map that permutes the clause set's symmetric variables is accepted; one clause changed in its image, a
    sign flipped or a variable sent beyond the table's is refused, as a multiset comparison refuses it."""
    base = [[1, 2], [-1, -2], [3, 4], [-3, -4], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [5, -6, 7]]
    table = ClauseTable(base)
    swap = np.arange(12, dtype=np.int64)
    swap[[1, 2, 3, 4]] = [3, 4, 1, 2]
    for image, expected in ((swap, True), (np.arange(12, dtype=np.int64), True)):
        assert table.maps_onto_itself(image) is expected
        assert (image_of(base, image.tolist()) == Counter(as_set(c) for c in base)) is expected
    flipped = swap.copy()
    flipped[7] = -7  # [5, -6, 7] becomes [5, -6, -7]: not a clause of the set
    beyond = swap.copy()
    beyond[11] = 40  # the long clause sent to one naming a variable the table never names
    broken = swap.copy()
    broken[[5, 6]] = [6, 5]  # [5, -6, 7] becomes [6, -5, 7]
    for image in (flipped, beyond, broken):
        assert not table.maps_onto_itself(image)
        assert image_of(base, image.tolist()) != Counter(as_set(c) for c in base)


def prime_grid_unbroken(size: str):
    from gridsat.models import get_puzzle
    from gridsat.models.encoding import resolve_for
    from gridsat.solvers.proof.orbits import unbroken_of

    puzzle = get_puzzle("prime-grid")
    instance = puzzle.parse(size, {})
    encoding = resolve_for(puzzle, "cnf", None)
    unbroken = unbroken_of(puzzle, instance, puzzle.cnf(instance, encoding), encoding)
    assert unbroken is not None
    return unbroken.formulation, unbroken.group


def each_element_automorphic(full, group) -> bool:
    """The definition, element by element: every element's map sends the clause set onto itself."""
    from dataclasses import replace

    return all(automorphic(full, replace(group, elements=(element,))) for element in group.elements)


def test_a_board_s_eight_motions_are_generated_by_three_of_them() -> None:
    """The rotations and reflections of a square: three at most, taken in order, generate the eight (every one a
    composition of them)."""
    from gridsat.solvers.proof.automorphism import element_maps

    full, group = prime_grid_unbroken("4x4")
    images = []
    for sent, _ in element_maps(group, full, full):
        image = np.arange(max(full.projection) + 1, dtype=np.int64)
        image[full.projection] = sent[full.projection]
        images.append(image)
    chosen = generators(images)
    assert len(images) == 8 and len(chosen) <= 3
    reached = {np.arange(len(images[0])).tobytes()}
    while True:
        more = {(g[np.frombuffer(r, np.int64)]).tobytes() for r in reached for g in chosen} | reached
        if more == reached:
            break
        reached = more
    assert {i.tobytes() for i in images} <= reached


def test_generators_give_the_verdict_of_every_element_checked() -> None:
    """Prime-grid 4x4 without its breaking (a phase variable whose sign some motions flip), and copies with one
    clause taken out or one added, each at random: checked on generators, each is automorphic exactly when every
    element, checked on its own, maps it onto itself. Both verdicts occur."""
    full, group = prime_grid_unbroken("4x4")
    rng = random.Random(3)
    clauses = full.cnf.clauses
    verdicts = []
    try:
        for trial in range(24):
            changed = list(clauses)
            if trial % 3 == 1:
                changed.pop(rng.randrange(len(changed)))
            elif trial % 3 == 2:
                changed.append([-rng.choice(full.projection), -rng.choice(full.projection)])
            full.cnf.clauses = changed
            verdict = automorphic(full, group)
            assert verdict == each_element_automorphic(full, group), trial
            verdicts.append(verdict)
    finally:
        full.cnf.clauses = clauses
    assert True in verdicts and False in verdicts
