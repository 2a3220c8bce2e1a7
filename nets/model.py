"""The AlphaZero policy-value network of AlphaDDA, with AlphaDDA2's per-row dropout in its heads.

[AlphaDDA App. 1, Fig. A1, Table A1] A 3x3 convolution stem, residual blocks, a policy head and a
value head; [AlphaDDA Fig. 2] dropout on the inputs of every fully connected layer of both heads,
used at play time to damage a trained net (AlphaDDA2). The paper's text gives the body (3x3 kernels,
256 filters; 3, 3 and 5 residual blocks for Connect4, 6x6 Othello and Othello); the heads' sizes
are not in its text, so they follow the authors' code (github.com/KazuhisaFujita/AlphaDDA,
`AlphaDDA2/*/nn_dropout.py`, read for facts only):

    stem    conv3x3(C -> F), BN, ReLU                                   [B, C, H, W] -> [B, F, H, W]
    block   conv3x3, BN, ReLU, conv3x3, BN, + input, ReLU               [B, F, H, W] -> [B, F, H, W]
    policy  conv1x1(F -> 2), BN, ReLU, flatten, dropout, linear(2HW -> A)       -> logits [B, A]
            (12 filters for breakthrough, 8 for pentago, 4 for knightthrough and sheepandwolf, see below)
    value   conv1x1(F -> 1), BN, ReLU, flatten, dropout, linear(HW -> 256), BN, ReLU,
            dropout, linear(256 -> 1), tanh                                    -> value [B]

Our choices where neither the paper nor that code decides:
- Convolutions that feed a batch norm have no bias (the norm's shift does its work); the authors'
  code keeps one. The function computed is the same.
- breakthrough (not in the paper): 5 blocks like 8x8 Othello, and a 12-filter policy convolution
  instead of 2, because its 768 actions are 12 per square (6 moves x capture flag,
  games/breakthrough.py): 2 filters would squeeze 768 logits through 128 features.
- pentago (not in the paper): 3 blocks like 6x6 Othello, and an 8-filter policy convolution: its 288 actions
  are 8 per square (a marble and a quadrant's turn, games/pentago.py).
- pentago_ggp (not in the paper): 3 blocks like 6x6 Othello and its heads: its 44 actions are the squares and
  the eight turns (games/pentago.py); its planes do not show whether the marble is down (the legal moves do).
- knightthrough (not in the paper): 5 blocks like Breakthrough, and a 4-filter policy convolution: its 256 actions
  are 4 per square (a knight's forward jumps, games/knightthrough.py).
- connect5 (not in the paper): 5 blocks like 8x8 Othello and its heads: its 64 actions are the squares.
- tictactoe3d (not in the paper): 3 blocks like 6x6 Othello on its planes (the cube's four 4x4 levels side by side,
  which a 3x3 convolution sees only within a level and across a level's edge), the squares its 64 actions.
- sheepandwolf (not in the paper): 5 blocks like 8x8 Othello, and a 4-filter policy convolution: its 256 actions
  are 4 per square (a diagonal step, games/sheepandwolf.py).
- chinook (not in the paper): 5 blocks like 8x8 Othello, and a 4-filter policy convolution: its 256 moves are 4 per
  square (a step or a jump to either side, games/chinook.py), then the pass; its planes do not show which of the two
  boards the player to move plays (the legal moves do).
- `small` keeps the paper's heads and block counts and narrows the body to 32 filters, so a
  dropout probability damages the same number of head units as in the paper. Why 32: on this
  machine kind (2 cores) a 64-filter body forwards about 7k Connect4 positions/s at batch 256 and a
  32-filter one about 15-19k, and training and every DDA grid on a CPU are bound by the forward;
  the paper size is for a GPU.

Dropout, per row. `forward(x, dropout)` takes one probability per row of the batch, because the
batched evaluator answers many games at once, each with its own AlphaDDA2 probability (DESIGN §8).
- Inverted scaling: kept units are multiplied by 1/(1-p), as torch's F.dropout does. The authors'
  code calls F.dropout(h, p) with its default training=True, so their damaged nets (Fig. 4, and
  the constants A_drop, P_drop0 of Table 2 tuned against them) scaled kept units; we follow it so
  those constants mean the same here.
- A row with p = 0 is multiplied by exactly 1.0, so its outputs equal the clean forward's bitwise,
  whatever the other rows' probabilities.
- Never a dead layer: in each row the unit with the largest uniform draw is always kept, so no row
  loses every input unit of a layer (at p = 0.95 the 42 inputs of Connect4's value layer would all
  drop in 12% of rows otherwise). Rows that keep at least one unit anyway are unchanged by this.
  The value stays a tanh, the logits finite; P_max = 0.95 is the paper's bound for the same reason
  [AlphaDDA §3.3] (the authors' code clamps at 0.99; forward refuses anything above 0.95).
- Dropout runs whenever a `dropout` tensor is given, in train or eval mode (AlphaDDA2 damages a
  trained net at play time); without one there is none. Otherwise the net is used in eval mode
  (batch norm running statistics).
- Keyed draws: row b's uniforms are a hash (SplitMix64) of its key, the layer and the unit, never of
  a shared generator, so a game's damaged evaluations are the same whichever games share the batch
  (the search draws each leaf's key from that game's own stream).

Forward throughput, positions/s at batch 256, torch 2.13 CPU, torch.set_num_threads(2), inference_mode,
eval mode, median of 5 rounds of 4 forwards, clean / with every row at dropout 0.5
(`.venv/bin/python -m benchmarks.forward --rounds 5`, 2-core container, otherwise idle, 2026-11-23):

    game       size   filters  blocks  parameters  clean   dropout
    connect4   small       32       3       0.07M   14.6k    15.6k
    connect4   paper      256       3       3.56M    0.72k    0.74k
    othello    small       32       5       0.12M   16.0k    15.3k
    othello    paper      256       5       5.94M    0.29k    0.28k

A 64-filter body measured about 7k/s on Connect4 in the same setting (DESIGN section 8 quotes 18k/s
from another machine). Per-row dropout costs nothing measurable.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

import games
from search.evaluator import MAX_DROPOUT

INPUT_PLANES = 3  # games.State.encode(): own pieces, opponent's pieces, ones when player 1 is to move


@dataclass(frozen=True)
class Arch:
    """Everything that fixes the network's shape; a checkpoint stores it beside the weights."""

    game: str
    size: str  # the named size it was built from ("paper", "small"), or "custom" after overrides
    planes: int  # C, input planes
    board_shape: tuple[int, int]  # (H, W)
    num_actions: int  # A, policy logits
    filters: int  # F, channels of the body [AlphaDDA Table A1: 256]
    blocks: int  # residual blocks [AlphaDDA Table A1: 3, 3, 5]
    policy_filters: int  # 1x1 convolution of the policy head (authors' code: 2)
    value_filters: int  # 1x1 convolution of the value head (authors' code: 1)
    value_hidden: int  # hidden fully connected units of the value head (authors' code: 256)
    kind: str = "resnet"  # the module that builds it, a key of ARCHITECTURES (checkpoints before it had one: resnet)


