"""Loading weights into flowvision models: from a local file or the cache directory.

There is no download: ``pretrained=True`` looks for ``<name>.of`` (a file written by
``oneflow.save(model.state_dict(), ...)``) or ``<name>.npz`` in the cache directory,
``$FLOWVISION_CACHE`` or ``~/.cache/flowvision``. A torchvision checkpoint becomes such
a file with :func:`flowvision.utils.convert_torch_checkpoint`.
"""

from __future__ import annotations

import os

import numpy as np

import oneflow

__all__ = ["cache_dir", "load_checkpoint", "load_pretrained"]


def cache_dir() -> str:
    """Where pretrained weights are looked for: ``$FLOWVISION_CACHE`` or ``~/.cache/flowvision``."""
    return os.environ.get("FLOWVISION_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "flowvision")


def _read_state_dict(path: str) -> dict:
    if path.endswith(".npz"):
        with np.load(path) as archive:
            return {k: archive[k] for k in archive.files}
    state = oneflow.load(path)
    if isinstance(state, dict) and "state_dict" in state and isinstance(state["state_dict"], dict):
        state = state["state_dict"]
    if isinstance(state, dict) and "model" in state and isinstance(state["model"], dict):
        state = state["model"]
    if not isinstance(state, dict):
        raise RuntimeError(f"{path}: expected a state dict (a dict of tensors or arrays), got {type(state).__name__}")
    return state


def load_checkpoint(model, path: str, strict: bool = True):
    """Loads the state dict in ``path`` (a ``oneflow.save`` file or an ``.npz``) into ``model``.

    A state dict for a different number of classes or another variant raises a
    RuntimeError naming each key whose shape differs, with both shapes.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"checkpoint {path} does not exist")
    state = _read_state_dict(path)
    return model.load_state_dict(state, strict=strict)


def load_pretrained(model, name: str, progress: bool = True):
    """Loads the cached pretrained weights of model ``name`` into ``model`` and returns it."""
    del progress  # nothing is downloaded, so there is no progress to show
    root = cache_dir()
    candidates = [os.path.join(root, name + ext) for ext in (".of", ".npz")]
    for path in candidates:
        if os.path.exists(path):
            load_checkpoint(model, path)
            return model
    raise FileNotFoundError(
        f"pretrained weights for {name!r} not found; looked for {' and '.join(candidates)} "
        f"(set FLOWVISION_CACHE to another directory). There is no download: convert a torchvision "
        f"checkpoint once with flowvision.utils.convert_torch_checkpoint('{name}.pth', "
        f"'{candidates[0]}') (needs torch), or pass checkpoint=<path> to ModelCreator.create_model."
    )
