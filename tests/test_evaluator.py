"""The batched evaluators: the protocol's conventions, the network evaluator's numbers, the net-free baselines.

DESIGN §8: one forward answers the leaves of many games; each row has its own AlphaDDA2 dropout
probability [AlphaDDA Fig. 2]. Tiny nets (8 filters, one block) and the CPU: no GPU here or in CI,
so the CUDA path is exercised only where it shares code with the CPU one (the same `_forward`).
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import games
import nets
from games.kernels import random_playouts
from games.rng import make_rng
from nets.evaluator import NetEvaluator
from search.evaluator import Batch, Evaluator, UniformEvaluator

GAMES = ["connect4", "othello6"]
ROOT = Path(__file__).resolve().parent.parent


def tiny(game, seed=0):
    torch.manual_seed(seed)
    return nets.build(game, filters=8, blocks=1)


def positions(game, count, seed):
    """`count` non-terminal states of `game` after 0-20 seeded random moves each."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 21))):
            state.apply_action(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if not state.is_terminal():
            out.append(state)
    return out


def filled(evaluator, game, n, capacity, seed=1):
    """A batch from `evaluator` whose first n rows hold random positions, and those states."""
    batch = evaluator.new_batch(game, capacity)
    states = positions(game, n, seed)
    for row, state in enumerate(states):
        batch.put(row, state)
    return batch, states


def reference(net, planes, dropout=None):
    """The model's own (logits, value) as numpy for planes [n, 3, H, W]."""
    with torch.inference_mode():
        logits, value = net(torch.from_numpy(planes), dropout)
    return logits.numpy(), value.numpy()


# --- the network evaluator ---------------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_priors_are_the_legal_softmax_and_values_the_nets(name):
    game, net = games.load(name), tiny(name)
    ev = NetEvaluator(net, game=name, device="cpu")
    assert isinstance(ev, Evaluator) and ev.game == name
    batch, states = filled(ev, game, 32, capacity=40)
    batch.planes[32:] = np.nan  # rows beyond n must not be read...
    batch.priors[32:], batch.values[32:] = 7.0, 7.0  # ...nor written
    ev.evaluate(batch, 32)

    logits, value = reference(net, batch.planes[:32])
    for row, state in enumerate(states):
        legal = np.zeros(game.num_distinct_actions(), dtype=bool)
        legal[state.legal_actions()] = True
        assert np.array_equal(batch.legal[row], legal)
        assert np.all(batch.priors[row][~legal] == 0.0)
        assert batch.priors[row].sum() == pytest.approx(1.0, abs=1e-5)
        z = np.exp(logits[row][legal] - logits[row][legal].max())
        np.testing.assert_allclose(batch.priors[row][legal], z / z.sum(), rtol=1e-5, atol=1e-7)
    assert np.all(np.abs(batch.values[:32]) <= 1.0)
    np.testing.assert_array_equal(batch.values[:32], value)
    assert np.all(batch.priors[32:] == 7.0) and np.all(batch.values[32:] == 7.0)


def test_a_row_with_no_legal_action_gets_zero_priors_not_nan():
    game, net = games.load("connect4"), tiny("connect4")
    ev = NetEvaluator(net, device="cpu")
    batch, _ = filled(ev, game, 3, capacity=3)
    batch.legal[1] = False
    ev.evaluate(batch, 3)
    assert np.all(batch.priors[1] == 0.0) and np.isfinite(batch.values).all()
    assert batch.values[1] == reference(net, batch.planes[:3])[1][1]
    assert batch.priors[[0, 2]].sum(axis=1) == pytest.approx([1.0, 1.0], abs=1e-5)


def test_zero_dropout_rows_are_bitwise_clean_and_clean_batches_take_the_plain_path():
    game, net = games.load("othello6"), tiny("othello6")
    seen = []
    forward = net.forward
    net.forward = lambda x, dropout=None, keys=None: (seen.append(dropout), forward(x, dropout, keys))[1]
    ev = NetEvaluator(net, device="cpu")
    batch, _ = filled(ev, game, 16, capacity=16)
    ev.evaluate(batch, 16)
    assert seen[-1] is None
    clean = batch.priors.copy(), batch.values.copy()
    batch.dropout[1::2] = 0.5
    ev.evaluate(batch, 16)
    assert seen[-1] is not None and seen[-1].shape == (16,)
    assert np.array_equal(batch.priors[::2], clean[0][::2]) and np.array_equal(batch.values[::2], clean[1][::2])
    assert not np.any(batch.values[1::2] == clean[1][1::2])  # every damaged row moved
    assert np.allclose(batch.priors[1::2].sum(axis=1), 1.0, atol=1e-5)


def test_a_rows_damage_follows_its_key_whatever_shares_the_batch():
    """AlphaDDA2's games must replay alone or pooled: a damaged row depends on its state, p and key only."""
    game, net = games.load("connect4"), tiny("connect4")
    ev = NetEvaluator(net, device="cpu")
    batch, _ = filled(ev, game, 8, capacity=8)
    batch.dropout[:] = 0.5
    batch.keys[:] = np.arange(8, dtype=np.uint64) * np.uint64(2**61 + 5)  # keys with the top bit set too
    ev.evaluate(batch, 8)
    pooled = batch.values.copy()
    alone = ev.new_batch(game, 1)
    for row in (0, 5, 7):
        alone.planes[0], alone.legal[0], alone.dropout[0] = batch.planes[row], batch.legal[row], 0.5
        alone.keys[0] = batch.keys[row]
        ev.evaluate(alone, 1)
        assert alone.values[0] == pytest.approx(pooled[row], abs=1e-6)
        alone.keys[0] += np.uint64(1)
        ev.evaluate(alone, 1)
        assert alone.values[0] != pytest.approx(pooled[row], abs=1e-6)  # another key, other units dropped


@pytest.mark.parametrize("name", GAMES)
def test_a_row_gets_the_same_answer_alone_or_in_a_batch_of_64(name):
    """Batch norm runs on its running statistics, so rows are independent up to float rounding."""
    game, net = games.load(name), tiny(name)
    ev = NetEvaluator(net, device="cpu")
    big, states = filled(ev, game, 64, capacity=64)
    ev.evaluate(big, 64)
    one = ev.new_batch(game, 1)
    for row in (0, 17, 63):
        one.put(0, states[row])
        ev.evaluate(one, 1)
        np.testing.assert_allclose(one.priors[0], big.priors[row], rtol=0, atol=1e-5)
        np.testing.assert_allclose(one.values[0], big.values[row], rtol=0, atol=1e-5)


def test_a_chunk_whose_rows_could_move_their_bits_is_refused():
    net = tiny("connect4")
    for chunk in (0, 2, 30):
        with pytest.raises(ValueError, match="chunk must be 1 or a multiple of 4 rows"):
            NetEvaluator(net, device="cpu", chunk=chunk)
    assert [NetEvaluator(net, device="cpu", chunk=c).chunk for c in (None, 1, 4, 12)] == [None, 1, 4, 12]
    from nets.evaluator import check_chunk
    from tuner.cli.train import share_chunk

    chunks = {share_chunk(games, threads) for games in range(1, 130) for threads in range(1, 5)}
    assert chunks == {1, 4, 8, 16, 32, 64} and all(check_chunk(c) is None for c in chunks)


@pytest.mark.parametrize("name", GAMES)
def test_in_fixed_chunks_a_row_gets_the_same_bits_whatever_shares_its_batch(name):
    """chunk 16: every forward the net sees has 16 rows (40 rows: 16, 16 and 8 padded), and a row's priors and
    value are bitwise the same alone, at another place of the batch, or beside other positions: what lets a
    cluster's shares of self-play play one machine's games (a plain forward's bits vary with the batch size)."""
    game, net = games.load(name), tiny(name)
    ev = NetEvaluator(net, device="cpu", chunk=16)
    sizes = []
    net.register_forward_pre_hook(lambda module, args: sizes.append(args[0].shape[0]))
    big, states = filled(ev, game, 40, capacity=40)
    ev.evaluate(big, 40)
    assert sizes == [16, 16, 16]
    one = ev.new_batch(game, 1)
    others = positions(game, 40, seed=9)
    mixed = ev.new_batch(game, 23)
    for row in (0, 17, 39):
        one.put(0, states[row])
        ev.evaluate(one, 1)
        for r, state in enumerate(others[:22]):
            mixed.put(r, state)
        mixed.put(22, states[row])  # the last row of the second chunk, beside other positions
        ev.evaluate(mixed, 23)
        for batch, place in ((one, 0), (mixed, 22)):
            np.testing.assert_array_equal(batch.priors[place], big.priors[row])
            np.testing.assert_array_equal(batch.values[place], big.values[row])
    np.testing.assert_allclose(big.priors.sum(axis=1), 1.0, rtol=1e-5)


def test_any_batch_of_the_game_works_and_bfloat16_autocast_stays_close():
    game, net = games.load("connect4"), tiny("connect4")
    ev = NetEvaluator(net, device="cpu")
    ours, states = filled(ev, game, 10, capacity=10)
    plain = Batch.zeros(game, 10)
    for row, state in enumerate(states):
        plain.put(row, state)
    ev.evaluate(ours, 10)
    ev.evaluate(plain, 10)
    assert np.array_equal(ours.priors, plain.priors) and np.array_equal(ours.values, plain.values)

    low = NetEvaluator(net, device="cpu", dtype="bfloat16")
    low.evaluate(plain, 10)
    assert plain.priors.dtype == np.float32 and plain.values.dtype == np.float32
    assert np.allclose(plain.priors.sum(axis=1), 1.0, atol=1e-5) and np.all(plain.priors[~plain.legal] == 0)
    np.testing.assert_allclose(plain.priors, ours.priors, atol=0.02)
    np.testing.assert_allclose(plain.values, ours.values, atol=0.02)


def test_a_net_for_another_game_is_refused():
    c4, othello6 = tiny("connect4"), games.load("othello6")
    with pytest.raises(ValueError, match="connect4 net, not a othello6"):
        NetEvaluator(c4, game="othello6", device="cpu")
    ev = NetEvaluator(c4, device="cpu")
    with pytest.raises(ValueError, match="cannot make a batch for othello6"):
        ev.new_batch(othello6, 4)
    with pytest.raises(ValueError, match="cannot evaluate a othello6 batch"):
        ev.evaluate(Batch.zeros(othello6, 4), 1)


def test_bad_settings_are_one_line_errors():
    net = tiny("connect4")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="sees no CUDA GPU") as e:
            NetEvaluator(net, device="cuda")
        assert "\n" not in str(e.value)
        assert NetEvaluator(net, device="auto").device == torch.device("cpu")
    for kwargs, word in [
        ({"device": "tpu"}, "unknown device"),
        ({"device": "meta"}, "unknown device"),
        ({"dtype": "int8"}, "unknown dtype"),
        ({"threads": 0}, "at least 1"),
        ({"chunk": 0}, "chunk must be 1 or a multiple of 4"),
    ]:
        with pytest.raises(ValueError, match=word) as e:
            NetEvaluator(net, **kwargs)
        assert "\n" not in str(e.value)
    ev = NetEvaluator(net, device="cpu")
    batch = ev.new_batch("connect4", 4)
    with pytest.raises(ValueError, match="capacity 4"):
        ev.evaluate(batch, 5)
    net.train()
    with pytest.raises(RuntimeError, match="train mode"):
        ev.evaluate(batch, 1)
    net.eval()


