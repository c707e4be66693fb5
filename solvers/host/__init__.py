"""The host a run lives on (``gridsat.solvers.host``): child processes and their lifetimes, file locks,
and what the machine offers (cores, memory)."""
