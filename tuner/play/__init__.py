"""Playing against an adaptive opponent: the embeddable `Opponent`, player `Profiles`, the terminal session
(`sparring play`) and the local web page (`sparring serve`)."""

from tuner.play.opponent import DEFAULT_SPEC, Opponent, OutOfTurn, Turn, describe_strength
from tuner.play.profiles import Profile, ProfileError, Profiles

__all__ = ["DEFAULT_SPEC", "Opponent", "OutOfTurn", "Profile", "ProfileError", "Profiles", "Turn", "describe_strength"]
