"""The top layer: tuning, the composition of agents, matches, studies, play and the command line.

Everything here sits above `games`, `search` and `nets` (docs/architecture.md; tests/test_layers.py), in this order:
`tuner.provenance` (what produced a number), `tuner.strategies` (allocation strategies and spaces, whose
compiled steps the search is handed), `tuner.samplers` (the strategies as Optuna samplers), `tuner.agents`
(spec strings to agents: the composition root), `tuner.match`, `tuner.yardsticks`, `tuner.study`,
`tuner.play` and `tuner.cli`. This package imports none of them itself.
"""
