"""The `kbdsl` command: play, render, show, explain, score, test, lint, replay, simulate, serve.

Every error a user can cause is printed as one located sentence, never a traceback.
Exit codes: 0 success, 1 findings or failures, 2 usage or input errors.
"""

from __future__ import annotations

import argparse
import sys

from kbdsl.errors import KbdslError, RuleError


def _version_flag(parser: argparse.ArgumentParser) -> None:
    from kbdsl import __version__

    parser.add_argument("--version", action="version", version=f"kbdsl {__version__}")


def main(argv: list[str] | None = None) -> int:
    # `kbdsl --version` is answered before any command module (and the engine, Lark, jsonschema behind
    # them) is imported: a first parser that knows only the global flag.
    early = argparse.ArgumentParser(prog="kbdsl", add_help=False)
    _version_flag(early)
    early.parse_known_args(argv)

    from kbdsl.cli import commands

    parser = argparse.ArgumentParser(prog="kbdsl", description="Kingdom Builder as rules-as-data.")
    _version_flag(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.register(sub)
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except RuleError as e:
        for d in e.diagnostics:
            print(d.render(), file=sys.stderr)
        return 2
    except KbdslError as e:
        print(f"kbdsl {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
