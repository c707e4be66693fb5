"""The atlas of gridsat's encodings, computed from the code: each at-most-one encoding's source, its
declared size formula beside the measured size, its strength as ``gridsat strength`` finds it and up
to which n; then every other strength claim with its instance and scope. The documentation build
writes it (docs/conf.py); ``disagreements`` is what a test asserts empty.
"""

from __future__ import annotations

from pathlib import Path

from gridsat.models.constraints import amo
from gridsat.solvers.strength import Strength, strength, strengths
from gridsat.solvers.strength.cases import CARDINALITY_SIZES, Claim, claims

CHECKED_SIZES = (*range(2, 41), 64, 100, 128, 129)  # the n a declared size formula is compared at
SHOWN_SIZES = (8, 64)  # the n whose measured size the atlas prints
CARDINALITY_K = CARDINALITY_SIZES.stop - 1  # exhaustive on every instance of an at-most-one claim
OTHER_K = 4  # gridsat strength's default, for the claims too large to check exhaustively
EXHAUSTIVE_BUDGET = 3**12  # the partial assignments of every primary variable a claim's instances may have


def size_disagreements(name: str, declared: amo.Declared) -> list[str]:
    """Each n of ``CHECKED_SIZES`` where the size ``declared`` for ``name`` differs from the clauses written."""
    if declared.size is None:
        return []
    return [f"{name} at n = {n}: declared {declared.size(n)}, measured {amo.measured(name, n)}"
            for n in CHECKED_SIZES if n >= declared.least and declared.size(n) != amo.measured(name, n)]


def contradicted(found: Strength) -> bool:
    """Whether the verdict contradicts the declared strength: a witness against a claim of completeness, none
    against a claim of incompleteness, or an exhaustive verdict other than the one declared."""
    claimed = found.case.claimed
    if not claimed:
        return False
    if claimed.startswith("not "):
        return found.holds
    return not found.holds or (found.exhaustive and found.strength != claimed)


def confirmation(found: Strength) -> str:
    """The declared strength and what the check made of it: confirmed, confirmed to k, or contradicted."""
    if not found.case.claimed:
        return "—"
    said = ("**contradicted**" if contradicted(found) else "confirmed" if found.exhaustive or not found.holds
            else f"not contradicted to k = {found.k}")
    return f"{found.case.claimed}: {said}"


def strength_disagreements(found: list[Strength]) -> list[str]:
    """Each claim whose verdict contradicts its declared strength."""
    return [f"{s.case.name}: declared {s.case.claimed}, found {s.verdict}" for s in found if contradicted(s)]


def reach(case: Claim, fallback: int = OTHER_K) -> int:
    """The k the atlas checks ``case`` at: every primary variable when its instances have at most
    ``EXHAUSTIVE_BUDGET`` partial assignments in all (seconds), else ``fallback``."""
    sizes = [len(constraint.primary) for constraint in case.build()]
    return max(sizes) if sum(3**n for n in sizes) <= EXHAUSTIVE_BUDGET else fallback


def cardinality_strengths() -> list[Strength]:
    """Every at-most-one and exactly-one claim, exhaustively."""
    names = [name for name in claims() if name.startswith(("at-most-one ", "exactly-one "))]
    return strengths(names, CARDINALITY_K)


def disagreements(found: list[Strength] | None = None) -> list[str]:
    """Every declared size and strength of an at-most-one encoding that the code does not bear out, and
    every claim in ``found`` (default: the at-most-one claims) whose verdict contradicts its declaration."""
    sizes = [line for name, declared in amo.DECLARED.items() for line in size_disagreements(name, declared)]
    undeclared = [f"{name}: no declared size and strength" for name in amo.ENCODINGS if name not in amo.DECLARED]
    return undeclared + sizes + strength_disagreements(cardinality_strengths() if found is None else found)


def other_strengths(k: int | None = None) -> list[Strength]:
    """Every claim but the at-most-ones, at ``k`` (default: each at its ``reach``)."""
    return [strength(case, reach(case) if k is None else k) for name, case in claims().items()
            if not name.startswith(("at-most-one ", "exactly-one "))]


