"""``python -m gridsat`` and the ``gridsat`` script: the command line, Ctrl-C (or SIGTERM) during start-up included."""

import sys

from gridsat.signals import sigterm_as_interrupt


def main() -> int:
    """Import the command line (OR-Tools takes a moment) and run it. SIGTERM stays handled until the
    process ends, so a repeat while the partial answer is printed is ignored, not fatal (143)."""
    with sigterm_as_interrupt(exiting=True):
        try:
            from gridsat.cli import main as gridsat

            # The command catches a Ctrl-C while it runs; this one is for start-up (imports, and the
            # parser, which loads the benchmark commands' modules as it is built).
            status = gridsat()
        except KeyboardInterrupt:
            status = 130
            print("gridsat: interrupted", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
