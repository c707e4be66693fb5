"""Backends, reference algorithms, the run loop and the cross-check harness (``gridsat.solvers``)."""
