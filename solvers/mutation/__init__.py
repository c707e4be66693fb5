"""Mutation testing of formulations (``gridsat.solvers.mutation``): mutants, their judging against a corpus
of known counts, and the redundancy proofs that set aside a mutant equal to the original."""
