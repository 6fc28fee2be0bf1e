"""Session stores: `MemoryStore` (default) and `SQLiteStore` (survives restarts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._base import SessionRecord, SessionStore
from ._memory import MemoryStore

if TYPE_CHECKING:
    from ._sqlite import SQLiteStore

__all__ = ["MemoryStore", "SQLiteStore", "SessionRecord", "SessionStore", "resolve_store"]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))  # SQLiteStore too, before it is loaded


def __getattr__(name: str) -> Any:
    if name == "SQLiteStore":
        from ._sqlite import SQLiteStore

        return SQLiteStore
    raise AttributeError(name)


def resolve_store(store: str | SessionStore | None) -> SessionStore:
    """``None`` -> MemoryStore; ``"sqlite:///path"`` or ``"memory"`` -> a store."""
    if store is None or store == "memory":
        return MemoryStore()
    if isinstance(store, SessionStore):
        return store
    if isinstance(store, str) and store.startswith("sqlite:///"):
        from ._sqlite import SQLiteStore

        return SQLiteStore(store[len("sqlite:///") :])
    raise ValueError(
        "store must be None, 'memory', 'sqlite:///path/to/file.db' or a SessionStore; "
        f"got {store!r}"
    )
