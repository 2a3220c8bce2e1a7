"""The batched network evaluator: `search.evaluator.Evaluator` over a `PolicyValueNet`.

DESIGN §8: the lock-step searches gather every pending leaf into one batch and one forward pass
answers them all [AlphaDDA App. 1: the policy-value net]; each row carries its own AlphaDDA2
dropout probability [AlphaDDA Fig. 2], and a batch whose rows are all 0 takes the plain forward.
`evaluate` does, for the first n rows:

    planes [n, 3, H, W], legal [n, A], dropout [n]  --(to the device)-->  forward (autocast dtype)
    logits [n, A] -> float32, illegal set to -inf -> softmax over the legal ones -> priors [n, A]
    value [n] -> float32 -> values [n]                                      --(back to the batch)-->

A row with no legal action (an unused or terminal row) gets priors all 0 (not NaN) and the net's
value for its planes.

Devices. "auto" takes CUDA when torch sees a GPU, else the CPU. On the CPU the batch's arrays are
ordinary memory shared with torch tensors (no copy in, one copy of the outputs), float32 by
default. On CUDA the batch's input and output arrays are numpy views of pinned (page-locked) host
tensors: inputs go to the device and outputs come back with non_blocking copies on the current
stream, and `evaluate` synchronises that stream before it returns, so the arrays are final when
the search reads them; the forward runs under autocast in bfloat16 (float16 where the GPU has no
bfloat16). Both devices run the same code: `.to(device, non_blocking=True)` is a no-op on the CPU
and pinning is asked only on CUDA. Known cost on CUDA: `PolicyValueNet.forward` checks the dropout
probabilities with a host-side `.any()`, one stream synchronisation per damaged batch.
On one H100 (benchmarks/README.md, "On a GPU"; tests/test_cuda.py checks this path against the CPU's) the
lock-step search reaches 2-3x the same machine's 16 cores with the small net and 33-66x with the paper's at
256-1024 games; at batch 1 the CPU is faster. Not done yet (later, behind the same call): overlapping the
search's own work with the forward, torch.compile or CUDA graphs for fixed batch buckets.

Chunks. A forward's float rounding depends on its batch size (torch picks kernels by shape: on this
CPU a row's value at batch 15 differs from the same row's at batch 16 in the last bits), so a search's
moves can depend on how many other positions shared its batch. With `chunk` set, every forward runs
on exactly `chunk` rows (the last chunk padded with empty rows; 1 or a multiple of 4, `check_chunk`), and
on the CPU a row's priors and value are then the same whatever the other rows are and wherever it sits: what
lets self-play split over machines (`nets.selfplay.play_share`) play the games one machine plays.

Throughput on 2 CPU cores (torch 2.13, threads=2; `python -m benchmarks.evaluator`, 2026-11-23):
the lock-step search through this evaluator against the raw forward at the batch it formed, timed
in alternate rounds, simulations (or positions) per second:

    game      size   setup                batch   search/s   raw/s   efficiency
    connect4  small  reference, batch 1       1        891    1,281      73%
    connect4  small  256 games              248     28,164   27,598     100%
    connect4  paper  reference, batch 1       1        216      249      87%
    connect4  paper  256 games              253        741      744     102%
    othello6  small  256 games              256     29,600   35,739      83%
    othello6  paper  256 games              256        966      978      99%

Masking, softmax and copies cost a fixed 30-80 us a call, lost at either real size; the search's
own compiled select and backup take under 1 ms a step for 256 games.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import torch

import games
from nets.model import PolicyValueNet
from search.evaluator import Batch

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass(eq=False)
class _Views:
    """torch tensors over the memory of a batch's arrays (the same shapes as in `Batch`)."""

    planes: torch.Tensor  # float32 [B, 3, H, W]
    legal: torch.Tensor  # bool [B, A]
    dropout: torch.Tensor  # float32 [B]
    keys: torch.Tensor  # int64 [B], the bits of the batch's uint64 keys
    priors: torch.Tensor  # float32 [B, A]
    values: torch.Tensor  # float32 [B]

    @classmethod
    def of(cls, batch: Batch) -> _Views:
        """Zero-copy tensors over any batch's numpy arrays (not pinned)."""
        arrays = (batch.planes, batch.legal, batch.dropout, batch.keys.view(np.int64), batch.priors, batch.values)
        return cls(*(torch.from_numpy(a) for a in arrays))


