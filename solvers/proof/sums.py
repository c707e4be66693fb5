"""A split run's certification, added up from its parts' (``count --json``'s fields; no proof machinery is
loaded for it, as every run's outcome merges its parts this way)."""
from __future__ import annotations

from typing import Any

SUMMED = ("proof_bytes", "proof_steps", "check_seconds")


def merge(total: dict[str, Any], part: dict[str, Any]) -> None:
    """Add a part's certification (its ``count --json`` fields) to a split run's: certified when every part
    that reached its final "no more" was certified, the proofs' sizes and check times added up. A part
    without a verdict (cut to be split again, whose sub-parts carry the rest; or stopped, and then the run
    is incomplete) adds nothing."""
    if part is total or part.get("certified") is None:
        return
    if total.get("certified") is None:
        total.update({key: part[key] for key in ("certified", *SUMMED)})
    else:
        total["certified"] = total["certified"] and part["certified"]
        for key in SUMMED:
            total[key] = round(total[key] + part[key], 6)
    if "certificate_failure" in part and "certificate_failure" not in total:
        total["certificate_failure"] = part["certificate_failure"]


def withdraw(details: dict[str, Any]) -> None:
    """An incomplete run certifies nothing: its parts' certificates do not make up the whole answer."""
    if "certified" in details:
        for key in (*SUMMED, "certificate_failure"):
            details.pop(key, None)
        details["certified"] = None
