"""What names an MLX model's outputs: one identity for KV checkpoints and replay keys.

A KV checkpoint may be read back, and a recorded answer replayed, only by the
model that made it: the same weights' files, config and tokenizer, the same
weights dtype, and the same numerics (library versions, device; on the CPU
fast path also the BLAS and whether float32 weights fit, which decide the
weights as loaded). Both are computed here, with no weights loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
from importlib.metadata import PackageNotFoundError, version

from .checkpoint_files import FORMAT, temp_name, unlink
from .runtime import ModelSource, model_folder

__all__ = ["model_identity", "numerics", "package_version", "replay_identity"]


def package_version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def numerics(*, cpu_fast_path: bool = False) -> str:
    """Library versions and device (``cpu_fast_path``: with the CPU's BLAS and memory).
    Import ``mlx.core`` through `mlx_call`, so the BLAS is settled first."""
    import mlx.core as mx

    text = f"mlx {package_version('mlx')}|mlx-lm {package_version('mlx-lm')}|{mx.default_device()}"
    if cpu_fast_path and mx.default_device() == mx.cpu:
        from .cpu_blas import prepare_cpu_blas
        from .weights import physical_memory

        # What `_settle_weights` decides from: the BLAS, and whether float32 fits.
        blas = prepare_cpu_blas()
        text += f"|blas {blas.blas}|fast {blas.fast}|memory {physical_memory()}"
    return text


def _file_digest(path: pathlib.Path, memo: dict[str, str]) -> str:
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    if key not in memo:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        memo[key] = digest.hexdigest()
    return memo[key]


def model_identity(model_dir: pathlib.Path, weights: str, numerics: str, root: pathlib.Path) -> str:
    """A hash of the weights' files, config and tokenizer, the weights dtype and
    ``numerics`` (library versions, device).

    Each file is hashed in full once per (path, size, mtime) and remembered in
    ``root/models.json``, so a multi-gigabyte model costs its hashing time
    once, not at every start.
    """
    memo_path = root / "models.json"
    try:
        memo: dict[str, str] = json.loads(memo_path.read_text())
    except (OSError, ValueError):
        memo = {}
    before = dict(memo)
    digest = hashlib.sha256(f"{FORMAT}|{weights}|{numerics}".encode())
    for path in sorted(model_dir.iterdir()):
        if path.is_file() and (
            path.suffix in (".safetensors", ".json") or path.name == "tokenizer.model"
        ):
            digest.update(f"|{path.name}|{_file_digest(path, memo)}".encode())
    if memo != before:
        root.mkdir(parents=True, exist_ok=True)
        temp = root / temp_name()
        try:
            temp.write_text(json.dumps(memo, indent=0))
            os.replace(temp, memo_path)
        except OSError:
            unlink(temp)
    return digest.hexdigest()[:24]


def replay_identity(source: ModelSource, progress: bool) -> str:
    """The identity replay keys carry (`MLXBackend.replay_identity`); "" for a model
    that is not a local folder. Called through `mlx_call`."""
    from .embedded import cache_root

    folder = model_folder(source, progress=progress)
    if folder is None or not folder.is_dir():
        return ""
    text = numerics(cpu_fast_path=True)
    return "mlx:" + model_identity(folder, "as loaded", text, cache_root() / "kv")