@dataclass(eq=False)
class _NetBatch(Batch):
    """A batch allocated by a NetEvaluator: its arrays are numpy views of `views`' tensors (pinned on CUDA)."""

    views: _Views


class NetEvaluator:
    """Priors and values of a policy-value network for a batch of positions [AlphaDDA App. 1; DESIGN §8].

    >>> import nets
    >>> game = games.load("connect4")
    >>> ev = NetEvaluator(nets.build("connect4", filters=8, blocks=1), device="cpu")
    >>> batch = ev.new_batch(game, 64)
    >>> batch.put(0, game.new_initial_state())
    >>> ev.evaluate(batch, 1)  # fills priors[:1] (1 x 7) and values[:1]
    >>> round(float(batch.priors[0].sum()), 5), bool(-1 <= batch.values[0] <= 1)
    (1.0, True)

    Args:
        model: the network (nets.build or nets.load); moved to the device in place and put in eval
            mode. Keep it there: `evaluate` refuses a model in train mode.
        game: if given, the game's name the model must be for (ValueError otherwise).
        device: "auto" (CUDA if torch sees a GPU, else CPU), "cpu", "cuda" or "cuda:N".
        threads: torch's intra-op thread count to set now (a global torch setting); None leaves it
            as it is (torch's default: about the number of cores, or OMP_NUM_THREADS), so that several
            evaluators or an arena on threads can divide the cores as they see fit.
        dtype: "float32", "bfloat16" or "float16", the autocast dtype of the forward; None means
            float32 on the CPU and bfloat16 on CUDA (float16 where the GPU lacks bfloat16).
            Priors and values are float32 whatever it is.
        chunk: rows per forward, fixed (module docstring); None: one forward of all the rows asked.
    """

    def __init__(
        self,
        model: PolicyValueNet,
        *,
        game: str | None = None,
        device: str = "auto",
        threads: int | None = None,
        dtype: str | None = None,
        chunk: int | None = None,
    ):
        arch = model.arch
        if game is not None and game != arch.game:
            raise ValueError(f"the model is a {arch.game} net, not a {game} one")
        g = games.load(arch.game)
        want = (3, tuple(g.board_shape), g.num_distinct_actions())
        if (arch.planes, tuple(arch.board_shape), arch.num_actions) != want:
            raise ValueError(
                f"the model's shape {arch.planes}x{arch.board_shape} -> {arch.num_actions} does not fit {g.name}"
            )
        self.game = arch.game
        self.device = _device(device)
        if threads is not None:
            if threads < 1:
                raise ValueError(f"threads must be at least 1, got {threads}")
            torch.set_num_threads(threads)
        self.dtype = _dtype(dtype, self.device)
        check_chunk(chunk)
        self.chunk = chunk
        self.model = model.to(self.device).eval()

    def __repr__(self) -> str:
        dtype = str(self.dtype).removeprefix("torch.")
        chunk = f", chunk={self.chunk}" if self.chunk else ""
        return f"NetEvaluator({self.game}, device={self.device}, dtype={dtype}{chunk})"

    def new_batch(self, game: games.Game | str, capacity: int) -> Batch:
        """A batch for `capacity` rows whose input and output arrays torch reads and writes in place.

        On CUDA they are views of pinned host tensors, the only memory non_blocking copies overlap with.
        """
        game = games.load(game) if isinstance(game, str) else game
        if game.name != self.game:
            raise ValueError(f"this evaluator's net is for {self.game}; it cannot make a batch for {game.name}")
        if capacity < 1:
            raise ValueError(f"a batch needs a capacity of at least 1 row, got {capacity}")
        pin = self.device.type == "cuda"
        a, shape = game.num_distinct_actions(), (capacity, 3, *game.board_shape)
        views = _Views(
            planes=torch.zeros(shape, dtype=torch.float32, pin_memory=pin),
            legal=torch.zeros((capacity, a), dtype=torch.bool, pin_memory=pin),
            dropout=torch.zeros(capacity, dtype=torch.float32, pin_memory=pin),
            keys=torch.zeros(capacity, dtype=torch.int64, pin_memory=pin),
            priors=torch.zeros((capacity, a), dtype=torch.float32, pin_memory=pin),
            values=torch.zeros(capacity, dtype=torch.float32, pin_memory=pin),
        )
        return _NetBatch(
            game=game,
            states=np.zeros((capacity, game.state_size), dtype=np.uint64),
            planes=views.planes.numpy(),
            legal=views.legal.numpy(),
            dropout=views.dropout.numpy(),
            keys=views.keys.numpy().view(np.uint64),
            priors=views.priors.numpy(),
            values=views.values.numpy(),
            views=views,
        )

    def evaluate(self, batch: Batch, n: int) -> None:
        """Fill batch.priors[:n] (float32 [n, A]) and batch.values[:n] (float32 [n]) from the first n rows.

        Any `Batch` of this game works; one from `new_batch` avoids wrapping its arrays and, on CUDA,
        copies asynchronously from pinned memory. Rows beyond n are neither read nor written.
        """
        if batch.game.name != self.game:
            raise ValueError(f"this evaluator's net is for {self.game}; it cannot evaluate a {batch.game.name} batch")
        batch.check_rows(n)
        if self.model.training:
            raise RuntimeError("the evaluator's model is in train mode; call model.eval() before evaluating")
        if n == 0:
            return
        views = batch.views if isinstance(batch, _NetBatch) else _Views.of(batch)
        damaged = bool(batch.dropout[:n].any())  # read on the host: no device synchronisation
        with torch.inference_mode():
            self._forward(views, n, damaged)

    def _forward(self, views: _Views, n: int, damaged: bool) -> None:
        size = self.chunk or n
        for start in range(0, n, size):
            self._forward_rows(views, start, min(n, start + size), damaged)
        if self.device.type == "cuda":
            torch.cuda.current_stream(self.device).synchronize()

    def _forward_rows(self, views: _Views, start: int, stop: int, damaged: bool) -> None:
        """Priors and values of rows start..stop-1, in one forward of `chunk` rows when it is set."""
        dev, pad = self.device, (self.chunk - (stop - start) if self.chunk else 0)

        def rows(tensor):
            part = tensor[start:stop].to(dev, non_blocking=True)
            return torch.cat([part, part.new_zeros((pad, *part.shape[1:]))]) if pad else part

        x, legal = rows(views.planes), rows(views.legal)
        dropout = rows(views.dropout) if damaged else None
        keys = rows(views.keys) if damaged else None
        autocast = (
            torch.autocast(dev.type, dtype=self.dtype) if self.dtype != torch.float32 else contextlib.nullcontext()
        )
        with autocast:
            logits, value = self.model(x, dropout, keys)
        logits = logits.float().masked_fill(~legal, -torch.inf)
        priors = torch.where(legal, torch.softmax(logits, dim=1), 0.0)  # a row with no legal action: NaN -> 0
        n = stop - start
        views.priors[start:stop].copy_(priors[:n], non_blocking=True)
        views.values[start:stop].copy_(value[:n], non_blocking=True)  # float32 whatever the autocast dtype


