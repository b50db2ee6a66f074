"""Playing and replaying in the terminal: `kbdsl play` and `kbdsl replay`.

People type moves in the text notation of kbdsl.moves ("build 3,4", "TILE 3,4 3,6",
"end") and bots choose theirs; every move goes through State.play or the legal action
list, so the front end never decides what is legal. A saved game is exactly
State.to_json(): its setup rebuilds the Game and its log replays to the same state.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from kbdsl.bots import BOTS, Bot, bot_name, make_bot
from kbdsl.render.terminal import score_table
from kbdsl.errors import IllegalMove, KbdslError
from kbdsl.game import Game, State
from kbdsl.marks import last_turn_hexes, legal_targets
from kbdsl.moves import END, Move
from kbdsl.render.terminal import fit, grid_for, render, render_board, render_legend, seat_label, use_color
from kbdsl.ruleset import RuleSet, load
from kbdsl.saves import differences, game_of, read_save, replay_save, save
from kbdsl.undo import undo, undoable
from kbdsl.wording import counted

HUMAN = "human"
BOOLS = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}
HELP = """\
Moves (text notation):
  build ROW,COL         one settlement of the mandatory build (or just ROW,COL)
  TILE ROW,COL          a tile that builds: the tile's name, then the target hex
  TILE FROM TO          a tile that moves a settlement from FROM to TO
  end                   end your turn (after the mandatory builds)
  ... discard=used|unused|new   which of two same-kind tiles to give up, when a
                        move loses one
Commands:
  moves                 list every legal move
  targets ACTION [FROM] show where ACTION may go (for a move tile: which
                        settlements may move)
  board                 draw the board again
  undo                  take back your last move of this turn (not after a
                        card was drawn)
  score                 the scores of the position as it stands
  cards                 the Kingdom Builder cards of this game
  help                  this text
  quit                  stop the game (EOF does the same)"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play a game in the terminal (people and bots in any mix)")
    p.add_argument("--players", type=int, help="number of players (default: the number of --bots entries, or 2)")
    p.add_argument(
        "--bots",
        help=f"{HUMAN}, {', '.join(BOTS)} or a plug-in module:attribute, {SEATS_HELP} (e.g. human,hard)",
    )
    add_setup_flags(p)
    p.add_argument("--save", metavar="FILE", help="write the state after every turn (JSON, or YAML for .yaml/.yml)")
    p.add_argument("--resume", metavar="FILE", help="continue a saved game (and keep saving to it unless --save)")
    p.add_argument("--width", type=int, metavar="COLUMNS", help="terminal width (default: measured; 80 if unknown)")
    _add_output_flags(p, "only the final scores")
    p.set_defaults(run=cmd_play)

    r = sub.add_parser("replay", help="replay a saved game move by move and check it ends as saved")
    r.add_argument("file")
    r.add_argument("--delay", type=float, default=0.0, metavar="S", help="seconds to wait after each move")
    r.add_argument("--step", action="store_true", help="wait for Enter after each turn")
    r.add_argument("--rules", help="rule folder to use instead of the one the save names")
    _add_output_flags(r, "only the final board and scores")
    r.set_defaults(run=cmd_replay)


def add_setup_flags(p: argparse.ArgumentParser) -> None:
    """The flags that choose a game's set-up (play, render)."""
    p.add_argument(
        "--seed", type=int, help="seed of the setup draws, deck shuffles and bots (default: an unpredictable one)"
    )
    p.add_argument("--sections", help="sections of the primary board, e.g. a,b@180,c,d (default: drawn from the seed)")
    p.add_argument(
        "--board",
        action="append",
        default=[],
        metavar="NAME=SECTIONS",
        help="sections of another board (e.g. a detached one), repeatable; default: drawn from the seed",
    )
    p.add_argument("--cards", help="Kingdom Builder cards, e.g. x,y,z (default: drawn from the seed)")
    p.add_argument("--preset", help="a preset set-up the rule set declares")
    p.add_argument(
        "--rules",
        help="rule folder with game.yaml, or a shipped rule set's name (default: base; for a saved game, its own)",
    )
    p.add_argument("--option", action="append", default=[], metavar="NAME=BOOL", help="set a rule option (repeatable)")


