"""kbdsl.envs: the frameworks' own API tests, determinism across processes, and that no
observation holds anything its player may not see (a few episodes each: CI has two cores)."""

import hashlib
import inspect
import random
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")
pyspiel = pytest.importorskip("pyspiel")

from kbdsl import resources  # noqa: E402
from kbdsl.determinize import determinize  # noqa: E402
from kbdsl.envs import Encoding, Episode  # noqa: E402
from kbdsl.envs import gymnasium as kb_gym  # noqa: E402
from kbdsl.envs import openspiel as kb_spiel  # noqa: E402
from kbdsl.envs import pettingzoo as kb_pz  # noqa: E402
from kbdsl.game import Game  # noqa: E402
from kbdsl.ruleset import load  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ALL_RULES = list(resources.shipped())  # every shipped rule set


@pytest.mark.parametrize("rules,players", [("base", 2), ("nomads", 5), ("crossroads", 3), ("combined", 4)])
def test_pettingzoo_api_and_seed_tests(rules, players):
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Observation is not a NumPy array": the dict every masked env has
        api_test(kb_pz.env(rules, players), num_cycles=60)
        seed_test(lambda: kb_pz.env(rules, players), num_cycles=30)


def test_pettingzoo_rewards_at_the_end_and_renders():
    env = kb_pz.env("base", 2, reward="win", render_mode="ansi")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    seen = []
    for _agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        seen.append(reward)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.episode.state
    assert state.over and set(seen[-2:]) <= {1.0, -1.0} and all(r == 0 for r in seen[:-2])
    assert sorted(seen[-2:]) == sorted(1.0 if p in state.winners() else -1.0 for p in range(2))
    assert "0" in env.render()
    picture = kb_pz.raw_env("base", 2, render_mode="rgb_array")
    picture.reset(seed=1)
    image = picture.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8 and image.std() > 0


@pytest.mark.parametrize("rules,opponents", [("base", ["random"]), ("crossroads", ["greedy"])])
def test_gymnasium_check_env(rules, opponents):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(kb_gym.KingdomBuilderEnv(rules, 1 + len(opponents), opponents=opponents))


def test_gymnasium_check_env_and_vector():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(kb_gym.ENV_ID, rules="nomads", players=3, opponents=["greedy", "random"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    obs, info = env.reset(seed=2)
    assert np.array_equal(obs["action_mask"], info["action_mask"]) and env.unwrapped.episode.current == 0
    vec = gymnasium.make_vec(kb_gym.ENV_ID, num_envs=2, vectorization_mode="sync", opponents=["random"])
    obs, _ = vec.reset(seed=1)
    rng, ended, rewards = np.random.default_rng(0), 0, []
    while ended < 2:
        acts = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in obs["action_mask"]]
        obs, reward, term, _, _ = vec.step(np.array(acts))
        ended += int(term.sum())
        rewards += list(reward[term])
    assert len(rewards) >= 2 and all(r == int(r) for r in rewards)


def test_gymnasium_illegal_action_changes_nothing():
    env = kb_gym.KingdomBuilderEnv("base", 2, opponents=["greedy"])
    obs, _ = env.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    after, reward, term, _, info = env.step(illegal)
    assert info["illegal_action"] and reward == -1.0 and not term
    assert np.array_equal(after["observation"], obs["observation"])
    with pytest.raises(ValueError, match="unknown bot"):
        kb_gym.KingdomBuilderEnv("base", 2, opponents=["nobody"])


@pytest.mark.parametrize("rules,players", [("base", 2), ("nomads", 3), ("crossroads", 2)])
def test_openspiel_random_sim_test(rules, players):
    game = pyspiel.load_game(kb_spiel.SHORT_NAME, {"rules": rules, "players": players})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_openspiel_chance_nodes_and_resampling():
    game = pyspiel.load_game(kb_spiel.SHORT_NAME, {"rules": "base", "players": 2, "setups": 10})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 10
    state.apply_action(3)
    assert state.is_chance_node()  # the top card of the deck
    outcomes = state.chance_outcomes()
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
    state.apply_action(outcomes[0][0])
    top = state._pos.state.deck[-1]
    assert top == game.deck[outcomes[0][0]] and not state.is_chance_node()
    rng = random.Random(0)
    while state.current_player() != 1 or state.is_chance_node():
        outs = state.chance_outcomes() if state.is_chance_node() else [(a, 1) for a in state.legal_actions()]
        state.apply_action(rng.choice(outs)[0])
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(3):
        other = state.resample_from_infostate(1, sampler)
        assert other.information_state_string(1) == state.information_state_string(1)
        assert np.array_equal(other.information_state_tensor(1), state.information_state_tensor(1))
        assert other.legal_actions() == state.legal_actions()


def test_openspiel_ismcts_plays_a_whole_game_and_mccfr_iterates():
    from open_spiel.python.algorithms import ismcts, mcts, outcome_sampling_mccfr

    game = pyspiel.load_game(kb_spiel.SHORT_NAME, {"rules": "base", "players": 2})
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)), 2.0, 3)
    state, rng, moves = game.new_initial_state(), np.random.RandomState(2), 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
            moves += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert moves > 20 and sorted(state.returns()) in ([-1.0, 1.0], [1.0, 1.0])
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(2):
        solver.iteration()  # one sampled trajectory of the whole game per player and iteration
    first = game.new_initial_state()
    while first.is_chance_node():
        first.apply_action(first.chance_outcomes()[0][0])
    probs = solver.average_policy().action_probabilities(first)
    assert set(probs) <= set(first.legal_actions()) and abs(sum(probs.values()) - 1) < 1e-9


