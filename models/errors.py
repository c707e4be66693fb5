"""The errors gridsat raises; the CLI turns each into one line on stderr and exit status 2.

Input errors (``InvalidInstance``, ``UnknownName``, ``InvalidOption``) are ``ValueError`` too, so a
caller of the Python API can catch them the usual way; their message is the line the CLI prints.
"""


class GridsatError(Exception):
    """Root of every error that is the user's input or setup, not a bug."""


class InvalidInstance(GridsatError, ValueError):
    """An instance or parameter that does not describe a puzzle."""


class InvalidOption(GridsatError, ValueError):
    """An option that does not fit the rest of the request (e.g. a solver for a backend that has none)."""


class UnknownName(GridsatError, ValueError):
    """A name (puzzle, backend, encoding, solver, algorithm, suite) that is not registered."""

    def __init__(self, kind: str, name: str, valid: list[str] | tuple[str, ...], where: str = "") -> None:
        super().__init__(f"unknown {kind} {name!r}{where}; valid: {', '.join(valid)}")
        self.kind, self.name, self.valid = kind, name, tuple(valid)


class UnknownEncoding(UnknownName):
    """An encoding name that the puzzle's formulation does not offer."""

    def __init__(self, name: str, valid: list[str] | tuple[str, ...], where: str = "") -> None:
        super().__init__("encoding", name, valid, where)


class BackendUnavailable(GridsatError, RuntimeError):
    """A backend whose optional package is not installed, or that cannot run this puzzle."""
