"""The policy-value network and its checkpoints: shapes, per-row dropout, the file format and its errors.

[AlphaDDA App. 1, Table A1] sizes; [AlphaDDA Fig. 2] dropout in the heads. Tiny nets (few filters,
one block) wherever the size does not matter, so the file runs in seconds.
"""

import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

import games
import nets
from nets.model import row_dropout

GAMES = [
    "connect4",
    "othello6",
    "othello",
    "breakthrough",
    "pentago",
    "pentago_ggp",
    "knightthrough",
    "connect5",
    "tictactoe3d",
    "sheepandwolf",
]
TINY = {"filters": 8, "blocks": 1}
ROOT = Path(__file__).resolve().parent.parent

KEYS = torch.arange(4)  # one dropout key per row of a four-row batch


def tiny(game="connect4", seed=0):
    torch.manual_seed(seed)
    return nets.build(game, "small", **TINY)


def planes(game, batch, seed=1):
    """Encoded positions [batch, 3, H, W] after a few seeded random moves each."""
    g = games.load(game)
    rng = torch.Generator().manual_seed(seed)
    rows = []
    for _ in range(batch):
        state = g.new_initial_state()
        for _ in range(int(torch.randint(0, 8, (), generator=rng))):
            legal = state.legal_actions()
            if not legal:
                break
            state.apply_action(legal[int(torch.randint(len(legal), (), generator=rng))])
        rows.append(torch.from_numpy(state.encode()))
    return torch.stack(rows)


# --- architecture ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", ["small", "paper"])
def test_shapes_and_value_range(game, size):
    torch.manual_seed(0)
    net = nets.build(game, size)
    g = games.load(game)
    knobs = nets.SIZES[game][size]
    assert (net.arch.game, net.arch.size, net.arch.filters, net.arch.blocks) == (
        game,
        size,
        knobs["filters"],
        knobs["blocks"],
    )
    assert len(net.blocks) == knobs["blocks"] and net.stem[0].out_channels == knobs["filters"]
    assert not net.training
    x = planes(game, 3)
    assert x.shape[1:] == (nets.INPUT_PLANES, *g.board_shape)
    with torch.inference_mode():
        logits, value = net(x)
    assert logits.shape == (3, g.num_distinct_actions()) and value.shape == (3,)
    assert logits.dtype == value.dtype == torch.float32
    assert torch.isfinite(logits).all() and (value.abs() <= 1).all()


def test_paper_sizes_follow_table_a1():
    for game, blocks in {"connect4": 3, "othello6": 3, "othello": 5}.items():
        assert nets.SIZES[game]["paper"]["filters"] == 256 and nets.SIZES[game]["paper"]["blocks"] == blocks
        assert nets.SIZES[game]["small"]["blocks"] == blocks


def test_build_overrides_and_bad_names():
    net = nets.build("othello6", "small", filters=8, blocks=2)
    assert (net.arch.size, net.arch.filters, net.arch.blocks) == ("custom", 8, 2)
    assert nets.build("othello6", "small", blocks=3).arch.size == "small"  # an override that changes nothing
    for call, word in [
        (lambda: nets.build("chess"), "unknown game"),
        (lambda: nets.build("connect4", "huge"), "unknown network size"),
        (lambda: nets.build("connect4", filtres=8), "unknown network override"),
    ]:
        with pytest.raises(ValueError, match=word):
            call()


@pytest.mark.slow
def test_import_changes_no_torch_setting():
    """In a fresh process: the torch settings before and after `import nets` are the same."""
    settings = (
        "(torch.get_num_threads(), torch.get_num_interop_threads(), str(torch.get_default_dtype()), "
        "torch.is_grad_enabled(), torch.are_deterministic_algorithms_enabled(), torch.initial_seed())"
    )
    code = f"import torch; torch.manual_seed(5); a = {settings}; import nets; print(a == {settings})"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "True"


# --- per-row dropout ---------------------------------------------------------------------------


