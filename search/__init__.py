"""Tree searches (UCT, MAST, GRAVE, AlphaZero's PUCT), minimax, move choice and strength adjusters.

This layer knows games (`games`) and nothing above: it declares what it needs of the layers above as
protocols (`search.evaluator.Evaluator`, `search.allocation.AllocationSteps`) and receives their
implementations as arguments. Agents are built from spec strings by `tuner.agents`.

`search.mcts` (UCT, GRAVE, MAST in one compiled loop), `search.puct` (AlphaZero's batched search),
`search.minimax`, `search.move_choice` (softmax-z), `search.strength` (Wu et al.'s adjusters),
`search.alphadda` (AlphaDDA1-3), and the players over them: `search.agents`, `search.az`, `search.perfect`.
"""
