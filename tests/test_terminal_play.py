"""Terminal play that fits: 80 columns, last-turn marks, saves before and after every turn, resume, undo."""

import io
import json

import pytest

from conftest import shipped
from kbdsl.bots import make_bot
from kbdsl.cli import main
from kbdsl.cli.play import Session
from kbdsl.game import Game
from kbdsl.marks import last_turn_hexes
from kbdsl.render.terminal import COMPACT, LAST_MARK, WIDE, grid_for, render, render_legend


def run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("rule_set", ["base", "island"])
def test_everything_a_person_sees_fits_80_columns(rule_set):
    rules = shipped(rule_set)
    state = Game.new(rules, 4, seed=3).new_state()
    bots = [make_bot("random", str(p)) for p in range(4)]
    while len(state.log) < 80:
        state.apply_action(bots[state.current].choose(state))
    grid = grid_for(state, 80)
    assert grid == COMPACT and grid_for(state, 120) == WIDE
    seats = ["human", "random", "greedy", "random"]
    text = render(
        state,
        seats,
        0,
        highlight=state.targets("build") if state.mand_left else (),
        last=last_turn_hexes(state),
        grid=grid,
    )
    text += "\n" + render_legend(rules, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert max(len(line) for line in render(state, seats, 0, grid=WIDE).splitlines()) > 80  # why compact exists


def test_the_play_command_picks_the_layout_by_width(capsys, monkeypatch):
    script = "quit\n"
    for width, widest in ((80, 80), (120, 120)):
        monkeypatch.setattr("sys.stdin", io.StringIO(script))
        code, out, _ = run(capsys, ["play", "--preset", "first-game", "--no-color", "--width", str(width)])
        assert code == 0
        board = out.split("Type 'help'")[1]
        assert max(len(x) for x in board.splitlines()) <= widest
        header = next(x for x in board.splitlines() if x.strip().startswith("0 "))
        assert header.index(" 1 ") - header.index("0 ") == (COMPACT if width == 80 else WIDE).cell - 1


def test_a_whole_session_at_80_columns_never_wraps(capsys, monkeypatch):
    """Intro, legend, board, status and help of a four-seat Island game, at 80 columns."""
    monkeypatch.setattr("sys.stdin", io.StringIO("help\nmoves\nquit\n"))
    argv = ["play", "--rules", "island", "--bots", "random,human,greedy,random", "--seed", "123456789012345678"]
    code, out, _ = run(capsys, [*argv, "--no-color", "--width", "80"])
    assert code == 0
    long = [line for line in out.splitlines() if len(line) > 80 and not line.startswith("build: ")]
    assert not long  # (the list of legal moves is one line per action, as long as it needs)


def test_the_last_turns_moves_are_marked(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    # a bot in seat 0 plays first; the person in seat 1 then sees its three builds marked
    code, out, _ = run(
        capsys,
        ["play", "--preset", "first-game", "--seed", "2", "--bots", "random,human", "--no-color", "--width", "80"],
    )
    assert code == 0
    bot_moves = [x.split(": ", 1)[1] for x in out.splitlines() if x.startswith("P0 random: build")]
    assert len(bot_moves) == 3
    board = out.split("P1> quit")[0].split("-- turn 1")[1]
    assert board.count(LAST_MARK) == 3 and "0" + LAST_MARK in board  # the bot's three settlements


def test_save_is_checked_before_the_game_and_written_every_turn(capsys, monkeypatch, tmp_path, base_rules):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run(capsys, ["play", "--bots", "random,random", "--save", str(tmp_path / "no" / "x.json")])
    assert code == 2 and out == "" and "cannot write" in err  # refused before any move
    path = tmp_path / "g.json"
    saved_turns = []
    game = Game.new(base_rules, 2, seed=4)
    bots = {0: make_bot("random", "a"), 1: make_bot("random", "b")}
    session = Session(
        game.new_state(),
        ["random", "random"],
        bots,
        quiet=True,
        out=io.StringIO(),
        on_turn=lambda s: saved_turns.append(s.turn),
    )
    assert session.run()
    assert saved_turns == list(range(2, session.state.turn + 1))  # after every finished turn
    code, out, _ = run(capsys, ["play", "--bots", "random,random", "--quiet", "--save", str(path)])
    assert code == 0 and json.loads(path.read_text())["over"] is True


def test_resume_continues_a_saved_game(capsys, monkeypatch, tmp_path, base_rules):
    path = tmp_path / "g.json"
    first = Game.new(base_rules, 2, seed=5).new_state().targets("build")[0]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{first}\nquit\n"))
    assert run(capsys, ["play", "--seed", "5", "--no-color", "--save", str(path)])[0] == 0
    assert len(json.loads(path.read_text())["log"]) == 1
    monkeypatch.setattr("sys.stdin", io.StringIO("undo\nquit\n"))
    code, out, _ = run(capsys, ["play", "--resume", str(path), "--no-color"])
    assert code == 0 and f"P0 human: undid build {first}" in out
    assert json.loads(path.read_text())["log"] == []  # saved back to the file it resumed
    code, _, err = run(capsys, ["play", "--resume", str(path), "--bots", "random,random,random"])
    assert code == 2 and "is a game of 2 players" in err
