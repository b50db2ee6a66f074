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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbdsl.web.limits import Limits


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
    p.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="--http: a reverse proxy's address whose X-Forwarded-For names the client (repeatable; default: none)",
    )
    add_limits(p)
    p.set_defaults(run=cmd_serve)


def uvicorn_options(args: argparse.Namespace) -> dict:
    """How uvicorn learns a client's address: from the socket, unless the peer is a `--trusted-proxy`,
    whose X-Forwarded-For then names it. (uvicorn by default believes any loopback peer, which would let
    one local client pose as many and escape the per-client limits.)"""
    if not args.trusted_proxy:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(args.trusted_proxy)}


def add_limits(p: argparse.ArgumentParser) -> None:
    """The options of the web table's `Limits` (defaults from there: one source)."""
    from kbdsl.web.limits import Limits

    d = Limits()
    p.add_argument("--max-tables", type=int, default=d.max_tables, help=f"--http: open tables (default {d.max_tables})")
    p.add_argument(
        "--tables-per-client",
        type=int,
        default=d.per_client,
        help=f"--http: open tables one client address may create (default {d.per_client})",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=d.idle_timeout,
        help=f"--http: seconds without a move before a table closes, its save deleted (default {d.idle_timeout:g})",
    )
    p.add_argument(
        "--finished-timeout",
        type=float,
        default=d.finished_timeout,
        help=f"--http: seconds a finished table stays open for its result and replay (default {d.finished_timeout:g})",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="--http: another origin (https://host:port) whose pages may create tables and open sockets (repeatable)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="--http: a host name the server is reached by, besides those of --host (repeatable; see docs/protocol.md)",
    )


def cmd_serve(args: argparse.Namespace) -> int:
    if args.http:
        return serve_http(args)
    from kbdsl.protocol import Server, serve

    return serve(sys.stdin.buffer, sys.stdout, Server(allow_paths=not args.shipped_only))


def _limits(args: argparse.Namespace) -> Limits | str:
    """The web table's limits from the options, or the sentence that refuses one."""
    from kbdsl.web.limits import Limits, served_hosts

    for name in ("max_tables", "tables_per_client"):
        if getattr(args, name) < 1:
            return f"--{name.replace('_', '-')}: a number of tables, 1 or more"
    for name in ("idle_timeout", "finished_timeout"):
        if not getattr(args, name) > 0:
            return f"--{name.replace('_', '-')}: a number of seconds, more than 0"
    return Limits(
        max_tables=args.max_tables,
        per_client=args.tables_per_client,
        idle_timeout=args.idle_timeout,
        finished_timeout=args.finished_timeout,
        origins=tuple(args.allow_origin),
        hosts=served_hosts(args.host, args.allow_host),
    )


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
    limits = _limits(args)
    if isinstance(limits, str):
        print(limits, file=sys.stderr)
        return 2
    try:
        app = create_app(args.data, args.bot_delay, limits)
    except OSError as e:
        print(f"--data {args.data}: {e.strerror}", file=sys.stderr)
        return 2
    print(f"kbdsl web table on http://{args.host}:{args.port}/ (new game page)", file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=MAX_MESSAGE, log_level="info", **uvicorn_options(args))
    return 0
