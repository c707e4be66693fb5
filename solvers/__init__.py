"""The solvers (``gridsat.solvers``): at the root what every room uses (the backend protocol and registry,
the gate, the run loop, stops, cross-checks, orbits); the rooms backends/, splitting/, frontier_engine/, mutation/."""
