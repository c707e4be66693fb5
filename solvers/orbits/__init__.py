"""Counting up to symmetry (``gridsat.solvers.orbits``): orbits of solutions under a puzzle's group, by
canonical representatives or by Burnside's lemma."""
