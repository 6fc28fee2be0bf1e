"""The CPU decode kernel and the few-token passes that use it, on real arrays.

The kernel (`decode_kernel`, built from ``qmv.c`` by the system compiler)
must compute what MLX computes from the dequantised weights, to the 1e-4 its
integer activations keep, and exactly what its integer activations say (every
build: VNNI, plain AVX2, plain C); the embedded model's few-token passes
(`decode_step`) must give the logits and the KV cache the model's own MLX call
gives, and greedy replies must be the ones the float32 decode gives
(`decode_kernel.set_enabled` switches between the two in one process).
"""

from __future__ import annotations

import pathlib
import platform
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from agent_nb import GenerationConfig
from agent_nb.backends.mlx import MLXBackend
from agent_nb.backends.mlx import decode_kernel as dk
from agent_nb.backends.mlx.cpu_blas import INSTALL_COMMAND, _is_linux_cpu_wheel, find_openblas
from agent_nb.backends.mlx.runtime import mlx_thread
from tests.streaming import collect

needs_kernel = pytest.mark.skipif(
    dk.decode_kernel()[0] is None, reason=f"no decode kernel here: {dk.decode_kernel()[1]}"
)
fast_path = pytest.mark.skipif(
    not _is_linux_cpu_wheel() or find_openblas() is None,
    reason=f"the decode kernel is the CPU fast path's (`{INSTALL_COMMAND}`)",
)


def test_switches_say_what_they_take(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_NB_CPU_DECODE", "yes")
    with pytest.raises(ValueError, match="AGENT_NB_CPU_DECODE must be 0 or 1"):
        dk.cpu_decode_enabled()
    monkeypatch.setenv("AGENT_NB_CPU_THREADS", "0")
    with pytest.raises(ValueError, match="AGENT_NB_CPU_THREADS must be a positive integer"):
        dk.decode_threads()
    monkeypatch.setenv("AGENT_NB_CPU_THREADS", "3")
    assert dk.decode_threads() == 3


def test_a_failed_build_is_no_kernel_and_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    monkeypatch.setenv("AGENT_NB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CC", "false")  # a "compiler" that always fails
    monkeypatch.delenv("AGENT_NB_CPU_DECODE", raising=False)
    kernel, why = dk._load()
    assert kernel is None and why.startswith("false failed")
    assert not list((tmp_path / "kernels").glob("*.so"))  # no half-built file left
    monkeypatch.setenv("AGENT_NB_CPU_DECODE", "0")
    assert dk._load() == (None, "AGENT_NB_CPU_DECODE=0")


def _quantised_case(out: int, inputs: int, bits: int, rows: int) -> tuple[Any, ...]:
    """Random weights quantised the way the embedded model's are (group 32,
    float16 scales and biases), the kernel's views of them, and MLX's answer."""

    def job() -> tuple[Any, ...]:
        import mlx.core as mx
        import numpy as np

        mx.random.seed(bits * 1000 + rows)
        weight = mx.random.normal((out, inputs))
        packed, scales, biases = mx.quantize(weight, group_size=32, bits=bits)
        scales, biases = scales.astype(mx.float16), biases.astype(mx.float16)
        x = mx.random.normal((rows, inputs))
        widened = mx.dequantize(
            packed, scales.astype(mx.float32), biases.astype(mx.float32), group_size=32, bits=bits
        )
        expected = x @ widened.T
        mx.eval(packed, scales, biases, x, expected)
        return (
            np.array(packed).view(np.uint8),
            np.array(scales).view(np.uint16),
            np.array(biases).view(np.uint16),
            np.array(x),
            np.array(expected),
        )

    return mlx_thread().call(job)


def _as_integers(x: Any) -> Any:
    """What the kernel multiplies instead of ``x``: per group of 32, d * (q1 + q2 / 128)
    with d = max|x| / 127 and q1, q2 the rounded int8 parts (``qmv.c``'s `quantise`)."""
    import numpy as np

    groups = x.reshape(x.shape[0], -1, 32)
    top = np.abs(groups).max(axis=-1, keepdims=True)
    d = top / np.float32(127)
    inverse = (np.float32(127) / np.where(top > 0, top, 1)).astype(np.float32) * (top > 0)
    q1 = np.rint(groups * inverse)
    q2 = np.clip(np.rint((groups - q1 * d) * inverse * np.float32(128)), -127, 127)
    return ((q1 + q2 / np.float32(128)) * d).reshape(x.shape).astype(np.float32)


def _integer_reference(packed: Any, scales: Any, biases: Any, x: Any, bits: int) -> Any:
    """The kernel's sum in numpy: the scaled weights against the integer activations,
    the biases against the exact sums of x."""
    import mlx.core as mx
    import numpy as np

    def job() -> Any:
        s = mx.array(scales.view(np.float16)).astype(mx.float32)
        zero = mx.zeros(s.shape, dtype=mx.float32)
        words = mx.array(packed.view(np.uint32))
        scaled = np.array(mx.dequantize(words, s, zero, group_size=32, bits=bits))
        sums = x.reshape(x.shape[0], -1, 32).sum(axis=-1)
        return _as_integers(x) @ scaled.T + sums @ biases.view(np.float16).astype(np.float32).T

    return mlx_thread().call(job)


@needs_kernel
@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("rows", [1, 5, dk.MAX_TOKENS])
def test_kernel_computes_what_mlx_computes_from_the_dequantised_weights(
    bits: int, rows: int
) -> None:
    import numpy as np

    kernel = dk.decode_kernel()[0]
    assert kernel is not None
    packed, scales, biases, x, expected = _quantised_case(200, 576, bits, rows)
    got = kernel.matmul(packed, scales, biases, x, bits)
    assert got.shape == expected.shape == (rows, 200)
    # the integer activations: about 1e-4 of the largest value (int8 alone: 1e-2)
    assert np.abs(got - expected).max() <= 3e-4 * np.abs(expected).max()
    exact = _integer_reference(packed, scales, biases, x, bits)
    # what the integers say, summed in another order: the last bits, nothing more
    assert np.abs(got - exact).max() <= 1e-5 * np.abs(exact).max()


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or shutil.which("cc") is None,
    reason="builds the kernel for older x86-64 CPUs with cc",
)
@pytest.mark.parametrize(("march", "simd"), [("x86-64", 0), ("haswell", 1)])
def test_every_build_computes_the_same(tmp_path: pathlib.Path, march: str, simd: int) -> None:
    """Built for a CPU without AVX2 (as on ARM: plain C loops) or with AVX2 but no
    VNNI (pmaddubsw, with 8-bit weights shifted into its range), the kernel must
    reach the same integers and so the same numbers."""
    import numpy as np

    library = tmp_path / f"qmv-{march}.so"
    flags = [f for f in dk.FLAGS if f != "-march=native"] + [f"-march={march}"]
    subprocess.run(["cc", *flags, "-o", str(library), str(dk.SOURCE)], check=True)
    kernel = dk.bind(library, threads=2)
    if simd and not kernel.simd:
        pytest.skip(f"{march} code does not run here")
    assert kernel.library.qmv_simd() == simd
    for bits in (4, 8):
        for rows in (1, 3):
            packed, scales, biases, x, _ = _quantised_case(96, 576, bits, rows)
            exact = _integer_reference(packed, scales, biases, x, bits)
            got = kernel.matmul(packed, scales, biases, x, bits)
            assert np.abs(got - exact).max() <= 1e-5 * np.abs(exact).max()


