"""Checks of formulations against each other (``gridsat.solvers.checks``): the cross-check of backends and
encodings against the seeds' reference algorithms and golden counts, and the fuzzer over random instances."""
