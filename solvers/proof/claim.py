"""What a run asks of its certificate (``Certify``, carried by its ``Request``), and what the certificates
of a split run's parts add up to (``count --json``'s fields). Light: no proof machinery loads for these,
as every request and every run's outcome meets them."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Certify:
    """A run's wish for a certificate: the instance as the user gave it (text and parameters, so that
    ``gridsat check-proof`` can build the formula again) and the folder to keep it in (None: checked only)."""

    instance: str
    params: tuple[tuple[str, str], ...] = ()
    folder: Path | None = None

    def into(self, part: int | None) -> Certify:
        """The wish for one part of a split run: its certificate in a subfolder ``part-N`` of its own."""
        if self.folder is None or part is None:
            return self
        return Certify(self.instance, self.params, self.folder / f"part-{part}")

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
    for key in ("certificate_failure", "certificate_assumes"):
        if key in part and key not in total:
            total[key] = part[key]


def withdraw(details: dict[str, Any]) -> None:
    """An incomplete run certifies nothing: its parts' certificates do not make up the whole answer."""
    if "certified" in details:
        for key in (*SUMMED, "certificate_failure", "certificate_assumes"):
            details.pop(key, None)
        details["certified"] = None
