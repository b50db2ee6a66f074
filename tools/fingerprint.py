"""One hash over many random games in every shipped rule set: the determinism check of speed work.

    python tools/fingerprint.py [--games 30] [--tree DIR]

For each rule set under rules/ (examples included), `--games` random games (random setups, player
counts and options, all from the game's number) are played by RandomBot (sample_action), then
replayed from a fresh state listing legal_actions() before each move. The hash covers the move
logs, the score sheets and every legal-move list along each game, so two engine versions that
print the same hash play the same games move for move. `--tree DIR` fingerprints the kbdsl (and
rules) of another checkout, say main's, with this script. One line per rule set comes before the
total, so that adding a rule folder, or a rule change in one, shows which sets still play as before.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path


def fingerprint(root: Path, games: int) -> tuple[str, dict[str, str]]:
    """The total hash, and a hash per rule folder (by its path under rules/)."""
    sys.path.insert(0, str(root))
    from kbdsl.bots import RandomBot, play_out
    from kbdsl.game import Game
    from kbdsl.ruleset import load

    h = hashlib.sha256()
    each = {}
    for where in sorted(p.parent for p in (root / "rules").rglob("game.yaml")):
        rules = load(where)
        mine = hashlib.sha256()
        for k in range(games):
            rng = random.Random(f"{where.name}:{k}")
            players = rng.choice([2, 3, 4])
            options = {name: rng.random() < 0.3 for name in rules.options}
            game = Game.new(rules, players=players, seed=k, options=options)
            state = play_out(game.new_state(), [RandomBot(f"{k}:{p}") for p in range(players)])
            parts = [repr((where.name, k, state.log, state.scores())).encode()]
            again = game.new_state()
            for code in state.log:
                actions = again.legal_actions()
                assert code in actions, f"{where.name} game {k}: move {code} not legal on replay"
                parts.append(repr(actions).encode())
                again.apply_action(code)
            for part in parts:
                h.update(part)
                mine.update(part)
        each[where.relative_to(root / "rules").as_posix()] = mine.hexdigest()
    return h.hexdigest(), each


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30, help="games per rule set")
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent, help="checkout to test")
    args = ap.parse_args()
    total, each = fingerprint(args.tree.resolve(), args.games)
    for name, digest in each.items():
        print(f"{digest[:16]}  {name}")
    print(total)


if __name__ == "__main__":
    main()
