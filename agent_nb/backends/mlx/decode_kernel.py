"""A small C matrix-vector kernel for decoding on MLX's Linux CPU path.

Decoding reads every weight once per token. On the float32 path (`weights`)
that is 538 MB a token for the embedded model, about 18 tok/s on two cores
however fast the sgemm is; MLX's own CPU quantised matmul reads a quarter of
that but is scalar and slower still (about 1 G weights/s, measured). So the
few-token forward passes (decode steps, prompt-lookup verification, short
prompt tails) use ``qmv.c`` on the model's *original* 4- and 8-bit weights
(MLX's affine layout, group 32, float16 scales and biases), and everything
longer keeps the float32 sgemm (`decode_layers`).

The kernel computes ``sum_i (q_i * scale + bias) * x_i`` with the activations
as integers too (``qmv.c``: per group of 32, ``d * (q1 + q2 / 128)``, two
byte dot products a group): about 1e-4 of the largest value a matmul returns,
4e-4 of the largest logit, so greedy text is the same except at near-ties
(``benchmarks/bench_decode_engines.py`` counts them; docs/troubleshooting.md
says why not int8 alone).

It is compiled on first use with the system C compiler (``cc -O3
-march=native -fopenmp``: this machine's vector units, OpenMP threads) into
``<cache root>/kernels/``, named by a hash of the source, the flags and the
machine, written under a temporary name and renamed into place. No compiler,
a failed build or ``AGENT_NB_CPU_DECODE=0``: the float32 decode, as before.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import pathlib
import platform
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

from ..._core.cache_dir import cache_root

__all__ = [
    "FLAGS",
    "MAX_TOKENS",
    "SOURCE",
    "DecodeKernel",
    "bind",
    "cpu_decode_enabled",
    "decode_kernel",
    "decode_threads",
    "kernel_enabled",
    "kernel_file",
    "set_enabled",
]

#: The most tokens one kernel call takes (the C side's ``MAXN``): longer
#: inputs are prefill, where the float32 sgemm is faster.
MAX_TOKENS = 16
#: Compiler flags: this CPU's vector units, OpenMP for the row split; no fused
#: multiply-adds the source does not ask for, so that every build rounds the
#: activations to the same integers.
FLAGS = ("-O3", "-march=native", "-ffp-contract=off", "-fopenmp", "-shared", "-fPIC")
SOURCE = pathlib.Path(__file__).with_name("qmv.c")


_enabled = True


def set_enabled(flag: bool) -> bool:
    """Send few-token passes to the kernel (True, the default) or to the float32
    layers, for this process (tests and benchmarks compare both); returns the
    previous setting. Models loaded without the kernel are not affected."""
    global _enabled
    previous, _enabled = _enabled, bool(flag)
    return previous


def kernel_enabled() -> bool:
    """The `set_enabled` setting."""
    return _enabled


def cpu_decode_enabled() -> bool:
    """``$AGENT_NB_CPU_DECODE``: unset or ``1`` (default), or ``0`` (float32 decode)."""
    raw = os.environ.get("AGENT_NB_CPU_DECODE", "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"AGENT_NB_CPU_DECODE must be 0 or 1, got {raw!r}")
    return raw != "0"


def decode_threads() -> int:
    """``$AGENT_NB_CPU_THREADS``, else the CPUs this process may run on (at most 8:
    decoding is bound by memory bandwidth, which a few cores already fill)."""
    raw = os.environ.get("AGENT_NB_CPU_THREADS", "").strip()
    if raw:
        if not raw.isdigit() or int(raw) < 1:
            raise ValueError(f"AGENT_NB_CPU_THREADS must be a positive integer, got {raw!r}")
        return int(raw)
    try:
        available = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        available = os.cpu_count() or 1
    return max(1, min(8, available))


def _compiler() -> str | None:
    explicit = os.environ.get("CC")
    if explicit and shutil.which(explicit):
        return explicit
    return next((c for c in ("cc", "gcc", "clang") if shutil.which(c)), None)


def kernel_file(compiler: str) -> pathlib.Path:
    """Where the kernel built by ``compiler`` for this machine is kept."""
    digest = hashlib.sha256()
    digest.update(SOURCE.read_bytes())
    digest.update(" ".join((compiler, *FLAGS)).encode())
    digest.update(f"{platform.machine()}|{_cpu_flags()}".encode())
    return cache_root() / "kernels" / f"qmv-{digest.hexdigest()[:16]}.so"


def _cpu_flags() -> str:
    """The CPU's feature flags: ``-march=native`` builds for them, so a cache folder
    shared with another machine must not hand it this one's build."""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _build(compiler: str, target: pathlib.Path) -> str:
    """Compile the kernel into ``target``; returns ``""`` or why it failed."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=".", suffix=".so", dir=target.parent)
        os.close(handle)
    except OSError as exc:
        return f"cannot write {target.parent}: {exc}"
    try:
        done = subprocess.run(
            [compiler, *FLAGS, "-o", temp, str(SOURCE)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            return f"{compiler} failed: {done.stderr.strip()[-400:]}"
        os.replace(temp, target)
        return ""
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{compiler} failed: {exc}"
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


_POINTER = ctypes.c_void_p
_INT = ctypes.c_int


@dataclass(frozen=True)
class DecodeKernel:
    """The loaded kernel: ``y = x @ dequantised(w).T`` for a few rows of ``x``."""

    library: Any
    path: pathlib.Path
    simd: bool
    threads: int

    def matmul(self, packed: Any, scales: Any, biases: Any, x: Any, bits: int) -> Any:
        """``x`` (n, I) float32, n <= `MAX_TOKENS`; ``packed`` (O, I*bits/8) uint8;
        ``scales``/``biases`` (O, I/32) float16. Returns (n, O) float32."""
        weights = (packed.ctypes.data, scales.ctypes.data, biases.ctypes.data)
        return self.run(weights, packed.shape[0], x, bits)

    def run(self, weights: tuple[int, int, int], outputs: int, x: Any, bits: int) -> Any:
        """`matmul` on the addresses of a matrix's packed weights, scales and biases
        (a decode step makes about 120 calls: the addresses are read once, at load)."""
        import numpy as np

        n, inputs = x.shape
        if not x.flags.c_contiguous or x.dtype != np.float32:
            x = np.ascontiguousarray(x, dtype=np.float32)
        y = np.empty((n, outputs), dtype=np.float32)
        status = self.library.qmv(
            *weights, x.ctypes.data, y.ctypes.data, outputs, inputs, n, bits, self.threads
        )
        if status != 0:
            raise ValueError(
                f"the decode kernel takes 1..{MAX_TOKENS} rows of a multiple of 32 inputs "
                f"at 4 or 8 bits, got {n} x {inputs} at {bits} bits"
            )
        return y


def _load() -> tuple[DecodeKernel | None, str]:
    if not cpu_decode_enabled():
        return None, "AGENT_NB_CPU_DECODE=0"
    compiler = _compiler()
    if compiler is None:
        return None, "no C compiler (cc, gcc or clang) on the PATH"
    target = kernel_file(compiler)
    if not target.is_file():
        failed = _build(compiler, target)
        if failed:
            return None, failed
    if not any(name in os.environ for name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")):
        # Read by libgomp when it loads (with the kernel). A decode step makes
        # about 120 kernel calls, 50 us apart: a thread that sleeps at each
        # barrier (OMP_WAIT_POLICY=PASSIVE) is woken 120 times a token, and the
        # embedded model decoded in 18 ms a token instead of 9 (2 cores, quiet).
        # libgomp's default spin (300,000 rounds) keeps a spinning thread on a
        # core a descheduled peer needs on a busy machine (measured 17-370 ms a
        # token); 20,000 rounds, a few tens of microseconds, bridges the gaps
        # within a step and then sleeps: under three CPU hogs, 38 ms a token
        # against 33 ms asleep.
        os.environ["GOMP_SPINCOUNT"] = "20000"
    try:
        return bind(target, decode_threads()), ""
    except OSError as exc:
        return None, f"could not load {target}: {exc}"


def bind(path: pathlib.Path, threads: int) -> DecodeKernel:
    """The kernel library at ``path``, loaded, with its C signatures declared."""
    library = ctypes.CDLL(str(path))
    library.qmv.argtypes = [_POINTER] * 5 + [_INT] * 5
    library.qmv.restype = _INT
    library.qmv_simd.restype = _INT
    return DecodeKernel(library, path, bool(library.qmv_simd()), threads)


_kernel: tuple[DecodeKernel | None, str] | None = None
_lock = threading.Lock()


def decode_kernel() -> tuple[DecodeKernel | None, str]:
    """The kernel (built the first time), or None and why not; settled once per process."""
    global _kernel
    with _lock:
        if _kernel is None:
            _kernel = _load()
        return _kernel
