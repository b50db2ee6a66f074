"""The `kbdsl` command: play, render, show, explain, score, test, lint, replay, simulate, serve.

Every error a user can cause is printed as one located sentence, never a traceback.
Exit codes: 0 success, 1 findings or failures, 2 usage or input errors.
"""

from __future__ import annotations

import argparse
import sys

from kbdsl.errors import KbdslError, RuleError


def main(argv: list[str] | None = None) -> int:
    from kbdsl.cli import commands

    from kbdsl import __version__

    parser = argparse.ArgumentParser(prog="kbdsl", description="Kingdom Builder as rules-as-data.")
    parser.add_argument("--version", action="version", version=f"kbdsl {__version__}")
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
