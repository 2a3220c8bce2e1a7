"""A strategy's arrays as JSON text: exact bytes, deflated and base64 (Strategy.state_dict, CMAES.state_dict)."""

from __future__ import annotations

import base64
import zlib

import numpy as np


def pack(array: np.ndarray) -> dict:
    """An array as JSON: dtype, shape and its bytes (little-endian, deflated, base64): exact and small."""
    data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return {"dtype": array.dtype.str.lstrip("<>|="), "shape": list(array.shape), "data": deflate(data)}


def unpack(packed, like: np.ndarray, name: str) -> np.ndarray:
    """The array `pack` gave, which must have `like`'s dtype and shape; ValueError in one line otherwise."""
    shape = list(like.shape)
    if (
        not isinstance(packed, dict)
        or packed.get("dtype") != like.dtype.str.lstrip("<>|=")
        or packed.get("shape") != shape
    ):
        raise ValueError(f"a saved strategy's {name} is not a {like.dtype} array of shape {shape}")
    try:
        data = inflate(packed["data"], like.nbytes)
        return np.frombuffer(data, dtype=like.dtype.newbyteorder("<")).reshape(like.shape).astype(like.dtype)
    except (ValueError, TypeError, zlib.error) as error:
        raise ValueError(f"a saved strategy's {name} does not decode: {error}") from None


def deflate(data: bytes) -> str:
    """Bytes as text: deflated (level 1: a state is saved at every move of a game) and base64."""
    return base64.b64encode(zlib.compress(data, 1)).decode("ascii")


def inflate(text, most: int) -> bytes:
    """`deflate`'s bytes back, refusing more than `most` of them (a damaged text cannot claim much memory)."""
    if not isinstance(text, str):
        raise ValueError("its data is not text")
    inflater = zlib.decompressobj()
    data = inflater.decompress(base64.b64decode(text, validate=True), most)
    if inflater.unconsumed_tail or not inflater.eof:
        raise ValueError(f"it holds more than {most} bytes, or is cut short")
    return data
