"""``python -m kinarow``: the same command line as the ``kinarow`` script.

:func:`run` imports the command line itself, so that Ctrl-C during the imports (numba and NumPy take a moment)
ends with one line and exit status 130, not a traceback.
"""

from __future__ import annotations

import sys

from kinarow.errors import START_INTERRUPTED as START_INTERRUPTED


def run(argv: list[str] | None = None) -> int:
    """Import the command line and run it; exit status 130 with one line when Ctrl-C stops the start-up."""
    try:
        from kinarow.cli import main
    except KeyboardInterrupt:
        print(f"\n{START_INTERRUPTED}", file=sys.stderr)
        return 130
    return main(argv)


if __name__ == "__main__":
    raise SystemExit(run())
