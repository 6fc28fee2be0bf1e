"""Attention on MLX's CPU path: sgemm plus a vectorised softmax, for long prompts.

MLX has no fused attention kernel for the CPU: ``mx.fast.scaled_dot_product_attention``
falls back to composed ops there, and its ``exp`` is scalar (about 30 M
elements/s on the project machine, against 500 M for numpy's SIMD ``exp``).
A causal prefill of n tokens takes n²/2 exponentials per head and layer, so
past a few hundred tokens the softmax, not the matmuls, sets the pace: a
5,000-token prompt spent most of its 80 s there.

`attention` computes the same thing with numpy on zero-copy views of the MLX
arrays: both matmuls are single sgemm calls with grouped-query attention
folded into their shape (the query heads that share a key head become rows
of one matrix, so keys and values are never repeated), the softmax runs in
place (one array the size of the scores, no mask array: the causal triangle
exists only in the last block of columns), and the row sums come from the
softmax pass, not from a divide over the scores.

It is installed (`install`) in place of ``scaled_dot_product_attention`` in the
loaded model's own mlx-lm module, and only in a process whose MLX runs on the
CPU; each call still checks that it is on the CPU with float32 arrays and a
mask it knows (none, or ``"causal"``) and hands anything else -- quantised KV
caches, attention sinks, sliding-window masks, small shapes where the MLX
path is as fast -- to mlx-lm's own function. Metal and CUDA builds never
install it, so they keep their fused kernels. ``AGENT_NB_CPU_ATTENTION=0``
keeps mlx-lm's attention on the CPU too.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "MIN_ACTIVATIONS",
    "MIN_SCORES",
    "TILE_BYTES",
    "attention",
    "cpu_attention_enabled",
    "install",
    "set_enabled",
    "swiglu",
]

#: Below this many scores (heads x queries x keys) MLX's own path is as fast:
#: the numpy path costs an evaluation barrier per layer, which also ends the
#: overlap of a decode step with detokenizing. Measured on the embedded model:
#: at 1 query the two meet around 4,000 keys x 9 heads.
MIN_SCORES = 32_768
#: The same for SwiGLU: MLX's CPU ``sigmoid`` is scalar too, but one decode
#: token's activations are too few to pay for the barrier.
MIN_ACTIVATIONS = 16_384

#: The most bytes of scores one tile makes (all heads of the tile's queries).
#: Measured on the project machine (2 MiB L2 per core, 32 MiB L3), 512-query
#: chunks at 5,000 tokens: untiled 181 tok/s, 4 MiB tiles 176 (per-tile
#: overhead), 16-24 MiB 200-250, 32 MiB 221.
TILE_BYTES = 16 << 20

_enabled = True
_masks: dict[int, Any] = {}
_masks_lock = threading.Lock()


def cpu_attention_enabled() -> bool:
    """``$AGENT_NB_CPU_ATTENTION``: unset or ``1`` (default), or ``0`` (mlx-lm's)."""
    raw = os.environ.get("AGENT_NB_CPU_ATTENTION", "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"AGENT_NB_CPU_ATTENTION must be 0 or 1, got {raw!r}")
    return raw != "0"


def set_enabled(flag: bool) -> bool:
    """Turn the numpy path on or off for this process (benchmarks compare both);
    returns the previous setting."""
    global _enabled
    previous, _enabled = _enabled, bool(flag)
    return previous


def _causal_block(n: int) -> Any:
    """An ``n x n`` additive mask: 0 on and below the diagonal, -inf above."""
    import numpy as np

    with _masks_lock:
        found = _masks.get(n)
        if found is None:
            found = np.triu(np.full((n, n), -np.inf, dtype=np.float32), 1)
            if len(_masks) > 8:
                _masks.clear()
            _masks[n] = found
        return found


def _handles(queries: Any, keys: Any, values: Any, cache: Any, mask: Any, sinks: Any) -> bool:
    import mlx.core as mx

    if not _enabled or sinks is not None or hasattr(cache, "bits"):
        return False
    if mask is not None and not (isinstance(mask, str) and mask == "causal"):
        return False
    if not all(a.dtype == mx.float32 for a in (queries, keys, values)):
        return False
    batch, heads, length, _ = queries.shape
    if heads % keys.shape[1] or keys.shape[2] < length:
        return False
    if batch * heads * length * keys.shape[2] < MIN_SCORES:
        return False
    return bool(mx.default_device() == mx.cpu)


def _tiled_attention(
    queries: Any, keys: Any, values: Any, scale: float, causal: bool, tile_bytes: int
) -> Any:
    """`_numpy_attention` over tiles of queries whose scores fit in ``tile_bytes``."""
    import mlx.core as mx

    batch, heads, length, _ = queries.shape
    total = keys.shape[2]
    rows = max(1, tile_bytes // (4 * batch * heads * total))
    if rows >= length:
        return _numpy_attention(queries, keys, values, scale, causal)
    first = total - length  # the key position of the first query
    tiles = []
    for start in range(0, length, rows):
        stop = min(length, start + rows)
        # A causal tile's queries see no key past its last query's position.
        end = first + stop if causal else total
        tile = _numpy_attention(
            queries[:, :, start:stop], keys[:, :, :end], values[:, :, :end], scale, causal
        )
        # Evaluated now, while its scores are still in the cache.
        mx.eval(tile)
        tiles.append(tile)
    return mx.concatenate(tiles, axis=2)


def _numpy_attention(queries: Any, keys: Any, values: Any, scale: float, causal: bool) -> Any:
    import mlx.core as mx
    import numpy as np

    batch, heads, length, depth = queries.shape
    kv_heads, total = keys.shape[1], keys.shape[2]
    group = heads // kv_heads
    # The query heads sharing a key head are consecutive: they stack into the
    # rows of one matrix, so keys and values are never repeated. Both matmuls
    # stay in MLX (its sgemm, its BLAS threads): only the softmax leaves.
    q = (queries * scale).reshape(batch, kv_heads, group * length, depth)
    scores = q @ keys.swapaxes(-1, -2)
    mx.eval(scores)
    # A zero-copy, writable view of the scores MLX just made and nothing else
    # holds: the softmax runs on it in place.
    view = np.asarray(scores)
    if not view.flags.writeable or not view.flags.c_contiguous:
        view = np.array(view)
    if causal and length > 1:
        # The queries are the last `length` positions: only the last block of
        # columns holds keys later than some query.
        by_query = view.reshape(batch, kv_heads, group, length, total)
        by_query[..., total - length :] += _causal_block(length)
    view -= view.max(axis=-1, keepdims=True)
    np.exp(view, out=view)
    sums = mx.array(view.sum(axis=-1, keepdims=True))
    weights = scores if np.shares_memory(view, np.asarray(scores)) else mx.array(view)
    out = (weights @ values) / sums
    return out.reshape(batch, heads, length, depth)


def attention(
    original: Callable[..., Any],
    queries: Any,
    keys: Any,
    values: Any,
    cache: Any,
    scale: float,
    mask: Any,
    sinks: Any = None,
) -> Any:
    """mlx-lm's ``scaled_dot_product_attention``, on numpy when it is the faster way."""
    if _handles(queries, keys, values, cache, mask, sinks):
        return _tiled_attention(queries, keys, values, scale, mask is not None, TILE_BYTES)
    return original(queries, keys, values, cache=cache, scale=scale, mask=mask, sinks=sinks)


def _numpy_swiglu(gate: Any, x: Any) -> Any:
    import mlx.core as mx
    import numpy as np

    mx.eval(gate, x)
    g = np.asarray(gate)
    out = np.negative(g)
    np.exp(out, out=out)
    out += np.float32(1)
    np.divide(g, out, out=out)  # silu(g) = g * sigmoid(g) = g / (1 + exp(-g))
    out *= np.asarray(x)
    return mx.array(out)


def swiglu(original: Callable[..., Any], gate: Any, x: Any) -> Any:
    """mlx-lm's ``swiglu`` (``silu(gate) * x``), on numpy for prefill-sized inputs."""
    import mlx.core as mx

    if (
        _enabled
        and gate.size >= MIN_ACTIVATIONS
        and gate.shape == x.shape
        and gate.dtype == x.dtype == mx.float32
        and mx.default_device() == mx.cpu
    ):
        return _numpy_swiglu(gate, x)
    return original(gate, x)


def _route(module: Any, name: str, handler: Callable[..., Any]) -> bool:
    original = getattr(module, name, None)
    if original is None:
        return False
    if getattr(original, "agent_nb_routed", False):
        return True

    def routed(*args: Any, **kwargs: Any) -> Any:
        return handler(original, *args, **kwargs)

    routed.agent_nb_routed = True  # type: ignore[attr-defined]
    setattr(module, name, routed)
    return True


def install(model: Any) -> bool:
    """Route ``model``'s attention and SwiGLU through `attention` and `swiglu`.

    Only on the CPU and when enabled; returns whether anything was routed.
    The replacements live in the model module's namespace (the names its
    layers call), not in mlx-lm's files, and hand everything they do not
    handle to the functions they replaced.
    """
    import mlx.core as mx

    if mx.default_device() != mx.cpu or not cpu_attention_enabled():
        return False
    module = sys.modules.get(type(model).__module__)
    if module is None:
        return False
    routed = _route(module, "scaled_dot_product_attention", attention)
    return _route(module, "swiglu", swiglu) or routed
