"""Policy-value networks and their checkpoints: the torch layer of sparring.

    import nets
    net = nets.build("connect4", "small")        # [AlphaDDA App. 1, Table A1], body narrowed to 64 filters
    logits, value = net(planes, dropout=p)        # planes [B, 3, 6, 7] -> [B, 7], [B]; p [B] per row (AlphaDDA2)
    nets.save("c4.pt", net, {"seed": 0})          # weights + metadata + provenance, written atomically
    net = nets.load("c4.pt", game="connect4")     # eval mode, net.meta, net.arch

`model` holds the network and its sizes, `checkpoint` the one-file format. Importing this package
changes no global torch setting (threads, seeds, default dtype).
"""

from nets.checkpoint import FORMAT_VERSION, CheckpointError, load, save
from nets.model import INPUT_PLANES, MAX_DROPOUT, SIZES, Arch, PolicyValueNet, build, row_dropout

__all__ = [
    "FORMAT_VERSION",
    "INPUT_PLANES",
    "MAX_DROPOUT",
    "SIZES",
    "Arch",
    "CheckpointError",
    "PolicyValueNet",
    "build",
    "load",
    "row_dropout",
    "save",
]
