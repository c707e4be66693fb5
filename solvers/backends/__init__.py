"""The backends (``gridsat.solvers.backends``): CP-SAT, PySAT, the reference searches, frontier counting and the
model counters, each a ``Backend`` (solvers/backend.py) found through the ``BACKENDS`` registry."""
