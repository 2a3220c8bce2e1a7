"""OptunaHub package: sparring's EASampler, one source of truth in tuner.samplers (sparring installed)."""

from tuner.samplers import EASampler

__all__ = ["EASampler"]
