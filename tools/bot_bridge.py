"""A bot of another checkout of kbdsl at this one's table: the ladder's bridge to older code.

    PYTHONPATH=DIR python tools/bot_bridge.py    # DIR: the other checkout (Bridge starts it so)

The server reads JSON lines on stdin and answers on stdout. It keeps its own copy of each game:
`{"op": "new", "rules": R, "players": n, "seed": s, "bots": {"seat": [spec, bot seed]}}` starts one,
`{"op": "play", "move": m}` applies a move (no answer), `{"op": "choose", "seat": p, "legal": [...]}`
asks that seat's bot and answers `{"move": m, "cpu": seconds}`, the processor time of its choice
in the server. Moves travel as JSON (`Move.to_json`), since action codes
may differ between checkouts; the two must deal the same games (the same fingerprint), and the
server checks that the legal moves it sees are the parent's. Its bot decides from its own seat of its
own copy of the game, as at a table, so it sees no more than a bot here. A spec is the ladder's
`name/key=value/...`; `ms` given to a bot that has no time budget of its own (the tree search
before issue 24) stops its walks when the decision has spent that much processor time, the way
the budget of `kbdsl.bots.ismcts` does (the clock read before each walk, one walk at least).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kbdsl.moves import Move  # in the server, the other checkout's

SERVER = Path(__file__).resolve()


def timed(bot, ms: float) -> None:
    """Give an old tree-search bot (a loop `while self._spent < self.playouts`) a time budget:
    `playouts` reads as one more than spent until the deadline, then as nothing. The clock starts
    with the decision, so the seat it builds (1.7 ms from the JSON view then) is in the budget."""
    if not hasattr(bot, "_spent"):
        raise SystemExit(f"bot {bot.name} has neither a time budget nor a walk count to stop")

    class Timed(type(bot)):
        @property
        def playouts(self) -> int:
            if not self._spent or time.process_time() < self._deadline:
                return self._spent + 1
            return 0

        @playouts.setter
        def playouts(self, value: int) -> None:
            pass

        def choose(self, state) -> int:  # its seat (built from the JSON view then) within the budget
            self._deadline = time.process_time() + ms / 1000
            return super().choose(state)

    bot.__class__ = Timed


def build(spec: str, seed: str):
    """A bot of the checkout this runs in, from the ladder's `name/key=value/...`."""
    from kbdsl.bots import make_bot

    name, *settings = spec.split("/")
    bot = make_bot(name, seed)
    for item in settings:
        key, _, text = item.partition("=")
        value = None if text == "None" else float(text) if "." in text else int(text)
        if key == "ms" and not hasattr(bot, "ms"):
            timed(bot, value)
        elif not hasattr(bot, key):
            raise SystemExit(f"bot {name} has no setting {key!r}")
        else:
            setattr(bot, key, value)
    return bot


def serve() -> None:
    from kbdsl.game import Game
    from kbdsl.simulate import rules_for

    state, bots = None, {}
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["op"] == "new":
            game = Game.new(rules_for(msg["rules"]), players=msg["players"], seed=msg["seed"])
            state = game.new_state()
            bots = {int(p): build(spec, seed) for p, (spec, seed) in msg["bots"].items()}
        elif msg["op"] == "play":
            state.apply_action(game.to_code(Move.from_json(msg["move"])))
        else:
            here = {json.dumps(game.decode(code).to_json()) for code in state.legal_actions()}
            there = {json.dumps(move) for move in msg["legal"]}
            if here != there:
                raise SystemExit(f"bot_bridge: legal here only {here - there}, there only {there - here}")
            start = time.process_time()
            code = bots[msg["seat"]].choose(state)
            cpu = time.process_time() - start
            print(json.dumps({"move": game.decode(code).to_json(), "cpu": cpu}), flush=True)


class Bridge:
    """The server in checkout `tree`, started once and reused game after game."""

    def __init__(self, tree: str):
        env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}  # its kbdsl, not this one
        self.errors = tempfile.TemporaryFile("w+")  # noqa: SIM115 (lives as long as the server: its complaints)
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER)],
            cwd=tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
        )

    def send(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def ask(self, msg: dict) -> dict:
        self.send(msg)
        answer = self.proc.stdout.readline()
        if not answer:
            code = self.proc.wait()
            self.errors.seek(0)
            raise RuntimeError(f"bot_bridge: the server stopped (exit code {code}): {self.errors.read()[-2000:]}")
        return json.loads(answer)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


class BridgeBots:
    """The seats of one game played by bots of other checkouts: `specs` maps a seat to
    `(tree, spec, bot seed)`. `choose(seat, state)` gives the code and the processor seconds;
    `played(code)` passes every move on so each server's copy of the game keeps step."""

    _bridges: dict[str, Bridge] = {}  # per process: one server per checkout

    def __init__(self, rules: str, players: int, seed: int, specs: dict[int, tuple[str, str, str]]):
        self.trees: dict[str, Bridge] = {}
        for tree in {t for t, _, _ in specs.values()}:
            bridge = self._bridges.get(tree) or self._bridges.setdefault(tree, Bridge(tree))
            seats = {str(p): [spec, s] for p, (t, spec, s) in specs.items() if t == tree}
            bridge.send({"op": "new", "rules": rules, "players": players, "seed": seed, "bots": seats})
            self.trees[tree] = bridge
        self.seat_tree = {p: t for p, (t, _, _) in specs.items()}

    def choose(self, seat: int, state) -> tuple[int, float]:
        bridge = self.trees[self.seat_tree[seat]]
        legal = [state.game.decode(code).to_json() for code in state.legal_actions()]
        answer = bridge.ask({"op": "choose", "seat": seat, "legal": legal})
        return state.game.to_code(Move.from_json(answer["move"])), answer["cpu"]

    def played(self, state, code: int) -> None:
        move = state.game.decode(code).to_json()
        for bridge in self.trees.values():
            bridge.send({"op": "play", "move": move})


if __name__ == "__main__":
    serve()
