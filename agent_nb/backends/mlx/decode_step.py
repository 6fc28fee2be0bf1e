"""A whole few-token forward pass of a llama model in numpy and the decode kernel.

`decode_layers` sends each few-token matmul to the kernel, but each of those
calls first has to evaluate MLX's graph up to its input: about 200 such
barriers a token for the embedded model, each a hand-over to MLX's CPU
stream and back. Measured on 2 cores: 3.4 ms of MLX ops per token, 22 ms
with the barriers, against 11 ms in the kernel itself. So for the model
family the embedded model belongs to (mlx-lm's ``llama``: RMSNorm, RoPE,
grouped-query attention, SwiGLU), a pass of at most
`decode_kernel.MAX_TOKENS` tokens runs here instead, on numpy views of the
same float32 norms and embedding and the kernel's quantised matrices: no MLX
op until the end.

The KV cache stays mlx-lm's own ``KVCache``: attention reads the cached keys
and values through zero-copy views (read only), and the pass's new keys and
values are written with the cache's own ``update_and_fetch`` once, for all
layers, at the end -- so trimming, prompt lookup, checkpoints and prefill see
the cache they always did. Logits come back as an MLX array, as the model's
own call returns them, for the sampler and the grammar mask.

Any pass or model this does not know (another architecture, a sliding window,
rope scaling, biases, a quantised or rotating cache, input embeddings, more
than one sequence) is the model's own call, unchanged.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .decode_kernel import MAX_TOKENS, DecodeKernel, kernel_enabled
from .decode_layers import QuantisedMatrix

__all__ = ["attach_step", "can_step"]


def _rms_norm(x: Any, weight: Any, eps: float) -> Any:
    import numpy as np

    # einsum: the row sums of squares in one call, no n x hidden temporary
    mean = np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[-1])
    scale = np.float32(1) / np.sqrt(mean + np.float32(eps))
    return (x * scale) * weight


class _Rope:
    """RoPE as ``mx.fast.rope`` computes it (default and linear scaling only)."""

    def __init__(self, rope: Any) -> None:
        import numpy as np

        self.dims = int(rope.dims)
        self.traditional = bool(rope.traditional)
        self.scale = float(rope.scale)
        half = self.dims // 2
        exponents = np.arange(half, dtype=np.float32) * np.float32(-np.log2(rope.base) / half)
        self.inverse = np.exp2(exponents).astype(np.float32)
        self._angles_key: tuple[int, int] | None = None
        self._angles: tuple[Any, Any] = ((), ())

    def angles(self, offset: int, n: int) -> tuple[Any, Any]:
        """cos and sin of positions ``offset`` .. ``offset + n - 1``, computed once
        per pass: every layer of the pass has the same positions."""
        import numpy as np

        key = (offset, n)
        if self._angles_key != key:
            positions = np.arange(offset, offset + n, dtype=np.float32) * np.float32(self.scale)
            theta = positions[:, None] * self.inverse[None, :]
            self._angles, self._angles_key = (np.cos(theta), np.sin(theta)), key
        return self._angles

    def __call__(self, x: Any, offset: int) -> Any:
        """``x``: (heads, n, head_dim), positions ``offset`` .. ``offset + n - 1``."""
        cos, sin = self.angles(offset, x.shape[1])
        out = x.copy()
        if self.traditional:
            a, b = x[..., 0 : self.dims : 2], x[..., 1 : self.dims : 2]
            out[..., 0 : self.dims : 2] = a * cos - b * sin
            out[..., 1 : self.dims : 2] = a * sin + b * cos
        else:
            half = self.dims // 2
            a, b = x[..., :half], x[..., half : self.dims]
            out[..., :half] = a * cos - b * sin
            out[..., half : self.dims] = a * sin + b * cos
        return out


def _softmax_rows(scores: Any) -> Any:
    import numpy as np

    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores


class _Layer(NamedTuple):
    norm1: tuple[Any, float]
    norm2: tuple[Any, float]
    qkv: QuantisedMatrix
    o: QuantisedMatrix
    gate_up: QuantisedMatrix
    down: QuantisedMatrix
    rope: _Rope
    heads: int
    kv_heads: int
    depth: int
    scale: float


def _norm(module: Any) -> tuple[Any, float]:
    import numpy as np

    return np.asarray(module.weight), float(module.eps)


def fuse(layers: list[Any]) -> QuantisedMatrix:
    """One matrix for layers that read the same input (q, k, v; gate, up): one kernel
    call instead of several. Each layer's own matrix becomes a view into it, so
    the weights are not held twice."""
    import numpy as np

    parts = [layer.quantised for layer in layers]
    if len({p.bits for p in parts}) != 1:
        raise ValueError("only layers of one bit width are fused")
    fused = QuantisedMatrix(
        np.concatenate([p.packed for p in parts]),
        np.concatenate([p.scales for p in parts]),
        np.concatenate([p.biases for p in parts]),
        parts[0].bits,
        (),
    )
    start = 0
    for layer, part in zip(layers, parts, strict=True):
        rows = slice(start, start + part.packed.shape[0])
        layer.quantised = QuantisedMatrix(
            fused.packed[rows], fused.scales[rows], fused.biases[rows], part.bits, ()
        )
        start = rows.stop
    return fused


class _Step:
    """What a pass needs, gathered once from the model."""

    def __init__(self, model: Any, kernel: DecodeKernel) -> None:
        import numpy as np

        inner = model.model
        self.kernel = kernel
        self.embedding = np.asarray(inner.embed_tokens.weight)
        self.output = (
            inner.embed_tokens.quantised
            if model.args.tie_word_embeddings
            else model.lm_head.quantised
        )
        self.norm = (np.asarray(inner.norm.weight), float(inner.norm.eps))
        self.layers = []
        for layer in inner.layers:
            attn, mlp = layer.self_attn, layer.mlp
            self.layers.append(
                _Layer(
                    _norm(layer.input_layernorm),
                    _norm(layer.post_attention_layernorm),
                    fuse([attn.q_proj, attn.k_proj, attn.v_proj]),
                    attn.o_proj.quantised,
                    fuse([mlp.gate_proj, mlp.up_proj]),
                    mlp.down_proj.quantised,
                    _Rope(attn.rope),
                    int(attn.n_heads),
                    int(attn.n_kv_heads),
                    int(attn.head_dim),
                    float(attn.scale),
                )
            )

    def matmul(self, matrix: QuantisedMatrix, x: Any) -> Any:
        return self.kernel.run(matrix.addresses, matrix.packed.shape[0], x, matrix.bits)

    def __call__(self, tokens: list[int], cache: list[Any]) -> Any:
        import mlx.core as mx
        import numpy as np

        n = len(tokens)
        h = self.embedding[tokens]  # (n, hidden): a copy
        causal = np.triu(np.full((n, n), -np.inf, np.float32), 1)  # among the pass's tokens
        new: list[tuple[Any, Any]] = []
        for layer, c in zip(self.layers, cache, strict=True):
            offset, heads, kv_heads, depth = c.offset, layer.heads, layer.kv_heads, layer.depth
            qkv = self.matmul(layer.qkv, _rms_norm(h, *layer.norm1))
            at, to = heads * depth, (heads + kv_heads) * depth
            queries, keys, values = (
                part.reshape(n, -1, depth).transpose(1, 0, 2)
                for part in (qkv[:, :at], qkv[:, at:to], qkv[:, to:])
            )
            queries, keys = layer.rope(queries, offset), layer.rope(keys, offset)
            new.append((keys, values))
            # the query heads sharing a key head are consecutive (as in MLX)
            group = heads // kv_heads
            grouped = (queries * np.float32(layer.scale)).reshape(kv_heads, group * n, depth)
            # The cached keys and values are read where they are (no copy of a
            # long cache per layer); the pass's own are a second block of scores.
            old_k = np.asarray(c.keys)[0, :, :offset] if offset else keys[:, :0]
            old_v = np.asarray(c.values)[0, :, :offset] if offset else values[:, :0]
            own = (grouped @ keys.transpose(0, 2, 1)).reshape(kv_heads, group, n, n)
            own += causal
            scores = np.concatenate(
                [grouped @ old_k.transpose(0, 2, 1), own.reshape(kv_heads, group * n, n)],
                axis=-1,
            )
            weights = _softmax_rows(scores)  # (kv_heads, group * n, offset + n)
            attended = weights[..., :offset] @ old_v + weights[..., offset:] @ values
            attended = attended.reshape(heads, n, depth).transpose(1, 0, 2).reshape(n, -1)
            h = h + self.matmul(layer.o, np.ascontiguousarray(attended))
            gate_up = self.matmul(layer.gate_up, _rms_norm(h, *layer.norm2))
            half = gate_up.shape[1] // 2
            g, u = gate_up[:, :half], gate_up[:, half:]
            h = h + self.matmul(layer.down, g / (np.float32(1) + np.exp(-g)) * u)
        logits = self.matmul(self.output, _rms_norm(h, *self.norm))
        for (keys, values), c in zip(new, cache, strict=True):
            c.update_and_fetch(mx.array(keys)[None], mx.array(values)[None])
        mx.eval([(c.keys, c.values) for c in cache])
        return mx.array(logits)[None]


def can_step(model: Any) -> bool:
    """Whether ``model`` is a llama this pass reproduces, with every matrix on the kernel."""
    import mlx.nn as nn

    if type(model).__module__ != "mlx_lm.models.llama":
        return False
    args = model.args
    if getattr(args, "attention_bias", False) or getattr(args, "mlp_bias", False):
        return False
    inner = model.model
    if getattr(inner, "swa_idx", None) is not None:
        return False
    output = inner.embed_tokens if args.tie_word_embeddings else getattr(model, "lm_head", None)
    if getattr(output, "quantised", None) is None:
        return False
    for layer in inner.layers:
        attn, mlp = layer.self_attn, layer.mlp
        if type(attn.rope) is not nn.RoPE or attn.rope.dims != attn.head_dim:
            return False
        fused = [[attn.q_proj, attn.k_proj, attn.v_proj], [mlp.gate_proj, mlp.up_proj]]
        alone = [attn.o_proj, mlp.down_proj]
        if any(getattr(p, "quantised", None) is None for p in [*fused[0], *fused[1], *alone]):
            return False
        if any(len({p.quantised.bits for p in group}) != 1 for group in fused):
            return False  # `fuse` takes one bit width
    return True


def _plain_caches(cache: Any) -> bool:
    import mlx.core as mx
    from mlx_lm.models.cache import KVCache

    if not isinstance(cache, list) or not cache:
        return False
    for c in cache:
        if type(c) is not KVCache:
            return False
        if c.keys is not None and (c.keys.dtype != mx.float32 or c.keys.shape[0] != 1):
            return False
    return True


def attach_step(model: Any, kernel: DecodeKernel) -> bool:
    """Route ``model``'s few-token passes with a plain KV cache through `_Step`.

    As in `decode_layers`, the model object keeps its identity: its class
    becomes a subclass whose ``__call__`` picks the way per pass.
    """
    import mlx.core as mx

    if not can_step(model):
        return False
    step = _Step(model, kernel)
    base = type(model)

    def __call__(self: Any, inputs: Any, cache: Any = None, input_embeddings: Any = None) -> Any:
        if (
            kernel_enabled()
            and input_embeddings is None
            and inputs.ndim == 2
            and inputs.shape[0] == 1
            and 0 < inputs.shape[1] <= MAX_TOKENS
            and _plain_caches(cache)
        ):
            mx.eval(inputs)
            return step([int(t) for t in inputs[0].tolist()], cache)
        return base.__call__(self, inputs, cache=cache, input_embeddings=input_embeddings)

    routed = type(base.__name__, (base,), {"__call__": __call__, "__module__": base.__module__})
    model.__class__ = routed
    return True
