"""MLX fixtures: the embedded model converted once, one loaded backend per test run.

Loading SmolLM2 costs seconds and the CPU build decodes a few tokens per
second, so every MLX test shares one `MLXBackend` (the weights are loaded once
per process anyway). Each test gets its own `AgentRunner` around it; a
runner's shutdown frees its KV caches but leaves the backend usable.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

from agent_nb import AgentRunner
from agent_nb.backends.mlx import MLXBackend
from agent_nb.backends.mlx.embedded import ensure_embedded_model

__all__ = ["cache_info", "embedded_model_dir", "mlx_backend", "mlx_runner"]


@pytest.fixture(scope="session")
def embedded_model_dir() -> pathlib.Path:
    """The converted SmolLM2 mlx-lm folder (converted on first use, then cached)."""
    return ensure_embedded_model(progress=False)


@pytest.fixture(scope="session")
def mlx_backend(embedded_model_dir: pathlib.Path) -> Iterator[MLXBackend]:
    """The embedded model, loaded once and shared by every MLX test."""
    backend = MLXBackend("smollm2-135m", progress=False)
    backend.load()
    yield backend
    backend.close()


@pytest.fixture
def mlx_runner(mlx_backend: MLXBackend) -> Iterator[AgentRunner]:
    """A fresh runner on the shared MLX backend, shut down after the test."""
    runner = AgentRunner(model=mlx_backend)
    yield runner
    runner.shutdown()


def cache_info(backend: MLXBackend, cache: str) -> dict[str, Any]:
    """What a test checks of one KV cache: its token ids count, the cache's own offset
    (equal to the count when consistent), its bytes, and whether a turn uses it."""
    slot = backend._kv.get(cache)
    if slot is None:
        return {"tokens": 0, "offset": 0, "bytes": 0, "busy": False}
    return {
        "tokens": len(slot.tokens),
        "offset": slot.offset(),
        "bytes": slot.nbytes,
        "busy": slot.busy,
    }
