"""Certified answers for the API and the command line: a run's wish for a certificate, what an outcome
says of its certificate, and ``check_proof``, a kept certificate checked again from its files and the
formula the installed gridsat builds again (see docs/howto/certify.md; the work is in ``gridsat.solvers.proof``)."""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gridsat.models.errors import GridsatError, InvalidOption
from gridsat.models.params import excerpt
from gridsat.solvers.proof.claim import Certify
from gridsat.solvers.stop import INTERRUPTED

if TYPE_CHECKING:  # loaded when a run certifies, not when gridsat starts
    from gridsat.solvers.proof.certificate import Identity, Judgement

CERTIFIED = "certified"
# What a verdict adds to an outcome's details (``Judgement.summary``), taken off when the answer is cut short
VERDICT = (CERTIFIED, "proof_bytes", "proof_steps", "check_seconds", "certificate_failure", "certificate_assumes")


def wish(instance: Any, params: Mapping[str, str], certify: bool | Certify, proof: str | Path | None) -> Certify | None:
    """What a run is asked to certify (``proof``, a folder to keep the certificate in, implies ``certify``;
    a ``Certify`` made already is passed through). The folder is refused now, before any work, when it
    cannot be written; a kept certificate names its instance as text (a puzzle file by its full path)."""
    from gridsat.solvers.proof.certificate import check_folder

    if isinstance(certify, Certify):
        return certify
    if not certify and proof is None:
        return None
    folder = None if proof is None else Path(proof)
    text = instance if isinstance(instance, str) else ""
    if folder is not None:
        if not text or text == "-":
            raise InvalidOption("a kept certificate names its instance as text, which gridsat check-proof reads "
                                "again: give the instance as text (not parsed, not '-' for stdin)")
        check_folder(folder)
        if Path(text).is_file():
            text = str(Path(text).resolve())
    return Certify(text, tuple(params.items()), folder)


def whole_run(certify: Certify | None, split: Any, run: Callable[[Certify | None], Any],
              on_stage: Callable[[str], None] | None = None) -> Any:
    """A split run certified as a whole: its parts' certificates are kept (in a temporary folder when the run
    keeps none) and, once every part is certified, checked again together as ``check_proof`` checks a kept
    folder, with the proof that the parts' cubes cover every solution. Only then does the run say certified;
    a failure of the whole makes it "NOT certified" and names it. (An instance given parsed, not as text,
    cannot be built again from a folder: its parts are certified one by one, and the note says so.)
    ``on_stage`` is told each stage of the check of the whole as it starts."""
    if certify is None or split is None:
        return run(certify)
    certify, scratch = kept_somewhere(certify)
    try:
        outcome = run(certify)
        judged_whole(outcome, certify.folder, on_stage)
        return outcome
    finally:
        remove(scratch)


def whole_enumeration(certify: Certify | None, split: Any, open_run: Callable[[Certify | None], Any],
                      on_stage: Callable[[str], None] | None = None) -> Any:
    """``whole_run`` for an enumeration, whose parts' certificates are checked as a whole once its items are
    read to their end (an enumeration closed first says nothing certified: it saw only some solutions)."""
    if certify is None or split is None:
        return open_run(certify)
    certify, scratch = kept_somewhere(certify)
    try:
        run = open_run(certify)
    except BaseException:
        remove(scratch)
        raise

    def end(finished: bool) -> None:
        try:
            if finished:
                judged_whole(run.outcome, certify.folder, on_stage)
        finally:
            remove(scratch)

    return run.on_end(end)


def kept_somewhere(certify: Certify) -> tuple[Certify, Path | None]:
    """The certificate's folder: the one asked for, or a temporary one (returned too, to be removed after
    the whole is checked) when none was asked for and the instance can be built again from its text."""
    if certify.folder is not None or not certify.instance:
        return certify, None
    scratch = Path(tempfile.mkdtemp(prefix="gridsat-certificate-"))
    return replace(certify, folder=scratch / "run"), scratch


def remove(scratch: Path | None) -> None:
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)


def judged_whole(outcome: Any, folder: Path | None, on_stage: Callable[[str], None] | None = None) -> None:
    """``judge_whole``, where Ctrl-C (or SIGTERM) while it checks cuts the answer short, as it cuts short a run
    stopped while it is certified (``solvers.run``): "at least N (incomplete: interrupted)", nothing certified.
    It was lost before: the interrupt left the finished count unprinted."""
    try:
        judge_whole(outcome, folder, on_stage)
    except KeyboardInterrupt:
        outcome.complete, outcome.reason = False, INTERRUPTED
        for key in VERDICT:
            outcome.details.pop(key, None)
        outcome.details[CERTIFIED] = None