def test_threads_are_set_only_when_asked():
    before = torch.get_num_threads()
    torch.set_num_threads(2)  # not 1, which the suite runs at (tests/conftest.py): else the check below is void
    try:
        NetEvaluator(tiny("connect4"), device="cpu")
        assert torch.get_num_threads() == 2
        NetEvaluator(tiny("connect4"), device="cpu", threads=1)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


# --- the batch and the net-free evaluators -----------------------------------------------------


@pytest.mark.slow
def test_the_protocol_layer_loads_neither_torch_nor_nets():
    code = "import json, sys, search.evaluator; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    loaded = json.loads(out)
    assert [m for m in loaded if m.split(".")[0] in ("torch", "nets")] == []


def test_batch_shapes_and_refusals():
    game = games.load("othello6")
    batch = Batch.zeros(game, 5)
    shapes = {k: (getattr(batch, k).shape, getattr(batch, k).dtype.name) for k in ("states", "planes", "legal")}
    assert shapes == {
        "states": ((5, game.state_size), "uint64"),
        "planes": ((5, 3, 6, 6), "float32"),
        "legal": ((5, 37), "bool"),
    }
    assert batch.capacity == 5
    with pytest.raises(ValueError, match=r"Batch.legal must be a C-contiguous bool array of shape \[5, 37\]"):
        Batch(
            game,
            batch.states,
            batch.planes,
            batch.legal.astype(np.uint8),
            batch.dropout,
            batch.keys,
            batch.priors,
            batch.values,
        )
    with pytest.raises(ValueError, match="connect4 state cannot go into a batch for othello6"):
        batch.put(0, games.load("connect4").new_initial_state())
    with pytest.raises(ValueError, match="unknown UniformEvaluator value"):
        UniformEvaluator("rollout")