def game_from_args(args: argparse.Namespace, players: int, rules: RuleSet | None = None) -> Game:
    """The Game the set-up flags describe (sections and cards not given are drawn from the seed)."""
    rules = rules or load(args.rules or "base")
    sections = parse_boards(args.sections, args.board)
    if isinstance(sections, dict) and "" in sections:
        sections[rules.primary_board.name] = sections.pop("")
    return Game.new(
        rules, players, sections, split_list(args.cards), args.seed, parse_options(args.option), args.preset
    )


def _add_output_flags(p: argparse.ArgumentParser, quiet_help: str) -> None:
    colors = p.add_mutually_exclusive_group()
    colors.add_argument("--no-color", action="store_true", help="plain text (also when NO_COLOR is set or not a TTY)")
    colors.add_argument("--color", action="store_true", help="colour even when stdout is not a terminal")
    p.add_argument("--quiet", action="store_true", help=quiet_help)


# -- setup ----------------------------------------------------------------------------------
def split_list(text: str | None) -> list[str] | None:
    """Comma-separated command-line values, blanks dropped (None when not given)."""
    return [w.strip() for w in text.split(",") if w.strip()] if text else None


def parse_boards(primary: str | None, others: Sequence[str]) -> list[str] | dict[str, list[str]] | None:
    """`--sections a,b,c,d` (the primary board) plus `--board NAME=x,y` for other boards."""
    if not others:
        return split_list(primary)
    out: dict[str, list[str]] = {}
    for item in others:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not split_list(value):
            raise KbdslError(f"--board {item!r}: write NAME=SECTION[,SECTION...]")
        out[name.strip()] = split_list(value) or []
    if primary:
        out[""] = split_list(primary) or []  # resolved to the primary board's name by cmd_play
    return out


SEATS_HELP = "one entry per seat, so its length is the number of players; a single entry fills every seat"


def parse_seats(players: int | None, bots: str | None, *, default: int = 2, people: bool = True) -> list[str]:
    """Who sits where, with one meaning in every command (SEATS_HELP): a bot name or 'human' per seat;
    a single entry fills `players` seats (else `default`); with no entry, one person against random bots."""
    kinds = []
    for k in split_list(bots) or []:
        if k.lower() == HUMAN and people:
            kinds.append(HUMAN)
            continue
        try:
            kinds.append(bot_name(k))
        except ValueError as e:
            allowed = f"{HUMAN}, " if people else ""
            raise KbdslError(
                f"unknown player kind {k!r} in --bots ({allowed}{', '.join(BOTS)} or a plug-in): {e}"
            ) from None
    if not kinds:
        n = players if players is not None else default
        return ([HUMAN] + ["random"] * (n - 1) if people else ["random"] * n) if n > 0 else []
    if len(kinds) == 1:
        return kinds * (players if players is not None else default)
    if players is not None and players != len(kinds):
        raise KbdslError(f"--players {players} but --bots names {counted(len(kinds), 'seat')} ({SEATS_HELP})")
    return kinds


