"""Policy-value networks, the batched evaluator, self-play training and checkpoints."""