@pytest.mark.parametrize("name", GAMES)
def test_uniform_zero(name):
    game = games.load(name)
    ev = UniformEvaluator("zero")
    assert isinstance(ev, Evaluator) and ev.game is None
    batch, states = filled(ev, game, 12, capacity=14)
    batch.legal[11] = False
    batch.priors[12:], batch.values[12:], batch.values[:12] = 7.0, 7.0, 3.0
    ev.evaluate(batch, 12)
    for row, state in enumerate(states[:11]):
        legal = state.legal_actions()
        assert np.all(batch.priors[row][legal] == np.float32(1.0 / len(legal)))
        assert batch.priors[row].sum() == pytest.approx(1.0, abs=1e-6) and np.count_nonzero(batch.priors[row]) == len(
            legal
        )
    assert np.all(batch.priors[11] == 0.0)
    assert np.all(batch.values[:12] == 0.0)
    assert np.all(batch.priors[12:] == 7.0) and np.all(batch.values[12:] == 7.0)


@pytest.mark.parametrize("moves", [[], [3, 0, 3, 0, 3]], ids=["start", "p1-to-move-facing-a-vertical-three"])
def test_uniform_playout_values_match_random_playouts(moves):
    """The mean playout value over many rows equals the random-play result from the mover's view."""
    game = games.load("connect4")
    state = game.new_initial_state()
    for move in moves:
        state.apply_action(move)
    rows = 20_000
    ev = UniformEvaluator("playout", seed=1)
    batch = ev.new_batch(game, rows)
    batch.states[:] = state.array
    batch.keys[:] = np.arange(rows)  # one key per row, as the search draws them
    ev.evaluate(batch, rows)
    assert set(np.unique(batch.values)) <= {-1.0, 0.0, 1.0}
    wins = random_playouts(game.kernels, state.array, rows, game.max_legal, make_rng(2))
    mover = state.current_player()
    expected = (wins[mover] - wins[1 - mover]) / rows  # about +0.1 at the start, strongly negative after 3 0 3 0 3
    assert batch.values.mean() == pytest.approx(expected, abs=0.05)  # 5 standard errors of the difference

    again = UniformEvaluator("playout", seed=1)
    copy = again.new_batch(game, 100)
    copy.states[:] = state.array
    copy.keys[:] = np.arange(100)
    again.evaluate(copy, 100)
    assert np.array_equal(copy.values, batch.values[:100])


