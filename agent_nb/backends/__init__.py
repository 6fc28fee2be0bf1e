"""Model backends and the spec strings that name them.

``"mlx:smollm2-135m"`` (the embedded default), ``"mlx:/path/or/hf-repo"``,
``"openai:MODEL@http://host:port/v1"`` and ``"scripted"``. Backend modules are
imported only when a spec asks for them, so ``import agent_nb`` never pulls in
mlx or openai.
"""

from __future__ import annotations

import importlib

from ..errors import ModelNotFoundError
from ._base import Backend, CancelToken, Chunk, Finish, PrefillProgress, TextDelta, ToolCallChunk
from ._scripted import ScriptedBackend

__all__ = [
    "KNOWN_SPECS",
    "Backend",
    "CancelToken",
    "Chunk",
    "Finish",
    "PrefillProgress",
    "ScriptedBackend",
    "TextDelta",
    "ToolCallChunk",
    "check_spec",
    "resolve_backend",
]

KNOWN_SPECS = (
    "mlx:smollm2-135m",
    "mlx:/path/to/mlx-model-dir",
    "mlx:org/hf-repo",
    "openai:MODEL@http://host:port/v1",
    "scripted",
)


def _load(module: str, factory: str, spec: str, argument: str) -> Backend:
    try:
        mod = importlib.import_module(f"{__name__}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith(__name__):
            raise ModelNotFoundError(
                f"The {module!r} backend is not available in this build of agent_nb "
                f"(spec {spec!r}). Specs that work: {', '.join(KNOWN_SPECS)}."
            ) from exc
        raise
    backend: Backend = getattr(mod, factory)(argument)
    return backend


def check_spec(spec: str | Backend) -> None:
    """Fail on a spec no backend answers to, without importing or loading anything.

    `AgentRunner` calls this at construction, so a typo fails there rather
    than at the first turn; whether the model itself exists is found out when
    it is resolved (`resolve_backend`).
    """
    if isinstance(spec, Backend):
        return
    if not isinstance(spec, str):
        raise TypeError(f"model must be a spec string or a Backend, got {type(spec).__name__}")
    kind, sep, rest = spec.partition(":")
    if spec == "scripted" or (sep and kind in ("mlx", "openai") and rest):
        return
    raise ModelNotFoundError(f"Unknown model spec {spec!r}. Use one of: {', '.join(KNOWN_SPECS)}.")


def resolve_backend(spec: str | Backend) -> Backend:
    """Turn a model spec into a backend instance (a Backend passes through)."""
    check_spec(spec)
    if isinstance(spec, Backend):
        return spec
    kind, _, rest = spec.partition(":")
    if spec == "scripted":
        return ScriptedBackend()
    if kind == "mlx":
        return _load("mlx", "from_spec", spec, rest)
    return _load("openai", "from_spec", spec, rest)
