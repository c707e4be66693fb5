"""A fresh solver that writes a proof, and its refutation of a clause set (``refutation``).

PySAT's solvers write DRAT (``with_proof``); CaDiCaL 1.9.5 is set, through PySAT's C calls, to write binary
LRAT instead (``prover``), which gridsat keeps as text LRAT, the format it checks fastest. A lazy encoding's
models need cut clauses before they are solutions: given the variables the cuts read, CaDiCaL takes them
inside its one call from a lazy, passive propagator (IPASIR-UP: Fazekas, Niemetz, Preiner, Kirchweger,
Szeider, Biere, "IPASIR-UP: User Propagators for CDCL", SAT 2023; ``Cutter``), and its proof is renumbered so
that they follow the clauses given (``solvers.proof.external``). ``solvers.proof.blocker`` blocks a certified
search's models the same way.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pysat.engines import Propagator

from gridsat.solvers.proof.certificate import DRAT, LRAT, proof_format
from gridsat.solvers.proof.heap import uncollected
from gridsat.solvers.stop import Stop

ONE_CALL = ("cadical195",)  # PySAT's solvers with IPASIR-UP that write LRAT (solvers.proof.certificate)
# Conflicts per solver call of a refutation given a stop (``solved``): a few tenths of a second on the
# knight's tours' clause sets (about 40,000 conflicts a second), so that a time limit or Ctrl-C ends it soon.
SLICE = 10_000
# Options of a solver that refutes a whole clause set (``prover``). CaDiCaL's inprocessing (vivification,
# probing, subsumption, elimination) writes lemmas of its own, each one the checker must check: without it,
# knights-tour 6x6 closed's proof had 107,772 steps and checked in 9.9 CPU seconds, against 188,141 steps and
# 27.7 s, for a solve of 3.3 s against 2.5 s (a loaded machine; prime-grid 4x4 and the 5x5 tours: no change).
REFUTING = {"cadical195": {"vivify": 0, "probe": 0, "subsume": 0, "elim": 0}}
# CaDiCaL's options for a proof in LRAT, binary: written faster than text (prime-grid 3x4's certified search,
# 224 models blocked in one call: 15.5 ms against 18.1 ms, 12.4 ms without a proof) and a third of its size; it
# is read as it comes (``external.renumbered``) and kept in text (``external.as_text``), which cake_lpr and
# drat-trim's lrat-check read
LRAT_OPTIONS = {"lrat": 1, "binary": 1}


@dataclass
class Refutation:
    """A proof that clauses are unsatisfiable, as the solver wrote it, or the model that shows they are not;
    neither when ``stopped`` (a time limit or Ctrl-C came first)."""

    proof: bytes = b""
    model: list[int] | None = None
    stopped: bool = False


def refutation(solver: str, clauses: list[list[int]],
               cuts_for: Callable[[list[int]], list[list[int]]] | None = None,
               observed: list[int] | None = None, stop: Stop | None = None) -> Refutation:
    """Refute ``clauses`` with a fresh ``solver`` (``prover``). A model for which ``cuts_for`` gives cut
    clauses gets them, appended to ``clauses``. Given the variables the cuts read (``observed``), a solver
    with IPASIR-UP that writes LRAT takes them inside its one call (``refuted_in_one_call``);
    otherwise a DRAT solver goes on with them, and an LRAT one starts again, given every clause so far at
    once, since LRAT numbers the clauses as given and CaDiCaL would number a clause added between its calls
    among its own lemmas. A model that needs no cut ends it. ``stop``: looked at between slices of the search
    (``solved``); once it expired, the refutation ends ``stopped``."""
    if cuts_for is not None and observed:
        if solver in ONE_CALL and proof_format(solver) == LRAT:
            done = refuted_in_one_call(solver, clauses, cuts_for, observed, stop)
            if done is not None:
                return done
    while True:
        with prover(solver, clauses) as oracle:
            again = False
            while not again and (answer := solved(oracle, stop)):
                model: list[int] = oracle.get_model() or []
                cuts = cuts_for(model) if cuts_for is not None else []
                if not cuts:
                    return Refutation(model=model)
                clauses += cuts
                again = proof_format(solver) == LRAT
                if not again:
                    oracle.append_formula(cuts)
            if answer is None:
                return Refutation(stopped=True)
            if not again:
                return Refutation(closed(proof_of(oracle), proof_format(solver)))


def solved(oracle: Any, stop: Stop | None) -> bool | None:
    """``oracle.solve()``, in calls of at most ``SLICE`` conflicts with a look at ``stop`` between them (where the
    solver takes a conflict budget): None once it expired. CaDiCaL 1.9.5 is called without PySAT's SIGINT
    handler, whose jump out of the solver could leave a Python callback half run (``solvers.proof.blocker``)."""
    if stop is None:
        return oracle.solve()
    inner = getattr(oracle, "solver", None)
    handle = getattr(inner, "cadical", None) if type(inner).__name__ == "Cadical195" else None
    while True:
        if handle is not None:
            from pysat.solvers import pysolvers

            pysolvers.cadical195_cbudget(handle, SLICE)
            status = pysolvers.cadical195_solve_lim(handle, [], 0)  # 1 a model, -1 none, 0 the budget spent
            answer = None if status == 0 else status == 1
            inner.status = answer  # what PySAT's get_model reads (its own solve_limited sets it so)
        else:
            try:
                oracle.conf_budget(SLICE)
            except NotImplementedError:  # a solver that takes no budget: one call, as without a stop
                return oracle.solve()
            answer = oracle.solve_limited()
        if answer is not None:
            return answer
        if stop.expired():
            return None


class Passive(Propagator):
    """A lazy, passive propagator: CaDiCaL asks it only to check complete assignments (``check_model``), and
    takes the clauses it gives back (``pending``) as external clauses. An error inside a callback is kept in
    ``error``, to be raised after the call: never inside CaDiCaL. ``top``: the highest variable a model is read
    over (``full``)."""

    def __init__(self, top: int) -> None:
        super().__init__()
        self.is_lazy = True  # CaDiCaL asks only check_model (and the clauses it gives)
        self.pending: deque[list[int]] = deque()
        self.error: BaseException | None = None
        self.blank = [-v for v in range(1, top + 1)]

    def full(self, true: Iterable[int]) -> list[int]:
        """The model over every variable to ``top``: the ``true`` ones set, the rest false. CaDiCaL's model names
        the observed variables only, and whoever reads it (a lazy encoding's cuts, a decoder) reads no other."""
        full = self.blank.copy()
        for lit in true:
            full[lit - 1] = lit
        return full

    def has_clause(self) -> bool:
        return bool(self.pending)

    def add_clause(self) -> list[int]:
        return self.pending.popleft()

    # A passive, lazy propagator is asked none of these; the interface requires them.
    def on_assignment(self, lit: int, fixed: bool = False) -> None:
        pass

    def on_new_level(self) -> None:
        pass

    def on_backtrack(self, to: int) -> None:
        pass

    def decide(self) -> int:
        return 0

    def propagate(self) -> list[int]:
        return []

    def provide_reason(self, lit: int) -> list[int]:
        return []


class Cutter(Passive):
    """The propagator of a refutation in one call (``refuted_in_one_call``): each model the lazy encoding
    rejects is cut (``cuts_for``), the cuts given back to the solver and kept in ``given``, in order; a
    model it does not reject is a solution the clauses leave: kept in ``uncut``, it ends the call."""

    def __init__(self, top: int, cuts_for: Callable[[list[int]], list[list[int]]]) -> None:
        super().__init__(top)
        self.cuts_for = cuts_for
        self.given: list[list[int]] = []
        self.uncut: list[int] | None = None

    def check_model(self, model: list[int]) -> bool:
        """Cut a model and go on (False), or end the call with it (True: no cut, or an error)."""
        try:
            full = self.full(lit for lit in model if lit > 0)
            cuts = self.cuts_for(full)
            if not cuts:
                self.uncut = full
                return True
            self.given += cuts
            self.pending += cuts
            return False
        except BaseException as error:  # raised again after the call: never inside CaDiCaL
            self.error = error
            return True


def refuted_in_one_call(solver: str, clauses: list[list[int]], cuts_for: Callable[[list[int]], list[list[int]]],
                        observed: list[int], stop: Stop | None = None) -> Refutation | None:
    """Refute ``clauses`` in one call of a fresh proof-writing ``solver`` (``prover``, LRAT), a lazy encoding's
    cuts given inside the call (``Cutter``, observing the ``observed`` variables, which the cuts read):
    each cut is appended to ``clauses``, as ``refutation`` appends it, and the proof renumbered so
    that the cuts follow them (``solvers.proof.external``). A model that needs no cut ends it. None when
    the proof's numbers cannot be matched to the clauses (the caller refutes the other way: a fresh
    solver for each round of cuts). ``stop``: as ``refutation``'s (the "one call" is then a call a slice).

    Why: without ``observed``, ``refutation`` gives an LRAT solver every clause again after each round of
    cuts. A certified CP-SAT count of the knights-tour 5x5 from a corner, replayed in the lazy encoding, took
    4.3x the plain count that way, and 1.7x to 1.8x this way (benchmarks/compare/certify.py)."""
    from gridsat.solvers.proof.external import renumbered  # numba: only when a proof is made
    from gridsat.solvers.proof.lrat import highest, numbered

    base = numbered(clauses)
    cutter = Cutter(max(highest(clauses), *observed), cuts_for)
    with prover(solver, base, numbered_already=True) as oracle:
        connect(oracle, cutter, observed)
        with uncollected(settled=True):  # the cuts' witnesses live to the run's end (solvers.proof.heap)
            satisfiable = solved(oracle, stop)
        if cutter.error is not None:
            raise cutter.error
        clauses += cutter.given
        if satisfiable is None:
            return Refutation(stopped=True)
        if satisfiable:
            return Refutation(model=cutter.uncut)
        if cutter.pending or not numbered_as_given(cutter.given, clauses[:len(clauses) - len(cutter.given)]):
            return None
        proof = renumbered(proof_of(oracle), len(base), list(range(len(base) + 1, len(base) + len(cutter.given) + 1)))
    return None if proof is None else Refutation(proof)


def numbered_as_given(given: list[list[int]], original: list[list[int]]) -> bool:
    """Whether ``lrat.numbered`` numbers the clauses ``given`` during a call one each, as the solver took them,
    after the ``original`` ones: none shortened or split, and none naming a variable above them, which would
    move a unit clause's fresh variable."""
    from gridsat.solvers.proof.lrat import highest

    return (all(len(c) >= 2 and len(set(c)) == len(c) for c in given)
            and highest(given) <= highest(original))


def connect(oracle: Any, propagator: Passive, observed: list[int]) -> None:
    """Connect ``propagator`` to ``oracle``: passive (asked to check models only), observing ``observed``."""
    oracle.connect_propagator(propagator)
    for v in observed:
        oracle.observe(v)
    oracle.disable_propagator()


def prover(solver: str, clauses: list[list[int]], numbered_already: bool = False) -> Any:
    """A PySAT ``solver`` that writes its proof (``proof_format``: LRAT from CaDiCaL 1.9.5, set through
    PySAT's C calls, as PySAT's own ``with_proof`` writes only DRAT; DRAT from the others), set up to
    refute ``clauses`` (``REFUTING``), holding them (for LRAT, as ``lrat.numbered`` numbers them, unless
    ``numbered_already``)."""
    from pysat.solvers import Solver

    if proof_format(solver) != LRAT:
        oracle = Solver(name=solver, with_proof=True)
    else:
        import tempfile

        from pysat.solvers import pysolvers

        from gridsat.solvers.proof.lrat import numbered

        oracle = Solver(name=solver)
        inner = oracle.solver
        for option, value in LRAT_OPTIONS.items():
            pysolvers.cadical195_set(inner.cadical, option, value)
        # where PySAT keeps a proof of its own: proof_of reads it, and delete() closes it
        inner.prfile = tempfile.TemporaryFile()
        inner.prfp = pysolvers.cadical195_tracepr(inner.cadical, inner.prfile)
        clauses = clauses if numbered_already else numbered(clauses)
    if solver in REFUTING:
        oracle.solver.configure(REFUTING[solver])
    oracle.append_formula(clauses)
    return oracle


def proof_of(oracle: Any) -> bytes:
    """The proof as the solver wrote it. PySAT keeps it in a file: read its bytes the way PySAT's own
    ``get_proof`` does (flush the C file, read from the start; python-sat 1.8), since ``get_proof`` turns
    CaDiCaL's binary DRAT into lines of text in Python, slowly. Elsewhere, the lines ``get_proof`` gives."""
    inner = getattr(oracle, "solver", None)
    handle, pointer = getattr(inner, "prfile", None), getattr(inner, "prfp", None)
    if handle is not None and pointer is not None:
        from pysat.solvers import pysolvers

        pysolvers.flushpr(pointer)
        handle.seek(0)
        return handle.read()
    lines = oracle.get_proof() or []
    return ("\n".join(lines) + "\n").encode() if lines else b""


def closed(proof: bytes, form: str = DRAT) -> bytes:
    """An LRAT proof in text (``external.as_text``); a DRAT proof with an empty clause added at its end. Some
    solvers (glucose, maple*) stop at a conflict found while clauses are added and write none; where the
    solver wrote one, the checker stops there and never reads this one, and where it did not, the checker
    checks this one like any lemma. (An LRAT lemma needs its number and hints: CaDiCaL writes its empty
    clause itself, and the checker requires it.)"""
    from gridsat.solvers.proof.clausal import is_binary

    if form == LRAT:
        from gridsat.solvers.proof.external import as_text

        return as_text(proof) or proof  # unreadable: kept as written, for the checker to refuse
    if proof and is_binary(proof):
        return proof + b"a\x00"
    return proof + (b"0\n" if not proof or proof.endswith(b"\n") else b"\n0\n")