def check_chunk(chunk: int | None) -> None:
    """A one-line ValueError unless `chunk` is None, 1 or a multiple of 4 rows: a row's bits held wherever it sat in
    forwards of 4 to 128 rows that are multiples of 4 and moved with its place at 2 and 30 rows (torch 2.13's CPU
    kernels take the rows in blocks; a partial last block is computed otherwise), so other chunks would not keep
    a row's priors and value whatever shares its batch."""
    if chunk is not None and (chunk < 1 or (chunk > 1 and chunk % 4)):
        raise ValueError(f"chunk must be 1 or a multiple of 4 rows (a row's bits then keep to it), got {chunk}")


def _device(name: str) -> torch.device:
    """The torch device for "auto", "cpu", "cuda" or "cuda:N", or a one-line ValueError."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        device = None
    if device is None or device.type not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {name!r}; use auto, cpu, cuda or cuda:N")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but torch sees no CUDA GPU here; use device='cpu' or 'auto'")
    return device


def _dtype(name: str | None, device: torch.device) -> torch.dtype:
    """The autocast dtype: the named one, or the device's default (module docstring)."""
    if name is None:
        if device.type == "cpu":
            return torch.float32
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if name not in _DTYPES:
        raise ValueError(f"unknown dtype {name!r}; known: {', '.join(_DTYPES)}")
    return _DTYPES[name]