def test_openspiel_ismcts_as_a_kbdsl_bot_sees_only_its_view():
    from kbdsl.bots import make_bot

    from kbdsl.envs.openspiel_bots import OpenSpielIsmcts

    assert type(make_bot("kbdsl.envs.openspiel_bots:OpenSpielIsmcts", "1")).__name__ == "PluginBot"
    bot = OpenSpielIsmcts("1")
    bot.simulations = 4
    state = Game.new(load("base"), players=2, seed=5).new_state()
    code = bot.choose(state)
    assert code in state.legal_actions()


def test_openspiel_ismcts_repeats_its_search_from_the_same_seeds():
    """OpenSpiel's Python ISMCTS resamples with a sampler seeded by the clock unless given a
    resampler: with kbdsl's seeded one, the same search visits the same children the same number
    of times (60 simulations differed without it), and the bot plays the same moves."""
    from open_spiel.python.algorithms import ismcts

    from kbdsl.envs.openspiel_bots import OpenSpielIsmcts, PlayoutEvaluator

    game = pyspiel.load_game(kb_spiel.SHORT_NAME, {"rules": "base", "players": 2})
    start = Game.new(load("base"), players=2, seed=5).new_state()

    def visits() -> list[tuple[int, float]]:
        bot = ismcts.ISMCTSBot(game, PlayoutEvaluator(1), 2.0, 60, random_state=np.random.RandomState(2))
        bot.set_resampler(kb_spiel.seeded_resampler(3))
        bot.run_search(kb_spiel.KbdslState.at(game, start.clone()))
        return [(a, c.visits) for a, c in bot._root_node.child_info.items()]

    assert visits() == visits()

    def moves() -> list[int]:
        bot = OpenSpielIsmcts("1")
        bot.simulations = 60
        state, out = start.clone(), []
        for _ in range(3):
            out.append(bot.choose(state))
            state.apply_action(out[-1])
        return out

    assert moves() == moves()


