"""Network checkpoints: one file holding the weights and everything needed to rebuild and trust them.

A checkpoint is a torch zip file (torch.save) of one dict:

    {"sparring_checkpoint": FORMAT_VERSION,     # int; what makes the file ours
     "meta": "<JSON text>",                     # format_version, game, size, filters, blocks, planes,
                                                # board_shape, num_actions, the heads' sizes, provenance
     "state_dict": {name: tensor}}

The metadata is JSON text so that `torch.load(weights_only=True)` reads it without unpickling any
Python object, and so that the caller's free-form `provenance` (training command, seed, commit,
versions) must be plain data. `save` writes a temporary file in the target's folder and renames it
over the target (os.replace), so a crash never leaves a half-written checkpoint under the real name.
`load` checks the zip's CRC32 of every member first, which catches truncation and flipped bytes in
the weights, and maps tensors to the requested device, so a checkpoint saved on a GPU loads on a
machine without one.

Every failure of `load` is one line, raised as CheckpointError (a ValueError), saying what is wrong
with which file and what to do.
"""

from __future__ import annotations

import json
import os
import pickle
import uuid
import zipfile
from dataclasses import MISSING, asdict, fields
from pathlib import Path

import torch

import games
from nets.model import ARCHITECTURES, INPUT_PLANES, Arch, PolicyValueNet

FORMAT_VERSION = 1
_MARK = "sparring_checkpoint"
_CREATE = "create one with `sparring net init {game} --out PATH`"


class CheckpointError(ValueError):
    """A checkpoint that cannot be loaded; the message is one line saying why and what to do."""


def save(path: str | os.PathLike, model: PolicyValueNet, provenance: dict | None = None) -> dict:
    """Write `model`'s weights and metadata to `path` atomically; return the metadata written.

    Args:
        path: the checkpoint file (conventionally *.pt); its folder must exist.
        model: the network; its `arch` gives the architecture part of the metadata.
        provenance: free-form plain data (JSON types) saying what produced the weights, e.g.
            {"command": ..., "seed": ..., "commit": ..., "versions": ...}.

    Raises ValueError (before touching `path`) if provenance is not plain JSON data.
    """
    meta = {"format_version": FORMAT_VERSION, **asdict(model.arch), "provenance": dict(provenance or {})}
    try:
        text = json.dumps(meta, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"checkpoint provenance must be plain JSON data (str, number, bool, list, dict): {e}") from e
    state = {k: v.detach() for k, v in model.state_dict().items()}
    write_atomically(path, lambda f: torch.save({_MARK: FORMAT_VERSION, "meta": text, "state_dict": state}, f))
    return json.loads(text)


def write_atomically(path: str | os.PathLike, write) -> None:
    """Call write(f) on a new binary file beside `path`, flush it to disk, and rename it over `path`:
    a crash leaves either the old file or the new one, never a half-written one."""
    path = Path(path)
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"  # same folder, so os.replace is atomic
    try:
        with open(tmp, "xb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def load(path: str | os.PathLike, *, game: str | None = None, device: str | torch.device = "cpu") -> PolicyValueNet:
    """The network stored at `path`, on `device`, in eval mode, with its metadata as `.meta`.

    Args:
        path: a file written by `save`.
        game: if given, the game the checkpoint must be for.
        device: where the weights go ("cpu", "cuda", ...), whatever device they were saved from.

    Returns:
        the PolicyValueNet; `.meta` is the dict `save` returned, `.arch` its architecture.

    Raises:
        CheckpointError: the file is missing, not a sparring checkpoint, corrupt or truncated, of
            another format version, for another game than `game`, or no longer fits its game.
    """
    path = Path(path)
    hint = _CREATE.format(game=game or "GAME")
    blob = _read(path, device, hint)
    if not isinstance(blob, dict) or _MARK not in blob:
        raise CheckpointError(f"{path} is not a sparring checkpoint (a torch file without sparring's header): {hint}")
    version = blob[_MARK]
    if version != FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {path} has format version {version}, this sparring reads version {FORMAT_VERSION}: "
            f"use the sparring release that wrote it, or {hint}"
        )
    try:
        meta = json.loads(blob["meta"])
        values = {f.name: meta[f.name] for f in fields(Arch) if f.name in meta or f.default is MISSING}
        arch = Arch(**{**values, "board_shape": tuple(values["board_shape"])})
        state = blob["state_dict"]
    except (KeyError, TypeError, ValueError) as e:
        raise CheckpointError(f"checkpoint {path} has damaged metadata ({_one_line(e)}): {hint}") from e
    if game is not None and arch.game != game:
        raise CheckpointError(f"checkpoint {path} is for {arch.game}, not {game}: pass a {game} net or {hint}")
    if arch.kind not in ARCHITECTURES:
        raise CheckpointError(
            f"checkpoint {path} holds a {arch.kind!r} net, which this sparring does not know "
            f"(known: {', '.join(ARCHITECTURES)}): {hint}"
        )
    _check_fits_game(path, arch, hint)
    model = ARCHITECTURES[arch.kind](arch).to(device)
    try:
        model.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as e:
        raise CheckpointError(
            f"checkpoint {path} has weights that do not fit its architecture ({_one_line(e)}): {hint}"
        ) from e
    model.meta = meta
    return model.eval()


def _read(path: Path, device: str | torch.device, hint: str) -> object:
    """torch.load(weights_only=True) of `path`, each way of failing turned into one CheckpointError."""
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist: check the path, or {hint}")
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} is not a file: give the path of a .pt file, or {hint}")
    with open(path, "rb") as f:
        head = f.read(4)
    if head != b"PK\x03\x04":  # every torch.save since torch 1.6 is a zip archive
        raise CheckpointError(f"{path} is not a sparring checkpoint (not a torch zip file): {hint}")
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()  # reads every member and checks its CRC32
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        why = _one_line(e)
        raise CheckpointError(f"checkpoint {path} is corrupt or truncated ({why}): copy it again, or {hint}") from e
    if bad is not None:
        raise CheckpointError(f"checkpoint {path} is corrupt (member {bad} fails its CRC): copy it again, or {hint}")
    try:
        return torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError as e:
        raise CheckpointError(
            f"{path} is not a sparring checkpoint (it holds Python objects, not plain weights): {hint}"
        ) from e
    except (RuntimeError, EOFError, KeyError, ValueError) as e:
        raise CheckpointError(f"checkpoint {path} is corrupt ({_one_line(e)}): copy it again, or {hint}") from e


def _check_fits_game(path: Path, arch: Arch, hint: str) -> None:
    """CheckpointError if the game's planes, board or actions are no longer what the checkpoint was built for."""
    try:
        g = games.load(arch.game)
    except ValueError as e:
        raise CheckpointError(f"checkpoint {path} is for a game this sparring does not know: {e}") from e
    then = (arch.planes, arch.board_shape, arch.num_actions)
    now = (INPUT_PLANES, tuple(g.board_shape), g.num_distinct_actions())
    if then != now:
        raise CheckpointError(
            f"checkpoint {path} was built for {arch.game} with (planes, board, actions) {then}, but {arch.game} "
            f"now has {now}: {hint}"
        )


def _one_line(e: BaseException, limit: int = 200) -> str:
    """An exception's message on one line, whitespace collapsed, at most `limit` characters."""
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
