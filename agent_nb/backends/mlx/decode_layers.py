"""Two sets of weights: float32 for prefill, the original 4/8-bit for decoding.

The float32 weights (`weights`) make prefill fast (one sgemm per layer for
hundreds of tokens) and decoding slow (every token reads all 538 MB of them).
So, on the Linux CPU fast path with the decode kernel (`decode_kernel`) at
hand, the quantised layers are remembered *before* they are dequantised
(`remember_quantised`) and, once they are float32, each of those layers
learns to send a forward pass of at most `decode_kernel.MAX_TOKENS` tokens
to the kernel on the remembered weights (`attach_quantised`). A longer pass
(prefill) is the float32 layer's own, unchanged.

Which layers: ``QuantizedLinear`` layers become a ``DecodeLinear``, and a
quantised embedding whose matrix is also the output projection (tied
embeddings, as in the embedded model) becomes a ``DecodeEmbedding``, whose
``as_linear`` -- a third of a float32 decode step in the embedded model --
takes the same route; its lookups stay float32. Only MLX's affine layout with
group 32 at 4 or 8 bits is taken (what GGUF Q4_0/Q4_1/Q8_0 convert to);
anything else stays float32 all the way.

The remembered weights are plain numpy views of the quantised MLX arrays, kept
alive beside them (or, for a llama, of the fused copies `decode_step` makes):
they are not parameters, so the float32 cache, the model identity and
``model.parameters()`` do not see them. They cost the quantised model's size
again (98 MB for the embedded model, beside 538 MB of float32).

Everything above the layers -- the KV cache, grammar masks, prompt lookup,
checkpoints, cancel -- is the same code on the same arrays: only the numbers
a small matmul returns differ, by about 1e-4 (`decode_kernel`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from .decode_kernel import MAX_TOKENS, DecodeKernel, kernel_enabled

__all__ = [
    "QuantisedMatrix",
    "attach_quantised",
    "remember_quantised",
]

_GROUP = 32


@dataclass(frozen=True)
class QuantisedMatrix:
    """One layer's quantised weight as the kernel reads it."""

    packed: Any  # numpy uint8 (out, in * bits / 8)
    scales: Any  # numpy uint16 holding float16 (out, in / 32)
    biases: Any
    bits: int
    keep: tuple[Any, ...]  # the MLX arrays the views point into

    @functools.cached_property
    def addresses(self) -> tuple[int, int, int]:
        """Where the kernel reads the packed weights, scales and biases (the views
        never move: `keep` holds what they point into)."""
        return (self.packed.ctypes.data, self.scales.ctypes.data, self.biases.ctypes.data)

    @property
    def nbytes(self) -> int:
        return int(self.packed.nbytes + self.scales.nbytes + self.biases.nbytes)


def _takes(module: Any) -> bool:
    import mlx.core as mx

    return (
        getattr(module, "mode", "affine") == "affine"
        and getattr(module, "group_size", None) == _GROUP
        and getattr(module, "bits", None) in (4, 8)
        and getattr(module, "biases", None) is not None
        and module.scales.dtype == mx.float16
        and module.biases.dtype == mx.float16
        and module.weight.dtype == mx.uint32
    )


def remember_quantised(model: Any) -> dict[str, QuantisedMatrix]:
    """The kernel's copy of each quantised layer it can take, by module path.
    Call before the model is dequantised."""
    import mlx.core as mx
    import mlx.nn as nn
    import numpy as np

    found: dict[str, QuantisedMatrix] = {}
    tied = getattr(getattr(model, "args", None), "tie_word_embeddings", False)
    for name, module in model.named_modules():
        linear = isinstance(module, nn.QuantizedLinear)
        output_embedding = isinstance(module, nn.QuantizedEmbedding) and tied
        if not (linear or output_embedding) or not _takes(module):
            continue
        arrays = (module.weight, module.scales, module.biases)
        mx.eval(*arrays)
        packed, scales, biases = (np.asarray(a) for a in arrays)
        found[name] = QuantisedMatrix(
            packed.view(np.uint8),
            scales.view(np.uint16),
            biases.view(np.uint16),
            int(module.bits),
            arrays,
        )
    return found


def _small_pass(x: Any) -> bool:
    """A forward pass the kernel takes: a few float32 token rows on the CPU."""
    import mlx.core as mx

    rows = x.size // x.shape[-1] if x.ndim else 0
    return kernel_enabled() and 0 < rows <= MAX_TOKENS and x.dtype == mx.float32


def _kernel_matmul(kernel: DecodeKernel, matrix: QuantisedMatrix, x: Any) -> Any:
    import mlx.core as mx
    import numpy as np

    # The kernel reads x from memory: it has to exist now. This barrier is the
    # price of leaving MLX's graph, a few microseconds against the weight reads.
    mx.eval(x)
    rows = np.ascontiguousarray(np.asarray(x).reshape(-1, x.shape[-1]))
    y = kernel.run(matrix.addresses, matrix.packed.shape[0], rows, matrix.bits)
    return mx.array(y).reshape(*x.shape[:-1], y.shape[-1])


@functools.cache
def _routing_types() -> tuple[Any, Any]:
    """The routing subclasses of ``nn.Linear`` and ``nn.Embedding``, made on first
    use: this module is imported before ``mlx.core`` may be (see `cpu_blas`)."""
    import mlx.nn as nn

    class DecodeLinear(nn.Linear):
        """A float32 ``nn.Linear`` that hands few-token passes to the decode kernel."""

        decode_kernel: DecodeKernel
        quantised: QuantisedMatrix

        def __call__(self, x: Any) -> Any:
            if not _small_pass(x):
                return super().__call__(x)
            y = _kernel_matmul(self.decode_kernel, self.quantised, x)
            return y + self.bias if "bias" in self else y

    class DecodeEmbedding(nn.Embedding):
        """A float32 ``nn.Embedding`` whose output projection (``as_linear``) hands
        few-token passes to the decode kernel; lookups stay float32."""

        decode_kernel: DecodeKernel
        quantised: QuantisedMatrix

        def as_linear(self, x: Any) -> Any:
            if not _small_pass(x):
                return super().as_linear(x)
            return _kernel_matmul(self.decode_kernel, self.quantised, x)

    return DecodeLinear, DecodeEmbedding


def attach_quantised(
    model: Any, remembered: dict[str, QuantisedMatrix], kernel: DecodeKernel
) -> int:
    """Make each dequantised layer in ``remembered`` route few-token passes to
    ``kernel``; returns how many layers do.

    The layer keeps its identity (its class becomes the routing subclass, no
    new object, no new parameters), so references to it and the float32 cache
    stay valid.
    """
    import mlx.nn as nn

    linear, embedding = _routing_types()
    attached = 0
    for name, module in model.named_modules():
        matrix = remembered.get(name)
        if matrix is None or type(module) not in (nn.Linear, nn.Embedding):
            continue
        rows, width = matrix.packed.shape
        if tuple(module.weight.shape) != (rows, width * 8 // matrix.bits):
            raise ValueError(f"{name}: its float32 and quantised weights differ in shape")
        module.__class__ = linear if type(module) is nn.Linear else embedding
        module.decode_kernel = kernel
        module.quantised = matrix
        attached += 1
    return attached
