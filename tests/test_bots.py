"""Bots: they decide from their player's view only, play legal moves, load as plug-ins by name."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kbdsl.bots import (
    BOTS,
    GreedyBot,
    IsmctsBot,
    MonteCarloBot,
    RandomBot,
    Seat,
    bot_name,
    make_bot,
)
from kbdsl.bots.playout import margins, worth
from kbdsl.cli import main
from kbdsl.determinize import determinize, unseen_cards
from kbdsl.errors import KbdslError
from kbdsl.game import Game, State


@pytest.fixture(scope="module")
def midgame(base_rules):
    """A two-player position after 40 random moves (tiles held, cards in the discard pile)."""
    game = Game.new(base_rules, players=2, seed=21)
    state = game.new_state()
    bot = RandomBot(3)
    while len(state.log) < 40:
        state.apply_action(bot.choose(state))
    return state


def hidden_twin(state: State, seed: int) -> State:
    """The same position with everything the player to move cannot see dealt differently: the
    other hands, the deck order and the seed of future shuffles."""
    me = state.current
    data = state.to_json()
    cards = list(data["deck"]) + [h for p, h in enumerate(data["hand"]) if p != me and h is not None]
    random.Random(seed).shuffle(cards)
    for p in range(state.players):
        if p != me and data["hand"][p] is not None:
            data["hand"][p] = cards.pop()
    data["deck"] = cards
    return State.from_json(data, state.game.with_seed(seed))


def search_bots(seed):
    return [
        GreedyBot(seed),
        MonteCarloBot(seed, playouts=12, width=3),
        IsmctsBot(seed, playouts=24),
    ]


def test_a_bot_decides_from_its_players_view_alone(midgame):
    twins = [hidden_twin(midgame, s) for s in (1, 2)]
    assert twins[0].deck != twins[1].deck and twins[0].view(midgame.current) == midgame.view(midgame.current)
    for bot_a, bot_b, bot_c in zip(search_bots(5), search_bots(5), search_bots(5), strict=True):
        assert bot_a.choose(midgame) == bot_b.choose(twins[0]) == bot_c.choose(twins[1]), bot_a.name


def test_a_determinisation_agrees_with_the_view_and_deals_only_unseen_cards(midgame):
    me = midgame.current
    view = midgame.view(me)
    deals = [determinize(midgame.game, view, random.Random(s)) for s in range(6)]
    unseen = Counter(unseen_cards(midgame.game, view))
    for d in deals:
        assert d.view(me) == view
        hidden = Counter(d.deck) + Counter(h for p, h in enumerate(d.hand) if p != me and h is not None)
        assert hidden == unseen
        assert d.deck_seed != midgame.game.setup.seed  # its reshuffles cannot foresee the real ones
    assert len({tuple(d.deck) for d in deals}) > 1  # the unseen cards are really dealt at random
    seat = Seat.of(midgame)  # what a bot is given holds the game without its seed
    assert midgame.game.setup.seed != 0 and seat.game.setup.seed == 0
    sample = seat.sample(random.Random(1))
    assert sample.game.setup.seed == 0 and sample.deck_seed not in (0, midgame.game.setup.seed)


@pytest.mark.parametrize("name,players", [("base", 2), ("nomads", 5), ("crossroads", 3), ("combined", 4)])
def test_a_seat_is_the_determinisation_of_the_players_view(name, players):
    """Seat.of builds its position without JSON (a copy with the hidden things dealt anew): it is
    the state `determinize(view)` builds with the same seed, its view is the real state's, and
    its legal moves are the real ones, at every decision of whole games of every kind of rule set."""
    from conftest import shipped

    checked = 0
    for seed in range(2):
        game = Game.new(shipped(name), players=players, seed=seed)
        state, bot = game.new_state(), RandomBot(seed)
        while not state.over:
            me = state.current
            seat, view = Seat.of(state), state.view(me)
            reference = determinize(seat.game, view, random.Random(0))
            assert seat.public.key() == reference.key() and seat.public.deck_seed == reference.deck_seed
            assert seat.public.game.setup.seed == 0 and seat.view == view
            assert seat.legal_actions() == state.legal_actions()
            checked += 1
            state.apply_action(bot.choose(state))
    assert checked > 100


def test_a_determinisation_deals_the_cards_an_opponent_holds_beside_the_played_one():
    """With hands of two (Crossroads' tile), the view says how many cards an opponent holds but
    not which: a determinisation deals that many unseen cards, and every search bot can move."""
    from conftest import shipped

    game = Game.new(
        shipped("crossroads"), players=2, seed=5, sections=["lighthouse", "barracks", "city-hall", "monastery"]
    )
    state, bot, checked = game.new_state(), RandomBot(1), 0
    while not state.over and checked < 3:
        me, other = state.current, 1 - state.current
        if state.spare[other]:
            view = state.view(me)
            assert view["spare"][other] == [None] * len(state.spare[other])
            unseen = Counter(unseen_cards(game, view))
            for seed in range(3):
                d = determinize(game, view, random.Random(seed))
                assert d.view(me) == view and len(d.spare[other]) == len(state.spare[other])
                assert Counter(d.deck) + Counter([d.hand[other], *d.spare[other]]) == unseen
            for b in search_bots(3):
                assert b.choose(state) in state.legal_actions(), b.name
            checked += 1
        state.apply_action(bot.choose(state))
    assert checked == 3  # positions where the opponent held two cards were reached


def test_greedy_plays_a_move_with_the_best_margin(midgame):
    state = midgame.clone()
    for _ in range(8):
        me, actions = state.current, state.legal_actions()
        value = {}
        for code in actions:
            trial = state.clone()
            trial.apply_action(code)
            value[code] = margins(trial)[me]
        choice = GreedyBot(7).choose(state)
        assert value[choice] == max(value.values())
        state.apply_action(choice)


def test_search_bots_play_whole_games_of_legal_moves(base_rules):
    game = Game.new(base_rules, players=2, seed=4)
    state = game.new_state()
    bots = [MonteCarloBot(1, playouts=6, width=3), IsmctsBot(2, playouts=12)]
    while not state.over:
        state.play(game.decode(bots[state.current].choose(state)))  # play() refuses an illegal move
    assert sum(s.bit_count() for s in state.own) > 40
    with pytest.raises(KbdslError, match="game is over"):
        bots[0].choose(state)


@pytest.mark.parametrize("reuse", [False, True])
@pytest.mark.parametrize("horizon,deals", [(1, 1), (2, 16)])  # the default, and the search before it
def test_the_ismcts_budget_counts_every_call_of_the_scorers(midgame, monkeypatch, reuse, horizon, deals):
    import kbdsl.bots.playout as playout

    state, bot = midgame.clone(), RandomBot(0)
    while len(state.legal_actions()) < 3:
        state.apply_action(bot.choose(state))
    keys = []
    monkeypatch.setattr(playout, "worth", lambda s, *gold: keys.append(playout.scoring_key(s)) or worth(s, *gold))
    root = len(state.legal_actions())  # the root's ranking is free, as for Monte Carlo
    for budget in (10, 40):
        keys.clear()
        search = IsmctsBot(3, playouts=budget, reuse=reuse, horizon=horizon, deals=deals)
        assert search.choose(state) in state.legal_actions()
        spent = len(keys) - root
        assert spent <= budget + 10 * search.cap  # one walk may overshoot
        assert budget <= spent or reuse and search.walks == search.walk_cap * budget  # or no new position is left
        if reuse:  # every position is scored once a decision
            assert len(set(keys)) == len(keys)
        else:
            assert len(set(keys)) < len(keys)


def test_reuse_gives_ismcts_more_walks_for_the_same_scorer_calls(midgame):
    walks = {}
    for reuse in (False, True):
        search = IsmctsBot(3, playouts=60, reuse=reuse)
        search.choose(midgame)
        walks[reuse] = search.walks
    assert walks[False] < walks[True] <= IsmctsBot.walk_cap * 60


def test_an_ismcts_walk_along_a_known_deal_and_line_deals_no_state(midgame, monkeypatch):
    """The position a deal and a line of moves reach is always the same: a walk that repeats
    them (and reuses their end) needs no determinisation; without reuse every walk deals one."""
    dealt = []
    sample = Seat.sample
    monkeypatch.setattr(Seat, "sample", lambda seat, rng: dealt.append(1) or sample(seat, rng))
    for reuse in (False, True):
        dealt.clear()
        search = IsmctsBot(3, playouts=60, reuse=reuse)
        search.choose(midgame)
        assert (len(dealt) < search.walks) if reuse else (len(dealt) == search.walks)


def test_ismcts_goes_on_from_its_last_decision_of_the_turn(base_rules):
    """With `keep`, the next decision of the same turn starts from the tree below the move played
    (its visits, deals and walk ends); a new turn, or `keep=False`, starts anew."""
    state = Game.new(base_rules, players=2, seed=21).new_state()
    for keep in (True, False):
        search, turn = IsmctsBot(3, playouts=40, keep=keep), state.turn
        s = state.clone()
        code = search.choose(s)
        assert (search._kept is not None) == keep
        chosen = search._kept[5].children[code] if keep else None
        before = dict(search._kept[7]) if keep else {}
        s.apply_action(code)
        assert s.turn == turn and len(s.legal_actions()) > 1  # the second build of the turn
        resumed = search._resume(Seat.of(s))
        if keep:
            root, priors, ends, *_ = resumed
            assert root is chosen and root.visits > 0 and () in priors and ends
            assert all(before[deal, (code, *key)] == value for (deal, key), value in ends.items())
        else:
            assert resumed is None
    search = IsmctsBot(3, playouts=40)
    s = state.clone()
    search.choose(s)
    while s.turn == turn:
        s.apply_action(RandomBot(1).choose(s))
    assert search._resume(Seat.of(s)) is None  # another turn (another player's)


def test_a_time_budget_still_plays_a_legal_move(midgame):
    """`ms` budgets processor time instead of playouts; even a budget spent at once gives a move."""
    for search in (MonteCarloBot(1, ms=0.001), IsmctsBot(1, ms=0.001), MonteCarloBot(1, ms=5), IsmctsBot(1, ms=5)):
        assert search.choose(midgame) in midgame.legal_actions()


def test_worth_adds_tile_gold_per_tile_held_beyond_the_best_other(midgame):
    held = [len(ts) for ts in midgame.tiles]
    assert worth(midgame) == margins(midgame)
    for p, (w, m) in enumerate(zip(worth(midgame, 3.0), margins(midgame), strict=True)):
        assert w == m + 3.0 * (held[p] - max(h for q, h in enumerate(held) if q != p))
    assert any(len(ts) != len(midgame.tiles[0]) for ts in midgame.tiles)  # the tile term is not 0


class Clock:
    """A processor clock that advances `step` seconds each time it is read: a timed search walks
    the same number of times on any machine."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_a_timed_ismcts_stops_once_its_move_is_settled(midgame, monkeypatch):
    """With `bank`, the walks stop once those left at this pace cannot change the most visited move."""
    import kbdsl.bots.ismcts as ismcts

    monkeypatch.setattr(ismcts.time, "process_time", Clock(1e-3))  # a walk a millisecond
    search, root = IsmctsBot(1, ms=1000), ismcts.Node(-1, -1)
    for code, visits in ((1, 60), (2, 30)):
        root.children[code] = ismcts.Node(code, 0)
        root.children[code].visits = visits
    start = ismcts.time.process_time() - 0.008  # 8 walks in the 9 ms to the next reading
    assert search._more(8, start + 1.0, root, start)  # about 880 walks to come: 30 behind is nothing
    assert not search._more(8, start + 0.04, root, start)  # about 25 to come: 30 behind cannot catch up
    assert search._more(7, start + 0.04, root, start)  # (looked at every 8 walks only)
    search.bank = False
    assert search._more(8, start + 0.04, root, start)  # without `bank`, the walks go on to the deadline


def test_a_timed_ismcts_lends_the_time_it_saved_to_later_decisions(midgame, monkeypatch):
    import kbdsl.bots.ismcts as ismcts

    walks = {}
    for banked in (0.0, 0.5, 5.0):
        monkeypatch.setattr(ismcts.time, "process_time", Clock(1e-4))
        search = IsmctsBot(1, ms=20, bank=True)
        search._bank = banked * 0.02  # what earlier decisions left, in processor seconds
        search.choose(midgame)
        walks[banked] = search.walks
        assert search._bank >= max(banked - 1, 0) * 0.02 - 1e-9  # at most `lend` (one budget) is lent
    assert walks[0.0] < walks[0.5] < walks[5.0]


def test_bots_are_reproducible_from_their_seed(midgame):
    for name in ("greedy", "montecarlo", "ismcts"):
        assert make_bot(name, "s").choose(midgame) == make_bot(name, "s").choose(midgame)


def test_levels_name_the_bots_for_people():
    assert isinstance(make_bot("easy"), GreedyBot)
    assert isinstance(make_bot("medium"), MonteCarloBot)
    assert isinstance(make_bot("hard"), IsmctsBot)
    assert {"random", "greedy", "montecarlo", "ismcts", "easy", "medium", "hard"} <= set(BOTS)
    assert bot_name("Greedy") == "greedy"
    with pytest.raises(ValueError, match="unknown bot 'wizard'"):
        make_bot("wizard")


PLUGIN = '''
def first(seat):
    """A function from the player's view to a move: the first legal move, as JSON."""
    return seat.legal_moves()[0].to_json()


def cheat(seat):
    return "build 0,0"


class Last:
    def __init__(self, seed):
        self.seed = seed

    def act(self, seat):
        return seat.legal_moves()[-1]
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    (tmp_path / "kbdsl_test_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "kbdsl_test_plugin"


def test_plug_in_bots_load_by_dotted_name(plugin, midgame):
    legal = midgame.legal_actions()
    assert make_bot(f"{plugin}:first").choose(midgame) == legal[0]
    assert make_bot(f"{plugin}:Last", 3).choose(midgame) == legal[-1]
    with pytest.raises(KbdslError, match="not a legal move"):
        make_bot(f"{plugin}:cheat").choose(midgame)
    with pytest.raises(ValueError, match="cannot load bot 'no_such_module:x'"):
        make_bot("no_such_module:x")
    with pytest.raises(ValueError, match="cannot load bot"):
        make_bot(f"{plugin}:missing")


def test_plug_in_bots_play_from_the_command_line(plugin, capsys):
    assert main(["play", "--bots", f"{plugin}:first,random", "--seed", "2", "--quiet", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "Winner: P" in out or "Shared victory" in out
    assert main(["play", "--bots", f"{plugin}:nothing,random", "--quiet"]) == 2
    assert "cannot load bot" in capsys.readouterr().err


def test_seat_offers_the_legal_moves_of_the_real_position(midgame):
    seat = Seat.of(midgame)
    assert seat.legal_actions() == midgame.legal_actions()
    assert seat.player == midgame.current and seat.view["deck"] == len(midgame.deck)


def test_the_readme_plug_in_example_plays(tmp_path, monkeypatch, capsys):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    code = re.search(r"\*\*Plug-ins\.\*\*.*?```python\n(.*?)```", readme, re.S).group(1)
    module, command = re.search(r"# (\w+)\.py:\s+(kbdsl play .*)", code).groups()
    (tmp_path / f"{module}.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = command.split()[1:] + ["--seed", "1", "--quiet", "--no-color"]
    assert main(argv) == 0
    assert "gold" in capsys.readouterr().out


def test_the_ladder_log_keeps_each_game_and_prints_its_rows(tmp_path):
    """A stopped run keeps its games: `--log` names each game's pairing beside its result, and
    `--table LOG` prints the rows those games make, as the run itself prints them."""
    root, log = Path(__file__).resolve().parent.parent, tmp_path / "games.jsonl"
    ladder = [sys.executable, "tools/ladder.py", "--games", "2", "--jobs", "1"]
    played = [*ladder, "--pair", "random,random", "--log", str(log)]
    ran = subprocess.run(played, cwd=root, capture_output=True, text=True, check=True)
    assert [json.loads(line)["pair"] for line in log.read_text().splitlines()] == ["random,random"] * 2
    rows = subprocess.run([*ladder, "--table", str(log)], cwd=root, capture_output=True, text=True, check=True)
    assert rows.stdout.splitlines() == [ran.stdout.splitlines()[-1] + " (2 games)"]  # the table's last row
    other = tmp_path / "other.jsonl"  # the same pairing on other setups: one row over all four games
    subprocess.run([*played[:-1], str(other), "--seed", "7"], cwd=root, capture_output=True, check=True)
    pooled = subprocess.run([*ladder, "--table", str(log), str(other)], cwd=root, capture_output=True, text=True)
    assert pooled.stdout.splitlines()[0].endswith("(4 games)") and len(pooled.stdout.splitlines()) == 1
