"""gridsat: combinatorial puzzles as CP-SAT models and CNF, cross-checked against reference searches."""
