"""A fast BLAS for MLX's Linux CPU wheel, loaded before ``mlx.core``.

The ``mlx[cpu]`` wheel bundles netlib's *reference* BLAS
(``mlx_cpu.libs/libblas-*.so``, a few GFLOPS) and ``libmlx.so`` takes only
``cblas_sgemm``/``dgemm``/``cgemm`` from it. The dynamic linker looks a symbol
up in the global scope before a library's own dependencies, so a system
OpenBLAS opened with ``RTLD_GLOBAL`` *before* ``libmlx.so`` is loaded supplies
those symbols instead (tens of times faster, same results). Once
``libmlx.so`` is loaded its bindings are fixed: opening OpenBLAS afterwards
changes nothing, which is why this must run before the first
``import mlx.core`` and why a process that imported mlx first stays slow.

Float32 weights go with it (`weights`): MLX's CPU quantised matmul is not
vectorised, float32 matmuls are plain sgemm calls -- but on the reference BLAS
float32 is *slower* than 4-bit, so the weights follow whichever BLAS won here.

Metal and CUDA builds, and MLX built from source against a system BLAS, are
left alone. ``AGENT_NB_CPU_FAST=0`` keeps the bundled BLAS and the quantised
weights; ``AGENT_NB_BLAS=/path/to/libopenblas.so`` picks the library.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.metadata
import os
import platform
import sys
import threading
from dataclasses import dataclass

__all__ = [
    "INSTALL_COMMAND",
    "CpuBlas",
    "cpu_blas",
    "cpu_fast_enabled",
    "find_openblas",
    "prepare_cpu_blas",
    "take_hint",
    "well_known_paths",
]

INSTALL_COMMAND = "sudo apt-get install libopenblas0-pthread"


@dataclass(frozen=True)
class CpuBlas:
    """Which BLAS MLX's CPU code uses in this process, and why.

    ``blas`` is ``"openblas"`` (the fast path), ``"reference"`` (the wheel's
    bundled BLAS) or ``None`` (not the Linux CPU wheel: agent_nb left it alone).
    ``hint`` is the one line the first model load prints, or ``""``.
    """

    blas: str | None
    path: str | None = None
    reason: str = ""
    hint: str = ""

    @property
    def fast(self) -> bool:
        return self.blas == "openblas"


def cpu_fast_enabled() -> bool:
    """``$AGENT_NB_CPU_FAST``: unset, ``1`` (default) or ``0`` (today's slow path)."""
    raw = os.environ.get("AGENT_NB_CPU_FAST", "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"AGENT_NB_CPU_FAST must be 0 or 1, got {raw!r}")
    return raw != "0"


def well_known_paths() -> list[str]:
    """Where distributions put OpenBLAS, for when ``find_library`` cannot see it
    (no ``ldconfig`` cache, e.g. right after an install in a container).

    Debian/Ubuntu (the alternatives link and the pthread variant itself),
    Fedora/RHEL (``dnf install openblas``), Arch, and a conda environment
    (``conda install libopenblas``).
    """
    arch = f"/usr/lib/{platform.machine()}-linux-gnu"
    paths = [
        f"{arch}/libopenblas.so.0",
        f"{arch}/openblas-pthread/libopenblas.so.0",
        "/usr/lib64/libopenblasp.so.0",
        "/usr/lib64/libopenblas.so.0",
        "/usr/lib/libopenblas.so.0",
    ]
    prefixes = [os.environ.get("CONDA_PREFIX", ""), sys.prefix]
    paths += [os.path.join(p, "lib", "libopenblas.so.0") for p in prefixes if p]
    return paths


def find_openblas() -> str | None:
    """``$AGENT_NB_BLAS`` if set, else the system OpenBLAS, else ``None``."""
    explicit = os.environ.get("AGENT_NB_BLAS")
    if explicit:
        return explicit
    found = ctypes.util.find_library("openblas")
    if found:
        return found
    return next((p for p in well_known_paths() if os.path.isfile(p)), None)


def _is_linux_cpu_wheel() -> bool:
    if not sys.platform.startswith("linux"):
        return False

    def installed(name: str) -> bool:
        try:
            importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            return False
        return True

    return installed("mlx-cpu") and not any(
        installed(name) for name in ("mlx-cuda", "mlx-cuda-12", "mlx-cuda-13")
    )


def _slow(reason: str, hint: str = "") -> CpuBlas:
    return CpuBlas("reference", reason=reason, hint=hint)


def _hint(why: str) -> str:
    return (
        f"agent_nb: MLX runs on its slow bundled BLAS ({why}); `{INSTALL_COMMAND}` "
        "(other systems: README, Troubleshooting) then a kernel restart make the model "
        "many times faster to first token; AGENT_NB_CPU_FAST=0 silences this."
    )


def _decide() -> CpuBlas:
    if not _is_linux_cpu_wheel():
        return CpuBlas(None, reason="not MLX's Linux CPU wheel: its own BLAS is kept")
    if not cpu_fast_enabled():
        return _slow("AGENT_NB_CPU_FAST=0")
    if "mlx.core" in sys.modules:
        why = "mlx.core was imported before agent_nb could load OpenBLAS"
        return _slow(why, _hint(f"{why}; import nothing from mlx before the first model load"))
    path = find_openblas()
    if path is None:
        return _slow("no OpenBLAS found", _hint("no OpenBLAS found"))
    if os.sep in path and not os.path.isfile(path):
        why = f"AGENT_NB_BLAS={path} is not a file"
        return _slow(why, _hint(why))
    try:
        library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as exc:
        why = f"could not load {path}: {exc}"
        return _slow(why, _hint(why))
    if not hasattr(library, "cblas_sgemm"):
        why = f"{path} has no cblas_sgemm"
        return _slow(why, _hint(why))
    return CpuBlas("openblas", path=path, reason="loaded before mlx.core")


_state: CpuBlas | None = None
_hinted = False
_lock = threading.Lock()


def prepare_cpu_blas() -> CpuBlas:
    """Decide (once per process) and load OpenBLAS if that is the way.

    Call it right before the first ``import mlx.core``; later calls return
    the first decision.
    """
    global _state
    with _lock:
        if _state is None:
            _state = _decide()
        return _state


def cpu_blas() -> CpuBlas | None:
    """The decision `prepare_cpu_blas` made, or ``None`` before it ran."""
    return _state


def take_hint() -> str:
    """The install hint the first time it is asked for in this process, else ``""``."""
    global _hinted
    with _lock:
        if _hinted or _state is None or not _state.hint:
            return ""
        _hinted = True
        return _state.hint
