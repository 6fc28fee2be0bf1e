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
from ._base import SessionRecord, SessionStore, TurnHolder, check_lease
from ._schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Migration,
    app_states,
    events,
    metadata,
    sessions,
    stamp,
    stored_version,
    user_states,
)

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


def _session_key(app_name: str, user_id: str, session_id: str) -> Any:
    c = sessions.c
    return sa.and_(c.app_name == app_name, c.user_id == user_id, c.id == session_id)


def _key(record: SessionRecord) -> Any:
    return _session_key(record.app_name, record.user_id, record.session_id)


def _event_key(app_name: str, user_id: str, session_id: str) -> Any:
    c = events.c
    return sa.and_(c.app_name == app_name, c.user_id == user_id, c.session_id == session_id)


def _match(table: sa.Table, key: dict[str, str]) -> list[Any]:
    return [table.c[name] == value for name, value in key.items()]


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
        row = conn.execute(
            sa.select(sessions.c.revision, sessions.c.state).where(_key(record)).with_for_update()
        ).first()
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
        self, conn: sa.Connection, table: sa.Table, key: dict[str, str], delta: Mapping[str, Any]
    ) -> None:
        """Apply ``delta`` to an ``app:``/``user:`` row, creating it first if needed."""
        now = time.time()
        values = {**key, "state": "{}", "update_time": now}
        if self._dialect == "postgresql":
            from sqlalchemy.dialects import postgresql

            conn.execute(postgresql.insert(table).values(**values).on_conflict_do_nothing())
        elif self._dialect == "sqlite":
            from sqlalchemy.dialects import sqlite

            conn.execute(sqlite.insert(table).values(**values).on_conflict_do_nothing())
        elif conn.execute(sa.select(table.c.state).where(*_match(table, key))).first() is None:
            conn.execute(sa.insert(table).values(**values))
        where = _match(table, key)
        row = conn.execute(sa.select(table.c.state).where(*where).with_for_update()).one()
        state = apply_delta(json.loads(row.state), delta)
        conn.execute(sa.update(table).where(*where).values(state=_dumps(state), update_time=now))

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
            if conn.execute(sa.select(sessions.c.id).where(_key(record))).first():
                return False
            try:
                with conn.begin_nested():  # a racing creator makes only this insert fail
                    conn.execute(sa.insert(sessions).values(**values))
            except sa_exc.IntegrityError:
                return False
            # Rows of a session deleted while its events were being written elsewhere.
            conn.execute(
                sa.delete(events).where(
                    _event_key(record.app_name, record.user_id, record.session_id)
                )
            )
        return True

    def _get(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None:
        c = sessions.c
        with self._tx(write=False) as conn:
            row = conn.execute(
                sa.select(c.state, c.revision, c.update_time, c.branches, c.active_branch).where(
                    _session_key(app_name, user_id, session_id)
                )
            ).first()
            if row is None:
                return None
            rows = conn.execute(
                sa.select(events.c.data, events.c.invocation_id, events.c.parent_invocation_id)
                .where(_event_key(app_name, user_id, session_id))
                .order_by(events.c.seq)
            ).all()
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
            row = conn.execute(
                sa.select(sessions.c.revision, sessions.c.holder, sessions.c.lease_until)
                .where(_key(record))
                .with_for_update()
            ).first()
            if row is None:
                return None
            check_lease(record.session_id, holder, row.holder, row.lease_until, now)
            conn.execute(
                sa.update(sessions)
                .where(_key(record))
                .values(holder=holder.to_json(), lease_until=until)
            )
            return int(row.revision)

    def _renew(self, record: SessionRecord, holder: TurnHolder, until: float | None) -> None:
        with self._tx(write=True) as conn:
            row = conn.execute(
                sa.select(sessions.c.holder).where(_key(record)).with_for_update()
            ).first()
            if row is None or row.holder is None:
                return
            if TurnHolder.from_json(row.holder).token != holder.token:
                return
            conn.execute(
                sa.update(sessions)
                .where(_key(record))
                .values(holder=None if until is None else row.holder, lease_until=until)
            )

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
        ekey = _event_key(record.app_name, record.user_id, record.session_id)
        next_seq = sa.select(sa.func.coalesce(sa.func.max(events.c.seq) + 1, 0)).where(ekey)
        with self._tx(write=True) as conn:
            state = apply_delta(self._locked_state(conn, record), delta.session)
            conn.execute(
                sa.update(sessions)
                .where(_key(record))
                .values(
                    revision=sessions.c.revision + 1,
                    state=_dumps(state),
                    update_time=event.timestamp,
                    branches=_dumps(branches),
                )
            )
            conn.execute(
                sa.insert(events).values(
                    app_name=record.app_name,
                    user_id=record.user_id,
                    session_id=record.session_id,
                    seq=next_seq.scalar_subquery(),
                    id=event.id,
                    invocation_id=event.invocation_id,
                    parent_invocation_id=parent,
                    author=event.author,
                    kind=data["kind"],
                    timestamp=event.timestamp,
                    data=payload,
                )
            )
            if delta.app:
                merge = {"app_name": record.app_name}
                self._merge_shared(conn, app_states, merge, delta.app)
            if delta.user:
                merge = {"app_name": record.app_name, "user_id": record.user_id}
                self._merge_shared(conn, user_states, merge, delta.user)

    def _set_branches(
        self,
        record: SessionRecord,
        branches: list[str | None],
        active: int,
        state: Mapping[str, Any],
    ) -> None:
        with self._tx(write=True) as conn:
            self._locked_state(conn, record)
            conn.execute(
                sa.update(sessions)
                .where(_key(record))
                .values(
                    revision=sessions.c.revision + 1,
                    state=_dumps(dict(state)),
                    update_time=time.time(),
                    branches=_dumps(branches),
                    active_branch=active,
                )
            )

    def delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        with self._tx(write=True) as conn:
            conn.execute(sa.delete(events).where(_event_key(app_name, user_id, session_id)))
            conn.execute(sa.delete(sessions).where(_session_key(app_name, user_id, session_id)))

    def list_sessions(self, app_name: str, user_id: str) -> list[str]:
        c = sessions.c
        with self._tx(write=False) as conn:
            rows = conn.execute(
                sa.select(c.id)
                .where(c.app_name == app_name, c.user_id == user_id)
                .order_by(c.update_time, c.create_time, c.id)
            ).all()
        return [sid for (sid,) in rows]

    def clear_user(self, app_name: str, user_id: str) -> None:
        """Delete every stored session of the user in one transaction."""
        with self._tx(write=True) as conn:
            for table in (events, sessions):
                conn.execute(
                    sa.delete(table).where(table.c.app_name == app_name, table.c.user_id == user_id)
                )

    def get_app_state(self, app_name: str) -> dict[str, Any]:
        return self._state_row(app_states, {"app_name": app_name})

    def get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        return self._state_row(user_states, {"app_name": app_name, "user_id": user_id})

    def _state_row(self, table: sa.Table, key: dict[str, str]) -> dict[str, Any]:
        with self._tx(write=False) as conn:
            row = conn.execute(sa.select(table.c.state).where(*_match(table, key))).first()
        state: dict[str, Any] = json.loads(row.state) if row else {}
        return state
