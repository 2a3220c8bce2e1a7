"""Policy-value networks and their checkpoints: the torch layer of sparring.

    import nets
    net = nets.build("connect4", "small")        # [AlphaDDA App. 1, Table A1], body narrowed to 32 filters
    logits, value = net(planes, dropout=p)        # planes [B, 3, 6, 7] -> [B, 7], [B]; p [B] per row (AlphaDDA2)
    nets.save("c4.pt", net, {"seed": 0})          # weights + metadata + provenance, written atomically
    net = nets.load("c4.pt", game="connect4")     # eval mode, net.meta, net.arch
    ev = nets.NetEvaluator(net, device="auto")    # search.evaluator.Evaluator: batch = ev.new_batch(game, 256),
                                                  # fill rows, ev.evaluate(batch, n) -> batch.priors, batch.values

`model` holds the network and its sizes, `checkpoint` the one-file format, `evaluator` the batched
evaluator the searches call (DESIGN §8). Importing this package changes no global torch setting
(threads, seeds, default dtype).
"""

from nets.checkpoint import FORMAT_VERSION, CheckpointError, load, save
from nets.evaluator import NetEvaluator
from nets.model import INPUT_PLANES, MAX_DROPOUT, SIZES, Arch, PolicyValueNet, build, row_dropout
from search.evaluator import register_net_loader


def _evaluator_for(net: str, game, device: str) -> NetEvaluator:
    """`az:net=PATH`: the checkpoint at PATH, which must be for `game`, evaluated on `device`."""
    return NetEvaluator(load(net, game=game.name), device=device)


register_net_loader(_evaluator_for)

__all__ = [
    "FORMAT_VERSION",
    "INPUT_PLANES",
    "MAX_DROPOUT",
    "SIZES",
    "Arch",
    "CheckpointError",
    "NetEvaluator",
    "PolicyValueNet",
    "build",
    "load",
    "row_dropout",
    "save",
]
