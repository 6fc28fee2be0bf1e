"""The embedded model's float32 weights kept on disk (`float32_cache`), on real files.

A copy of the embedded folder's weights and config is loaded with mlx-lm the
way `runtime` loads it and made float32 through `dequantise_to_float32`: the
first time computes and writes the file, later times read it, and what they
read is bit for bit what was computed. A file cut short, made from other
source weights, or holding other tensors is never read.
"""

from __future__ import annotations

import os
import pathlib
import shutil
from typing import Any

import pytest

from agent_nb.backends.mlx import MLXBackend
from agent_nb.backends.mlx import float32_cache as cache
from agent_nb.backends.mlx.cpu_blas import INSTALL_COMMAND, _is_linux_cpu_wheel, find_openblas
from agent_nb.backends.mlx.runtime import mlx_thread
from agent_nb.backends.mlx.weights import dequantise_to_float32

pytestmark = [
    pytest.mark.mlx,
    pytest.mark.skipif(
        not _is_linux_cpu_wheel() or find_openblas() is None,
        reason=f"float32 weights are the CPU fast path's (`{INSTALL_COMMAND}`)",
    ),
]


@pytest.fixture
def folder(tmp_path: pathlib.Path, mlx_backend: MLXBackend) -> pathlib.Path:
    """The embedded model's weights and config in a folder of this test's own."""
    source = pathlib.Path(mlx_backend.load().path)
    copy = tmp_path / "models" / "smollm2"
    copy.mkdir(parents=True)
    for name in ("config.json", "model.safetensors"):
        shutil.copy2(source / name, copy / name)
    return copy


def _float32(folder: pathlib.Path, cached: bool) -> dict[str, Any]:
    """A fresh quantised load of ``folder`` made float32; its weights by name."""

    def job() -> dict[str, Any]:
        from mlx.utils import tree_flatten
        from mlx_lm.utils import load_model

        model, _ = load_model(folder)
        assert dequantise_to_float32(model, folder if cached else None)
        return dict(tree_flatten(model.parameters()))

    return mlx_thread().call(job)


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    def job() -> bool:
        import mlx.core as mx

        return a.keys() == b.keys() and all(
            a[k].dtype == mx.float32 and bool(mx.array_equal(a[k], b[k])) for k in a
        )

    return mlx_thread().call(job)


def test_written_once_read_bit_for_bit_and_written_again_when_it_does_not_agree(
    folder: pathlib.Path,
) -> None:
    path = cache.cache_file(folder)
    # Beside the folder, not in it: the model identity hashes the folder's files.
    assert path.parent == folder.parent / "float32" and not path.is_relative_to(folder)

    computed = _float32(folder, cached=True)  # a miss: computed, then written
    assert path.is_file()
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left
    size, stamp = path.stat().st_size, path.stat().st_mtime_ns

    assert _same(_float32(folder, cached=True), computed)
    assert path.stat().st_mtime_ns == stamp  # read, not written again

    # A crash while the file was written: the part is never read, the whole is written.
    with open(path, "r+b") as fh:
        fh.truncate(size // 2)
    assert _same(_float32(folder, cached=True), computed)
    assert path.stat().st_size == size
    fingerprint = cache.source_fingerprint(folder)
    assert fingerprint.startswith("model.safetensors:")

    def quantised_load_reads_it() -> bool:
        def job() -> bool:
            from mlx_lm.utils import load_model

            model, _ = load_model(folder, lazy=True)
            return cache.load_cached(model, path, fingerprint)

        return mlx_thread().call(job)

    # A model whose tensors are others (packed weights, scales) does not take the file.
    assert not quantised_load_reads_it()
    # The source weights replaced (a reconversion): another fingerprint, and the file
    # made from the old ones is no longer read.
    weights = folder / "model.safetensors"
    stat = weights.stat()
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert cache.source_fingerprint(folder) != fingerprint
    assert not cache.load_cached(object(), path, cache.source_fingerprint(folder))
    assert not cache.load_cached(object(), folder / "missing.safetensors", fingerprint)
