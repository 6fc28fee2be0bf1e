"""`ModelChoice`: a runner's default model, the backends it has resolved, and
whether they keep each session's KV cache on disk.

Specs are strings (``"mlx:smollm2-135m"``, ``"openai:MODEL@URL"``,
``"scripted"``) or `Backend` instances; each is resolved, and loaded, on first
use, and kept in the `BackendPool` (which owns everything keyed by a cache
key). A service the runner owns: `AgentRunner` forwards its public members
(``model``, ``check_model``, ``backend_for``, ``kv_*``, ...) and drives the
pool through `pool` and `kv_pool`.

**KV checkpoints** are on by default exactly when the store keeps sessions
beyond the process (`SessionStore.persistent` with an `identity`): only
then can a later kernel open the session again and resume its cache. With
the memory store a session dies with the kernel, so a checkpoint could only
ever be read back by nobody; writing it would cost disk and MLX time for
nothing. ``kv_checkpoints=True`` on such a store is refused rather than
ignored. The identity handed to the backends is the store's identity plus
app name and user id, so two stores (or two users of one shared store) never
load each other's caches. ``$AGENT_NB_KV_CHECKPOINTS=0`` wins over all of it
(the backend reads it).
"""

from __future__ import annotations

import contextlib
import json
import os

from .._core.numbers import check_int
from ..backends import Backend, check_spec
from ..errors import BackendError
from ..stores import SessionStore
from .pool import BackendPool, CheckpointPlan, model_label

__all__ = ["ModelChoice"]


def _check_switch(value: object) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise TypeError(
            f"kv_checkpoints must be True, False or None (on with a persistent store), "
            f"got {type(value).__name__} {value!r}"
        )
    return value


def _check_budget(value: object) -> int | None:
    if value is None:
        return None
    return check_int("kv_disk_budget (bytes; None: 2 GiB)", value, low=0)


class ModelChoice:
    """A runner's default model, its resolved backends and their KV checkpoints."""

    def __init__(
        self,
        model: str | Backend,
        kv_checkpoints: bool | None = None,
        kv_disk_budget: int | None = None,
        kv_directory: str | os.PathLike[str] | None = None,
    ) -> None:
        check_spec(model)  # a typo fails here, not at the first turn
        self._model: str | Backend = model
        self._kv_switch = _check_switch(kv_checkpoints)
        self._kv_budget = _check_budget(kv_disk_budget)
        self._kv_directory = kv_directory
        self._kv_store: SessionStore | None = None
        self._kv_identity: str | None = None
        self._pool = BackendPool()

    @property
    def model(self) -> str | Backend:
        return self._model

    @model.setter
    def model(self, spec: str | Backend) -> None:
        self._pool.get(spec)  # fail now on a bad spec, not at the next turn
        self._model = spec

    @property
    def model_label(self) -> str:
        """The default model as a person reads it (a spec string or a backend's name)."""
        return model_label(self._model)

    def check_model(self, spec: str | Backend) -> Backend:
        """Resolve ``spec`` now (raising `ModelNotFoundError` for a bad one) without
        making it the default; turns started with ``model=spec`` then reuse it."""
        return self._pool.get(spec)

    @property
    def backend(self) -> Backend:
        """The default model's backend (resolved now if needed)."""
        return self.backend_for(None)

    def backend_for(self, model: str | Backend | None) -> Backend:
        """The backend for a turn's ``model=`` (None: the default)."""
        return self._pool.get(self._model if model is None else model)

    # -- KV checkpoints -------------------------------------------------------------

    @property
    def pool(self) -> BackendPool:
        """The resolved backends and everything keyed by a cache key."""
        return self._pool

    def bind_store(self, store: SessionStore, app_name: str, user_id: str) -> None:
        """Bind the checkpoints to the runner's store (once, from its constructor)."""
        self._kv_store = store
        if store.persistent and store.identity is not None:
            # JSON: no user id or app name can make two triples read alike.
            self._kv_identity = json.dumps([store.identity, app_name, user_id])
        self._configure_kv(self._kv_switch)

    def _configure_kv(self, switch: bool | None) -> None:
        if switch and self._kv_identity is None:
            raise ValueError(
                f"kv_checkpoints=True needs a store whose sessions outlive the kernel, "
                f"not a {type(self._kv_store).__name__}: nothing could resume from a checkpoint. "
                "Use a sqlite:/// or postgresql:// store, or leave kv_checkpoints as None"
            )
        self._kv_switch = switch
        identity = None if switch is False else self._kv_identity
        self._pool.configure(
            None
            if identity is None
            else CheckpointPlan(identity, self._kv_budget, self._kv_directory)
        )

    @property
    def kv_checkpoints(self) -> bool:
        """Whether each session's KV cache is written to disk after its turns
        (``$AGENT_NB_KV_CHECKPOINTS=0`` still turns the backends' writing off).
        Set False to stop (the files stay), None to follow the store, True to
        insist (refused for a store whose sessions die with the kernel)."""
        return self._pool.plan is not None

    @kv_checkpoints.setter
    def kv_checkpoints(self, value: bool | None) -> None:
        self._configure_kv(_check_switch(value))

    @property
    def kv_disk_budget(self) -> int | None:
        """Bytes the checkpoints may take on disk, least recently used removed
        first (None: the backend's default, 2 GiB for MLX)."""
        return self._kv_budget

    @kv_disk_budget.setter
    def kv_disk_budget(self, value: int | None) -> None:
        self._kv_budget = _check_budget(value)
        self._configure_kv(self._kv_switch)

    def kv_disk_bytes(self) -> dict[str, int]:
        """Checkpoint bytes on disk per session id (this store's, this user's)."""
        return self.kv_pool().checkpoint_bytes()

    def kv_pool(self) -> BackendPool:
        """The pool, holding the default model's backend when checkpoints are on:
        a new kernel finds (and deletes) an earlier kernel's files before its own
        first turn. Resolving reads no weights; a model that cannot be resolved
        has written nothing to find."""
        if self._pool.plan is not None:
            with contextlib.suppress(BackendError):
                self.backend_for(None)
        return self._pool