def _sizes() -> dict[str, dict[str, dict[str, int]]]:
    paper_blocks = {
        "connect4": 3,
        "othello6": 3,
        "othello": 5,
        "breakthrough": 5,
        "pentago": 3,
        "pentago_ggp": 3,
        "knightthrough": 5,
        "connect5": 5,
        "tictactoe3d": 3,
        "sheepandwolf": 5,
        "quad": 3,
        "go9": 5,
        "checkers": 5,
        "chinook": 5,
        "ttcc4_2p": 3,
    }
    policy_filters = {"breakthrough": 12, "pentago": 8, "knightthrough": 4, "sheepandwolf": 4, "chinook": 4}
    out = {}
    for game, blocks in paper_blocks.items():
        heads = {"policy_filters": policy_filters.get(game, 2), "value_filters": 1, "value_hidden": 256}
        out[game] = {
            "paper": {"filters": 256, "blocks": blocks, **heads},
            "small": {"filters": 32, "blocks": blocks, **heads},
        }
    return out


SIZES: dict[str, dict[str, dict[str, int]]] = _sizes()
"""`SIZES[game][size]`: the knobs of `Arch` for each game and named size ("paper": Table A1; "small": CPU-sized)."""


def build(game_name: str, size: str = "small", *, kind: str = "resnet", **overrides: int) -> nn.Module:
    """A freshly initialised network for `game_name` in eval mode; its `arch` describes it.

    Args:
        game_name: a name `games.load` accepts.
        size: a key of SIZES[game] ("paper" or "small"), the game named without its parameters.
        kind: the architecture, a key of ARCHITECTURES.
        **overrides: knobs of `Arch` to change (filters, blocks, policy_filters, value_filters,
            value_hidden), e.g. tiny nets in tests; the size is then recorded as "custom".

    Weights come from torch's default generator: seed it with torch.manual_seed for a repeatable net.
    """
    game = games.load(game_name)
    sizes = SIZES.get(games.base_name(game.name))
    if sizes is None:
        raise ValueError(f"no network sizes for game {game_name!r}; games with sizes: {', '.join(sorted(SIZES))}")
    if size not in sizes:
        raise ValueError(f"unknown network size {size!r}; known sizes: {', '.join(sizes)}")
    knobs = sizes[size]
    unknown = sorted(set(overrides) - set(knobs))
    if unknown:
        raise ValueError(f"unknown network override(s) {', '.join(unknown)}; known: {', '.join(knobs)}")
    if kind not in ARCHITECTURES:
        raise ValueError(f"unknown network kind {kind!r}; known: {', '.join(ARCHITECTURES)}")
    custom = any(knobs[k] != v for k, v in overrides.items())
    arch = Arch(
        game=game_name,
        size="custom" if custom else size,
        planes=INPUT_PLANES,
        board_shape=tuple(game.board_shape),
        num_actions=game.num_distinct_actions(),
        **{**knobs, **overrides},
        kind=kind,
    )
    return ARCHITECTURES[kind](arch).eval()


