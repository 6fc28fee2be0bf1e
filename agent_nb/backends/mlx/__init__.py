"""The MLX backend (the default): Metal on Apple silicon, ``mlx[cpu]`` on Linux.

`MLXBackend` is the face; the pieces live beside it: the MLX thread and model
loading (`runtime`), chat rendering (`chat`), token generation (`generate`),
per-session KV caches (`kv`), the Linux CPU fast path (`cpu_blas`, `weights`)
and the embedded SmolLM2 model (`embedded`). Importing this package imports
no mlx; that waits for the first model load.
"""

from .backend import (
    CPU_PREFILL_CHUNK_S,
    DEFAULT_KV_BUDGET_BYTES,
    MAX_PREFILL_STEP,
    MLXBackend,
    from_spec,
)

__all__ = [
    "CPU_PREFILL_CHUNK_S",
    "DEFAULT_KV_BUDGET_BYTES",
    "MAX_PREFILL_STEP",
    "MLXBackend",
    "from_spec",
]