def test_the_channels_last_body_computes_what_the_contiguous_one_does():
    """The nets are built channels-last (the fast layout for convolutions); the same weights in the contiguous
    layout give the same logits and values to float rounding, clean and damaged, in eval and train mode."""
    from nets.model import PolicyValueNet

    torch.manual_seed(0)
    net = nets.build("othello6", filters=16, blocks=2)
    assert net.stem[0].weight.is_contiguous(memory_format=torch.channels_last)
    plain = PolicyValueNet(net.arch, channels_last=False)
    plain.load_state_dict(net.state_dict())
    assert plain.stem[0].weight.is_contiguous() and not net.stem[0].weight.is_contiguous()
    x, p, keys = planes("othello6", 5), torch.tensor([0.0, 0.5, 0.1, 0.95, 0.3]), torch.arange(5)
    for mode in ("eval", "train"):
        for args in ((x,), (x, p, keys)):
            got, want = getattr(net, mode)()(*args), getattr(plain, mode)()(*args)
            for a, b in zip(got, want):
                assert torch.allclose(a, b, atol=1e-5) and not torch.equal(a, torch.zeros_like(a))


def test_zero_dropout_row_is_bitwise_clean_whatever_the_others():
    net = tiny()
    x = planes("connect4", 6)
    with torch.inference_mode():
        clean_logits, clean_value = net(x)
        p = torch.tensor([0.0, 0.5, 0.0, 0.95, 0.3, 0.0])
        logits, value = net(x, p, torch.arange(6))
    for row in (0, 2, 5):
        assert torch.equal(logits[row], clean_logits[row]) and torch.equal(value[row], clean_value[row])
    for row in (1, 3, 4):
        assert not torch.equal(logits[row], clean_logits[row]) and not torch.equal(value[row], clean_value[row])


def test_dropout_falls_on_the_inputs_of_the_heads_fully_connected_layers_and_nowhere_else():
    """[AlphaDDA Fig. 2]: every fully connected layer of both heads takes dropout on its input (about half of it
    zeroed at p = 0.5, the rest scaled by 2); every convolution sees exactly what it sees undamaged."""
    net = tiny()
    x = planes("connect4", 64)
    seen = {}
    hooks = [
        m.register_forward_pre_hook(lambda m, args, name=name: seen.setdefault(name, []).append(args[0].clone()))
        for name, m in net.named_modules()
        if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d))
    ]
    with torch.inference_mode():
        net(x)
        net(x, torch.full((64,), 0.5), torch.arange(64))
    for h in hooks:
        h.remove()
    linear = {n for n, m in net.named_modules() if isinstance(m, torch.nn.Linear)}
    assert linear == {"policy_fc", "value_fc1", "value_fc2"}
    for name, (clean, damaged) in seen.items():
        if name not in linear:
            assert torch.equal(clean, damaged), name
        elif name == "value_fc2":  # its input comes through value_fc1, damaged upstream: only the share kept
            kept = (damaged != 0).float().mean() / (clean != 0).float().mean()
            assert 0.4 < kept.item() < 0.6, (name, kept)
        else:
            live = clean != 0  # units that dropout can zero (ReLU already zeroed the others)
            dropped = (damaged[live] == 0).float().mean().item()
            assert 0.4 < dropped < 0.6, (name, dropped)
            kept = live & (damaged != 0)
            assert torch.allclose(damaged[kept], 2 * clean[kept]), name


def test_rows_are_damaged_independently():
    net = tiny()
    x = planes("connect4", 1).expand(4, -1, -1, -1)  # one position four times
    with torch.inference_mode():
        logits, _ = net(x, torch.tensor([0.5, 0.5, 0.3, 0.0]), torch.tensor([1, 2, 3, 4]))
        assert not torch.equal(logits[0], logits[1])  # same position, same p, other keys: other units
        # a row's damage depends on its own p and key, not on the other rows' probabilities or keys
        again, _ = net(x, torch.tensor([0.5, 0.9, 0.0, 0.2]), torch.tensor([1, 7, 8, 9]))
        assert torch.allclose(logits[0], again[0], atol=1e-6)  # float rounding may differ with the batch
        alone, _ = net(x[:1], torch.tensor([0.5]), torch.tensor([1]))
    assert torch.allclose(logits[0], alone[0], atol=1e-6)


