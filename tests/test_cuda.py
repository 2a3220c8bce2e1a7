"""The CUDA path against the CPU one: the same net gives the same answers on either device.

Skipped where torch sees no GPU (CI, the build machine); run on a lent GPU by benchmarks/gpu.sh. Every check
compares the GPU's numbers with the CPU's for the same net and positions, so a wrong device path (masks drawn
differently, outputs read before the copy lands, a checkpoint that does not load back) fails it.
"""

import numpy as np
import pytest
import torch

import games
import nets
from nets.evaluator import NetEvaluator
from nets.model import key_uniforms
from nets.selfplay import self_play
from nets.train import Run, TrainConfig
from search.puct import PUCT, Request
from tests.test_evaluator import positions

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

GAMES = ["connect4", "othello6", "othello"]


def answers(game, net, device, dtype=None, dropout=0.0, n=300):
    """priors and values of one evaluator on n random positions (keys 0..n-1, the same dropout on every row)."""
    ev = NetEvaluator(net, device=device, dtype=dtype)
    batch = ev.new_batch(game, n)
    for row, state in enumerate(positions(game, n, seed=1)):
        batch.put(row, state)
    batch.dropout[:] = dropout
    batch.keys[:] = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    ev.evaluate(batch, n)
    return batch.priors.copy(), batch.values.copy(), batch


@pytest.mark.parametrize("name", GAMES)
def test_float32_on_the_gpu_matches_the_cpu(name):
    game = games.load(name)
    torch.manual_seed(0)
    net = nets.build(name, "small")
    cpu = answers(game, net, "cpu")
    gpu = answers(game, net, "cuda", dtype="float32")
    assert gpu[2].views.planes.is_pinned()  # the copies overlap only from pinned memory
    np.testing.assert_allclose(gpu[0], cpu[0], atol=1e-4)
    np.testing.assert_allclose(gpu[1], cpu[1], atol=1e-4)
    assert np.all(gpu[0][~gpu[2].legal] == 0.0)


@pytest.mark.parametrize("name", GAMES)
def test_bfloat16_autocast_on_the_gpu_stays_close_to_the_cpu(name):
    game = games.load(name)
    torch.manual_seed(0)
    net = nets.build(name, "small")
    cpu = answers(game, net, "cpu")
    gpu = answers(game, net, "cuda")  # the default on CUDA: bfloat16 autocast
    assert NetEvaluator(net, device="cuda").dtype == torch.bfloat16
    np.testing.assert_allclose(gpu[0].sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(gpu[0], cpu[0], atol=0.03)
    np.testing.assert_allclose(gpu[1], cpu[1], atol=0.03)
    assert np.mean(gpu[0].argmax(axis=1) == cpu[0].argmax(axis=1)) > 0.9


def test_keyed_dropout_draws_the_same_units_on_either_device():
    """AlphaDDA2's damage is a function of the key: a game replays on another device with the same units off."""
    keys = torch.tensor([0, 1, -1, 2**62 + 7, -(2**63)], dtype=torch.int64)
    for layer in range(3):
        on_cpu = key_uniforms(keys, 257, layer)
        assert torch.equal(key_uniforms(keys.cuda(), 257, layer).cpu(), on_cpu)
    game = games.load("connect4")
    torch.manual_seed(0)
    net = nets.build("connect4", "small")
    clean = answers(game, net, "cpu")[1]
    cpu = answers(game, net, "cpu", dropout=0.5)[1]
    gpu = answers(game, net, "cuda", dtype="float32", dropout=0.5)[1]
    assert np.mean(np.abs(cpu - clean)) > 0.01  # the damage is real...
    np.testing.assert_allclose(gpu, cpu, atol=1e-4)  # ...and the same units fell on the GPU


def test_lock_step_searches_on_the_gpu_visit_as_on_the_cpu():
    """64 searches in lock-step, float32: the root visit counts equal the CPU's (values agree to 1e-5, so no
    selection may differ; a batch read before its copy lands would change them)."""
    game = games.load("othello6")
    torch.manual_seed(1)
    net = nets.build("othello6", "small")
    states = positions(game, 64, seed=2)
    visits = []
    for device in ("cpu", "cuda"):
        puct = PUCT(game, NetEvaluator(net, device=device, dtype="float32"), games=64, seed=3)
        results = puct.search([Request(i, s, 50) for i, s in enumerate(states)])
        visits.append([r.visits for r in results])
    agree = np.mean([np.array_equal(a, b) for a, b in zip(*visits)])
    assert agree >= 0.95, f"only {agree:.0%} of the searches visited alike"


def test_self_play_on_the_gpu_gives_legal_targets():
    game = games.load("connect4")
    torch.manual_seed(0)
    ev = NetEvaluator(nets.build("connect4", "small"), device="cuda")
    examples, stats = self_play(game, ev, games=16, simulations=16, seed=0)
    assert stats.simulations > 0 and len(examples) >= 16 * 7
    np.testing.assert_allclose(examples.policy.sum(axis=1), 1.0, atol=1e-5)
    assert set(np.unique(examples.value)) <= {-1.0, 0.0, 1.0}


def test_a_run_trained_on_the_gpu_resumes_there_and_its_net_plays_on_the_cpu(tmp_path):
    config = TrainConfig.for_game("connect4", filters=16, blocks=1, games=8, simulations=12, queue=400, batch=64)
    with Run(tmp_path, config, device="cuda") as run:
        first = run.step()
        assert np.isfinite(first["loss_value"]) and next(run.model.parameters()).is_cuda
    with Run(tmp_path, config, device="cuda") as run:
        assert run.iteration == 1
        run.step()
        gpu_net = run.model
        game = games.load("connect4")
        on_gpu = answers(game, gpu_net, "cuda", dtype="float32", n=64)[1]
    cpu_net = nets.load(tmp_path / "net.pt", game="connect4")
    np.testing.assert_allclose(answers(game, cpu_net, "cpu", n=64)[1], on_gpu, atol=1e-4)