def test_openspiel_mcts_as_a_kbdsl_bot_plays_a_whole_game_from_its_view_alone():
    """OpenSpiel's MCTS, a perfect-information search, applies to a determinisation of the
    player's view: it plays whole games, and positions the player cannot tell apart (the hidden
    cards dealt anew) get the same move."""
    from kbdsl.bots import make_bot
    from kbdsl.envs.openspiel_bots import OpenSpielMcts

    def mcts(seed: str) -> OpenSpielMcts:
        bot = OpenSpielMcts(seed)
        bot.simulations = 2  # (on a plug-in made by make_bot, a wrapper, it would not reach the search)
        return bot

    game = Game.new(load("base"), players=2, seed=3)
    state, bots, moves = game.new_state(), [mcts("1"), make_bot("random", "2")], 0
    while not state.over:
        code = bots[state.current].choose(state)
        assert code in state.legal_actions()
        state.apply_action(code)
        moves += 1
    assert moves > 50 and state.winners()
    start = game.new_state()
    twin = determinize(game, start.view(0), random.Random(4))
    assert twin.view(0) == start.view(0) and twin.deck != start.deck
    assert mcts("5").choose(start) == mcts("5").choose(twin)


def test_openspiel_cpp_ismcts_is_blocked_upstream_for_python_games():
    """The C++ ISMCTSBot resamples its root with State::ResampleFromInfostate, which OpenSpiel's
    trampoline for Python states (PyState) does not forward: its search of any Python game stops
    at once (docs/envs.md; `get_policy`, unlike `step` in 2.0.2, keeps the GIL, so it raises
    rather than crashes). When this fails, the C++ bot has become usable here."""
    game = pyspiel.load_game(kb_spiel.SHORT_NAME, {"rules": "base", "players": 2})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    bot = pyspiel.ISMCTSBot(1, pyspiel.RandomRolloutEvaluator(1, 2), 2.0, 4)
    with pytest.raises(pyspiel.SpielError, match=r"ResampleFromInfostate\(\) not implemented"):
        bot.get_policy(state)


TINY = {  # a custom rule set small enough for full-tree CFR: 2 settlements each on 6 hexes
    "game.yaml": "name: tiny\nfiles: ['*.kb']\nplayers: {min: 2, max: 2}\nsettlements: 2\ncards_in_play: 1\n"
    "deck: {grass: 4}\nboards:\n  - {name: main, grid: [1, 1]}\n",
    "tiny.kb": 'terrain grass "Grass" { letter: G  buildable }\n'
    "turn { mandatory: build 1 on terrain(card) }\n"
    'card hermits "Hermits" { score: 1 per area }\n'
    'section patch "Patch" { grid:\n  | G G G\n  |  G G G\n}\n',
}


def test_openspiel_cfr_solves_a_tiny_custom_rule_set(tmp_path):
    """Full-tree CFR applies where the tree is small: on a six-hex rule set (one set-up, margin
    rewards, so zero-sum), a few iterations cut the NashConv of the uniform policy."""
    from open_spiel.python import policy
    from open_spiel.python.algorithms import cfr, exploitability

    for name, text in TINY.items():
        (tmp_path / name).write_text(text)
    params = {"rules": str(tmp_path), "players": 2, "setups": 1, "reward": "margin"}
    game = pyspiel.load_game(kb_spiel.SHORT_NAME, params)
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(game, solver.average_policy()) < 0.5 * uniform


def _episode_digest(rules: str, players: int, seed: int, steps: int) -> str:
    ep = Episode(rules, players)
    ep.reset(seed)
    rng, h = random.Random(seed), hashlib.sha256()
    for _ in range(steps):
        if ep.over:
            break
        for p in range(players):
            h.update(ep.observe(p).tobytes())
        h.update(ep.mask().tobytes())
        ep.step(rng.choice(ep.legal()))
    return h.hexdigest()


def test_same_seed_and_actions_give_byte_identical_observations_across_processes():
    # the digest's own source, run in a fresh interpreter that imports only kbdsl (not the frameworks)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\nimport hashlib, random\nfrom kbdsl.envs import Episode\n"
        + inspect.getsource(_episode_digest)
        + "print(_episode_digest('nomads', 3, 11, 150))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True, timeout=300, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == _episode_digest("nomads", 3, 11, 150)
    assert _episode_digest("nomads", 3, 12, 150) != _episode_digest("nomads", 3, 11, 150)