class ResidualBlock(nn.Module):
    """conv3x3, BN, ReLU, conv3x3, BN, + input, ReLU [AlphaDDA Fig. A1]: [B, F, H, W] -> [B, F, H, W]."""

    def __init__(self, filters: int):
        super().__init__()
        self.conv1 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(filters)
        self.conv2 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(filters)

    def forward(self, x: Tensor) -> Tensor:
        h = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(h)) + x)


class PolicyValueNet(nn.Module):
    """The policy-value ResNet of AlphaZero as AlphaDDA uses it [AlphaDDA App. 1, Fig. A1; Fig. 2].

    >>> net = build("connect4", filters=8, blocks=1)
    >>> logits, value = net(torch.zeros(2, 3, 6, 7), dropout=torch.tensor([0.0, 0.5]), keys=torch.tensor([1, 2]))
    >>> logits.shape, value.shape
    (torch.Size([2, 7]), torch.Size([2]))
    """

    meta: dict | None = None  # the checkpoint's metadata when it came from nets.load, else None

    def __init__(self, arch: Arch, channels_last: bool = True):
        """channels_last: the memory format of the body's weights and activations, oneDNN's and cuDNN's fast one
        for convolutions: at batches 30-256 a forward 1.14-1.42x and a training step 1.05-1.29x as fast as in the
        contiguous format on one core here (`python -m benchmarks.forward --layouts`), the same values to float
        rounding. A bool, not a torch.memory_format: torch.save cannot pickle a module holding one."""
        super().__init__()
        self.arch = arch
        f, cells = arch.filters, arch.board_shape[0] * arch.board_shape[1]
        self.stem = nn.Sequential(nn.Conv2d(arch.planes, f, 3, padding=1, bias=False), nn.BatchNorm2d(f), nn.ReLU())
        self.blocks = nn.Sequential(*(ResidualBlock(f) for _ in range(arch.blocks)))
        self.policy_conv = nn.Sequential(
            nn.Conv2d(f, arch.policy_filters, 1, bias=False), nn.BatchNorm2d(arch.policy_filters), nn.ReLU()
        )
        self.policy_fc = nn.Linear(arch.policy_filters * cells, arch.num_actions)
        self.value_conv = nn.Sequential(
            nn.Conv2d(f, arch.value_filters, 1, bias=False), nn.BatchNorm2d(arch.value_filters), nn.ReLU()
        )
        self.value_fc1 = nn.Linear(arch.value_filters * cells, arch.value_hidden)
        self.value_bn1 = nn.BatchNorm1d(arch.value_hidden)
        self.value_fc2 = nn.Linear(arch.value_hidden, 1)
        self.channels_last = channels_last
        if channels_last:
            self.to(memory_format=torch.channels_last)

    def forward(self, x: Tensor, dropout: Tensor | None = None, keys: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """Policy logits and value of a batch of encoded positions.

        Args:
            x: float32 [B, C, H, W], rows of `State.encode()`.
            dropout: None (no dropout) or float [B], each row's dropout probability in [0, 0.95],
                applied to the inputs of every fully connected layer of both heads [AlphaDDA Fig. 2].
            keys: int64 [B], each row's key for its dropout draws; needed with dropout.

        Returns:
            (logits float32 [B, A], value float32 [B] in [-1, 1]), A = arch.num_actions.
        """
        a = self.arch
        if x.dim() != 4 or x.shape[1:] != (a.planes, *a.board_shape):
            want = f"[B, {a.planes}, {a.board_shape[0]}, {a.board_shape[1]}]"
            raise ValueError(f"the {a.game} net takes planes {want} (State.encode() rows), got {list(x.shape)}")
        if dropout is not None:
            dropout = _check_dropout(dropout, x).to(x.dtype)
            if not torch.is_tensor(keys) or keys.shape != (x.shape[0],) or keys.dtype != torch.int64:
                raise ValueError(f"dropout needs keys: an int64 tensor of shape [{x.shape[0]}], one key per row")
            keys = keys.to(x.device)
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        h = self.blocks(self.stem(x))
        p = self.policy_conv(h).flatten(1)  # [B, policy_filters * H * W]
        logits = self.policy_fc(_drop(p, dropout, keys, 0))
        v = self.value_conv(h).flatten(1)  # [B, value_filters * H * W]
        v = F.relu(self.value_bn1(self.value_fc1(_drop(v, dropout, keys, 1))))  # [B, value_hidden]
        value = torch.tanh(self.value_fc2(_drop(v, dropout, keys, 2))).squeeze(1)
        return logits, value

    def describe(self) -> str:
        """One line: game, size, body, heads and parameter count."""
        a = self.arch
        params = sum(t.numel() for t in self.parameters())
        return (
            f"{a.game} {a.size} net: {a.filters} filters x {a.blocks} residual blocks on {a.planes}x"
            f"{a.board_shape[0]}x{a.board_shape[1]}; policy {a.policy_filters} filters -> {a.num_actions} logits; "
            f"value {a.value_filters} filter(s) -> {a.value_hidden} -> 1; {params / 1e6:.2f}M parameters"
        )


def _signed(u: int) -> int:
    return u - (1 << 64) if u >= 1 << 63 else u


_GOLDEN, _MIX1, _MIX2 = (_signed(u) for u in (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB))


def _shr(z: Tensor, k: int) -> Tensor:
    """Logical right shift of int64 `z` (torch's >> is arithmetic)."""
    return (z >> k) & ((1 << (64 - k)) - 1)


def key_uniforms(keys: Tensor, n: int, layer: int) -> Tensor:
    """float32 [B, n] in [0, 1): SplitMix64 of (keys[b], layer, unit), so each row's draws depend on its key
    alone. int64 products wrap around, as SplitMix64's uint64 ones do."""
    counter = torch.arange(n, device=keys.device, dtype=torch.int64) + (layer << 32) + 1
    z = keys[:, None] + counter[None, :] * _GOLDEN
    z = (z ^ _shr(z, 30)) * _MIX1
    z = (z ^ _shr(z, 27)) * _MIX2
    z = z ^ _shr(z, 31)
    return _shr(z, 40).to(torch.float32) * 2.0**-24


def row_dropout(h: Tensor, p: Tensor, keys: Tensor, layer: int = 0) -> Tensor:
    """Dropout with a probability per row [AlphaDDA Fig. 2], drawn from each row's key (module docstring).

    Args:
        h: float [B, N] units.
        p: float [B] in [0, 1), row b's probability of zeroing each of its units.
        keys: int64 [B], row b's key; layer: which layer of the forward this is (its draws differ).

    Returns:
        float [B, N]: h with each unit zeroed with probability p[b] and the kept ones scaled by
        1/(1-p[b]); the unit with the row's largest draw is always kept. A row with p = 0 is h
        multiplied by exactly 1.0.
    """
    u = key_uniforms(keys, h.shape[1], layer)
    keep = (u >= p.float()[:, None]) | (u == u.amax(dim=1, keepdim=True))
    return h * keep * (1.0 / (1.0 - p))[:, None]


def _drop(h: Tensor, p: Tensor | None, keys: Tensor | None, layer: int) -> Tensor:
    return h if p is None else row_dropout(h, p, keys, layer)


def _check_dropout(dropout: Tensor, x: Tensor) -> Tensor:
    """The dropout tensor [B], or ValueError saying what is wrong with it."""
    if not torch.is_tensor(dropout) or dropout.shape != (x.shape[0],) or not dropout.is_floating_point():
        got = f"{dropout.dtype} {list(dropout.shape)}" if torch.is_tensor(dropout) else type(dropout).__name__
        raise ValueError(f"dropout must be a float tensor of shape [{x.shape[0]}] (one probability per row), got {got}")
    if bool(((dropout < 0) | (dropout > MAX_DROPOUT) | dropout.isnan()).any()):
        lo, hi = dropout.min().item(), dropout.max().item()
        raise ValueError(f"dropout probabilities must lie in [0, {MAX_DROPOUT}], got values from {lo} to {hi}")
    return dropout.to(x.device)


ARCHITECTURES = {"resnet": PolicyValueNet}  # Arch.kind -> the nn.Module built from an Arch (the checkpoint loader's)
