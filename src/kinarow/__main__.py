"""``python -m kinarow``: the same command line as the ``kinarow`` script."""

from kinarow.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
