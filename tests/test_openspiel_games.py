"""Our games inside OpenSpiel (games.openspiel): registered, consistent by OpenSpiel's own random-simulation test,
observed as our encoder sees them, and played by OpenSpiel's bots and evaluators."""

import random

import numpy as np
import pytest

import games

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")
spiel = pytest.importorskip("games.openspiel")

pytestmark = pytest.mark.openspiel


def test_every_game_is_registered_with_its_facts():
    for name in games.names():
        game, ours = pyspiel.load_game(spiel.spiel_name(name)), games.load(name)
        kind = game.get_type()
        assert kind.short_name == f"sparring_{name}"
        assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
        assert (game.num_players(), game.num_distinct_actions()) == (ours.players, ours.num_actions)
        assert (game.min_utility(), game.max_utility(), game.max_game_length()) == (-1, 1, ours.max_game_length)
        if ours.players == 2:
            assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
            assert game.observation_tensor_shape() == [3, *ours.board_shape]
        else:
            assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM and not kind.provides_observation_tensor


@pytest.mark.parametrize("name", ["connect4", "othello6", "breakthrough", "chinesecheckers3"])
def test_openspiel_random_simulation_test_passes(name):
    """OpenSpiel's own consistency check of a game (clones, histories, returns, observations, serialization), with
    the game's symmetries computed first (a pickled state had carried them, and their lambdas do not pickle)."""
    ours = games.load(name)
    if ours.players == 2:  # a game of more players has no planes, and no symmetries to compute
        ours.new_initial_state().symmetries(np.zeros(ours.num_actions))
    pyspiel.random_sim_test(pyspiel.load_game(spiel.spiel_name(name)), num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("name", ["connect4", "othello6"])
def test_a_pyspiel_state_follows_ours_move_for_move(name):
    game, ours = pyspiel.load_game(spiel.spiel_name(name)), games.load(name)
    rnd = random.Random(name)
    for _ in range(5):
        theirs, state = game.new_initial_state(), ours.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            assert theirs.current_player() == player and theirs.legal_actions() == state.legal_actions()
            assert [theirs.action_to_string(player, a) for a in theirs.legal_actions()] == [
                state.action_to_string(a) for a in state.legal_actions()
            ]
            copy = theirs.clone()
            action = rnd.choice(state.legal_actions())
            theirs.apply_action(action)
            state.apply_action(action)
            assert copy.history() == theirs.history()[:-1] and copy.ours.history() == state.history()[:-1]
            assert copy.ours.game is ours  # a clone shares the rules, copies the position
        assert theirs.is_terminal() and theirs.current_player() == pyspiel.PlayerId.TERMINAL
        assert theirs.returns() == state.returns() and sum(theirs.returns()) == 0


def test_observation_tensor_is_our_encoding_from_each_players_view():
    """Connect4 after a drop in column 3: player 1 is to move; the disc lies on the bottom row, column 3."""
    game = pyspiel.load_game("sparring_connect4")
    state = game.new_initial_state()
    state.apply_action(3)
    first = np.array(state.observation_tensor(0)).reshape(3, 6, 7)
    second = np.array(state.observation_tensor(1)).reshape(3, 6, 7)
    disc = np.zeros((6, 7))
    disc[5, 3] = 1
    assert (first[0] == disc).all() and (first[1] == 0).all() and (first[2] == 1).all()
    assert (second[0] == 0).all() and (second[1] == disc).all() and (second[2] == 1).all()
    assert (second == state.ours.encode()).all()  # the player to move sees what our networks see
    assert state.information_state_string(0) == "3"


@pytest.mark.slow
def test_openspiel_mcts_beats_random_on_our_connect4():
    """OpenSpiel's C++ MCTS searching our Connect4: returns read from the wrong seat would make it lose (judged by
    our rules' winner, not by the returns it searched with); and its C++ evaluate_bots plays the same games."""
    game = pyspiel.load_game("sparring_connect4")
    wins = 0
    for seed in range(6):
        mcts = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, 100, 10, False, seed, False)
        state, rnd, seat = game.new_initial_state(), random.Random(seed), seed % 2
        while not state.is_terminal():
            mine = state.current_player() == seat
            state.apply_action(mcts.step_with_policy(state)[1] if mine else rnd.choice(state.legal_actions()))
        wins += state.ours.outcome().winner == seat
    assert wins >= 5
    bots = [mcts, pyspiel.make_uniform_random_bot(1, 0)]
    assert sorted(pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.slow
def test_openspiel_python_mcts_and_evaluate_bots_play_othello6():
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = pyspiel.load_game("sparring_othello6")
    rng = np.random.RandomState(3)
    bots = [mcts.MCTSBot(game, 2.0, 10, mcts.RandomRolloutEvaluator(1, rng), random_state=rng) for _ in range(2)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
