"""`BackendPool`: the backends one runner has resolved, and what spans them all.

A runner talks to several backends at once (its default model plus every
``-m`` / ``model=`` a turn named), and a session's KV cache may live in any of
them. So everything keyed by a cache key (bytes held, rewind, drop) and every
memory figure is a sum or a loop over the pool. The pool takes one snapshot of
its backends under its lock and works outside it, because backend calls
(freeing MLX buffers, closing HTTP clients) can be slow.

**KV checkpoints.** The pool holds the runner's `CheckpointPlan` (None: off)
and hands it to every backend it has and to every one it resolves later, so
a ``-m`` model named mid-notebook is checkpointed like the default one. A
backend that keeps no cache on disk (an OpenAI-compatible server owns its
cache; the scripted fake has none) ignores it. A folder that cannot be
created (a read-only home) leaves that backend without checkpoints and says
so in the log: no turn fails for want of a checkpoint. A `Backend` instance
shared by two runners keeps the settings of the last one that configured it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from .._core.types import GenerateContentRequest
from ..backends import resolve_backend
from ..backends._base import Backend

if TYPE_CHECKING:
    from .session_info import SessionInfo

__all__ = ["BackendPool", "CheckpointPlan", "model_label"]

log = logging.getLogger(__name__)


def model_label(model: str | Backend) -> str:
    """How a model spec or backend is named to a person (widget header, ``%agent model``)."""
    return model if isinstance(model, str) else (model.spec or type(model).__name__)


class _Keyed(Protocol):
    def cache_keys(self) -> list[str]: ...


@dataclass(frozen=True)
class CheckpointPlan:
    """What each backend is told: whose sessions (``store_identity``), how much
    disk (``disk_budget`` bytes; None: the backend's default) and where
    (``directory``; None: ``kv/`` in the agent_nb cache folder)."""

    store_identity: str
    disk_budget: int | None = None
    directory: str | os.PathLike[str] | None = None


class BackendPool:
    """Backends by spec, resolved (and loaded) on first use, closed together."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._backends: dict[str, Backend] = {}
        self._plan: CheckpointPlan | None = None

    def get(self, spec: str | Backend) -> Backend:
        """The backend for ``spec``: the same object for the same spec string."""
        if isinstance(spec, Backend):
            key = spec.spec or f"instance:{id(spec)}"
            with self._lock:
                if self._backends.get(key, spec) is not spec:
                    # Same spec, different settings (api key, timeout): keep both.
                    key = f"{key}#{id(spec)}"
                if key not in self._backends:
                    if self._plan is not None:  # with none, the instance keeps its own
                        _apply(spec, self._plan)
                    self._backends[key] = spec
                return self._backends[key]
        with self._lock:
            backend = self._backends.get(spec)
            if backend is None:
                backend = resolve_backend(spec)
                if self._plan is not None:
                    _apply(backend, self._plan)
                self._backends[spec] = backend
            return backend

    def _snapshot(self) -> dict[str, Backend]:
        with self._lock:
            return dict(self._backends)

    def kv_bytes(self, key: str) -> int:
        """Bytes every backend holds under cache ``key``."""
        return sum(b.cache_bytes(key) for b in self._snapshot().values())

    def kv_of(self, session: _Keyed) -> int:
        """Bytes held under a session's own cache key and its agents' keys."""
        return sum(self.kv_bytes(key) for key in session.cache_keys())

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

    def figures(self, infos: Iterable[SessionInfo]) -> dict[str, Any]:
        """`AgentRunner.memory()`: the backends' figures, then per session its
        history, KV and checkpoint bytes. ``kv_disk_bytes`` also counts the
        checkpoints of sessions not open here (past kernels, other kernels)."""
        disk = self.checkpoint_bytes()
        sessions = {
            i.id: {
                "history_bytes": i.history_bytes,
                "kv_bytes": i.kv_bytes,
                "kv_disk_bytes": disk.get(i.id, 0),
            }
            for i in infos
        }
        return {
            "backends": self.memory(),
            "sessions": sessions,
            "kv_bytes_total": sum(s["kv_bytes"] for s in sessions.values()),
            "kv_checkpoints": self._plan is not None,
            "kv_disk_bytes": disk,
            "kv_disk_bytes_total": sum(disk.values()),
        }

    # -- KV checkpoints ---------------------------------------------------------------

    @property
    def plan(self) -> CheckpointPlan | None:
        return self._plan

    def configure(self, plan: CheckpointPlan | None) -> None:
        """Checkpoint every backend by ``plan`` from now on (None: stop writing;
        the files stay for a later process)."""
        with self._lock:
            self._plan = plan
            backends = list(self._backends.values())
        for backend in backends:
            _apply(backend, plan)

    def delete_checkpoints(self, session_id: str) -> None:
        """Remove the session's checkpoints (its own key and its agents')."""
        for backend in self._snapshot().values():
            backend.delete_checkpoints(session_id)

    def delete_all_checkpoints(self) -> None:
        """Remove every checkpoint kept under this runner's store identity."""
        for session_id in self.checkpoint_bytes():
            self.delete_checkpoints(session_id)

    def checkpoint_bytes(self) -> dict[str, int]:
        """Bytes on disk per session id. The backends of one pool write to one
        folder under one store identity, so each reports the same files (every
        model's): the largest figure is the one; a sum would count them twice."""
        found: dict[str, int] = {}
        for backend in self._snapshot().values():
            for session_id, size in backend.checkpoint_bytes().items():
                found[session_id] = max(size, found.get(session_id, 0))
        return found

    def close(self) -> None:
        """Close every backend (queued checkpoints are written first) and forget them."""
        with self._lock:
            backends = list(self._backends.values())
            self._backends.clear()
        for backend in backends:
            backend.close()
            backend.checkpoints_off()  # its writer thread ends; the files stay


def _apply(backend: Backend, plan: CheckpointPlan | None) -> None:
    if plan is None:
        backend.checkpoints_off()
        return
    try:
        backend.configure_checkpoints(
            store_identity=plan.store_identity,
            directory=plan.directory,
            disk_budget=plan.disk_budget,
        )
    except OSError as exc:
        log.warning("KV checkpoints stay off for %s: %s", model_label(backend), exc)
