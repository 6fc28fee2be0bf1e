"""Session stores: `MemoryStore` (default), `SQLiteStore` (one file, survives restarts)
and `DatabaseStore` (a database server: many kernels and users). The last two
are one SQL implementation on SQLAlchemy (`SQLiteStore` is `DatabaseStore` on a file).

`SQLiteStore` and `DatabaseStore` are imported on first use, so ``import
agent_nb`` never loads SQLAlchemy.
"""

from __future__ import annotations

import importlib
import re
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from ..errors import StoreError, StoreURLError
from ._base import DEFAULT_LEASE_S, LeaseOwner, SessionRecord, SessionStore
from ._memory import MemoryStore

if TYPE_CHECKING:
    from ._database import DatabaseStore
    from ._sqlite import SQLiteStore

__all__ = [
    "DEFAULT_LEASE_S",
    "DatabaseStore",
    "LeaseOwner",
    "MemoryStore",
    "SQLiteStore",
    "SessionRecord",
    "SessionStore",
    "resolve_store",
]

_SERVER_SCHEMES = ("postgresql", "postgres", "mysql", "mariadb")
_FORMS = (
    "None, 'memory', 'sqlite:///path/to/file.db' (add ?mode=ro to open it read-only), "
    "'postgresql://USER:PASSWORD@HOST:PORT/DATABASE' or a SessionStore"
)


def _masked(url: str) -> str:
    """``url`` with any password replaced by ``***``, for error messages."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))  # SQLiteStore too, before it is loaded


_SQL_STORES = {"SQLiteStore": "._sqlite", "DatabaseStore": "._database"}


def _sql_store(name: str) -> Any:
    """Import a SQL store on first use; a missing SQLAlchemy says how to install it."""
    try:
        module = importlib.import_module(_SQL_STORES[name], __name__)
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "sqlalchemy":
            raise
        raise StoreError(
            f"{name} is built on SQLAlchemy 2, which is not installed in this Python "
            f"({sys.executable}); pip install 'sqlalchemy>=2' (agent_nb depends on it, so "
            "reinstalling agent_nb brings it too)"
        ) from exc
    return getattr(module, name)


def __getattr__(name: str) -> Any:
    if name in _SQL_STORES:
        return _sql_store(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _sqlite_store(url: str) -> SessionStore:
    sqlite_store = _sql_store("SQLiteStore")
    path, _, query = url[len("sqlite:///") :].partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True)) if query else {}
    mode = options.pop("mode", "rwc")
    if options or mode not in ("ro", "rw", "rwc"):
        raise StoreURLError(
            f"store URL {url!r}: the only option a sqlite:/// URL takes is mode=ro "
            "(read-only), mode=rw or mode=rwc (the default); got "
            f"{query!r}"
        )
    if not path:
        raise StoreURLError(f"store URL {url!r} names no file; use {_FORMS}")
    return sqlite_store(path, read_only=mode == "ro")


def resolve_store(store: str | SessionStore | None) -> SessionStore:
    """A store from a spec: ``None``/``"memory"``, a ``sqlite:///`` or a server URL.

    ``sqlite:///file.db`` gives a `SQLiteStore` (``?mode=ro``: read-only);
    ``postgresql://...`` (or any SQLAlchemy URL with a driver installed) a
    `DatabaseStore`. Anything else raises `StoreURLError` listing the forms.
    """
    if store is None or store == "memory":
        return MemoryStore()
    if isinstance(store, SessionStore):
        return store
    if not isinstance(store, str):
        raise TypeError(f"store must be {_FORMS}; got {type(store).__name__}")
    if store.startswith("sqlite:///"):
        return _sqlite_store(store)
    scheme = store.partition("://")[0].partition("+")[0]
    if "://" in store and scheme in _SERVER_SCHEMES:
        database_store = _sql_store("DatabaseStore")
        return database_store(store)
    raise StoreURLError(f"store must be {_FORMS}; got {_masked(store)!r}")
