"""`kbdsl serve`: the JSON protocol (kbdsl.protocol) as JSON lines over stdin and stdout, or over HTTP.

A front end in any language starts this process and talks to it through pipes. Refusing
rule folder paths (`--shipped-only`) keeps the server from reading anything but the shipped
rule sets when clients are strangers. `--http` serves the same protocol over HTTP and
WebSockets with the web table (kbdsl.web; needs the `web` extra), shipped rule sets only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="answer JSON requests on stdin, one per line, or over HTTP (docs/protocol.md)")
    p.add_argument(
        "--shipped-only",
        action="store_true",
        help="refuse rule folder paths: only shipped rule sets (for clients you do not trust)",
    )
    p.add_argument("--http", action="store_true", help="serve the web table and the protocol over HTTP and WebSockets")
    p.add_argument("--host", default="127.0.0.1", help="--http: the address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="--http: the port (default 8000)")
    p.add_argument(
        "--data", type=Path, help="--http: a folder to save open games in after every move, and restore from"
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=0.25,
        help="--http: seconds from a table's last change to a bot's next move (default 0.25)",
    )
    p.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    if args.http:
        return serve_http(args)
    from kbdsl.protocol import Server, serve

    return serve(sys.stdin.buffer, sys.stdout, Server(allow_paths=not args.shipped_only))


def serve_http(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from kbdsl.web.app import MAX_MESSAGE, create_app
    except ImportError:
        need = 'kbdsl serve --http needs the web extra: python3 -m pip install ".[web]" in the kbdsl folder'
        print(need, file=sys.stderr)
        return 2
    if args.bot_delay < 0:
        print("--bot-delay: a number of seconds, 0 or more", file=sys.stderr)
        return 2
    try:
        app = create_app(args.data, args.bot_delay)
    except OSError as e:
        print(f"--data {args.data}: {e.strerror}", file=sys.stderr)
        return 2
    print(f"kbdsl web table on http://{args.host}:{args.port}/ (new game page)", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=MAX_MESSAGE, log_level="info")
    return 0
