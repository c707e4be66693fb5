"""Split runs (``gridsat.solvers.splitting``): a run cut into disjoint parts (cube and conquer), conquered on
local worker processes or a Dask cluster, with its ledger, its splitting policy and its checkpoints."""