def test_key_uniforms_are_uniform_and_differ_by_key_and_layer():
    from nets.model import key_uniforms

    u = key_uniforms(torch.tensor([0, 1, -(2**63), 2**63 - 1]), 50000, 0)
    assert u.min() >= 0 and u.max() < 1
    for row in u:  # mean 1/2 and variance 1/12 of U[0, 1), within about 5 standard errors
        assert abs(row.mean().item() - 0.5) < 0.007 and abs(row.var().item() - 1 / 12) < 0.002
        assert abs((row < 0.1).float().mean().item() - 0.1) < 0.007
    assert abs(torch.corrcoef(u[:2])[0, 1].item()) < 0.02  # neighbouring keys: unrelated draws
    assert not torch.equal(key_uniforms(torch.tensor([5]), 100, 0), key_uniforms(torch.tensor([5]), 100, 1))
    assert torch.equal(key_uniforms(torch.tensor([5]), 100, 2), key_uniforms(torch.tensor([5, 6]), 100, 2)[:1])


def test_dropout_runs_in_train_and_eval_mode_and_only_when_given():
    net = tiny()
    x = planes("connect4", 4)
    net.eval()
    with torch.inference_mode():
        clean = net(x)
        assert torch.equal(net(x, torch.zeros(4), KEYS)[0], clean[0])
        assert not torch.equal(net(x, torch.full((4,), 0.5), KEYS)[0], clean[0])
    net.train()
    with torch.no_grad():
        a = net(x, torch.full((4,), 0.5), KEYS)
        b = net(x, torch.zeros(4), KEYS)
    assert not torch.equal(a[0], b[0])


def test_same_keys_same_damage():
    net = tiny("othello6")
    x = planes("othello6", 5)
    p = torch.full((5,), 0.5)
    with torch.inference_mode():
        a, b = net(x, p, torch.arange(5)), net(x, p, torch.arange(5))
        c = net(x, p, torch.arange(5) + 5)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], c[0])
    with pytest.raises(ValueError, match="dropout needs keys"):
        net(x, p)


def test_row_dropout_rate_and_scaling_per_row():
    torch.manual_seed(0)
    p = torch.tensor([0.0, 0.2, 0.5, 0.9])
    h = torch.ones(4, 20000)
    out = row_dropout(h, p, torch.arange(4))
    for b, pb in enumerate(p.tolist()):
        kept = out[b] != 0
        assert abs((~kept).float().mean().item() - pb) < 0.02  # each row drops at its own rate
        assert torch.allclose(out[b][kept], torch.tensor(1 / (1 - pb)))  # inverted scaling, like F.dropout
    assert torch.equal(out[0], h[0])


def test_row_dropout_never_drops_a_whole_row():
    torch.manual_seed(0)
    h = torch.ones(5000, 3)  # at p = 0.95, 86% of rows would lose all three units without the guarantee
    out = row_dropout(h, torch.full((5000,), 0.95), torch.arange(5000))
    assert ((out != 0).sum(1) >= 1).all()
    assert (out != 0).float().mean() < 0.5  # but it is still dropout


def test_heaviest_dropout_stays_finite_and_in_range():
    net = tiny("othello6")
    x = planes("othello6", 32)
    with torch.inference_mode():
        clean = net(x)
        for seed in range(10):
            logits, value = net(x, torch.full((32,), nets.MAX_DROPOUT), torch.arange(32) + 32 * seed)
            assert torch.isfinite(logits).all() and torch.isfinite(value).all() and (value.abs() <= 1).all()
            assert not torch.equal(logits, clean[0])


