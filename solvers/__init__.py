"""Backends, reference algorithms, the cross-check harness and the command line."""

import os
import sys

# pip installs python-sat's example scripts, one of them ``models.py``, into the environment's
# bin folder, and Python puts a script's folder first on sys.path when it runs the ``gridsat``
# script from there. Drop that folder so that ``import models`` finds gridsat's package.
if sys.path and os.path.isfile(os.path.join(sys.path[0] or ".", "models.py")):
    del sys.path[0]