# --- the protocol's conventions, over every evaluator `az:net=` can name ----------------------------

from nets.shipped import NET_FREE, make_evaluator  # noqa: E402

KINDS = [*NET_FREE, "checkpoint"]


def evaluator_of(kind: str, game, tmp_path):
    """The evaluator `az:net=` gives for `kind`: a net-free one by name, or a tiny net saved as a checkpoint."""
    if kind == "checkpoint":
        path = tmp_path / "tiny.pt"
        nets.save(path, tiny(game.name))
        return make_evaluator(str(path), game, device="cpu")
    return make_evaluator(kind, game)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", GAMES)
def test_every_evaluator_keeps_the_protocols_conventions(kind, name, tmp_path):
    game = games.load(name)
    evaluator = evaluator_of(kind, game, tmp_path)
    assert isinstance(evaluator, Evaluator) and evaluator.game in (None, name)
    batch, states = filled(evaluator, game, 5, 8)
    end = game.new_initial_state()
    while not end.is_terminal():
        end.apply_action(end.legal_actions()[0])
    batch.put(5, end)  # a terminal row: no legal action
    batch.priors[6:] = 7.0
    batch.values[6:] = 7.0
    batch.keys[:6] = np.arange(1, 7, dtype=np.uint64)
    evaluator.evaluate(batch, 6)
    for row, state in enumerate(states):
        legal = np.zeros(game.num_distinct_actions(), dtype=bool)
        legal[state.legal_actions()] = True
        assert np.all(batch.priors[row][~legal] == 0.0) and batch.priors[row][legal].sum() == pytest.approx(1.0)
    assert np.all(batch.priors[5] == 0.0) and not np.isnan(batch.priors[:6]).any()
    assert np.all(np.abs(batch.values[:6]) <= 1.0)
    assert np.all(batch.priors[6:] == 7.0) and np.all(batch.values[6:] == 7.0)  # rows beyond n untouched
    alone = evaluator.new_batch(game, 1)
    alone.put(0, states[3], key=4)
    evaluator.evaluate(alone, 1)
    np.testing.assert_allclose(alone.priors[0], batch.priors[3], atol=1e-6)  # a row's answer is its own
    np.testing.assert_allclose(alone.values[0], batch.values[3], atol=1e-6)


def test_an_unknown_net_is_a_one_line_error_naming_the_net_free_ones():
    with pytest.raises(ValueError, match="net=uniform / net=playout"):
        make_evaluator("no-such-net", games.load("connect4"))