@pytest.mark.parametrize(
    "dropout, word",
    [
        (torch.zeros(3), "shape"),
        (torch.zeros(4, dtype=torch.long), "float"),
        (torch.full((4,), 0.995), "0.99"),
        (torch.full((4,), -0.1), "0.99"),
        (torch.full((4,), float("nan")), "0.99"),
    ],
)
def test_bad_dropout_is_refused(dropout, word):
    with pytest.raises(ValueError, match=word):
        tiny()(planes("connect4", 4), dropout)


def test_planes_of_another_game_are_refused():
    with pytest.raises(ValueError, match=r"connect4 net takes planes \[B, 3, 6, 7\]"):
        tiny()(planes("othello6", 2))


# --- checkpoints -------------------------------------------------------------------------------


PROVENANCE = {"command": "sparring net init connect4", "seed": 0, "commit": "abc123", "versions": {"torch": "2"}}


@pytest.fixture
def saved(tmp_path):
    net = tiny()
    path = tmp_path / "c4.pt"
    nets.save(path, net, PROVENANCE)
    return net, path


def test_round_trip_same_outputs_and_metadata(saved):
    net, path = saved
    loaded = nets.load(path, game="connect4")
    assert not loaded.training and loaded.arch == net.arch and net.meta is None
    meta = loaded.meta
    assert meta["format_version"] == nets.FORMAT_VERSION and meta["provenance"] == PROVENANCE
    assert (meta["game"], meta["size"], meta["filters"], meta["blocks"]) == ("connect4", "custom", 8, 1)
    assert (meta["planes"], meta["board_shape"], meta["num_actions"]) == (3, [6, 7], 7)
    x = planes("connect4", 5)
    p = torch.tensor([0.0, 0.5, 0.2, 0.0, 0.9])
    with torch.inference_mode():
        assert all(torch.equal(a, b) for a, b in zip(net(x), loaded(x)))
        keys = torch.arange(5)
        assert all(torch.equal(a, b) for a, b in zip(net(x, p, keys), loaded(x, p, keys)))
    assert [f.name for f in path.parent.iterdir()] == ["c4.pt"]  # no temporary file left


def test_save_replaces_and_refuses_unplain_provenance(saved):
    _, path = saved
    nets.save(path, tiny("connect4", seed=5), {"seed": 5})
    assert nets.load(path).meta["provenance"] == {"seed": 5}
    with pytest.raises(ValueError, match="plain JSON"):
        nets.save(path, tiny(), {"when": object()})
    assert nets.load(path).meta["provenance"] == {"seed": 5}  # untouched
    assert sorted(f.name for f in path.parent.iterdir()) == ["c4.pt"]
    with pytest.raises(FileNotFoundError):
        nets.save(path.parent / "no such folder" / "c4.pt", tiny())


def _weights_offset(path):
    """Byte offset of the first tensor's data inside the checkpoint's zip."""
    with zipfile.ZipFile(path) as z:
        info = next(i for i in z.infolist() if "/data/" in i.filename and i.file_size > 64)
    with open(path, "rb") as f:
        f.seek(info.header_offset + 26)
        name_len, extra_len = struct.unpack("<HH", f.read(4))
    return info.header_offset + 30 + name_len + extra_len


