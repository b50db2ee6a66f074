"""One hash over many random games in every shipped rule set: the determinism check of speed work.

    python tools/fingerprint.py [--games 30] [--tree DIR]

For each rule set under rules/ (examples included), `--games` random games (random setups, player
counts and options, all from the game's number) are played by RandomBot (sample_action), then
replayed from a fresh state listing legal_actions() before each move. The hash covers the move
logs, the score sheets and every legal-move list along each game, so two engine versions that
print the same hash play the same games move for move. `--tree DIR` fingerprints the kbdsl (and
rules) of another checkout, say main's, with this script.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path


def fingerprint(root: Path, games: int, each: dict[str, str] | None = None) -> str:
    """The hash over every rule set; `each`, if given, gets one hash per rule set too (so a change
    meant for one rule set shows it leaves the others alone)."""
    sys.path.insert(0, str(root))
    from kbdsl.bots import RandomBot, play_out
    from kbdsl.game import Game
    from kbdsl.ruleset import load

    h = hashlib.sha256()
    for where in sorted(p.parent for p in (root / "rules").rglob("game.yaml")):
        rules = load(where)
        one = hashlib.sha256()
        for k in range(games):
            rng = random.Random(f"{where.name}:{k}")
            players = rng.choice([2, 3, 4])
            options = {name: rng.random() < 0.3 for name in rules.options}
            game = Game.new(rules, players=players, seed=k, options=options)
            state = play_out(game.new_state(), [RandomBot(f"{k}:{p}") for p in range(players)])
            for x in (h, one):
                x.update(repr((where.name, k, state.log, state.scores())).encode())
            again = game.new_state()
            for code in state.log:
                actions = again.legal_actions()
                assert code in actions, f"{where.name} game {k}: move {code} not legal on replay"
                h.update(repr(actions).encode())
                one.update(repr(actions).encode())
                again.apply_action(code)
        if each is not None:
            each[where.name] = one.hexdigest()
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30, help="games per rule set")
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent, help="checkout to test")
    ap.add_argument("--each", action="store_true", help="also print a hash per rule set")
    args = ap.parse_args()
    each: dict[str, str] | None = {} if args.each else None
    print(fingerprint(args.tree.resolve(), args.games, each))
    for name, digest in (each or {}).items():
        print(f"{name:12} {digest}")


if __name__ == "__main__":
    main()
