"""`SQLiteStore`: sessions that survive a kernel restart, in one SQLite file.

Why it looks the way it does:

* **ADK-like tables** (``app_states``, ``user_states``, ``sessions``,
  ``events``) so the layout is familiar and a session is a plain query away.
  State is kept as one JSON object per row; every event keeps its full JSON
  (`agent_nb._core.codec`) plus a few columns for ordering and look-ups.
* **One transaction per appended event.** The event row, the session's state
  and revision, and any ``app:``/``user:`` state change are committed together
  (``BEGIN IMMEDIATE`` ... ``COMMIT``), so a crash leaves either all of an
  event or none of it. A turn is several events, so a crash mid-turn leaves a
  *prefix* of that turn, never a torn event.
* **WAL journal** so readers (the kernel thread, another notebook) never block
  the writer, and ``synchronous=FULL`` by default so a committed event
  survives power loss too (``durable=False`` trades that for speed: a process
  crash still loses nothing, a power cut may drop the last commits).
* **A revision per session**, checked inside the same transaction as the
  write: a second kernel (or a stale copy of the record) that writes after
  someone else gets `StaleSessionError` instead of silently forking history.
* **Schema version** in ``PRAGMA user_version`` with a migration hook:
  ``migrations[v]`` brings a database from version ``v - 1`` to ``v``; on open
  every missing step runs in its own transaction. A newer file than this
  code understands is refused rather than damaged.
* **Branches** (schema 2): every event row names its turn's parent turn
  (``parent_invocation_id``), and the session row keeps the branch leaves
  (``branches``, a JSON list) and the ``active_branch``. A rewind or a switch
  is one ``UPDATE`` of the session row, never a ``DELETE``, so a crash leaves
  the old active path or the new one. Files of schema 1 are migrated in place:
  their turns become one line, in the order they were stored.
* **Turn leases** (schema 3): ``sessions.holder`` / ``lease_until``
  say which kernel runs a turn on the session (see `SessionStore.begin_turn`).
* **Read-only** (``read_only=True``, ``sqlite:///file.db?mode=ro``): opened
  with SQLite's ``mode=ro`` URI; reads work, every write raises
  `StorePermissionError` before SQLite is asked.
* **Threads**: the runner writes from its worker thread and reads from the
  kernel thread, so the one connection is opened with
  ``check_same_thread=False`` and every use holds a lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from .._core.codec import event_from_dict, event_to_dict
from .._core.state import ScopedDelta, apply_delta
from .._core.types import Event
from ..errors import (
    StaleSessionError,
    StoreClosedError,
    StoreFormatError,
    StoreIOError,
    StoreIsADirectoryError,
    StoreLockedError,
    StoreNotFoundError,
    StorePermissionError,
    StoreVersionError,
)
from ._base import SessionRecord, SessionStore, TurnHolder, check_lease

__all__ = ["SCHEMA_VERSION", "Migration", "SQLiteStore"]

Migration = Callable[[sqlite3.Connection], None]

_SCHEMA_V1 = """
CREATE TABLE app_states (
    app_name TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    update_time REAL NOT NULL
);
CREATE TABLE user_states (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    state TEXT NOT NULL,
    update_time REAL NOT NULL,
    PRIMARY KEY (app_name, user_id)
);
CREATE TABLE sessions (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    id TEXT NOT NULL,
    state TEXT NOT NULL,
    revision INTEGER NOT NULL,
    create_time REAL NOT NULL,
    update_time REAL NOT NULL,
    PRIMARY KEY (app_name, user_id, id)
);
CREATE TABLE events (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    id TEXT NOT NULL,
    invocation_id TEXT NOT NULL,
    author TEXT NOT NULL,
    kind TEXT NOT NULL,
    timestamp REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id, seq)
);
"""


def _create_v1(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA_V1.split(";"):
        if statement.strip():
            conn.execute(statement)


def _add_branches_v2(conn: sqlite3.Connection) -> None:
    """Schema 2: turns know their parent; a session keeps its branch leaves.
    What schema 1 stored is one line of turns, in the order they began."""
    conn.execute("ALTER TABLE events ADD COLUMN parent_invocation_id TEXT")
    conn.execute("ALTER TABLE sessions ADD COLUMN branches TEXT NOT NULL DEFAULT '[null]'")
    conn.execute("ALTER TABLE sessions ADD COLUMN active_branch INTEGER NOT NULL DEFAULT 1")
    sessions = conn.execute("SELECT app_name, user_id, id FROM sessions").fetchall()
    for key in sessions:
        turns = [
            turn
            for (turn,) in conn.execute(
                "SELECT invocation_id FROM events WHERE app_name=? AND user_id=? AND"
                " session_id=? GROUP BY invocation_id ORDER BY MIN(seq)",
                key,
            )
        ]
        for parent, turn in zip([None, *turns], turns, strict=False):
            conn.execute(
                "UPDATE events SET parent_invocation_id=? WHERE app_name=? AND user_id=?"
                " AND session_id=? AND invocation_id=?",
                (parent, *key, turn),
            )
        conn.execute(
            "UPDATE sessions SET branches=? WHERE app_name=? AND user_id=? AND id=?",
            (_dumps([turns[-1] if turns else None]), *key),
        )


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _add_leases_v3(conn: sqlite3.Connection) -> None:
    """Schema 3: the turn lease on the session row. Branches and leases were
    developed side by side, each as "schema 2"; a file stamped 2 by the lease
    work alone has the lease columns and no branches, so each half is added
    only where it is missing."""
    if "parent_invocation_id" not in _columns(conn, "events"):
        _add_branches_v2(conn)
    present = _columns(conn, "sessions")
    for name, kind in (("holder", "TEXT"), ("lease_until", "REAL")):
        if name not in present:
            conn.execute(f"ALTER TABLE sessions ADD COLUMN {name} {kind}")


#: The schema this code writes. Bump it and add ``MIGRATIONS[n]`` together.
SCHEMA_VERSION = 3
MIGRATIONS: dict[int, Migration] = {1: _create_v1, 2: _add_branches_v2, 3: _add_leases_v3}


def _dumps(value: Any) -> str:
    # NaN/inf are allowed (Python reads them back): a speed figure of inf must
    # not cost the user a recorded event. State values are checked upstream.
    return json.dumps(value, separators=(",", ":"))


def _key(record: SessionRecord) -> tuple[str, str, str]:
    return record.app_name, record.user_id, record.session_id


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _check_path(path: Path, *, read_only: bool = False) -> None:
    """Fail before sqlite does, with a message that names the path."""
    if read_only and not path.is_file():
        raise StoreNotFoundError(
            f"cannot open SQLiteStore at {str(path)!r} read-only: there is no such file; "
            "check the path, or drop ?mode=ro to create it"
        )
    if path.is_dir():
        raise StoreIsADirectoryError(
            f"SQLiteStore path {str(path)!r} is a directory; give a file name inside it, "
            f"e.g. {str(path / 'sessions.db')!r}"
        )
    parent = path.parent
    if not parent.is_dir():
        raise StoreNotFoundError(
            f"cannot open SQLiteStore at {str(path)!r}: directory {str(parent)!r} does not "
            "exist; create it first (os.makedirs) or choose another path"
        )
    target = path if path.exists() else parent
    if read_only:
        return
    if not os.access(target, os.W_OK) or not os.access(parent, os.W_OK):
        raise StorePermissionError(
            f"cannot write SQLiteStore at {str(path)!r}: {str(target)!r} is not writable "
            "(SQLite also needs to create journal files next to it); choose a writable path"
        )


class SQLiteStore(SessionStore):
    """A `SessionStore` in one SQLite file, so sessions survive kernel restarts.

    >>> runner = AgentRunner(store="sqlite:///sessions.db")        # doctest: +SKIP
    >>> runner = AgentRunner(store=SQLiteStore("~/agent.db"))     # doctest: +SKIP

    After a restart ``runner.get_or_create_session(id)`` comes back with its
    history and state (the model's KV cache is rebuilt on the next turn).
    ``session.close()`` only frees memory; ``delete()`` removes the rows too.

    ``path`` is a file path (``~`` expanded) or ``":memory:"``; its directory
    must exist and be writable. ``durable=False`` uses ``synchronous=NORMAL``
    (faster appends; a power cut may lose the last commits, a crash does not).
    ``timeout`` is how long a write waits for another process's lock.
    ``read_only=True`` opens an existing file for reading only (SQLite's
    ``mode=ro``); a write then raises `StorePermissionError`.

    Rewinding and switching branches replay session state only: ``app:`` and
    ``user:`` state is shared with other sessions and is not rolled back.
    """

    persistent: ClassVar[bool] = True
    #: The schema version this class writes, and the steps that get there.
    schema_version: ClassVar[int] = SCHEMA_VERSION
    migrations: ClassVar[Mapping[int, Migration]] = MIGRATIONS

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durable: bool = True,
        timeout: float = 10.0,
        read_only: bool = False,
    ) -> None:
        self.path = str(path) if str(path) == ":memory:" else str(Path(path).expanduser())
        self.read_only = read_only
        if self.path != ":memory:":
            _check_path(Path(self.path), read_only=read_only)
        self._lock = threading.RLock()
        self._timeout = timeout
        try:
            if read_only:
                uri = Path(self.path).resolve().as_uri() + "?mode=ro"
                conn = sqlite3.connect(
                    uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False
                )
            else:
                conn = sqlite3.connect(
                    self.path, timeout=timeout, isolation_level=None, check_same_thread=False
                )
        except sqlite3.Error as exc:
            raise StoreIOError(f"cannot open SQLiteStore at {self.path!r}: {exc}") from exc
        self._conn: sqlite3.Connection | None = conn
        try:
            if read_only:
                self.journal_mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0])
                self._check_readable_version(conn)
            else:
                self.journal_mode = str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
                conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
                self._migrate(conn)
        except BaseException as exc:
            conn.close()
            self._conn = None
            if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                raise self._translate(exc) from exc
            if isinstance(exc, sqlite3.DatabaseError):
                raise StoreFormatError(
                    f"{self.path!r} is not a usable agent_nb session database ({exc}); "
                    "point SQLiteStore at a new file or at one agent_nb created"
                ) from exc
            raise

    # -- connection, transactions, schema -------------------------------------

    @contextlib.contextmanager
    def _tx(self, begin: str = "BEGIN IMMEDIATE") -> Iterator[sqlite3.Connection]:
        """One transaction. Writes take SQLite's write lock up front (``IMMEDIATE``)
        so the revision read and the write cannot interleave with another process."""
        with self._lock:
            conn = self._connection()
            if self.read_only and begin != "BEGIN":
                raise StorePermissionError(
                    f"SQLiteStore {self.path!r} was opened read-only (mode=ro): it cannot "
                    "record turns or change sessions; open it without ?mode=ro to write"
                )
            try:
                conn.execute(begin)
            except sqlite3.OperationalError as exc:
                raise self._translate(exc) from exc
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise self._translate(exc) from exc
                raise

    def _read(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """A consistent snapshot for reads (WAL readers do not wait for writers)."""
        return self._tx("BEGIN")

    def _translate(self, exc: sqlite3.OperationalError) -> StoreIOError | StoreLockedError:
        if _is_busy(exc):
            return StoreLockedError(
                f"SQLiteStore {self.path!r} stayed locked by another writer for more than "
                f"{self._timeout:g}s; another kernel is writing to it: retry, pass a larger "
                "timeout=, or give this runner its own file"
            )
        return StoreIOError(f"SQLiteStore {self.path!r} failed: {exc}")

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosedError(
                f"SQLiteStore({self.path!r}) is closed; open a new SQLiteStore (or AgentRunner) "
                "on the same path to get the stored sessions back"
            )
        return self._conn

    def _check_readable_version(self, conn: sqlite3.Connection) -> None:
        current = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if current != self.schema_version:
            raise StoreVersionError(
                f"{self.path!r} has session schema version {current}, this agent_nb reads "
                f"{self.schema_version}; a read-only store cannot be upgraded: open it once "
                "writable (without ?mode=ro), or upgrade agent_nb"
            )

    def _migrate(self, conn: sqlite3.Connection) -> None:
        target = self.schema_version
        while True:
            current = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if current > target:
                raise StoreVersionError(
                    f"{self.path!r} has session schema version {current}, but this agent_nb "
                    f"only knows up to {target}; upgrade agent_nb or use another file"
                )
            if current == target:
                return
            step = self.migrations.get(current + 1)
            if step is None:
                raise StoreVersionError(
                    f"no migration from session schema version {current} to {current + 1}"
                )
            conn.execute("BEGIN IMMEDIATE")
            try:
                # Another process may have migrated while we waited for the lock.
                if int(conn.execute("PRAGMA user_version").fetchone()[0]) == current:
                    step(conn)
                    conn.execute(f"PRAGMA user_version={current + 1}")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @property
    def user_version(self) -> int:
        """The schema version stored in the file."""
        with self._read() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        """Close the connection (checkpointing the WAL). The data stays on disk."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r}{', read_only=True' if self.read_only else ''})"

    # -- SessionStore ----------------------------------------------------------

    def _create(self, record: SessionRecord) -> bool:
        key = (record.app_name, record.user_id, record.session_id)
        with self._tx() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO sessions"
                " (app_name, user_id, id, state, revision, create_time, update_time)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*key, _dumps(record.state), record.revision, time.time(), record.last_update_time),
            )
            if cursor.rowcount == 0:
                return False
            # Rows of a session deleted while its events were being written elsewhere.
            conn.execute("DELETE FROM events WHERE app_name=? AND user_id=? AND session_id=?", key)
            return True

    def _lease(
        self, record: SessionRecord, holder: TurnHolder, now: float, until: float
    ) -> int | None:
        key = (record.app_name, record.user_id, record.session_id)
        with self._tx() as conn:
            row = conn.execute(
                "SELECT revision, holder, lease_until FROM sessions"
                " WHERE app_name=? AND user_id=? AND id=?",
                key,
            ).fetchone()
            if row is None:
                return None
            check_lease(record.session_id, holder, row[1], row[2], now)
            conn.execute(
                "UPDATE sessions SET holder=?, lease_until=?"
                " WHERE app_name=? AND user_id=? AND id=?",
                (holder.to_json(), until, *key),
            )
            return int(row[0])

    def _renew(self, record: SessionRecord, holder: TurnHolder, until: float | None) -> None:
        key = (record.app_name, record.user_id, record.session_id)
        with self._tx() as conn:
            row = conn.execute(
                "SELECT holder FROM sessions WHERE app_name=? AND user_id=? AND id=?", key
            ).fetchone()
            if row is None or row[0] is None or TurnHolder.from_json(row[0]).token != holder.token:
                return
            conn.execute(
                "UPDATE sessions SET holder=?, lease_until=?"
                " WHERE app_name=? AND user_id=? AND id=?",
                (None if until is None else row[0], until, *key),
            )

    def _get(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None:
        key = (app_name, user_id, session_id)
        with self._read() as conn:
            row = conn.execute(
                "SELECT state, revision, update_time, branches, active_branch FROM sessions"
                " WHERE app_name=? AND user_id=? AND id=?",
                key,
            ).fetchone()
            if row is None:
                return None
            rows = conn.execute(
                "SELECT data, invocation_id, parent_invocation_id FROM events"
                " WHERE app_name=? AND user_id=? AND session_id=? ORDER BY seq",
                key,
            ).fetchall()
        tree = [event_from_dict(json.loads(data)) for (data, _, _) in rows]
        parents: dict[str, str | None] = {}
        for _, turn, parent in rows:
            parents.setdefault(turn, parent)
        return SessionRecord(
            *key,
            state=json.loads(row[0]),
            revision=row[1],
            last_update_time=row[2],
            tree=tree,
            parents=parents,
            branches=json.loads(row[3]),
            active_branch=row[4],
        )

    def _check_revision(self, conn: sqlite3.Connection, record: SessionRecord) -> dict[str, Any]:
        """The stored session state, if ``record`` is still current; else raise."""
        row = conn.execute(
            "SELECT revision, state FROM sessions WHERE app_name=? AND user_id=? AND id=?",
            (record.app_name, record.user_id, record.session_id),
        ).fetchone()
        if row is None:
            raise StaleSessionError(
                f"session {record.session_id!r} is no longer in {self.path!r} (deleted by "
                "another runner or kernel); ask the runner for it again to start afresh"
            )
        if row[0] != record.revision:
            raise StaleSessionError(
                f"session {record.session_id!r} in {self.path!r} was changed by another "
                f"writer (stored revision {row[0]}, this copy has {record.revision}); close "
                "it and call get_or_create_session again to load the current history"
            )
        state: dict[str, Any] = json.loads(row[1])
        return state

    def _set_session(
        self,
        conn: sqlite3.Connection,
        record: SessionRecord,
        state: Mapping[str, Any],
        now: float,
        branches: list[str | None],
        active: int,
    ) -> None:
        conn.execute(
            "UPDATE sessions SET revision=revision+1, state=?, update_time=?, branches=?,"
            " active_branch=? WHERE app_name=? AND user_id=? AND id=?",
            (_dumps(state), now, _dumps(branches), active, *_key(record)),
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
        key = (record.app_name, record.user_id, record.session_id)
        meta = (event.id, event.invocation_id, parent, event.author, data["kind"], event.timestamp)
        with self._tx() as conn:
            state = apply_delta(self._check_revision(conn, record), delta.session)
            self._set_session(conn, record, state, event.timestamp, branches, record.active_branch)
            conn.execute(
                "INSERT INTO events (app_name, user_id, session_id, seq, id, invocation_id,"
                " parent_invocation_id, author, kind, timestamp, data) VALUES (?, ?, ?,"
                " (SELECT COALESCE(MAX(seq) + 1, 0) FROM events"
                "  WHERE app_name=? AND user_id=? AND session_id=?),"
                " ?, ?, ?, ?, ?, ?, ?)",
                (*key, *key, *meta, payload),
            )
            if delta.app:
                self._merge_state(conn, "app_states", (record.app_name,), delta.app)
            if delta.user:
                self._merge_state(
                    conn, "user_states", (record.app_name, record.user_id), delta.user
                )

    @staticmethod
    def _merge_state(
        conn: sqlite3.Connection, table: str, key: tuple[str, ...], delta: Mapping[str, Any]
    ) -> None:
        where = " AND ".join(f"{col}=?" for col in ("app_name", "user_id")[: len(key)])
        row = conn.execute(f"SELECT state FROM {table} WHERE {where}", key).fetchone()
        state = apply_delta(json.loads(row[0]) if row else {}, delta)
        cols = ", ".join(("app_name", "user_id")[: len(key)])
        marks = ", ".join("?" * len(key))
        conn.execute(
            f"INSERT OR REPLACE INTO {table} ({cols}, state, update_time) VALUES ({marks}, ?, ?)",
            (*key, _dumps(state), time.time()),
        )

    def _set_branches(
        self,
        record: SessionRecord,
        branches: list[str | None],
        active: int,
        state: Mapping[str, Any],
    ) -> None:
        with self._tx() as conn:
            self._check_revision(conn, record)
            self._set_session(conn, record, state, time.time(), branches, active)

    def delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        key = (app_name, user_id, session_id)
        with self._tx() as conn:
            conn.execute("DELETE FROM events WHERE app_name=? AND user_id=? AND session_id=?", key)
            conn.execute("DELETE FROM sessions WHERE app_name=? AND user_id=? AND id=?", key)

    def list_sessions(self, app_name: str, user_id: str) -> list[str]:
        sql = "SELECT id FROM sessions WHERE app_name=? AND user_id=? ORDER BY update_time, rowid"
        with self._read() as conn:
            return [sid for (sid,) in conn.execute(sql, (app_name, user_id))]

    def clear_user(self, app_name: str, user_id: str) -> None:
        """Delete every stored session of the user in one transaction."""
        with self._tx() as conn:
            conn.execute("DELETE FROM events WHERE app_name=? AND user_id=?", (app_name, user_id))
            conn.execute("DELETE FROM sessions WHERE app_name=? AND user_id=?", (app_name, user_id))

    def get_app_state(self, app_name: str) -> dict[str, Any]:
        return self._state_row("SELECT state FROM app_states WHERE app_name=?", (app_name,))

    def get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        return self._state_row(
            "SELECT state FROM user_states WHERE app_name=? AND user_id=?", (app_name, user_id)
        )

    def _state_row(self, sql: str, key: tuple[str, ...]) -> dict[str, Any]:
        with self._read() as conn:
            row = conn.execute(sql, key).fetchone()
        state: dict[str, Any] = json.loads(row[0]) if row else {}
        return state