def _damage(kind, path, tmp_path):
    """Make `path` into a file that `load` must refuse with the returned words in its message."""
    if kind == "missing":
        return tmp_path / "nope.pt", "does not exist"
    if kind == "folder":
        return tmp_path, "not a file"
    if kind == "text":
        path.write_text("hello\n")
        return path, "not a sparring checkpoint"
    if kind == "bare state_dict":
        torch.save(tiny().state_dict(), path)
        return path, "not a sparring checkpoint"
    if kind == "pickled module":
        torch.save(tiny(), path)
        return path, "not a sparring checkpoint"
    if kind == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        return path, "corrupt or truncated"
    if kind == "flipped byte":
        data = bytearray(path.read_bytes())
        data[_weights_offset(path) + 5] ^= 0x40
        path.write_bytes(bytes(data))
        return path, "corrupt"
    if kind == "other version":
        blob = torch.load(path, weights_only=True)
        torch.save({**blob, "sparring_checkpoint": nets.FORMAT_VERSION + 1}, path)
        return path, "format version"
    if kind == "damaged metadata":
        blob = torch.load(path, weights_only=True)
        torch.save({**blob, "meta": json.dumps({"game": "connect4"})}, path)
        return path, "damaged metadata"
    if kind == "weights of another net":
        blob = torch.load(path, weights_only=True)
        other = nets.build("connect4", "small", filters=4, blocks=1).state_dict()
        torch.save({**blob, "state_dict": other}, path)
        return path, "do not fit"
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind",
    [
        "missing",
        "folder",
        "text",
        "bare state_dict",
        "pickled module",
        "truncated",
        "flipped byte",
        "other version",
        "damaged metadata",
        "weights of another net",
    ],
)
def test_each_bad_file_is_one_line_naming_the_problem(saved, tmp_path, kind):
    _, path = saved
    bad, words = _damage(kind, path, tmp_path)
    with pytest.raises(nets.CheckpointError, match=words) as info:
        nets.load(bad, game="connect4")
    message = str(info.value)
    assert "\n" not in message and os.fspath(bad) in message and "sparring net init connect4" in message
    assert isinstance(info.value, ValueError)


def test_checkpoint_for_another_game(tmp_path):
    path = tmp_path / "o6.pt"
    nets.save(path, tiny("othello6"))
    with pytest.raises(nets.CheckpointError) as info:
        nets.load(path, game="connect4")
    assert str(info.value) == (
        f"checkpoint {path} is for othello6, not connect4: pass a connect4 net or create one with "
        "`sparring net init connect4 --out PATH`"
    )
    assert nets.load(path).arch.game == "othello6"  # without game= any game loads


# --- conformance over every architecture of nets.ARCHITECTURES --------------------------------------


def np_planes(game, n):
    """n encoded positions of `game`: the start, then each after one more ply of its lowest legal action."""
    states, state = [], game.new_initial_state()
    for _ in range(n):
        states.append(state.encode())
        state.apply_action(state.legal_actions()[0])
    return np.stack(states)


@pytest.mark.parametrize("kind", nets.ARCHITECTURES)
@pytest.mark.parametrize("game", GAMES)
def test_every_architecture_answers_the_game_and_round_trips_through_a_checkpoint(kind, game, tmp_path):
    torch.manual_seed(0)
    net = nets.build(game, kind=kind, filters=8, blocks=1)
    g = games.load(game)
    assert net.arch.kind == kind
    planes = torch.from_numpy(np_planes(g, 4))
    keys = torch.arange(4, dtype=torch.int64)
    with torch.inference_mode():
        logits, value = net(planes)
        damaged_logits, damaged = net(planes, torch.tensor([0.0, 0.5, 0.0, 0.9]), keys)
    assert logits.shape == (4, g.num_distinct_actions()) and value.shape == (4,)
    assert torch.all(value.abs() <= 1.0) and torch.isfinite(logits).all()
    assert torch.equal(damaged_logits[[0, 2]], logits[[0, 2]]) and torch.equal(damaged[[0, 2]], value[[0, 2]])
    nets.save(tmp_path / "net.pt", net)
    again = nets.load(tmp_path / "net.pt", game=game)
    assert type(again) is type(net) and again.arch == net.arch
    with torch.inference_mode():
        assert torch.equal(again(planes)[1], value)


def test_a_checkpoint_of_an_unknown_kind_is_refused_and_one_without_a_kind_is_a_resnet(tmp_path, monkeypatch):
    net = tiny()
    nets.save(tmp_path / "net.pt", net)
    monkeypatch.setattr(nets.model, "ARCHITECTURES", {})
    monkeypatch.setattr(nets.checkpoint, "ARCHITECTURES", {})
    with pytest.raises(nets.CheckpointError, match="holds a 'resnet' net, which this sparring does not know"):
        nets.load(tmp_path / "net.pt")
    monkeypatch.undo()
    from nets.shipped import shipped_nets

    for path in shipped_nets().values():  # written before Arch had a kind
        assert nets.load(path).arch.kind == "resnet"
