"""The `az` agent: spec keys and errors, lock-step matches equal to sequential ones, checkpoints on the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import games
import nets
from tuner.agents import check_spec, group_key, make_agent, make_agents, parse_spec
from tuner.cli import main
from tuner.match import play_match, play_matches

C4 = games.load("connect4")


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("nets") / "tiny.pt"
    nets.save(path, nets.build("connect4", filters=8, blocks=1), {"test": True})
    return str(path)


def test_az_spec_keys_and_one_line_errors(tmp_path):
    options = parse_spec("az:net=uniform").options
    assert (options["simulations"], options["c_puct"], options["leaves"]) == (200, 1.25, 1)  # Table A1
    with pytest.raises(ValueError, match="az needs net=PATH"):
        check_spec("breakthrough", "az")  # no shipped net for breakthrough
    with pytest.raises(ValueError, match="no network at"):
        check_spec(C4, f"az:net={tmp_path / 'missing.pt'}")
    with pytest.raises(ValueError, match="expected one of auto, cpu, cuda"):
        check_spec(C4, "az:net=uniform,device=tpu")
    (tmp_path / "o6.pt").write_bytes(b"")
    torch.manual_seed(0)
    nets.save(tmp_path / "o6.pt", nets.build("othello6", filters=8, blocks=1))
    with pytest.raises(ValueError, match="is for othello6, not connect4"):
        make_agent(C4, f"az:net={tmp_path / 'o6.pt'}")


def test_az_takes_a_win_in_one_and_blocks_a_loss_in_one():
    agent = make_agent(C4, "az:net=uniform,simulations=300", seed=0)
    state = C4.new_initial_state()
    for a in (0, 1, 0, 1, 0, 1):
        state.apply_action(a)
    assert agent.select_action(state) == 0  # four in column 0
    state = C4.new_initial_state()
    for a in (0, 1, 0, 1, 0):
        state.apply_action(a)
    assert make_agent(C4, "az:net=uniform,simulations=400", seed=0).select_action(state) == 0


@pytest.mark.parametrize("opponent", ["mcts:simulations=30", "same", "playout"])
@pytest.mark.slow
def test_a_lockstep_match_plays_the_games_of_a_sequential_one(tiny_net, opponent):
    spec = f"az:net={tiny_net},simulations=40,t_opening=2,tau=3"
    if opponent == "playout":
        spec, opponent = "az:net=playout,simulations=40", "mcts:simulations=30"
    other = spec.replace("simulations=40", "simulations=30") if opponent == "same" else opponent
    alone = play_match("connect4", spec, other, games=8, seed=5, concurrent=1)
    together = play_match("connect4", spec, other, games=8, seed=5, concurrent=8)
    split = play_match("connect4", spec, other, games=8, seed=5, concurrent=3, workers=2)
    moves = [g.moves for g in alone.games]
    assert moves == [g.moves for g in together.games] == [g.moves for g in split.games]
    assert len(set(map(tuple, moves[::2]))) >= 3  # games of one seat differ: each is seeded by its index


@pytest.mark.slow
def test_matches_played_together_play_the_games_each_plays_alone():
    """Three matches in one lock-step pool, their az sides (different budgets and AlphaDDA settings) in shared
    searches, one per rule (AlphaDDA3's forest searches by eqs. 6-7): every game is the game that match plays
    alone, sequentially. (The playout evaluator is exact whatever the batch; a net's values move by float
    rounding, ~1e-8, between batch sizes.)"""
    net = "az:net=playout"
    matches = [
        (f"{net},dda=alphadda1,nh=1,n_max=40", "mcts:simulations=30", 11, 4),
        (f"{net},simulations=20,t_opening=2,tau=3", "random", 12, 6),
        (f"{net},dda=alphadda3,nh=2,c=0.5,simulations=30", f"{net},simulations=25", 13, 4),
    ]
    keys = [group_key(a) for a, *_ in matches]
    assert keys[0] == keys[1] == group_key(matches[2][1]) != keys[2]  # the pool really shares its searches
    together = play_matches("connect4", matches, concurrent=8)
    for (a, b, seed, n), result in zip(matches, together):
        alone = play_match("connect4", a, b, games=n, seed=seed, concurrent=1)
        assert [g.moves for g in result.games] == [g.moves for g in alone.games], a
        assert (result.spec_a, result.seed, result.total.games) == (a, seed, n)
        assert len({tuple(g.moves) for g in result.games}) > 1  # each game seeded by its own index


def test_specs_that_cannot_share_a_search_are_refused_in_one_group():
    with pytest.raises(ValueError, match="cannot share one search"):
        make_agents(C4, ["az:net=uniform", "az:net=playout"], seeds=[0, 1])
    with pytest.raises(ValueError, match="2 specs for 3 seeds"):
        make_agents(C4, ["az:net=uniform", "az:net=uniform"], seeds=[0, 1, 2])
    group = make_agents(C4, ["mcts:simulations=5", "random"], seeds=[0, 1])  # one at a time: any mix
    assert [a.spec for a in group] == ["mcts:simulations=5", "random"]


def test_az_hears_the_strength_adjusters_hooks():
    agent = make_agent(C4, "az:net=playout,simulations=50,dsa=intra,dz=0.5", seed=1)
    state = C4.new_initial_state()
    zs = []
    for reply in (3, 3, 2, 4, 2, 4):
        state.apply_action(agent.select_action(state))
        zs.append(agent.adjuster.z)
        if state.is_terminal():
            break
        state.apply_action(reply if reply in state.legal_actions() else state.legal_actions()[0])
    assert len(set(zs)) > 1  # before_search moved z
    assert agent.last_search.simulations == agent.simulations <= 50  # and the budget it scales is the one searched


@pytest.mark.slow
def test_net_init_and_info_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "c4.pt"
    assert main(["net", "init", "connect4", "--out", str(path), "--seed", "3"]) == 0
    assert main(["net", "info", str(path), "--json"]) == 0
    meta = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert meta["game"] == "connect4" and meta["size"] == "small" and meta["provenance"]["seed"] == 3
    model = nets.load(path, game="connect4")
    torch.manual_seed(3)
    fresh = nets.build("connect4")
    x = torch.from_numpy(np.stack([C4.new_initial_state().encode()]))
    assert torch.equal(model(x)[0], fresh(x)[0])  # the seed made the weights
    assert main(["net", "info", "connect4-v1", "--json"]) == 0  # a shipped net by its name
    shipped = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (
        shipped == nets.load(Path(nets.__file__).parent / "shipped" / "connect4-v1.pt").meta
    )  # that file, not connect4
    (tmp_path / "junk.pt").write_text("not a net")
    proc = subprocess.run(
        [sys.executable, "-m", "tuner.cli", "net", "info", str(tmp_path / "junk.pt")], capture_output=True, text=True
    )
    assert (
        proc.returncode == 2
        and len(proc.stderr.strip().splitlines()) == 1
        and "not a sparring checkpoint" in proc.stderr
    )


def test_opening_moves_follow_eq_9_and_the_rest_softmax_z():
    from games.rng import make_rng
    from search.move_choice import choose_by_temperature

    actions, visits, rng = np.array([4, 5, 6]), np.array([100.0, 90.0, 10.0]), make_rng(0)
    draws = np.array([choose_by_temperature(actions, visits, 20.0, rng) for _ in range(20000)])
    expected = np.exp(visits / 20.0) / np.exp(visits / 20.0).sum()  # exp(N / tau), not N^(1 / tau)
    assert np.allclose([np.mean(draws == a) for a in actions], expected, atol=0.015)
    opening = make_agent(C4, "az:net=uniform,simulations=30,t_opening=2,tau=5", seed=0)
    firsts = set()
    for seed in range(12):
        opening.new_game(seed)
        firsts.add(opening.select_action(C4.new_initial_state()))
    assert len(firsts) > 1  # tau = 5 over 30 visits: several first moves
    state = C4.new_initial_state()
    for a in (0, 1, 0, 1, 0, 1):
        state.apply_action(a)
    assert opening.select_action(state) == 0  # past the opening: the most visited move (z = inf)


def test_the_opening_ends_at_t_opening_plies_and_the_adjuster_sees_it():
    state = C4.new_initial_state()
    for a in (0, 1, 0, 1, 0, 1):  # six plies played: 0 wins at once
        state.apply_action(a)
    for seed in range(5):
        after = make_agent(C4, "az:net=uniform,simulations=60,t_opening=6,tau=1e6", seed=seed)
        assert after.select_action(state) == 0  # ply 6 is past an opening of 6: the most visited move
    draws = {
        make_agent(C4, "az:net=uniform,simulations=60,t_opening=7,tau=1e6", seed=s).select_action(state)
        for s in range(10)
    }
    assert draws != {0}  # ply 6 inside an opening of 7: exp(N / tau) with a huge tau is nearly uniform
    agent = make_agent(C4, "az:net=playout,simulations=40,t_opening=10,dsa=intra,dz=0.5", seed=1)
    agent.select_action(C4.new_initial_state())
    assert agent.adjuster.moves_made == 1  # the opening move went through the adjuster's hook


def test_a_group_searches_each_game_with_its_own_budget():
    group = make_agents(C4, "az:net=uniform,simulations=40", seeds=[1, 2, 3])
    group[1].simulations = 7  # as an adjuster's knobs would
    group.select_actions([0, 1, 2], [C4.new_initial_state()] * 3)
    assert [agent.last_search.simulations for agent in group] == [40, 7, 40]


def test_a_shipped_net_is_found_by_name_or_as_the_games_default(tmp_path, monkeypatch, tiny_net):
    from nets import shipped

    monkeypatch.setattr(shipped, "shipped_nets", lambda: {"connect4": tiny_net})
    assert shipped.resolve_net(None, C4) == shipped.resolve_net("connect4", C4) == tiny_net
    agent = make_agent(C4, "az:simulations=8", seed=0)
    assert agent.select_action(C4.new_initial_state()) in range(7)
    with pytest.raises(ValueError, match=r"no shipped net of that name \(shipped: connect4\)"):
        check_spec(C4, "az:net=othello9")
    with pytest.raises(ValueError, match="none for othello6"):
        check_spec("othello6", "az")
    monkeypatch.setattr(shipped, "shipped_nets", lambda: {})
    with pytest.raises(ValueError, match=r"shipped: none"):
        check_spec(C4, "az")


@pytest.mark.parametrize("name", ["connect4", "othello6"])
def test_the_shipped_nets_load_and_play_a_legal_game(name):
    from nets.shipped import shipped_nets

    assert name in shipped_nets()
    model = nets.load(shipped_nets()[name], game=name)
    assert model.meta["provenance"]["trained"] and model.meta["provenance"]["iteration"] > 0
    assert shipped_nets()[name].stat().st_size <= 10 * 2**20
    result = play_match(name, "az:simulations=16", "random", games=2, seed=0)  # the game's own net by default
    for game in result.games:
        state = games.load(name).new_initial_state()
        for action in game.moves:
            assert action in state.legal_actions()
            state.apply_action(action)
        assert state.is_terminal()
