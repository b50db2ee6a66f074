"""`kbdsl serve`: the JSON protocol (kbdsl.protocol) as JSON lines over stdin and stdout.

A front end in any language starts this process and talks to it through pipes, or a
bridge connects it to a websocket. Refusing rule folder paths (`--shipped-only`) keeps
the server from reading anything but the shipped rule sets when clients are strangers.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="answer JSON requests on stdin, one per line (docs/protocol.md)")
    p.add_argument(
        "--shipped-only",
        action="store_true",
        help="refuse rule folder paths: only shipped rule sets (for clients you do not trust)",
    )
    p.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from kbdsl.protocol import Server, serve

    return serve(sys.stdin.buffer, sys.stdout, Server(allow_paths=not args.shipped_only))
