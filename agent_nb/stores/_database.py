"""`DatabaseStore`: sessions on a database server, through SQLAlchemy 2.

For a class on JupyterHub: every student's kernel opens the same PostgreSQL
database (``postgresql://user:pass@host/db``, driven by psycopg 3), so the
teacher's ``app:`` state reaches everyone while ``user:`` state stays each
student's own. A ``sqlite:///file.db`` URL works through the same class (one
code path, tested with the same conformance suite as the other stores).

Why it looks the way it does:

* **ADK-like tables** (``app_states``, ``user_states``, ``sessions``,
  ``events``), the same columns as `SQLiteStore`; state and event payloads are
  JSON text so every dialect stores them alike. ``agent_nb_schema`` holds the
  schema version; a newer database than this code knows is refused.
* **One transaction per event**, and the **revision check** inside it: the
  session row is locked first (``SELECT ... FOR UPDATE`` on PostgreSQL, SQLite's
  ``BEGIN IMMEDIATE``), so two kernels writing one session serialise and the
  later one gets `StaleSessionError` instead of forking the history. Every
  writer takes the session row before a shared ``app:``/``user:`` row, always
  in that order, so writers of different sessions cannot deadlock.
* **Branches** as in `SQLiteStore`: each event row names its turn's parent
  turn (``parent_invocation_id``); the session row keeps the branch leaves
  (``branches``, JSON) and the ``active_branch``. A rewind or a switch is one
  ``UPDATE`` of the locked session row, checked against its revision.
* **Reads see one snapshot** (``REPEATABLE READ`` on PostgreSQL), so a
  session's events always agree with its revision.
* **A connection pool** (``pool_pre_ping``: a connection the server dropped is
  replaced, not handed out), shared by the runner's threads.
* **Errors name the server, never the password**: a wrong URL, a refused
  login or an unreachable host become `StoreURLError` / `StoreConnectionError`
  with the URL rendered with its password hidden.
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

from .._core.codec import event_from_dict, event_to_dict
from .._core.state import ScopedDelta, apply_delta
from .._core.types import Event
from ..errors import (
    StaleSessionError,
    StoreClosedError,
    StoreConnectionError,
    StoreError,
    StoreIOError,
    StoreURLError,
    StoreVersionError,
)
from ._base import SessionRecord, SessionStore, TurnHolder, check_lease

try:
    import sqlalchemy as sa
    from sqlalchemy import exc as sa_exc
except ModuleNotFoundError as exc:  # pragma: no cover - the extra is installed in CI
    raise StoreError(
        "DatabaseStore needs SQLAlchemy 2 and psycopg 3: pip install 'agent_nb[server]'"
    ) from exc

__all__ = ["DB_SCHEMA_VERSION", "DatabaseStore"]

#: The schema this code writes (its own numbering, independent of SQLiteStore's).
DB_SCHEMA_VERSION = 1

_ID = sa.String(256)
_meta = sa.MetaData()
_app_states = sa.Table(
    "app_states",
    _meta,
    sa.Column("app_name", _ID, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("update_time", sa.Float, nullable=False),
)
_user_states = sa.Table(
    "user_states",
    _meta,
    sa.Column("app_name", _ID, primary_key=True),
    sa.Column("user_id", _ID, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("update_time", sa.Float, nullable=False),
)
_sessions = sa.Table(
    "sessions",
    _meta,
    sa.Column("app_name", _ID, primary_key=True),
    sa.Column("user_id", _ID, primary_key=True),
    sa.Column("id", _ID, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("revision", sa.BigInteger, nullable=False),
    sa.Column("create_time", sa.Float, nullable=False),
    sa.Column("update_time", sa.Float, nullable=False),
    sa.Column("holder", sa.Text, nullable=True),
    sa.Column("lease_until", sa.Float, nullable=True),
    sa.Column("branches", sa.Text, nullable=False, server_default="[null]"),
    sa.Column("active_branch", sa.Integer, nullable=False, server_default="1"),
)
_events = sa.Table(
    "events",
    _meta,
    sa.Column("app_name", _ID, primary_key=True),
    sa.Column("user_id", _ID, primary_key=True),
    sa.Column("session_id", _ID, primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True),
    sa.Column("id", _ID, nullable=False),
    sa.Column("invocation_id", _ID, nullable=False),
    sa.Column("parent_invocation_id", _ID, nullable=True),
    sa.Column("author", _ID, nullable=False),
    sa.Column("kind", sa.String(64), nullable=False),
    sa.Column("timestamp", sa.Float, nullable=False),
    sa.Column("data", sa.Text, nullable=False),
)
_schema = sa.Table(
    "agent_nb_schema",
    _meta,
    sa.Column("version", sa.Integer, primary_key=True),
)

_FORMS = "postgresql://USER:PASSWORD@HOST:PORT/DATABASE or sqlite:///path/to/file.db"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _normalise(url: str | sa.URL) -> sa.URL:
    try:
        parsed = sa.make_url(url)
    except sa_exc.ArgumentError as exc:
        raise StoreURLError(f"DatabaseStore cannot parse its URL ({exc}); use {_FORMS}") from None
    driver = parsed.drivername
    if driver in ("postgresql", "postgres"):  # SQLAlchemy's default would be psycopg2
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        parsed = parsed.set(database=os.path.expanduser(parsed.database))
    return parsed


class DatabaseStore(SessionStore):
    """A `SessionStore` on a database server (PostgreSQL) or file (SQLite) via SQLAlchemy.

    >>> runner = AgentRunner(store="postgresql://class:secret@db.example/agents")  # doctest: +SKIP

    ``pool_size`` connections are kept open (plus ``max_overflow`` on demand);
    ``connect_timeout`` bounds how long an unreachable server is waited for.
    """

    persistent: ClassVar[bool] = True
    schema_version: ClassVar[int] = DB_SCHEMA_VERSION

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
        self._closed = threading.Event()
        kwargs: dict[str, Any] = {"pool_pre_ping": True}
        if self._dialect == "sqlite":
            kwargs["connect_args"] = {"timeout": connect_timeout, "check_same_thread": False}
        else:
            kwargs.update(pool_size=pool_size, max_overflow=max_overflow, pool_recycle=1800)
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
            self._setup_sqlite()
        try:
            self._create_schema()
        except BaseException:
            self._engine.dispose()
            raise

    # -- connections, transactions, errors ----------------------------------

    def _setup_sqlite(self) -> None:
        """SQLite: WAL, and writes that take the lock up front (``BEGIN IMMEDIATE``)
        so a read-then-write can never fail half-way on another writer's lock."""

        @sa.event.listens_for(self._engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # transactions are begun below, explicitly
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            dbapi_conn.execute("PRAGMA synchronous=FULL")

        @sa.event.listens_for(self._engine, "begin")
        def _begin(conn: sa.Connection) -> None:
            write = conn.get_execution_options().get("agent_nb_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    def _where(self) -> str:
        url = self.url
        if self._dialect == "sqlite":
            return f"the SQLite file {url.database!r}"
        port = f":{url.port}" if url.port else ""
        return f"the {self._dialect} server at {url.host or 'localhost'}{port}"

    def _translate(self, exc: sa_exc.SQLAlchemyError) -> StoreError:
        orig = getattr(exc, "orig", None)
        detail = " ".join(str(orig if orig is not None else exc).split())
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
        return StoreIOError(f"DatabaseStore {self.safe_url!r} failed: {detail}")

    @contextlib.contextmanager
    def _tx(self, *, write: bool) -> Iterator[sa.Connection]:
        if self._closed.is_set():
            raise StoreClosedError(
                f"DatabaseStore({self.safe_url!r}) is closed; open a new one (or AgentRunner) "
                "with the same URL to get the stored sessions back"
            )
        try:
            with self._engine.connect() as conn:
                options: dict[str, Any] = {"agent_nb_write": write}
                if not write and self._dialect == "postgresql":
                    options["isolation_level"] = "REPEATABLE READ"  # one snapshot per read
                conn = conn.execution_options(**options)
                with conn.begin():
                    yield conn
        except sa_exc.SQLAlchemyError as exc:
            raise self._translate(exc) from exc

    def _create_schema(self) -> None:
        with self._tx(write=True) as conn:
            if self._dialect == "postgresql":
                # Kernels starting together must not race on CREATE TABLE.
                lock = zlib.crc32(b"agent_nb schema")
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": lock})
            _meta.create_all(conn, checkfirst=True)
            stored = conn.execute(sa.select(sa.func.max(_schema.c.version))).scalar()
            if stored is None:
                conn.execute(sa.insert(_schema).values(version=self.schema_version))
            elif stored > self.schema_version:
                raise StoreVersionError(
                    f"{self.safe_url!r} has agent_nb schema version {stored}, but this agent_nb "
                    f"only knows up to {self.schema_version}; upgrade agent_nb"
                )

    def close(self) -> None:
        """Close the pool's connections. The data stays in the database."""
        self._closed.set()
        self._engine.dispose()

    def __repr__(self) -> str:
        return f"DatabaseStore({self.safe_url!r})"

    # -- helpers ---------------------------------------------------------------

    @staticmethod
    def _key(record: SessionRecord) -> Any:
        return sa.and_(
            _sessions.c.app_name == record.app_name,
            _sessions.c.user_id == record.user_id,
            _sessions.c.id == record.session_id,
        )

    @staticmethod
    def _event_key(app_name: str, user_id: str, session_id: str) -> Any:
        return sa.and_(
            _events.c.app_name == app_name,
            _events.c.user_id == user_id,
            _events.c.session_id == session_id,
        )

    def _locked_state(self, conn: sa.Connection, record: SessionRecord) -> dict[str, Any]:
        """Lock the session row; return its state if ``record`` is current, else raise."""
        row = conn.execute(
            sa.select(_sessions.c.revision, _sessions.c.state)
            .where(self._key(record))
            .with_for_update()
        ).first()
        if row is None:
            raise StaleSessionError(
                f"session {record.session_id!r} is no longer in {self!r} (deleted by another "
                "runner or kernel); ask the runner for it again to start afresh"
            )
        if row.revision != record.revision:
            raise StaleSessionError(
                f"session {record.session_id!r} in {self!r} was changed by another writer "
                f"(stored revision {row.revision}, this copy has {record.revision}); the next "
                "turn reloads it"
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
        elif conn.execute(sa.select(table.c.state).where(*self._match(table, key))).first() is None:
            conn.execute(sa.insert(table).values(**values))
        where = self._match(table, key)
        row = conn.execute(sa.select(table.c.state).where(*where).with_for_update()).one()
        state = apply_delta(json.loads(row.state), delta)
        conn.execute(sa.update(table).where(*where).values(state=_dumps(state), update_time=now))

    @staticmethod
    def _match(table: sa.Table, key: dict[str, str]) -> list[Any]:
        return [table.c[name] == value for name, value in key.items()]

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
            if conn.execute(sa.select(_sessions.c.id).where(self._key(record))).first():
                return False
            try:
                with conn.begin_nested():  # a racing creator makes only this insert fail
                    conn.execute(sa.insert(_sessions).values(**values))
            except sa_exc.IntegrityError:
                return False
            conn.execute(
                sa.delete(_events).where(
                    self._event_key(record.app_name, record.user_id, record.session_id)
                )
            )
        return True

    def _get(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None:
        probe = SessionRecord(app_name, user_id, session_id)
        with self._tx(write=False) as conn:
            row = conn.execute(
                sa.select(
                    _sessions.c.state,
                    _sessions.c.revision,
                    _sessions.c.update_time,
                    _sessions.c.branches,
                    _sessions.c.active_branch,
                ).where(self._key(probe))
            ).first()
            if row is None:
                return None
            rows = conn.execute(
                sa.select(_events.c.data, _events.c.invocation_id, _events.c.parent_invocation_id)
                .where(self._event_key(app_name, user_id, session_id))
                .order_by(_events.c.seq)
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
                sa.select(_sessions.c.revision, _sessions.c.holder, _sessions.c.lease_until)
                .where(self._key(record))
                .with_for_update()
            ).first()
            if row is None:
                return None
            check_lease(record.session_id, holder, row.holder, row.lease_until, now)
            conn.execute(
                sa.update(_sessions)
                .where(self._key(record))
                .values(holder=holder.to_json(), lease_until=until)
            )
            return int(row.revision)

    def _renew(self, record: SessionRecord, holder: TurnHolder, until: float | None) -> None:
        with self._tx(write=True) as conn:
            row = conn.execute(
                sa.select(_sessions.c.holder).where(self._key(record)).with_for_update()
            ).first()
            if row is None or row.holder is None:
                return
            if TurnHolder.from_json(row.holder).token != holder.token:
                return
            conn.execute(
                sa.update(_sessions)
                .where(self._key(record))
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
        data = event_to_dict(event)
        payload = _dumps(data)  # fails (TypeError/ValueError) before anything is written
        ekey = self._event_key(record.app_name, record.user_id, record.session_id)
        with self._tx(write=True) as conn:
            state = apply_delta(self._locked_state(conn, record), delta.session)
            conn.execute(
                sa.update(_sessions)
                .where(self._key(record))
                .values(
                    revision=_sessions.c.revision + 1,
                    state=_dumps(state),
                    update_time=event.timestamp,
                    branches=_dumps(branches),
                )
            )
            seq = conn.execute(
                sa.select(sa.func.coalesce(sa.func.max(_events.c.seq) + 1, 0)).where(ekey)
            ).scalar_one()
            conn.execute(
                sa.insert(_events).values(
                    app_name=record.app_name,
                    user_id=record.user_id,
                    session_id=record.session_id,
                    seq=seq,
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
                self._merge_shared(conn, _app_states, {"app_name": record.app_name}, delta.app)
            if delta.user:
                key = {"app_name": record.app_name, "user_id": record.user_id}
                self._merge_shared(conn, _user_states, key, delta.user)

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
                sa.update(_sessions)
                .where(self._key(record))
                .values(
                    revision=_sessions.c.revision + 1,
                    state=_dumps(dict(state)),
                    update_time=time.time(),
                    branches=_dumps(branches),
                    active_branch=active,
                )
            )

    def delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        probe = SessionRecord(app_name, user_id, session_id)
        with self._tx(write=True) as conn:
            conn.execute(sa.delete(_events).where(self._event_key(app_name, user_id, session_id)))
            conn.execute(sa.delete(_sessions).where(self._key(probe)))

    def list_sessions(self, app_name: str, user_id: str) -> list[str]:
        with self._tx(write=False) as conn:
            rows = conn.execute(
                sa.select(_sessions.c.id)
                .where(_sessions.c.app_name == app_name, _sessions.c.user_id == user_id)
                .order_by(_sessions.c.update_time, _sessions.c.create_time, _sessions.c.id)
            ).all()
        return [sid for (sid,) in rows]

    def clear_user(self, app_name: str, user_id: str) -> None:
        """Delete every stored session of the user in one transaction."""
        with self._tx(write=True) as conn:
            for table in (_events, _sessions):
                conn.execute(
                    sa.delete(table).where(table.c.app_name == app_name, table.c.user_id == user_id)
                )

    def get_app_state(self, app_name: str) -> dict[str, Any]:
        return self._state_row(_app_states, {"app_name": app_name})

    def get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        return self._state_row(_user_states, {"app_name": app_name, "user_id": user_id})

    def _state_row(self, table: sa.Table, key: dict[str, str]) -> dict[str, Any]:
        with self._tx(write=False) as conn:
            row = conn.execute(sa.select(table.c.state).where(*self._match(table, key))).first()
        state: dict[str, Any] = json.loads(row.state) if row else {}
        return state