def checked_at(declared: amo.Declared) -> str:
    """`` at n = 3..40, 64, 100, 128, 129``: where a declared size was compared (nothing when none is)."""
    if declared.size is None:
        return ""
    sizes = [n for n in CHECKED_SIZES if n >= declared.least]
    run = [n for n in sizes if n <= 40]
    return f" at n = {run[0]}..{run[-1]}, " + ", ".join(str(n) for n in sizes if n > 40)


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def cardinality_table(found: list[Strength]) -> list[str]:
    """One row per at-most-one encoding: source, declared size, measured sizes, strength, checked up to n."""
    by_name = {s.case.name: s for s in found}
    # Six columns, so that the table fits the page's text width (the sizes measured share one cell).
    shown = " / ".join(f"n = {n}" for n in SHOWN_SIZES)
    rows = [f"| `amo` | source | declared size on n inputs (variables; clauses) | measured at {shown} | formula "
            "| strength (at-most-one; exactly-one), checked exhaustively |", "| --- " * 6 + "|"]
    for name, declared in amo.DECLARED.items():
        sizes = " / ".join("{:,}; {:,}".format(*amo.measured(name, n)) for n in SHOWN_SIZES)
        checked = ("measured only" if declared.size is None else "agrees" if not size_disagreements(name, declared)
                   else "**disagrees**") + checked_at(declared)
        pair = [by_name.get(f"{group} {name}") for group in ("at-most-one", "exactly-one")]
        if None in pair:
            verdict = f"declared, not checked here: {declared.strength}"
        else:
            verdict = "; ".join(dict.fromkeys(s.verdict for s in pair if s))
            verdict += f", at n = {CARDINALITY_SIZES.start}..{min(s.upto for s in pair if s)}"
        rows.append(f"| `{name}` | {cell(declared.paper)} | {cell(declared.formula)} | {sizes} | {checked} | "
                    f"{verdict} |")
    return rows


def claims_table(found: list[Strength]) -> list[str]:
    """One row per other claim: its instance, the families its clauses come from, n, verdict and witness."""
    rows = ["| claim | instance | clauses (families) | n | k | verdict (scope) | declared | witness |",
            "| --- " * 8 + "|"]
    for s in found:
        families = ", ".join(f"{label} {count}" for label, count in s.families.items())
        witness = str(s.witness) if s.witness else ""
        rows.append(f"| {s.case.name} | {cell(s.case.summary)} | {s.clauses} ({cell(families)}) | {s.n} | {s.k} | "
                    f"{cell(s.verdict)} | {confirmation(s)} | {cell(witness)} |")
    return rows


def atlas(cardinality: list[Strength] | None = None, k: int | None = None) -> dict[str, str]:
    """The atlas in MyST Markdown, by file name: the at-most-one table (``atlas-amo.md``, from ``cardinality``
    when given), and every other claim (``atlas-claims.md``) at ``-k k``, by default at its ``reach``."""
    cardinality = cardinality_strengths() if cardinality is None else cardinality
    others = other_strengths(k)
    return {
        "atlas-amo.md": "\n".join([
            f"Computed when this page was built: sizes by writing each encoding, strengths by `gridsat strength -k "
            f"{CARDINALITY_K}` (every partial assignment of every instance, n = {CARDINALITY_SIZES.start} to "
            f"{CARDINALITY_SIZES.stop - 1} inputs). Each row's source, size formula and claimed strength are declared "
            "beside the encoding's registration (`@encoding(name, Declared(...))`); tests/test_strength_atlas.py fails "
            "when one disagrees with the clauses written or with the checker.", "",
            *cardinality_table(cardinality), ""]),
        "atlas-claims.md": "\n".join([
            "Every other claim `gridsat strength` checks, computed when this page was built: exhaustively (k = n) "
            f"where its instances have at most {EXHAUSTIVE_BUDGET:,} partial assignments in all (3^12), else at "
            f"`-k {OTHER_K}`, whose verdict holds for every assignment of at most that many literals.", "",
            *claims_table(others), ""]),
    }


def write(folder: Path, cardinality: list[Strength] | None = None, k: int | None = None) -> list[Path]:
    """Write the atlas's files into ``folder`` (the documentation build's generated pages)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in atlas(cardinality, k).items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written
