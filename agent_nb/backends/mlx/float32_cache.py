"""The embedded model's float32 weights, kept on disk after the first dequantisation.

Dequantising the embedded model's 135M weights (`weights.dequantise_to_float32`)
costs about 1.2 s of CPU at every load: every kernel, every script, every
notebook pays it before its first token. Reading the same float32 weights
back from one safetensors file costs a third of that (the file is in the page
cache after the first load), so the first fast-path load writes them
(``<cache root>/float32/<model folder name>.safetensors``, 538 MB) and later
loads read them instead of computing them.

The file sits beside the model folder, not in it: the model identity
(`model_identity`) hashes the folder's ``.safetensors`` files, and a file
that appears after the first load must not change the identity of the
checkpoints and replay keys made before it.

A file is used only if everything about it agrees with the model just built:
the source weights it was made from (names, sizes and mtimes of the folder's
``model*.safetensors``), the format version, its length (a file cut short
by a crash is never read), and every tensor's name, shape and dtype.
Anything else is a miss: the weights are dequantised as before and the file
is written again, under a temporary name renamed into place, so two
processes loading at once never read each other's half file.
"""

from __future__ import annotations

import json
import os
import pathlib
import struct
import tempfile
from typing import Any

__all__ = ["FORMAT", "cache_file", "load_cached", "save_cached", "source_fingerprint"]

#: Bumped when what the file holds changes meaning.
FORMAT = "agent_nb-float32-weights-1"


def cache_file(model_dir: pathlib.Path) -> pathlib.Path:
    """Where ``model_dir``'s float32 weights are kept: a ``float32`` folder beside it."""
    return model_dir.parent / "float32" / f"{model_dir.name}.safetensors"


def source_fingerprint(model_dir: pathlib.Path) -> str:
    """The quantised weights the float32 file is made from: names, sizes, mtimes."""
    parts = []
    for path in sorted(model_dir.glob("model*.safetensors")):
        stat = path.stat()
        parts.append(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "|".join(parts)


def _complete(path: pathlib.Path) -> bool:
    """Whether the file is as long as its header says (a cut-short file is not)."""
    try:
        with open(path, "rb") as fh:
            (length,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(length))
        end = max(
            (entry["data_offsets"][1] for key, entry in header.items() if key != "__metadata__"),
            default=0,
        )
        return bool(path.stat().st_size == 8 + length + end)
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return False


def load_cached(model: Any, path: pathlib.Path, fingerprint: str) -> bool:
    """Put the file's weights into ``model`` (already dequantised, not yet evaluated);
    False, with ``model`` untouched, when the file is missing or does not agree."""
    import mlx.core as mx
    from mlx.utils import tree_flatten

    if not _complete(path):
        return False
    try:
        loaded: Any = mx.load(str(path), return_metadata=True)
    except (OSError, RuntimeError, ValueError):
        return False
    arrays, metadata = loaded
    if metadata.get("format") != FORMAT or metadata.get("source") != fingerprint:
        return False
    wanted = dict(tree_flatten(model.parameters()))
    if arrays.keys() != wanted.keys():
        return False
    for name, array in arrays.items():
        if array.shape != wanted[name].shape or array.dtype != mx.float32:
            return False
    model.load_weights(list(arrays.items()), strict=True)
    return True


def save_cached(model: Any, path: pathlib.Path, fingerprint: str) -> None:
    """Write ``model``'s (evaluated) weights for the next load. A folder that cannot
    be written to only costs the next load its dequantisation."""
    import mlx.core as mx
    from mlx.utils import tree_flatten

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=".", suffix=".safetensors", dir=path.parent)
        os.close(handle)
    except OSError:
        return
    try:
        weights = dict(tree_flatten(model.parameters()))
        mx.save_safetensors(temp, weights, {"format": FORMAT, "source": fingerprint})
        os.replace(temp, path)
    except (OSError, RuntimeError, ValueError):
        pass
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