@pytest.mark.parametrize("rules", ALL_RULES)
def test_observations_hold_only_what_the_player_sees(rules):
    """At random points of random games, every player's observation of the real state equals its
    observation of determinisations of its own view (the other hands, the deck order and the seed
    dealt anew), and the incremental observation equals the one encoded from scratch."""
    r = load(rules)
    rng = random.Random(rules)
    for _ in range(2):
        players = rng.randint(*r.players)
        ep = Episode(r, players)
        ep.reset(rng.getrandbits(32))
        enc = Encoding(r, players)
        k = 0
        while not ep.over:
            ep.step(rng.choice(ep.legal()))
            k += 1
            if k % 11:
                continue
            c = ep.choice
            extra = (c.stage, c.kind, c.source) if c is not None else ()
            for p in range(players):
                mine = ep.observe(p)
                assert np.array_equal(mine, enc.encode(ep.state, p, *extra))
                view = ep.state.view(p)
                for _ in range(2):
                    other = determinize(ep.game, view, rng)
                    assert other.view(p) == view
                    assert np.array_equal(enc.encode(other, p, *extra), mine), (rules, p, k)


def test_observation_shape_depends_only_on_rules_and_players():
    r = load("combined")
    sizes = {Episode(r, 3).enc.size}
    ep = Episode(r, 3)
    for seed in range(6):
        ep.reset(seed)
        sizes.add(ep.observe(0).size)
        assert ep.mask().size == ep.num_actions
    assert len(sizes) == 1 and Encoding(r, 4).size != Encoding(r, 3).size


def test_hand_is_seen_by_its_holder_only():
    ep = Episode("base", 2)
    ep.reset(1)
    enc, s = ep.enc, ep.state
    for p in range(2):
        hand = enc.field(ep.observe(p), "hand")
        assert hand.sum() == 1 and enc.deck[int(hand.argmax())] == s.hand[p]


@pytest.mark.parametrize("rules", ALL_RULES)
def test_first_stage_mask_from_bitsets_matches_the_legal_moves(rules):
    """The first stage's mask, read off the engine's bitsets, is the set of (kind, hex) actions of
    the listed legal moves, each standing for exactly the moves with that action, and taking it
    plays its move (or narrows the choice to its moves)."""
    from kbdsl.envs.actions import CHOOSE

    r = load(rules)
    rng = random.Random(rules)
    players = rng.randint(*r.players)
    ep = Episode(r, players)
    ep.reset(rng.getrandbits(32))
    checked = 0
    while not ep.over:
        if ep.choice.stage == CHOOSE and ep.choice.runs is not None:
            space, runs, legal = ep.space, ep.choice.runs, ep.state.legal_actions()
            by_action: dict[int, list[int]] = {}
            for code in legal:
                by_action.setdefault(space.key(code, CHOOSE), []).append(code)
            assert ep.legal() == sorted(by_action) == list(np.flatnonzero(ep.mask()))
            assert all(space.codes_at(runs, a) == codes for a, codes in by_action.items())
            # take's shortcut for kinds other than moves (their one code, not looked up) agrees
            assert all(ep.choice.copy().take(a) == (c[0] if len(c) == 1 else None) for a, c in by_action.items())
            checked += 1
        ep.step(rng.choice(ep.legal()))
    assert checked > 50


@pytest.mark.parametrize("rules", ALL_RULES)
def test_take_of_a_lone_first_action_uses_the_move_first_read(rules):
    """A first stage with one action keeps the move Choice.first read for it, and take returns the
    move codes_at finds anew (the slow path) and the legal moves list."""
    from kbdsl.envs.actions import CHOOSE

    r = load(rules)
    rng = random.Random(rules)
    ep = Episode(r, rng.randint(*r.players))
    ep.reset(rng.getrandbits(32))
    lone = 0
    while not ep.over:
        c, a = ep.choice, rng.choice(ep.legal())
        if c.stage == CHOOSE and c.runs is not None:
            slow = ep.space.codes_at(c.runs, a)
            if len(ep.legal()) == 1 and len(slow) == 1:
                assert c._codes == slow == ep.state.legal_actions()
                assert c.copy().take(a) == slow[0]
                lone += 1
        ep.step(a)
    assert lone > 0
