"""The networks shipped with sparring, and the evaluator that `az:net=NET` names: one of `NET_FREE`, or a
checkpoint (a shipped net's name or a file) evaluated by `nets.NetEvaluator`. tests/test_evaluator.py runs the
evaluator protocol's conformance suite over each of them.

A shipped net is `nets/shipped/NAME.pt`, NAME a game's name (its default net) or any other name.
This module imports neither torch nor the rest of `nets` until a network is loaded, so checking a
spec (`tuner.agents.check_spec`) or listing the games that have a net never pays for torch.
"""

from __future__ import annotations

from pathlib import Path

import games
from search.evaluator import Evaluator, UniformEvaluator

NET_FREE = {  # the net-free evaluators an `az` agent can play with, by their `net=` name
    "uniform": lambda: UniformEvaluator(value="zero"),  # uniform priors, value 0
    "playout": lambda: UniformEvaluator(value="playout"),  # uniform priors, one random playout's result
}
SHIPPED = Path(__file__).resolve().parent / "shipped"


def shipped_nets() -> dict[str, Path]:
    """The trained networks shipped with sparring (nets/shipped/NAME.pt) by name."""
    return {p.stem: p for p in sorted(SHIPPED.glob("*.pt"))}


def resolve_net(net: str | None, game: games.Game) -> str:
    """What `az:net=NET` names for `game`: uniform / playout, a shipped net's path (NET a shipped name,
    or left out: the game's own), or a checkpoint's path; anything else is a one-line ValueError."""
    if net in NET_FREE:
        return net
    shipped = shipped_nets()
    names = ", ".join(shipped) or "none"
    if net is None:
        if game.name in shipped:
            return str(shipped[game.name])
        raise ValueError(
            f"az needs net=PATH (a checkpoint) or a shipped net's name (shipped: {names}; none for "
            f"{game.name}), or net=uniform / net=playout"
        )
    if net in shipped:
        return str(shipped[net])
    if not Path(net).is_file():
        raise ValueError(
            f"no network at {net!r} and no shipped net of that name (shipped: {names}): give a "
            "checkpoint's path, a shipped net's name, or net=uniform / net=playout"
        )
    return net


def make_evaluator(net: str | None, game: games.Game, *, device: str = "auto") -> Evaluator:
    """The evaluator of `az:net=NET` (see `resolve_net`): `uniform` (value 0) or `playout` without a
    network, else the checkpoint, which must be for `game`, on `device`; a net that cannot be had is a
    one-line ValueError. Its draws depend only on each row's key, a draw of that row's game: a game
    plays the same whichever games share the evaluator."""
    net = resolve_net(net, game)
    if net in NET_FREE:
        return NET_FREE[net]()
    from nets.checkpoint import load
    from nets.evaluator import NetEvaluator

    return NetEvaluator(load(net, game=game.name), device=device)
