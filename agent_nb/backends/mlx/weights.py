"""The weight format on MLX's CPU fast path: quantised layers become float32.

MLX's quantised matmul on the CPU is not vectorised, while a float32
``nn.Linear``/``nn.Embedding`` is one sgemm call -- fast once OpenBLAS serves
it (`cpu_blas`), slow on the bundled reference BLAS. So the weights are
dequantised exactly when OpenBLAS won, at load, once per process.

The scales and biases are widened to float32 *before* dequantising, so each
weight is exactly ``q * scale + bias`` (no float16 rounding on the way), and
the rest of the model (norms, a float16 embedding) is cast to float32 too, so
every matmul is an sgemm.

A quantised model grows about eight times in float32 (the embedded 135M
model: 98 MB -> 538 MB). Models whose float32 weights would take more than a
quarter of the machine's memory stay quantised: slower, but they still fit.

The embedded model's float32 weights are written to disk after its first
dequantisation and read back by later loads (`float32_cache`).
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

__all__ = [
    "dequantise_to_float32",
    "float32_bytes",
    "physical_memory",
    "weight_bytes",
    "weight_format",
]

#: The largest share of physical memory float32 weights may take.
MEMORY_SHARE = 0.25


def _quantised_modules(model: Any) -> list[Any]:
    return [m for _, m in model.named_modules() if "scales" in m and hasattr(m, "bits")]


def _flat(parameters: Any) -> list[tuple[str, Any]]:
    from mlx.utils import tree_flatten

    flat: Any = tree_flatten(parameters)
    return list(flat)


def weight_bytes(model: Any) -> int:
    """Bytes of every parameter (packed weights, scales and biases included)."""
    return sum(int(v.nbytes) for _, v in _flat(model.parameters()))


def weight_format(model: Any) -> str:
    """``"quantised"`` if any layer is, else the dtype of most parameter bytes."""
    if _quantised_modules(model):
        return "quantised"
    by_dtype: dict[str, int] = {}
    for _, value in _flat(model.parameters()):
        name = str(value.dtype).rsplit(".", 1)[-1]
        by_dtype[name] = by_dtype.get(name, 0) + int(value.nbytes)
    return max(by_dtype, key=by_dtype.__getitem__) if by_dtype else "empty"


def float32_bytes(model: Any) -> int:
    """What the weights would take with every layer dequantised to float32."""
    total = 0
    for _, module in model.named_modules():
        quantised = "scales" in module and hasattr(module, "bits")
        for name, value in _flat(module.parameters()):
            if "." in name:  # a child module's parameter: counted with the child
                continue
            if quantised and name in ("scales", "biases"):
                continue
            size = int(value.size)
            if quantised and name == "weight":
                size = size * 32 // int(module.bits)
            total += 4 * size
    return total


def physical_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def dequantise_to_float32(model: Any, cached_from: pathlib.Path | None = None) -> bool:
    """Turn ``model``'s quantised layers into float32 ones, in place.

    ``cached_from`` names the model folder whose float32 weights are kept on
    disk (`float32_cache`): read from there when they agree with this model,
    else computed and written there for the next load.

    Returns False (and leaves the model as it is) when the float32 weights
    would take more than `MEMORY_SHARE` of physical memory.
    """
    import mlx.core as mx
    from mlx_lm.utils import dequantize_model

    from . import float32_cache

    memory = physical_memory()
    if memory is not None and float32_bytes(model) > MEMORY_SHARE * memory:
        return False
    for module in _quantised_modules(model):
        module.scales = module.scales.astype(mx.float32)
        if getattr(module, "biases", None) is not None:
            module.biases = module.biases.astype(mx.float32)
    # Lazy until evaluated: weights read from the cache replace the dequantisation
    # before any of it is computed.
    dequantize_model(model)
    model.set_dtype(mx.float32)
    if cached_from is None:
        mx.eval(model.parameters())
        return True
    cache = float32_cache.cache_file(cached_from)
    fingerprint = float32_cache.source_fingerprint(cached_from)
    hit = float32_cache.load_cached(model, cache, fingerprint)
    mx.eval(model.parameters())
    if not hit:
        float32_cache.save_cached(model, cache, fingerprint)
    return True
