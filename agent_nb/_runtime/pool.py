"""`BackendPool`: the backends one runner has resolved, and what spans them all.

A runner talks to several backends at once (its default model plus every
``-m`` / ``model=`` a turn named), and a session's KV cache may live in any of
them. So everything keyed by a cache key (bytes held, rewind, drop) and every
memory figure is a sum or a loop over the pool. The pool takes one snapshot of
its backends under its lock and works outside it, because backend calls
(freeing MLX buffers, closing HTTP clients) can be slow.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .._core.types import GenerateContentRequest
from ..backends import resolve_backend
from ..backends._base import Backend

__all__ = ["BackendPool", "model_label"]


def model_label(model: str | Backend) -> str:
    """How a model spec or backend is named to a person (widget header, ``%agent model``)."""
    return model if isinstance(model, str) else (model.spec or type(model).__name__)


class BackendPool:
    """Backends by spec, resolved (and loaded) on first use, closed together."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._backends: dict[str, Backend] = {}

    def get(self, spec: str | Backend) -> Backend:
        """The backend for ``spec``: the same object for the same spec string."""
        if isinstance(spec, Backend):
            key = spec.spec or f"instance:{id(spec)}"
            with self._lock:
                if self._backends.get(key, spec) is not spec:
                    # Same spec, different settings (api key, timeout): keep both.
                    key = f"{key}#{id(spec)}"
                return self._backends.setdefault(key, spec)
        with self._lock:
            backend = self._backends.get(spec)
            if backend is None:
                backend = resolve_backend(spec)
                self._backends[spec] = backend
            return backend

    def _snapshot(self) -> dict[str, Backend]:
        with self._lock:
            return dict(self._backends)

    def kv_bytes(self, key: str) -> int:
        """Bytes every backend holds under cache ``key``."""
        return sum(b.cache_bytes(key) for b in self._snapshot().values())

    def drop(self, key: str) -> None:
        """Free cache ``key`` in every backend."""
        for backend in self._snapshot().values():
            backend.drop_cache(key)

    def rewind(self, key: str, build: Callable[[], GenerateContentRequest]) -> None:
        """History under ``key`` was cut back: trim each prompt cache to ``build()``.

        A cache that cannot be trimmed (the request cannot be built any more,
        e.g. instructions need a state key the rewind removed, or the backend
        fails) is dropped: the history is already cut, and a fresh cache is
        always correct.
        """
        caching = [b for b in self._snapshot().values() if b.supports_prompt_cache]
        if not caching:
            return
        try:
            request: GenerateContentRequest | None = build()
        except Exception:
            request = None
        for backend in caching:
            if request is None or not request.contents:
                backend.drop_cache(key)
                continue
            try:
                backend.rewind_cache(key, request)
            except Exception:
                backend.drop_cache(key)

    def trim(self, keep: frozenset[str]) -> int:
        """Drop every cache not in ``keep``; returns the bytes freed."""
        return sum(b.trim_memory(keep=keep) for b in self._snapshot().values())

    def memory(self) -> dict[str, dict[str, Any]]:
        """Each backend's own memory figures, by spec."""
        return {spec: b.memory() for spec, b in self._snapshot().items()}

    def close(self) -> None:
        """Close every backend and forget them."""
        with self._lock:
            backends = list(self._backends.values())
            self._backends.clear()
        for backend in backends:
            backend.close()
