"""`kbdsl render`: an SVG (or PNG) picture of a section, a set-up, a scenario's position or a saved game."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from kbdsl.errors import KbdslError, SetupError
from kbdsl.game import Game, Setup, State
from kbdsl.marks import last_turn_hexes, legal_targets
from kbdsl.position import Layout
from kbdsl.render import svg
from kbdsl.ruleset import BoardSpec, RuleSet, load
from kbdsl.suggest import did_you_mean

PNG_HELP = 'PNG output needs CairoSVG: python3 -m pip install ".[png]" in the kbdsl folder'


def register(sub: argparse._SubParsersAction) -> None:
    from kbdsl.cli.play import add_setup_flags

    p = sub.add_parser("render", help="draw a section, a set-up, a scenario's position or a saved game as SVG or PNG")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--section", metavar="NAME", help="one section of the rule set, alone")
    what.add_argument("--scenario", metavar="FILE", help="the position a scenario file sets up (its moves played)")
    what.add_argument("--game", metavar="FILE", help="a saved game (kbdsl play --save)")
    p.add_argument("--move", type=int, metavar="N", help="with --game: the position after N moves of its log")
    p.add_argument("--players", type=int, default=2, help="players of a set-up (default 2)")
    add_setup_flags(p)
    p.add_argument(
        "--legal",
        nargs="?",
        const="",
        metavar="ACTION",
        help="highlight legal targets: of ACTION (build or a tile), else of the action under way",
    )
    p.add_argument("--last", action="store_true", help="mark the hexes of the last turn's moves")
    p.add_argument("--coords", action="store_true", help="write row and column numbers")
    p.add_argument("--legend", action="store_true", help="add the terrain and tile letters below the board")
    p.add_argument("--size", type=int, metavar="PX", help="width of the picture in pixels")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (.svg, or .png with CairoSVG); default stdout")
    p.set_defaults(run=cmd_render)


def cmd_render(args: argparse.Namespace) -> int:
    if args.move is not None and not args.game:
        raise KbdslError("--move goes with --game FILE")
    if args.output and Path(args.output).suffix.lower() == ".png":
        _cairosvg()  # refuse before drawing anything
    subject = _subject(args)
    state = subject if isinstance(subject, State) else None
    if (args.legal is not None or args.last) and state is None:
        raise KbdslError("--legal and --last need a position: --scenario or --game")
    hexes: list[str] = []
    if state is not None and args.legal is not None:
        hexes = state.targets(args.legal) if args.legal else legal_targets(state)
    picture = svg.board(
        subject,
        hexes=hexes,
        last=last_turn_hexes(state) if args.last and state else (),
        coords=args.coords,
        legend=args.legend,
        size=args.size,
    )
    _write(picture, args.output)
    return 0


def _subject(args: argparse.Namespace) -> Game | State:
    from kbdsl.scenario import scenario_position
    from kbdsl.cli.play import game_from_args

    if args.scenario:
        return scenario_position(args.scenario)
    if args.game:
        return _saved(args.game, args.move, load(args.rules) if args.rules else None)
    rules = load(args.rules or "base")
    if args.section:
        return section_game(rules, args.section)
    return game_from_args(args, args.players, rules)


def section_game(rules: RuleSet, name: str) -> Game:
    """A game whose only board is one section, to look at it alone."""
    section = rules.sections.get(name)
    if section is None:
        raise SetupError(f"no section {name!r} in {rules.name}{did_you_mean(name, rules.sections)}")
    spec = next(b for b in rules.boards if b.name == (section.board or rules.primary_board.name))
    alone = dataclasses.replace(rules, boards=(BoardSpec(spec.name, (1, 1), spec.sectors, spec.edge),))
    return Game(alone, Setup(rules.players[0], Layout.of(alone, {spec.name: [name]}), ()))


def _saved(path: str, move: int | None, rules: RuleSet | None) -> State:
    from kbdsl.saves import game_of, read_save

    data = read_save(path)
    log = data["log"]
    if move is not None and not 0 <= move <= len(log):
        raise KbdslError(f"--move {move}: the saved game has moves 0 to {len(log)}")
    state = game_of(data, path, rules).new_state()
    for i, m in enumerate(log[:move] if move is not None else log, 1):
        try:
            state.play(m)
        except KbdslError as e:
            raise KbdslError(f"{path}: move {i} of the log cannot be played: {e}") from None
    return state


def _cairosvg():
    try:
        import cairosvg
    except (ImportError, OSError):  # OSError: the library is installed but libcairo is missing
        raise KbdslError(PNG_HELP) from None
    return cairosvg


def _write(picture: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(picture + "\n")
        return
    try:
        if Path(output).suffix.lower() == ".png":
            _cairosvg().svg2png(bytestring=picture.encode("utf-8"), write_to=output)
        else:
            Path(output).write_text(picture + "\n", encoding="utf-8")
    except OSError as e:
        raise KbdslError(f"cannot write {output}: {e.strerror}") from None
