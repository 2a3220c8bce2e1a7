"""Allocation strategies, on-line and off-line tuning, the arena, ratings, reports and the command line."""
