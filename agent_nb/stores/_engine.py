"""Connecting the SQL store: URLs, the engine per dialect, and driver errors as `StoreError`.

* **SQLite**: WAL (a reader never blocks the writer), ``synchronous`` as the
  store asks, and writes that take the lock up front (``BEGIN IMMEDIATE``): a
  read-then-write never fails half-way on another writer's lock, and the
  revision read cannot interleave with another kernel's write. The pool hands
  each thread its own connection, opened with ``check_same_thread=False``
  because a pooled connection moves between threads; an in-memory database
  exists only as one connection (`StaticPool`), which the store then uses under
  a lock. ``read_only`` opens the file with SQLite's ``mode=ro`` URI. Nothing
  pings a SQLite connection: there is no server to have dropped it.
* **Servers**: a pool of ``pool_size`` (+ ``max_overflow``) connections, each
  checked before use (``pool_pre_ping``) so one the server dropped is replaced.
* **Errors name the server or file, never the password**: a wrong URL, a
  refused login or an unreachable host become `StoreURLError` /
  `StoreConnectionError` with the URL's password hidden; SQLite's lock timeout
  is `StoreLockedError`, a file that is no database `StoreFormatError`.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from ..errors import (
    StoreConnectionError,
    StoreError,
    StoreFormatError,
    StoreIOError,
    StoreLockedError,
    StoreURLError,
)

__all__ = ["FORMS", "is_memory", "make_engine", "normalise", "translate"]

FORMS = "postgresql://USER:PASSWORD@HOST:PORT/DATABASE or sqlite:///path/to/file.db"


def normalise(url: str | sa.URL) -> sa.URL:
    try:
        parsed = sa.make_url(url)
    except sa_exc.ArgumentError as exc:
        raise StoreURLError(f"DatabaseStore cannot parse its URL ({exc}); use {FORMS}") from None
    if parsed.drivername in ("postgresql", "postgres"):  # SQLAlchemy's default: psycopg2
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite" and not is_memory(parsed):
        parsed = parsed.set(database=os.path.expanduser(parsed.database or ""))
    return parsed


def is_memory(url: sa.URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


def make_engine(
    url: sa.URL,
    *,
    timeout: float,
    pool_size: int,
    max_overflow: int,
    read_only: bool,
    synchronous: str,
) -> sa.Engine:
    dialect = url.get_backend_name()
    kwargs: dict[str, Any] = {}
    if dialect == "sqlite":
        kwargs["connect_args"] = {"timeout": timeout, "check_same_thread": False}
        if is_memory(url):
            kwargs["poolclass"] = sa.pool.StaticPool
        elif read_only:
            target = Path(url.database or "").resolve().as_uri() + "?mode=ro"
            kwargs["creator"] = lambda: sqlite3.connect(
                target, uri=True, timeout=timeout, check_same_thread=False
            )
    else:
        kwargs.update(pool_pre_ping=True, pool_size=pool_size, max_overflow=max_overflow)
        kwargs["pool_recycle"] = 1800
        if dialect == "postgresql":
            kwargs["connect_args"] = {"connect_timeout": max(1, round(timeout))}
    safe_url = url.render_as_string(hide_password=True)
    try:
        engine = sa.create_engine(url, **kwargs)
    except sa_exc.NoSuchModuleError:
        raise StoreURLError(
            f"no SQLAlchemy dialect for {url.drivername!r} in {safe_url!r}; use {FORMS}"
        ) from None
    except ModuleNotFoundError as exc:
        raise StoreURLError(
            f"the database driver for {safe_url!r} is not installed ({exc.name}); "
            "pip install 'agent_nb[server]' (psycopg 3 for PostgreSQL)"
        ) from None
    if dialect == "sqlite":
        _sqlite_events(engine, read_only=read_only, synchronous=synchronous)
    return engine


def _sqlite_events(engine: sa.Engine, *, read_only: bool, synchronous: str) -> None:
    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # transactions are begun below, explicitly
        if not read_only:
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            dbapi_conn.execute(f"PRAGMA synchronous={synchronous}")

    @sa.event.listens_for(engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        write = conn.get_execution_options().get("agent_nb_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def _where(url: sa.URL) -> str:
    dialect = url.get_backend_name()
    if dialect == "sqlite":
        return f"the SQLite file {url.database!r}"
    port = f":{url.port}" if url.port else ""
    return f"the {dialect} server at {url.host or 'localhost'}{port}"


def translate(
    exc: sa_exc.SQLAlchemyError, url: sa.URL, *, shown: str, kind: str, timeout: float
) -> StoreError:
    """``exc`` as the `StoreError` to raise; ``shown`` is the store's repr, ``kind`` its class."""
    orig = getattr(exc, "orig", None)
    detail = " ".join(str(orig if orig is not None else exc).split())
    if url.get_backend_name() == "sqlite":
        if "locked" in detail or "busy" in detail:
            return StoreLockedError(
                f"{shown} stayed locked by another writer for more than {timeout:g}s; "
                "another kernel is writing to it: retry, pass a larger timeout=, or give "
                "this runner its own file"
            )
        if isinstance(orig, sqlite3.DatabaseError) and not isinstance(
            orig, sqlite3.OperationalError
        ):
            return StoreFormatError(
                f"{url.database!r} is not a usable agent_nb session database ({detail}); "
                f"point {kind} at a new file or at one agent_nb created"
            )
        return StoreIOError(f"{shown} failed: {detail}")
    safe_url = url.render_as_string(hide_password=True)
    user = url.username or "(default)"
    if "password authentication failed" in detail or "authentication failed" in detail:
        return StoreConnectionError(
            f"{_where(url)} refused the login of user {user!r} (wrong user or password?): "
            f"check the user and password in the store URL {safe_url!r}"
        )
    if "does not exist" in detail and "database" in detail:
        return StoreConnectionError(
            f"{_where(url)} has no database {url.database!r}; create it "
            f"(createdb {url.database}) or fix the store URL {safe_url!r}"
        )
    if isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError) or (
        isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated
    ):
        return StoreConnectionError(
            f"cannot reach {_where(url)} ({detail}); is the server running and the "
            f"host and port in {safe_url!r} right?"
        )
    return StoreIOError(f"{shown} failed: {detail}")