def judge_whole(outcome: Any, folder: Path | None, on_stage: Callable[[str], None] | None = None) -> None:
    """The verdict of a finished split run's certificate folder as a whole, into the outcome's details
    (``on_stage``: told each stage of the check as it starts)."""
    from gridsat.solvers.proof.whole import part_folders

    details = outcome.details
    if not details.get(CERTIFIED) or outcome.parts is None or outcome.parts <= 1:
        return  # not certified in parts, or not split: the run's own verdict is the whole one
    if folder is None or not folder.is_dir() or not part_folders(folder):
        details["certificate_assumes"] = "that the parts' cubes cover every solution (an instance given parsed " \
                                         "cannot be built again to check it)"
        return
    verdict, _ = check_proof(folder, on_stage=on_stage)
    details["check_seconds"] = round(details.get("check_seconds", 0.0) + verdict.check_seconds, 6)
    if not verdict.certified:
        details[CERTIFIED] = False
        details["certificate_failure"] = f"the parts as a whole: {verdict.failure}"
    elif verdict.solutions != outcome.count:
        details[CERTIFIED] = False
        details["certificate_failure"] = f"the parts as a whole certify {verdict.solutions} solutions, the run " \
                                         f"counted {outcome.count}"
    elif verdict.assumed:
        details["certificate_assumes"] = verdict.assumed
    else:  # the whole proves what a part could only assume (every orbit kept: orbits leave a part's cube)
        details.pop("certificate_assumes", None)
    details["certified_as_whole"] = True


def note(outcome: Any) -> str | None:
    """``certified: proof of 1,993 steps checked in 0.09 s``, ``NOT certified: ...``, or None when the run
    was not asked to certify or ended before a final "no more solutions" that a proof could certify."""
    certified = outcome.details.get(CERTIFIED)
    if certified is None:
        return None
    if certified:
        assumes = outcome.details.get("certificate_assumes")
        return f"certified: proof of {outcome.details['proof_steps']:,} steps checked in " \
               f"{outcome.details['check_seconds']:.3f} s" + (f", assuming {assumes}" if assumes else "")
    return f"NOT certified: {outcome.details.get('certificate_failure', 'the checker refused')}"


def build(ident: Identity) -> tuple[Any, Any, Any, Any]:
    """The puzzle, instance, CNF and its encoding that a certificate's formula.cnf names, built again."""
    from gridsat.models import get_puzzle
    from gridsat.models.encoding import resolve_for

    puzzle = get_puzzle(ident.puzzle)
    instance = puzzle.parse(ident.instance, ident.params)
    encoding = resolve_for(puzzle, "cnf", ident.encoding)
    return puzzle, instance, puzzle.cnf(instance, encoding), encoding


CERTIFICATE_FILES = ("formula.cnf", "blocking.cnf", "cuts.cnf", "proof.drat", "proof.lrat", "orbits.drat",
                     "orbits.lrat")  # what check-proof reads (proof.cnf and orbits.cnf are for other checkers)


def refuse_irregular(where: Path, folder: str | Path) -> None:
    """Refuse a certificate file that is a folder, a pipe or a device: a pipe would wait forever, a
    device never end."""
    for name in CERTIFICATE_FILES:
        if (where / name).exists() and not (where / name).is_file():
            shown = name if where == Path(folder) else f"{where.name}/{name}"
            raise InvalidOption(f"cannot read the certificate in {excerpt(str(folder))}: {shown} is not a regular "
                                "file (a folder, a pipe or a device)")


def check_proof(folder: str | Path, keep_cover: bool = False,
                on_stage: Callable[[str], None] | None = None) -> tuple[Judgement, str]:
    """Check the certificate kept in ``folder`` (``--proof DIR``) again, and say what it certifies:
    (verdict, ``knights-tour 5x5 from 0,0``). A split run's folder (``part-N`` folders) is checked as a
    whole (``solvers.proof.whole``; ``keep_cover``: its cover proof written into the folder, ``cover.cnf``
    and ``cover.lrat``, for cake_lpr or lrat-check). A folder that is no certificate raises ``InvalidOption``.
    ``on_stage`` is told each stage of the check as it starts (a progress line's text)."""
    from gridsat.solvers.proof.certificate import recheck
    from gridsat.solvers.proof.whole import check_parts, part_folders

    path = Path(folder)
    # A split run's answer is its parts' (a probe that ran to its end while the run split may have left a
    # certificate of its own beside them).
    split = path.is_dir() and bool(part_folders(path))
    if not (path / "formula.cnf").is_file() and not split:
        raise InvalidOption(f"{excerpt(str(folder))} holds no certificate (no formula.cnf, no part-N folders)")
    for where in [path, *(part_folders(path) if split else [])]:
        refuse_irregular(where, folder)
    built: list[tuple[Any, Any, Any, Any]] = []

    def build_once(ident: Identity) -> tuple[Any, Any, Any, Any]:
        built.append(build(ident))
        return built[-1]

    try:
        if split:
            verdict = check_parts(path, build_once, keep_cover, on_stage)[0].judgement()
        else:
            if on_stage is not None:
                on_stage("checking the certificate")
            verdict = recheck(path, build_once)
    except GridsatError:
        raise
    except (ValueError, OSError) as error:
        raise InvalidOption(f"cannot read the certificate in {excerpt(str(folder))}: {error}") from None
    puzzle, instance = built[-1][:2]
    # what the count counts, as a count line says it (knight's tours: directed)
    counts = "; ".join(f"{key}: {value}" for key, value in puzzle.count_meta.items())
    return replace(verdict, counts=counts), f"{puzzle.name} {puzzle.describe(instance)}"
