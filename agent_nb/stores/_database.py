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
  from the kernel's; the engine's pool gives each thread its own connection
  (an in-memory SQLite database is one connection, so its transactions take a
  lock). How each dialect connects, and how driver errors become `StoreError`
  naming the file or server but never the password: `agent_nb.stores._engine`.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from .._core.codec import event_from_dict, event_to_dict
from .._core.state import ScopedDelta, apply_delta
from .._core.types import Event
from ..errors import (
    StaleSessionError,
    StoreClosedError,
    StorePermissionError,
    StoreVersionError,
)
from . import _statements as q
from ._base import LeaseOwner, SessionRecord, SessionStore, check_lease
from ._engine import is_memory, make_engine, normalise, translate
from ._schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Migration,
    ensure_store_id,
    metadata,
    stamp,
    store_id,
    stored_version,
)

__all__ = ["DatabaseStore"]


def _dumps(value: Any) -> str:
    # NaN/inf are allowed (Python reads them back): a speed figure of inf must
    # not cost the user a recorded event. State values are checked upstream.
    return json.dumps(value, separators=(",", ":"))


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
        self.url = normalise(url)
        #: The URL as it may be shown: the password is masked.
        self.safe_url = self.url.render_as_string(hide_password=True)
        self._dialect = self.url.get_backend_name()
        self._timeout = connect_timeout
        self._closed = threading.Event()
        # In-process locks, by ``write``. An in-memory SQLite database is one
        # connection: one transaction at a time. A file's writers in this process
        # queue here rather than on SQLite's lock, whose busy handler polls in sleeps.
        free: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
        self._locks: dict[bool, contextlib.AbstractContextManager[Any]]
        if is_memory(self.url):
            free = threading.RLock()
            self._locks = {False: free, True: free}
        else:
            sqlite = self._dialect == "sqlite"
            self._locks = {False: free, True: threading.Lock() if sqlite else free}
        self._engine = make_engine(
            self.url,
            timeout=connect_timeout,
            pool_size=pool_size,
            max_overflow=max_overflow,
            read_only=self.read_only,
            synchronous=self._synchronous,
        )
        #: SQLite's journal mode (``"wal"`` for a file); None on a server.
        self.journal_mode: str | None = None
        self._store_id: str | None = None
        try:
            self._check_version() if self.read_only else self._migrate()
            if self.read_only:
                with self._tx(write=False) as conn:
                    self._store_id = store_id(conn)
            if self._dialect == "sqlite":
                with self._tx(write=False) as conn:
                    self.journal_mode = str(conn.exec_driver_sql("PRAGMA journal_mode").scalar())
        except BaseException:
            self._engine.dispose()
            raise

    # -- transactions, the schema ---------------------------------------------------

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
            with self._locks[write], self._engine.connect() as conn:
                conn = conn.execution_options(**options)
                with conn.begin():
                    yield conn
        except sa_exc.SQLAlchemyError as exc:
            kind = type(self).__name__
            raise translate(
                exc, self.url, shown=repr(self), kind=kind, timeout=self._timeout
            ) from exc

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
                    self._store_id = ensure_store_id(conn)
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

    @property
    def identity(self) -> str | None:
        """The id kept inside the database (a row made once, when it was first
        opened writable), so a copied or moved SQLite file is the same store
        and keeps its KV checkpoints. A read-only database that never had one
        falls back to where it lives: the URL without its password, a SQLite
        file by its resolved path."""
        if is_memory(self.url):
            return None
        if self._store_id is not None:
            return f"agent_nb-store:{self._store_id}"
        u = self.url
        database = os.path.realpath(u.database or "") if self._dialect == "sqlite" else u.database
        url = sa.URL.create(u.drivername, u.username, None, u.host, u.port, database, u.query)
        return url.render_as_string(hide_password=False)

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

    def revision(self, app_name: str, user_id: str, session_id: str) -> int | None:
        with self._tx(write=False) as conn:
            row = conn.execute(q.REVISION, _ids(app_name, user_id, session_id)).first()
        return None if row is None else int(row.revision)

    def _lease(
        self, record: SessionRecord, owner: LeaseOwner, now: float, until: float
    ) -> int | None:
        with self._tx(write=True) as conn:
            row = conn.execute(q.LEASE, _of(record)).first()
            if row is None:
                return None
            check_lease(record.session_id, owner, row.lease_owner, row.lease_until, now)
            conn.execute(
                q.SET_LEASE_OWNER, {**_of(record), "new_owner": owner.to_json(), "until": until}
            )
            return int(row.revision)

    def _renew(self, record: SessionRecord, owner: LeaseOwner, until: float | None) -> None:
        with self._tx(write=True) as conn:
            row = conn.execute(q.LEASE_OWNER, _of(record)).first()
            if row is None or row.lease_owner is None:
                return
            if LeaseOwner.from_json(row.lease_owner).token != owner.token:
                return
            kept = None if until is None else row.lease_owner
            conn.execute(q.SET_LEASE_OWNER, {**_of(record), "new_owner": kept, "until": until})

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
