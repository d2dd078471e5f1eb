"""``kinarow serve``: the local web page (:mod:`kinarow.web.server`)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from kinarow.cli.common import EXIT_OK, UsageError, add_store_options, open_store, positive_float, positive_int
from kinarow.errors import shown


def cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from kinarow.web.server import serve

    port = int(args.port)
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be a port number from 0 to 65535, not {args.port}")
    think = positive_float("--think", args.think) or 3.0
    from kinarow.limits import MAX_THREADS

    threads = positive_int("--threads", args.threads, upper=MAX_THREADS)
    serve(host=args.host, port=port, think=think, store=open_store(args), out=out, open_browser=args.open,
          threads=threads)
    return EXIT_OK


def port_number(text: str) -> int:
    """``--port``'s value: a whole number in the digits 0-9 (its range is checked by the command)."""
    token = text.strip()
    if not (token.isascii() and token.isdigit() and len(token) <= 9):
        raise argparse.ArgumentTypeError(f"--port must be a port number from 0 to 65535, not {shown(text)}")
    return int(token)


def add_commands(commands: Any) -> None:
    p = commands.add_parser("serve", help="start the local web page: play, pairings, certificates drawn")
    p.add_argument("--port", metavar="P", type=port_number, default=8765,
                   help="port to listen on (default 8765; 0 = any)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, this machine only)")
    p.add_argument("--think", metavar="S", default="3", help="seconds the engine may search per stone (default 3)")
    p.add_argument("--threads", metavar="N", default=None,
                   help="Connect-k (gravity) games: the engine runs N searches of each position at once, sharing its "
                   "table (default 2 on a machine of two cores or more, else 1)")
    p.add_argument("--open", action="store_true", help="open the page in the default web browser")
    add_store_options(p)
    p.set_defaults(run=cmd_serve)
