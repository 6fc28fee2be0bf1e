"""`DatabaseStore`: the one SQL session store, on SQLAlchemy 2, for ``sqlite:`` and
``postgresql:`` URLs (`SQLiteStore` is this class for a file path).

For a class on JupyterHub every student's kernel opens the same PostgreSQL
database (``postgresql://user:pass@host/db``, driven by psycopg 3), so the
teacher's ``app:`` state reaches everyone while ``user:`` state stays each
student's own. On one machine a SQLite file does the same for one user's kernels.

Why it looks the way it does:

* **One layout, one schema number** (`agent_nb.stores._schema`), with the steps
  that bring every older file up to it; a newer database is refused.
* **One transaction per event**, and the **revision check** inside it: the
  session row is taken first (``SELECT ... FOR UPDATE`` on PostgreSQL, SQLite's
  ``BEGIN IMMEDIATE``, which takes the write lock up front), so two kernels
  writing one session serialise and the later one gets `StaleSessionError`
  instead of forking the history. A crash leaves whole events, never half of
  one. Every writer takes the session row before a shared ``app:``/``user:``
  row, always in that order, so writers of different sessions cannot deadlock.
* **Branches**: each event row names its turn's parent turn
  (``parent_invocation_id``); the session row keeps the branch leaves
  (``branches``, JSON) and the ``active_branch``. A rewind or a switch is one
  ``UPDATE`` of that row, never a ``DELETE``.
* **Reads see one snapshot** (``REPEATABLE READ`` on PostgreSQL; a SQLite read
  transaction in WAL mode), so a session's events always agree with its revision.
* **Threads**: the store is called from the runner's writer thread and read
  from the kernel's. The engine's pool hands each thread its own connection
  (SQLite's opened with ``check_same_thread=False``, as a pooled connection
  moves between threads); an in-memory SQLite database is one connection, so
  its transactions take a lock. PostgreSQL connections are checked before use
  (``pool_pre_ping``), so one the server dropped is replaced, not handed out.
* **Errors name the server or file, never the password**: a wrong URL, a
  refused login or an unreachable host become `StoreURLError` /
  `StoreConnectionError` with the password hidden; SQLite's lock timeout is
  `StoreLockedError`, a foreign file `StoreFormatError`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from .._core.codec import event_from_dict, event_to_dict
from .._core.state import ScopedDelta, apply_delta
from .._core.types import Event
from ..errors import (
    StaleSessionError,
    StoreClosedError,
    StoreConnectionError,
    StoreError,
    StoreFormatError,
    StoreIOError,
    StoreLockedError,
    StorePermissionError,
    StoreURLError,
    StoreVersionError,
)
from . import _statements as q
from ._base import SessionRecord, SessionStore, TurnHolder, check_lease
from ._schema import MIGRATIONS, SCHEMA_VERSION, Migration, metadata, stamp, stored_version

__all__ = ["DatabaseStore"]

_FORMS = "postgresql://USER:PASSWORD@HOST:PORT/DATABASE or sqlite:///path/to/file.db"


def _dumps(value: Any) -> str:
    # NaN/inf are allowed (Python reads them back): a speed figure of inf must
    # not cost the user a recorded event. State values are checked upstream.
    return json.dumps(value, separators=(",", ":"))


def _normalise(url: str | sa.URL) -> sa.URL:
    try:
        parsed = sa.make_url(url)
    except sa_exc.ArgumentError as exc:
        raise StoreURLError(f"DatabaseStore cannot parse its URL ({exc}); use {_FORMS}") from None
    if parsed.drivername in ("postgresql", "postgres"):  # SQLAlchemy's default: psycopg2
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        parsed = parsed.set(database=os.path.expanduser(parsed.database))
    return parsed


def _ids(app_name: str, user_id: str, session_id: str = "") -> dict[str, str]:
    return {"app": app_name, "user": user_id, "sid": session_id}


def _of(record: SessionRecord) -> dict[str, str]:
    return _ids(record.app_name, record.user_id, record.session_id)


class DatabaseStore(SessionStore):
    """A `SessionStore` on a database server (PostgreSQL) or file (SQLite) via SQLAlchemy.

    >>> runner = AgentRunner(store="postgresql://class:secret@db.example/agents")  # doctest: +SKIP

    ``pool_size`` connections are kept open (plus ``max_overflow`` on demand);
    ``connect_timeout`` bounds how long an unreachable server (or a SQLite
    file another process is writing) is waited for.
    """

    persistent: ClassVar[bool] = True
    #: The schema version this class writes, and the steps that get there.
    schema_version: ClassVar[int] = SCHEMA_VERSION
    migrations: ClassVar[Mapping[int, Migration]] = MIGRATIONS
    #: Reads only; every write raises `StorePermissionError` (`SQLiteStore` sets it).
    read_only: bool = False
    #: SQLite's ``PRAGMA synchronous`` (`SQLiteStore` has ``durable=False``: NORMAL).
    _synchronous: str = "FULL"

    def __init__(
        self,
        url: str | sa.URL,
        *,
        pool_size: int = 5,
        max_overflow: int = 10,
        connect_timeout: float = 10.0,
    ) -> None:
        self.url = _normalise(url)
        #: The URL as it may be shown: the password is masked.
        self.safe_url = self.url.render_as_string(hide_password=True)
        self._dialect = self.url.get_backend_name()
        self._timeout = connect_timeout
        self._closed = threading.Event()
        self._serial: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        #: SQLite's journal mode (``"wal"`` for a file); None on a server.
        self.journal_mode: str | None = None
        kwargs: dict[str, Any] = {}
        if self._dialect == "sqlite":
            kwargs = self._sqlite_options()
        else:
            kwargs.update(
                pool_pre_ping=True,
                pool_size=pool_size,
                max_overflow=max_overflow,
                pool_recycle=1800,
            )
            if self._dialect == "postgresql":
                kwargs["connect_args"] = {"connect_timeout": max(1, round(connect_timeout))}
        try:
            self._engine = sa.create_engine(self.url, **kwargs)
        except sa_exc.NoSuchModuleError:
            raise StoreURLError(
                f"no SQLAlchemy dialect for {self.url.drivername!r} in {self.safe_url!r}; "
                f"use {_FORMS}"
            ) from None
        except ModuleNotFoundError as exc:
            raise StoreURLError(
                f"the database driver for {self.safe_url!r} is not installed ({exc.name}); "
                "pip install 'agent_nb[server]' (psycopg 3 for PostgreSQL)"
            ) from None
        if self._dialect == "sqlite":
            self._sqlite_events()
        try:
            self._check_version() if self.read_only else self._migrate()
        except BaseException:
            self._engine.dispose()
            raise

    # -- SQLite: connections, WAL, the write lock up front -----------------------

    def _sqlite_options(self) -> dict[str, Any]:
        database = self.url.database or ":memory:"
        options: dict[str, Any] = {
            "connect_args": {"timeout": self._timeout, "check_same_thread": False}
        }
        if database == ":memory:":  # one database only as long as it is one connection
            options["poolclass"] = sa.pool.StaticPool
            self._serial = threading.RLock()
        elif self.read_only:  # SQLite's mode=ro needs a file: URI, made here from the path
            target = Path(database).resolve().as_uri() + "?mode=ro"
            options["creator"] = lambda: sqlite3.connect(
                target, uri=True, timeout=self._timeout, check_same_thread=False
            )
        return options

    def _sqlite_events(self) -> None:
        """WAL (a reader never blocks the writer), and writes that take the lock up
        front (``BEGIN IMMEDIATE``): a read-then-write never fails half-way on
        another writer's lock, and the revision read cannot interleave."""

        @sa.event.listens_for(self._engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # transactions are begun below, explicitly
            if self.read_only:
                mode = dbapi_conn.execute("PRAGMA journal_mode").fetchone()[0]
            else:
                mode = dbapi_conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                dbapi_conn.execute(f"PRAGMA synchronous={self._synchronous}")
            self.journal_mode = str(mode)

        @sa.event.listens_for(self._engine, "begin")
        def _begin(conn: sa.Connection) -> None:
            write = conn.get_execution_options().get("agent_nb_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    # -- transactions, errors, the schema -----------------------------------------

    def _where(self) -> str:
        url = self.url
        if self._dialect == "sqlite":
            return f"the SQLite file {url.database!r}"
        port = f":{url.port}" if url.port else ""
        return f"the {self._dialect} server at {url.host or 'localhost'}{port}"

    def _translate(self, exc: sa_exc.SQLAlchemyError) -> StoreError:
        orig = getattr(exc, "orig", None)
        detail = " ".join(str(orig if orig is not None else exc).split())
        if self._dialect == "sqlite":
            if "locked" in detail or "busy" in detail:
                return StoreLockedError(
                    f"{self!r} stayed locked by another writer for more than "
                    f"{self._timeout:g}s; another kernel is writing to it: retry, pass a "
                    "larger timeout=, or give this runner its own file"
                )
            if isinstance(orig, sqlite3.DatabaseError) and not isinstance(
                orig, sqlite3.OperationalError
            ):
                return StoreFormatError(
                    f"{self.url.database!r} is not a usable agent_nb session database "
                    f"({detail}); point {type(self).__name__} at a new file or at one "
                    "agent_nb created"
                )
            return StoreIOError(f"{self!r} failed: {detail}")
        user = self.url.username or "(default)"
        if "password authentication failed" in detail or "authentication failed" in detail:
            return StoreConnectionError(
                f"{self._where()} refused the login of user {user!r} (wrong user or password?): "
                f"check the user and password in the store URL {self.safe_url!r}"
            )
        if "does not exist" in detail and "database" in detail:
            return StoreConnectionError(
                f"{self._where()} has no database {self.url.database!r}; create it "
                f"(createdb {self.url.database}) or fix the store URL {self.safe_url!r}"
            )
        if isinstance(exc, sa_exc.OperationalError | sa_exc.InterfaceError) or (
            isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated
        ):
            return StoreConnectionError(
                f"cannot reach {self._where()} ({detail}); is the server running and the "
                f"host and port in {self.safe_url!r} right?"
            )
        return StoreIOError(f"{self!r} failed: {detail}")

    @contextlib.contextmanager
    def _tx(self, *, write: bool) -> Iterator[sa.Connection]:
        """One transaction; ``write`` takes the write lock up front (SQLite)."""
        if self._closed.is_set():
            where = "file" if self._dialect == "sqlite" else "URL"
            raise StoreClosedError(
                f"{self!r} is closed; open a new {type(self).__name__} (or AgentRunner) on "
                f"the same {where} to get the stored sessions back"
            )
        if write and self.read_only:
            raise StorePermissionError(
                f"{self!r} was opened read-only (mode=ro): it cannot record turns or "
                "change sessions; open it without ?mode=ro to write"
            )
        options: dict[str, Any] = {"agent_nb_write": write}
        if not write and self._dialect == "postgresql":
            options["isolation_level"] = "REPEATABLE READ"  # one snapshot per read
        try:
            with self._serial, self._engine.connect() as conn:
                conn = conn.execution_options(**options)
                with conn.begin():
                    yield conn
        except sa_exc.SQLAlchemyError as exc:
            raise self._translate(exc) from exc

    def _check_version(self) -> None:
        """Read-only: the database must already be at this version (nothing can be migrated)."""
        with self._tx(write=False) as conn:
            current = stored_version(conn)
        if current != self.schema_version:
            raise StoreVersionError(
                f"{self!r} has session schema version {current}, this agent_nb reads "
                f"{self.schema_version}; a read-only store cannot be upgraded: open it once "
                "writable (without ?mode=ro), or upgrade agent_nb"
            )

    def _migrate(self) -> None:
        """Create the tables, or run each missing step in its own transaction."""
        target = self.schema_version
        while True:
            with self._tx(write=True) as conn:
                if self._dialect == "postgresql":
                    # Kernels starting together must not race on CREATE TABLE.
                    lock = zlib.crc32(b"agent_nb schema")
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": lock})
                # Read inside the transaction: another kernel may have migrated meanwhile.
                current = stored_version(conn)
                if current > target:
                    raise StoreVersionError(
                        f"{self!r} has session schema version {current}, but this agent_nb "
                        f"only knows up to {target}; upgrade agent_nb or use another database"
                    )
                if current == target:
                    stamp(conn, current, only_if_missing=True)
                    return
                if current == 0:
                    metadata.create_all(conn, checkfirst=True)
                    stamp(conn, SCHEMA_VERSION)
                    continue
                step = self.migrations.get(current + 1)
                if step is None:
                    raise StoreVersionError(
                        f"no migration from session schema version {current} to {current + 1}"
                    )
                step(conn)
                stamp(conn, current + 1)

    def close(self) -> None:
        """Close the pool's connections (SQLite checkpoints its WAL). The data stays."""
        self._closed.set()
        self._engine.dispose()

    def __repr__(self) -> str:
        return f"DatabaseStore({self.safe_url!r})"

    # -- helpers ---------------------------------------------------------------

    def _locked_state(self, conn: sa.Connection, record: SessionRecord) -> dict[str, Any]:
        """Lock the session row; return its state if ``record`` is current, else raise."""
        row = conn.execute(q.LOCK_SESSION, _of(record)).first()
        if row is None:
            raise StaleSessionError(
                f"session {record.session_id!r} is no longer in {self!r} (deleted by another "
                "runner or kernel); ask the runner for it again to start afresh"
            )
        if row.revision != record.revision:
            raise StaleSessionError(
                f"session {record.session_id!r} in {self!r} was changed by another writer "
                f"(stored revision {row.revision}, this copy has {record.revision}); close "
                "it and call get_or_create_session again to load the current history"
            )
        state: dict[str, Any] = json.loads(row.state)
        return state

    def _merge_shared(
        self, conn: sa.Connection, shared: q.Shared, ids: dict[str, str], delta: Mapping[str, Any]
    ) -> None:
        """Apply ``delta`` to an ``app:``/``user:`` row, creating it first if needed."""
        now = time.time()
        ensure = shared.ensure.get(self._dialect)
        if ensure is not None or conn.execute(shared.read, ids).first() is None:
            row = {"app_name": ids["app"], "state": "{}", "update_time": now}
            if "user_id" in shared.table.c:
                row["user_id"] = ids["user"]
            conn.execute(sa.insert(shared.table) if ensure is None else ensure, row)
        stored = conn.execute(shared.lock, ids).one()
        state = apply_delta(json.loads(stored.state), delta)
        conn.execute(shared.write, {**ids, "new_state": _dumps(state), "now": now})

    # -- SessionStore -------------------------------------------------------------

    def _create(self, record: SessionRecord) -> bool:
        values = {
            "app_name": record.app_name,
            "user_id": record.user_id,
            "id": record.session_id,
            "state": _dumps(record.state),
            "revision": record.revision,
            "create_time": time.time(),
            "update_time": record.last_update_time,
            "branches": _dumps(record.branches),
            "active_branch": record.active_branch,
        }
        with self._tx(write=True) as conn:
            if conn.execute(q.SESSION_EXISTS, _of(record)).first():
                return False
            try:
                with conn.begin_nested():  # a racing creator makes only this insert fail
                    conn.execute(q.INSERT_SESSION, values)
            except sa_exc.IntegrityError:
                return False
            # Rows of a session deleted while its events were being written elsewhere.
            conn.execute(q.DELETE_EVENTS, _of(record))
        return True

    def _get(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None:
        ids = _ids(app_name, user_id, session_id)
        with self._tx(write=False) as conn:
            row = conn.execute(q.SESSION, ids).first()
            if row is None:
                return None
            rows = conn.execute(q.EVENTS, ids).all()
        parents: dict[str, str | None] = {}
        for _, turn, parent in rows:
            parents.setdefault(turn, parent)
        return SessionRecord(
            app_name,
            user_id,
            session_id,
            state=json.loads(row.state),
            revision=row.revision,
            last_update_time=row.update_time,
            tree=[event_from_dict(json.loads(data)) for (data, _, _) in rows],
            parents=parents,
            branches=json.loads(row.branches),
            active_branch=row.active_branch,
        )

    def _lease(
        self, record: SessionRecord, holder: TurnHolder, now: float, until: float
    ) -> int | None:
        with self._tx(write=True) as conn:
            row = conn.execute(q.LEASE, _of(record)).first()
            if row is None:
                return None
            check_lease(record.session_id, holder, row.holder, row.lease_until, now)
            conn.execute(
                q.SET_HOLDER, {**_of(record), "new_holder": holder.to_json(), "until": until}
            )
            return int(row.revision)

    def _renew(self, record: SessionRecord, holder: TurnHolder, until: float | None) -> None:
        with self._tx(write=True) as conn:
            row = conn.execute(q.HOLDER, _of(record)).first()
            if row is None or row.holder is None:
                return
            if TurnHolder.from_json(row.holder).token != holder.token:
                return
            kept = None if until is None else row.holder
            conn.execute(q.SET_HOLDER, {**_of(record), "new_holder": kept, "until": until})

    def _append(
        self,
        record: SessionRecord,
        event: Event,
        delta: ScopedDelta,
        parent: str | None,
        branches: list[str | None],
    ) -> None:
        # The whole event as JSON through the codec, so every field is kept; the
        # other columns are copies for ordering and look-ups.
        data = event_to_dict(event)
        payload = _dumps(data)  # fails (TypeError/ValueError) before anything is written
        ids = _of(record)
        row = {
            **ids,
            "id": event.id,
            "invocation_id": event.invocation_id,
            "parent_invocation_id": parent,
            "author": event.author,
            "kind": data["kind"],
            "timestamp": event.timestamp,
            "data": payload,
        }
        with self._tx(write=True) as conn:
            state = apply_delta(self._locked_state(conn, record), delta.session)
            conn.execute(
                q.BUMP_AFTER_EVENT,
                {
                    **ids,
                    "new_state": _dumps(state),
                    "now": event.timestamp,
                    "new_branches": _dumps(branches),
                },
            )
            conn.execute(q.INSERT_EVENT, row)
            if delta.app:
                self._merge_shared(conn, q.SHARED["app"], ids, delta.app)
            if delta.user:
                self._merge_shared(conn, q.SHARED["user"], ids, delta.user)

    def _set_branches(
        self,
        record: SessionRecord,
        branches: list[str | None],
        active: int,
        state: Mapping[str, Any],
    ) -> None:
        with self._tx(write=True) as conn:
            self._locked_state(conn, record)
            values = {
                "new_state": _dumps(dict(state)),
                "now": time.time(),
                "new_branches": _dumps(branches),
                "active": active,
            }
            conn.execute(q.SET_BRANCHES, {**_of(record), **values})

    def delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        ids = _ids(app_name, user_id, session_id)
        with self._tx(write=True) as conn:
            conn.execute(q.DELETE_EVENTS, ids)
            conn.execute(q.DELETE_SESSION, ids)

    def list_sessions(self, app_name: str, user_id: str) -> list[str]:
        with self._tx(write=False) as conn:
            rows = conn.execute(q.LIST_SESSIONS, _ids(app_name, user_id)).all()
        return [sid for (sid,) in rows]

    def clear_user(self, app_name: str, user_id: str) -> None:
        """Delete every stored session of the user in one transaction."""
        with self._tx(write=True) as conn:
            for statement in q.CLEAR_USER:
                conn.execute(statement, _ids(app_name, user_id))

    def get_app_state(self, app_name: str) -> dict[str, Any]:
        return self._state_row(q.SHARED["app"], _ids(app_name, ""))

    def get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        return self._state_row(q.SHARED["user"], _ids(app_name, user_id))

    def _state_row(self, shared: q.Shared, ids: dict[str, str]) -> dict[str, Any]:
        with self._tx(write=False) as conn:
            row = conn.execute(shared.read, ids).first()
        state: dict[str, Any] = json.loads(row.state) if row else {}
        return state