def parse_options(items: Sequence[str]) -> dict[str, bool]:
    """`--option name=true` values; the rule set checks the names."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or value.strip().lower() not in BOOLS or not name.strip():
            raise KbdslError(f"--option {item!r}: write NAME=true or NAME=false")
        out[name.strip()] = BOOLS[value.strip().lower()]
    return out


def _color(args: argparse.Namespace) -> bool:
    return bool(args.color) or use_color(args.no_color, sys.stdout)


# -- a game in the terminal ---------------------------------------------------------------
class Session:
    """One game at the terminal: the state, who sits in each seat, and where text goes."""

    def __init__(
        self,
        state: State,
        seats: Sequence[str],
        bots: dict[int, Bot],
        *,
        color: bool = False,
        quiet: bool = False,
        out: TextIO | None = None,
        inp: TextIO | None = None,
        width: int = 80,
        on_turn: Callable[[State], None] | None = None,
    ):
        self.state = state
        self.seats = list(seats)
        self.bots = bots
        self.color = color
        self.quiet = quiet
        self.out = out or sys.stdout
        self.inp = inp or sys.stdin
        self.rules: RuleSet = state.game.rules
        self.width = width
        self.grid = grid_for(state, width)
        self.on_turn = on_turn  # called after every finished turn (saving)
        self._turn_seen = -1

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def label(self, p: int) -> str:
        return f"{seat_label(p, self.color)} {self.seats[p]}"

    def run(self) -> bool:
        """Play until the game is over (True) or a person quits or input ends (False)."""
        if not self.quiet:
            self.intro()
        while not self.state.over:
            p = self.state.current
            if self.state.turn != self._turn_seen and self._turn_seen != -1 and self.on_turn:
                self.on_turn(self.state)
            self._announce_turn(p)
            if p in self.bots:
                code = self.bots[p].choose(self.state)
                move = self.state.game.decode(code)
                self.state.apply_action(code)
                if not self.quiet:
                    self.say(f"{self.label(p)}: {move}")
            elif not self.human_move(p):
                return False
        return True

    def intro(self) -> None:
        g = self.state.game
        seats = ", ".join(self.label(p) for p in range(len(self.seats)))
        sections = [f"{b} {' '.join(names)}" for b, names in g.setup.layout.to_json().items()]
        cards = ", ".join(self.rules.cards[c].title for c in g.setup.cards)
        self.say(fit([self.rules.title, f"seed {g.setup.seed}", seats], self.width))
        self.say(fit([f"Sections: {sections[0]}", *sections[1:]], self.width, "; "))
        self.say(f"Cards: {cards}")
        if HUMAN in self.seats:
            self.say(render_legend(self.rules, self.color, self.width))
            self.say("Type 'help' for the move notation and commands.")

    def _announce_turn(self, p: int) -> None:
        """One line when a bot's turn starts: the card it plays is shown face up, as at the table."""
        if self.state.turn == self._turn_seen:
            return
        self._turn_seen = self.state.turn
        if self.quiet or p not in self.bots:
            return
        card = self.state.card
        title = self.rules.terrains[card].title if card is not None else "no card"
        self.say(f"-- turn {self.state.turn}: {self.label(p)} plays {title}")

    # -- people -----------------------------------------------------------------------
    def show(self, p: int, highlight: Sequence[str] | None = None, sources: Sequence[str] = ()) -> None:
        marks = legal_targets(self.state) if highlight is None else highlight
        last = last_turn_hexes(self.state)
        text = render(
            self.state,
            self.seats,
            p,
            highlight=marks,
            sources=sources,
            color=self.color,
            last=last,
            grid=self.grid,
            width=self.width,
        )
        self.say(text)

    def read(self, prompt: str) -> str | None:
        """One line of input, or None at end of input (a script or a closed terminal)."""
        if self.inp is sys.stdin and self.out is sys.stdout and self.inp.isatty() and self.out.isatty():
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401  (line editing and history for input())
            try:  # readline must not count colour codes as prompt width: wrap them in \001..\002
                return input(re.sub(r"(\x1b\[[0-9;]*m)", "\001\\1\002", prompt))
            except (EOFError, KeyboardInterrupt):  # Ctrl-D or Ctrl-C: stop like a script that ran dry
                self.say()
                return None
        self.out.write(prompt)
        line = self.inp.readline()
        if not line:
            self.say()
            return None
        self.say(line.rstrip("\n"))  # echo, so a scripted game reads like a typed one
        return line

    def human_move(self, p: int) -> bool:
        """Ask seat `p` until it plays a legal move; False when it quits or input ends."""
        only_end = self.state.legal_moves() == [END]
        if only_end and not undoable(self.state):
            self.state.play(END)
            if not self.quiet:
                self.say(f"{self.label(p)}: end (no other move)")
            return True
        if not self.quiet:
            self.show(p)
            if only_end:
                self.say("Only 'end' is left: press Enter to end the turn, or type undo.")
        while True:
            line = self.read(f"{seat_label(p, self.color)}> ")
            if line is None:
                return False
            words = line.split()
            if not words:
                if only_end:
                    return self.try_move(p, "end")
                continue
            word = words[0].lower()
            if word in ("quit", "exit"):
                return False
            if word in ("help", "?"):
                self.say(HELP)
                self.say(render_legend(self.rules, self.color, self.width))
            elif word == "undo":
                if self.take_back(p):
                    return True
            elif word == "moves":
                self.say(self.list_moves())
            elif word == "targets":
                self.show_targets(p, words[1:])
            elif word in ("board", "show"):
                self.show(p)
            elif word == "score":
                self.say(score_table(self.state.scores()))
            elif word == "cards":
                self.say(self.card_texts())
            elif self.try_move(p, line):
                return True

    def take_back(self, p: int) -> bool:
        """Undo the person's last move of this turn; True when something was undone."""
        try:
            before = undo(self.state)
        except IllegalMove as e:
            self.say(f"cannot undo: {e.reason}")
            return False
        move = self.state.game.decode(self.state.log[-1])
        self.state = before
        if not self.quiet:
            self.say(f"{self.label(p)}: undid {move}")
        return True

    def try_move(self, p: int, line: str) -> bool:
        """Play a typed move; an illegal one is explained in one line and nothing changes."""
        text = line.strip()
        if text[0].isdigit() or text[0] == "(" or ":" in text.split()[0]:
            text = f"build {text}"  # a bare hex is the mandatory build
        try:
            move = Move.parse(text)
            self.state.play(move)
        except IllegalMove as e:
            self.say(f"illegal: {e.reason}")
            return False
        except (ValueError, KbdslError) as e:
            self.say(f"not a move: {e} (type 'help')")
            return False
        if self.quiet:
            return True
        self.say(f"{self.label(p)}: {move}")
        return True

    def list_moves(self) -> str:
        """Legal moves grouped by action, targets in board order."""
        groups: dict[str, list[str]] = {}
        for m in self.state.legal_moves():
            hexes = [h for h in (m.frm, m.to) if h is not None]
            text = "->".join(hexes) + (f" discard={m.discard}" if m.discard else "")
            groups.setdefault(m.do, []).append(text)
        return "\n".join(f"{do}: {' '.join(items)}" if items[0] else do for do, items in groups.items())

    def show_targets(self, p: int, words: Sequence[str]) -> None:
        if not words:
            self.say("usage: targets ACTION [FROM]  (ACTION is build or one of your tiles)")
            return
        action, frm = words[0].lower(), (words[1] if len(words) > 1 else None)
        tile = self.rules.actions.get(action)
        try:
            if tile is not None and tile.kind == "move" and frm is None:
                froms = self.state.sources(action)
                self.show(p, highlight=[], sources=froms)
                self.say(f"{action} may move: {' '.join(froms) or 'nothing now'} (then: targets {action} FROM)")
                return
            hexes = self.state.targets(action, frm)
        except KbdslError as e:
            self.say(f"not a hex: {e}")
            return
        self.show(p, highlight=hexes)
        self.say(f"{action}: {' '.join(hexes) or 'no legal target now'}")

    def card_texts(self) -> str:
        out = []
        for c in self.state.game.setup.cards:
            card = self.rules.cards[c]
            out.append(f"{card.title}: {' '.join(card.texts)}".rstrip(": "))
        return "\n".join(out)

    # -- the end ----------------------------------------------------------------------------
    def finish(self, complete: bool) -> None:
        if not self.quiet:
            self.say()
            self.say(render_board(self.state, color=self.color, last=last_turn_hexes(self.state), grid=self.grid))
            self.say()
        if not complete:
            self.say("Game stopped before the end; scores as the position stands:")
        self.say(score_table(self.state.scores()))
        self.say(winners_line(self.state))


