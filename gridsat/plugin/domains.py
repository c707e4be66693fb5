"""Integer variables in CNF, and the open registry of their encodings (the ``domain`` axis).

``domain("name")`` registers a class whose ``new(out, key, low, high)`` makes a variable answering the
questions ``OrderInt`` and ``LogInt`` answer (``equals``, ``cover``, ``restrict``, ``below``,
``projection``, ``value``: models/constraints/domains.py says what each means). A registered encoding is
a choice of every ``domain`` axis drawn from the registry (prime-grid's CNF), whenever it is registered.
"""

from __future__ import annotations

from gridsat.models.constraints.domains import DOMAINS, LogInt, OrderInt, domain, forbid

__all__ = ["DOMAINS", "LogInt", "OrderInt", "domain", "forbid"]
