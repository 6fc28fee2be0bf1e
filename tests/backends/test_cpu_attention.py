"""The numpy attention path against mlx-lm's own, on real MLX arrays (no model).

Grouped-query shapes as the embedded model's (9 query heads over 3 key
heads), a chunk of queries at the end of a longer cache, causal or not, and
tile budgets small enough that one call is cut into several tiles.
"""

from __future__ import annotations

import pytest

from agent_nb.backends.mlx import cpu_attention
from agent_nb.backends.mlx.cpu_blas import prepare_cpu_blas

# This module is collected before any model loads: settle the BLAS first, as
# the MLX thread does, or the first `import mlx.core` would pin the whole test
# process to the wheel's reference BLAS (test_cpu_fast_path checks it).
prepare_cpu_blas()
mx = pytest.importorskip("mlx.core")
base = pytest.importorskip("mlx_lm.models.base")


def arrays(queries: int, keys: int, seed: int = 0) -> tuple[object, object, object]:
    mx.random.seed(seed)
    q = mx.random.normal((1, 9, queries, 64))
    k = mx.random.normal((1, 3, keys, 64))
    v = mx.random.normal((1, 3, keys, 64))
    return q, k, v


def reference(q: object, k: object, v: object, mask: object) -> object:
    with mx.stream(mx.cpu):
        return base.scaled_dot_product_attention(q, k, v, cache=None, scale=0.125, mask=mask)


@pytest.mark.parametrize("mask", ["causal", None])
@pytest.mark.parametrize("tile_rows", [1, 7, 40, 1000])
def test_tiles_give_the_attention_mlx_lm_gives(mask: object, tile_rows: int) -> None:
    q, k, v = arrays(queries=40, keys=300)
    tile_bytes = tile_rows * 4 * 9 * 300  # a budget of exactly tile_rows queries
    with mx.stream(mx.cpu):
        got = cpu_attention._tiled_attention(q, k, v, 0.125, mask == "causal", tile_bytes)
    want = reference(q, k, v, mask)
    assert got.shape == want.shape == (1, 9, 40, 64)
    assert mx.allclose(got, want, atol=1e-5).item()


def test_a_causal_tile_sees_no_key_past_its_last_query() -> None:
    q, k, v = arrays(queries=8, keys=20)
    with mx.stream(mx.cpu):
        whole = cpu_attention._tiled_attention(q, k, v, 0.125, True, 1 << 30)
        # A later key changed: the first query (position 12) must not notice.
        v2 = mx.concatenate([v[:, :, :13], v[:, :, 13:] + 100.0], axis=2)
        changed = cpu_attention._tiled_attention(q, k, v2, 0.125, True, 4 * 9 * 20)
    assert mx.allclose(whole[:, :, 0], changed[:, :, 0], atol=1e-5).item()
    assert not mx.allclose(whole[:, :, 1], changed[:, :, 1], atol=1e-2).item()


def test_the_routed_function_hands_unknown_masks_back() -> None:
    q, k, v = arrays(queries=64, keys=600)
    mask = mx.zeros((64, 600))  # an array mask: not one the numpy path knows
    calls = []

    def original(*args: object, **kwargs: object) -> str:
        calls.append(kwargs["mask"])
        return "mlx-lm's"

    with mx.stream(mx.cpu):
        assert cpu_attention.attention(original, q, k, v, None, 0.125, mask) == "mlx-lm's"
        handled = cpu_attention.attention(original, q, k, v, None, 0.125, "causal")
    assert len(calls) == 1 and handled.shape == (1, 9, 64, 64)
