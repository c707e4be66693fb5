"""``python -m gridsat`` and the ``gridsat`` script: the command line, Ctrl-C (or SIGTERM) during start-up included."""

import sys

from gridsat.signals import sigterm_as_interrupt


def main() -> int:
    """Import the command line (OR-Tools takes a moment) and run it."""
    try:
        with sigterm_as_interrupt():
            from gridsat.cli import main as gridsat
    except KeyboardInterrupt:
        print("gridsat: interrupted", file=sys.stderr)
        return 130
    return gridsat()


if __name__ == "__main__":
    sys.exit(main())
