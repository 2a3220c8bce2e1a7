"""OptunaHub package: sparring's LSISampler, one source of truth in tuner.samplers (sparring installed)."""

from tuner.samplers import LSISampler

__all__ = ["LSISampler"]
