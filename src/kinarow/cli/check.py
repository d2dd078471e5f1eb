"""``kinarow check``: verify a certificate file with the rules only."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from kinarow.cli.common import EXIT_INTERRUPTED, EXIT_OK, EXIT_REJECTED, progress
from kinarow.errors import interrupted


# -- check -----------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.proofs import CertificateError, check_text, read_certificate

    path = args.file
    try:
        text = read_certificate(path)  # .json or .json.gz, at most MAX_CERTIFICATE_BYTES once decompressed
    except CertificateError as error:
        print(f"kinarow: error: {error}", file=err)
        return EXIT_REJECTED
    try:
        with progress(f"checking {path}", err, "positions checked") as tick:
            verdict = check_text(text, str(Path(path).parent), compiled=args.compiled, on_tick=tick)
    except KeyboardInterrupt:
        print(f"{interrupted()}: the check stopped before it had a verdict.", file=err)
        return EXIT_INTERRUPTED
    if not verdict.usable:
        print(f"kinarow: error: '{path}' is not a usable certificate: {verdict.reason}", file=err)
        return EXIT_REJECTED
    print(f"{'VALID' if verdict.ok else 'REJECTED'}: {verdict.reason}.", file=out)
    return EXIT_OK if verdict.ok else EXIT_REJECTED


def add_commands(commands: Any) -> None:
    p = commands.add_parser("check", help="verify a certificate (any kind kinarow writes, JSON) with the rules only")
    p.add_argument("file", metavar="FILE",
                   help="certificate written by 'solve --proof', 'pairing --proof', ... (.json or .json.gz)")
    p.add_argument("--compiled", action="store_true",
                   help="replay a strategy (and a draw proof's non-losing walks and blocking trees) with the compiled "
                   "(numba) walks of the same rules, about 40-100x faster; "
                   "the default walk is plain Python and imports no numba")
    p.set_defaults(run=cmd_check, kernels=False)  # no search kernel: nothing to say of their compile (cli.main)
