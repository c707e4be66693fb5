"""Everything a puzzle plugin needs, in one import: ``from gridsat.plugin import ...``.

A plugin is a package that registers a ``Puzzle`` under the entry point group ``gridsat.puzzles``
(``mypuzzle = "gridsat_mypuzzle:PUZZLE"`` in its pyproject.toml); ``gridsat new-puzzle NAME``
writes a working skeleton. A ``Puzzle`` has a required core and optional parts:

* the core: ``parse`` (instance text and ``-p`` parameters to a frozen instance; bad input raises
  ``InvalidInstance`` in one line; ``check_keys`` refuses unknown parameters), ``cpsat`` and ``cnf``
  (an instance and an ``Encoding`` to a ``CpsatFormulation`` or ``CnfFormulation``), ``verify`` (the
  rules a solution breaks, from the definition), ``render`` and ``describe``; each formulation's
  ``EncodingSpace`` of ``Axis`` choices (``amo.axis()`` names the at-most-one encodings, and
  ``amo.exactly_one``/``amo.at_most_one`` write them; ``cardinality.axis()`` and ``cardinality.exactly``/
  ``at_most``/``at_least`` any bound; ``domains``, ``tours`` and ``symmetry_breaking`` the other open
  registries); ``reference``, the
  independent searches (``Algorithm`` objects that poll a ``Halt``) a cross-check compares against;
* the parts: ``Pictures(draw, sketch)`` (SVG with ``svg``), ``Symmetry(groups)`` (counting up to
  symmetry, with ``board_group``), ``Frontier(spec)`` (a ``FrontierSpec`` for the frontier backend)
  ``MutationCorpus(corpus, ladder, cells)`` (``Case`` values for ``gridsat mutate``) and
  ``Oracle(solutions, draw)`` (a brute force and random tiny instances for ``gridsat fuzz``).

What ``decode`` receives is the same from every backend: a mapping of every primary key to its value
in one solution (0/1 for a Boolean, the value for a CP-SAT integer); see ``Formulation``. Write a CNF
through a ``Formula`` and a CP-SAT model through a ``Model`` (gridsat's constraint library), and label
what you write with ``with formula.family("what it is for"):`` so that ``gridsat mutate`` names the
bugs it injects. The names below are the supported surface: gridsat's internal modules may
move between releases, these names do not without a deprecation.
"""

from __future__ import annotations

from gridsat.models import svg
from gridsat.models.constraints import Formula, Model
from gridsat.models.encoding import Axis, Encoding, EncodingSpace
from gridsat.models.errors import BackendUnavailable, GridsatError, InvalidInstance, InvalidOption, UnknownName
from gridsat.models.formulation import (
    CnfFormulation,
    CpsatFormulation,
    Decoder,
    Formulation,
    Images,
    Key,
    Solution,
    check_deadline,
)
from gridsat.models.frontier import ACCEPT, KEEP, REJECT, STEP_SIGNATURE, FrontierSpec
from gridsat.models.params import bool_param, check_keys, excerpt, int_param, integer, parse_size
from gridsat.models.parts import Case, Cell, Frontier, Instance, MutationCorpus, Oracle, Pictures, Symmetry
from gridsat.models.puzzle import Puzzle
from gridsat.models.search import Algorithm, Halt, Listener
from gridsat.models.symmetry import Element, Group, Motion, NotPermutable, board_group, motions

# modules: the open registries a plugin can add encodings to
from gridsat.plugin import amo, cardinality, domains, symmetry_breaking, tours

__all__ = [
    # the puzzle and its parts
    "Puzzle", "Case", "Cell", "Instance", "Pictures", "Symmetry", "Frontier", "MutationCorpus",
    "Oracle",
    # formulations and encodings
    "CpsatFormulation", "CnfFormulation", "Formulation", "Decoder", "Images", "Key", "Solution", "check_deadline",
    "Encoding", "EncodingSpace", "Axis", "Formula", "Model", "amo", "cardinality", "domains", "symmetry_breaking",
    "tours",
    # parsing instances and parameters
    "check_keys", "bool_param", "int_param", "integer", "parse_size", "excerpt",
    # errors (the command line turns each into one line and exit status 2)
    "GridsatError", "InvalidInstance", "InvalidOption", "UnknownName", "BackendUnavailable",
    # reference searches
    "Algorithm", "Halt", "Listener",
    # symmetry, pictures, frontier
    "Element", "Group", "Motion", "NotPermutable", "board_group", "motions", "svg",
    "FrontierSpec", "ACCEPT", "KEEP", "REJECT", "STEP_SIGNATURE",
]
