"""`ModelChoice`: a runner's default model and the backends it has resolved.

Specs are strings (``"mlx:smollm2-135m"``, ``"openai:MODEL@URL"``,
``"scripted"``) or `Backend` instances; each is resolved, and loaded, on first
use, and kept in the `BackendPool` (which owns everything keyed by a cache
key). `AgentRunner` inherits these members.
"""

from __future__ import annotations

from ..backends import Backend, check_spec
from .pool import BackendPool, model_label

__all__ = ["ModelChoice"]


class ModelChoice:
    def __init__(self, model: str | Backend) -> None:
        check_spec(model)  # a typo fails here, not at the first turn
        self._model: str | Backend = model
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
