"""Clausal proofs: reading DRAT and DIMACS, and gridsat's own DRAT checker (``gridsat.solvers.proof``)."""
