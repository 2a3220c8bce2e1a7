"""Tree searches (UCT, MAST, GRAVE, PUCT), minimax and random players, move choice and strength adjusters."""