def winners_line(state: State) -> str:
    """The winner, or the seats sharing the victory (the rulebook has no tie-breaker)."""
    best = state.winners()
    gold = state.scores()[best[0]]["total"]
    if not state.over:
        return f"Leading: {', '.join(f'P{p}' for p in best)} with {gold} gold"
    if len(best) == 1:
        return f"Winner: P{best[0]} with {gold} gold"
    return f"Shared victory: {', '.join(f'P{p}' for p in best)} with {gold} gold each"


def cmd_play(args: argparse.Namespace) -> int:
    if args.resume:
        data = read_save(args.resume)
        state = replay_save(args.resume, load(args.rules) if args.rules else None, data)
        players = state.players
        # Given seats replace the saved ones; a save written before seats were recorded: a person
        # against random bots.
        given = "--bots" if args.bots else "the save"
        seats = parse_seats(None, args.bots or ",".join(data.get("seats", [])), default=players)
        if len(seats) != players:
            raise KbdslError(
                f"{args.resume} is a game of {players} players; {given} names {counted(len(seats), 'seat')}"
            )
    else:
        seats = parse_seats(args.players, args.bots)
        state = game_from_args(args, len(seats)).new_state()
    seed = state.game.setup.seed  # drawn from the operating system when --seed is not given
    target = args.save or args.resume
    if target:
        save(state, target, seats)  # an unwritable path is refused now, not after the game
    bots = {p: make_bot(kind, f"{seed}:{p}:{kind}") for p, kind in enumerate(seats) if kind != HUMAN}
    on_turn = (lambda s: save(s, target, seats)) if target else None
    width = args.width or terminal_width(sys.stdout)
    session = Session(state, seats, bots, color=_color(args), quiet=args.quiet, width=width, on_turn=on_turn)
    complete = session.run()
    session.finish(complete)
    if target:
        save(session.state, target, seats)
        if not args.quiet:
            print(f"Saved to {target} ({counted(len(session.state.log), 'move')})")
    return 0


