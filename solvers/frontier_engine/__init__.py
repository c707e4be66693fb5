"""The frontier engine (``gridsat.solvers.frontier_engine``): a frontier spec's states walked layer by layer
(numba kernels), in memory, spilled to disk, checkpointed, or spread over a Dask cluster."""
