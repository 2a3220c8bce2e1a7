"""Policy-value networks and their checkpoints: the torch layer of sparring.

    import nets
    net = nets.build("connect4", "small")        # [AlphaDDA App. 1, Table A1], body narrowed to 32 filters
    logits, value = net(planes, dropout=p)        # planes [B, 3, 6, 7] -> [B, 7], [B]; p [B] per row (AlphaDDA2)
    nets.save("c4.pt", net, {"seed": 0})          # weights + metadata + provenance, written atomically
    net = nets.load("c4.pt", game="connect4")     # eval mode, net.meta, net.arch
    ev = nets.NetEvaluator(net, device="auto")    # search.evaluator.Evaluator: batch = ev.new_batch(game, 256),
                                                  # fill rows, ev.evaluate(batch, n) -> batch.priors, batch.values

`model` holds the network and its sizes, `checkpoint` the one-file format, `evaluator` the batched
evaluator the searches call (DESIGN §8), `shipped` the shipped nets and what `az:net=...` names.
Importing this package imports nothing until a name is used (torch only with the first network), and
changes no global torch setting (threads, seeds, default dtype).
"""

_CHECKPOINT = ("FORMAT_VERSION", "CheckpointError", "load", "save")
_MODEL = ("ARCHITECTURES", "INPUT_PLANES", "MAX_DROPOUT", "SIZES", "Arch", "PolicyValueNet", "build", "row_dropout")
_SHIPPED = ("make_evaluator", "shipped_nets")
__all__ = sorted((*_CHECKPOINT, *_MODEL, *_SHIPPED, "NetEvaluator"))


def __getattr__(name):
    """Each name imported from its module on first use: `import nets.shipped` alone needs no torch."""
    if name in _CHECKPOINT:
        from nets import checkpoint as module
    elif name in _MODEL:
        from nets import model as module
    elif name in _SHIPPED:
        from nets import shipped as module
    elif name == "NetEvaluator":
        from nets import evaluator as module
    else:
        raise AttributeError(f"module 'nets' has no attribute {name!r}")
    return getattr(module, name)