def terminal_width(stream: TextIO) -> int:
    """Columns of the terminal `stream` writes to; COLUMNS or 80 when it is not a terminal."""
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        with contextlib.suppress(OSError, ValueError):
            return os.get_terminal_size(stream.fileno()).columns
    return shutil.get_terminal_size((80, 24)).columns


# -- replays ----------------------------------------------------------------------------
def cmd_replay(args: argparse.Namespace) -> int:
    data = read_save(args.file)
    game = game_of(data, args.file, load(args.rules) if args.rules else None)
    state = game.new_state()
    color = _color(args)
    seats = [""] * game.setup.players  # a save does not say who sat where
    stepping = args.step
    for i, raw in enumerate(data["log"], 1):
        p = state.current
        try:
            move = Move.from_json(raw)
        except ValueError as e:
            print(f"kbdsl replay: move {i} of the log is not a move: {e}", file=sys.stderr)
            return 1
        try:
            state.play(move)
        except IllegalMove as e:
            print(f"kbdsl replay: move {i} ({move}) cannot be played: {e.reason}", file=sys.stderr)
            return 1
        if args.quiet:
            continue
        print(f"{i:>4} {seat_label(p, color)}: {move}")
        if args.delay > 0:
            time.sleep(args.delay)
        if move.do == END.do or state.over:
            print(render(state, seats, color=color))
            print()
            if stepping and not state.over:
                stepping = _step()
    if args.quiet:
        print(render(state, seats, color=color))
        print()
    print(score_table(state.scores()))
    print(winners_line(state))
    fields = differences(state, data)  # the rule set's name is not compared: --rules may rename it
    if fields:
        print(f"kbdsl replay: the replayed game differs from the saved state in: {', '.join(fields)}", file=sys.stderr)
        return 1
    print(f"Replay matches the saved state ({counted(len(data['log']), 'move')}).")
    return 0


def _step() -> bool:
    """Wait for Enter; False (stop stepping) on 'q' or end of input."""
    print("[Enter: next turn, q: run to the end] ", end="", flush=True)
    line = sys.stdin.readline()
    return bool(line) and line.strip().lower() != "q"