@needs_kernel
def test_kernel_refuses_what_it_does_not_take() -> None:
    import numpy as np

    kernel = dk.decode_kernel()[0]
    assert kernel is not None
    packed, scales, biases, _, _ = _quantised_case(64, 64, 4, 1)
    too_many = np.zeros((dk.MAX_TOKENS + 1, 64), dtype=np.float32)
    with pytest.raises(ValueError, match=f"takes 1..{dk.MAX_TOKENS} rows"):
        kernel.matmul(packed, scales, biases, too_many, 4)
    with pytest.raises(ValueError, match="at 4 or 8 bits"):
        kernel.matmul(packed, scales, biases, too_many[:1], 3)


@pytest.fixture
def step_backend(mlx_backend: MLXBackend) -> Iterator[MLXBackend]:
    loaded = mlx_backend.load()
    if loaded.decode != "step":
        pytest.skip(f"the embedded model decodes with {loaded.decode!r} here")
    yield mlx_backend
    dk.set_enabled(True)


@pytest.mark.mlx
@fast_path
@needs_kernel
def test_few_token_passes_give_the_logits_and_cache_of_the_models_own_call(
    step_backend: MLXBackend,
) -> None:
    loaded = step_backend.load()

    def job() -> list[tuple[bool, float, float]]:
        import mlx.core as mx
        import numpy as np
        from mlx_lm.models.cache import make_prompt_cache

        model = loaded.model
        own_call = type(model).__mro__[1].__call__  # the class the routing subclasses
        ours, theirs = make_prompt_cache(model), make_prompt_cache(model)
        prompt = mx.array([list(range(200, 300))])
        mx.eval(model(prompt, cache=ours), own_call(model, prompt, cache=theirs))
        checks = []
        for tokens in ([42], [7, 8, 9, 10, 11], [12]):  # a decode step, a verification, a step
            a = model(mx.array([tokens]), cache=ours)
            b = own_call(model, mx.array([tokens]), cache=theirs)
            mx.eval(a, b)
            a_np, b_np = np.array(a), np.array(b)
            same_choice = bool((a_np.argmax(-1) == b_np.argmax(-1)).all())
            logits_error = float(np.abs(a_np - b_np).max() / np.abs(b_np).max())
            keys = [np.array(c.state[0][..., : c.offset, :]) for c in (ours[5], theirs[5])]
            keys_error = float(np.abs(keys[0] - keys[1]).max() / np.abs(keys[1]).max())
            assert ours[5].offset == theirs[5].offset
            checks.append((same_choice, logits_error, keys_error))
        return checks

    for same_choice, logits_error, keys_error in mlx_thread().call(job):
        assert same_choice
        # the kernel's integer activations (1e-4 a matmul), through 30 layers
        assert logits_error < 1e-3
        assert keys_error < 1e-3


@pytest.mark.mlx
@fast_path
@needs_kernel
@pytest.mark.parametrize("lookup", [False, True])
def test_greedy_replies_are_the_float32_decodes(step_backend: MLXBackend, lookup: bool) -> None:
    config = GenerationConfig(max_tokens=40, prompt_lookup=lookup)
    prompt = "List three uses of copper, one line each."
    replies = {}
    for enabled in (True, False):
        dk.set_enabled(enabled)
        text, finish = collect(step_backend, prompt, config, cache=f"decode-{enabled}")
        step_backend.drop_cache(f"decode-{enabled}")
        replies[enabled] = (text, finish.usage.generated_tokens)
    assert replies[True] == replies[False]
    assert replies[True][1] > 10
