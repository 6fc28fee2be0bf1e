"""The tables of the SQL store, their version, and the steps that bring old files up to it.

One layout for every dialect, ADK-like (``app_states``, ``user_states``,
``sessions``, ``events``): state and each event's payload are JSON text
(`agent_nb._core.codec`, so a field added to an event is stored without a
schema change), plus a few columns for ordering and look-ups.

**One schema number.** `SCHEMA_VERSION` counts on from the numbering of the
file store of old (``PRAGMA user_version`` 1: tables; 2: branches; 3: turn
leases), because its files are the ones in users' hands. It is kept in the
``agent_nb_schema`` table on every dialect, and on SQLite also in ``PRAGMA
user_version``, so a release that only knew the pragma refuses a newer file
instead of writing to it. Two kinds of older databases are read:

* files of the raw-sqlite3 ``SQLiteStore``: no ``agent_nb_schema`` table, the
  version in ``PRAGMA user_version``; versions 1 and 2 run the steps below,
  and at 3 only the ``agent_nb_schema`` row is added (the layout is this one);
* databases of the first ``DatabaseStore`` (PostgreSQL, or SQLite through a
  URL): ``agent_nb_schema`` says 1 in that store's own numbering, which is this
  layout, version 3. The row is left as it is, so such a release still opens it.

**The store's id** is one row of ``agent_nb_store``, made once (a random
id) when a database is first opened writable, an older one included: KV
checkpoints are kept under it, so a copied or moved SQLite file keeps them.
The table is new beside the others and older releases never read it, so it
needs no schema number.

``migrations[v]`` brings a database from version ``v - 1`` to ``v``, each step in
its own transaction with the new number (`DatabaseStore` runs them).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Migration",
    "app_states",
    "ensure_store_id",
    "events",
    "metadata",
    "schema",
    "sessions",
    "stamp",
    "store_id",
    "store_ids",
    "stored_version",
    "user_states",
]

#: The layout `metadata` describes. Bump it and add ``MIGRATIONS[n]`` together.
SCHEMA_VERSION = 3
#: ``agent_nb_schema`` values written by the first DatabaseStore, in this numbering.
_FIRST_DATABASE_STORE = {1: 3}

Migration = Callable[[sa.Connection], None]

_ID = sa.String(256)
metadata = sa.MetaData()
app_states = sa.Table(
    "app_states",
    metadata,
    sa.Column("app_name", _ID, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("update_time", sa.Float, nullable=False),
)
user_states = sa.Table(
    "user_states",
    metadata,
    sa.Column("app_name", _ID, primary_key=True),
    sa.Column("user_id", _ID, primary_key=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("update_time", sa.Float, nullable=False),
)
sessions = sa.Table(
    "sessions",
    metadata,
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
events = sa.Table(
    "events",
    metadata,
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
    implicit_returning=False,  # ``seq`` is computed in the INSERT: nothing to read back
)
schema = sa.Table("agent_nb_schema", metadata, sa.Column("version", sa.Integer, primary_key=True))
store_ids = sa.Table("agent_nb_store", metadata, sa.Column("id", sa.String(64), primary_key=True))


def store_id(conn: sa.Connection) -> str | None:
    """The database's own id (see the module docstring), or None before it has one."""
    if not sa.inspect(conn).has_table(store_ids.name):
        return None
    return conn.execute(sa.select(store_ids.c.id).order_by(store_ids.c.id).limit(1)).scalar()


def ensure_store_id(conn: sa.Connection) -> str:
    """The database's id, made now if it has none (call inside the write
    transaction that serialises kernels opening one database)."""
    found = store_id(conn)
    if found is not None:
        return found
    store_ids.create(conn, checkfirst=True)
    made = uuid.uuid4().hex
    conn.execute(sa.insert(store_ids).values(id=made))
    return made


def _has_schema_table(conn: sa.Connection) -> bool:
    return sa.inspect(conn).has_table(schema.name)


def _pragma(conn: sa.Connection) -> int:
    return int(conn.exec_driver_sql("PRAGMA user_version").scalar_one())


def stored_version(conn: sa.Connection) -> int:
    """The database's schema version in this numbering; 0 for an empty database."""
    if _has_schema_table(conn):
        found = conn.execute(sa.select(sa.func.max(schema.c.version))).scalar()
        if found is not None:
            return _FIRST_DATABASE_STORE.get(found, found)
    return _pragma(conn) if conn.dialect.name == "sqlite" else 0


def stamp(conn: sa.Connection, version: int, *, only_if_missing: bool = False) -> None:
    """Record ``version`` (``only_if_missing``: only where no number is kept yet)."""
    if only_if_missing and _has_schema_table(conn):
        return
    schema.create(conn, checkfirst=True)
    conn.execute(sa.delete(schema))
    conn.execute(sa.insert(schema).values(version=version))
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"PRAGMA user_version={int(version)}")


# -- the steps of the old file store (SQLite only: no other dialect had them) --


def _rows(conn: sa.Connection, sql: str, *params: Any) -> list[Any]:
    return list(conn.exec_driver_sql(sql, params).all())


def _add_branches_v2(conn: sa.Connection) -> None:
    """Schema 2: turns know their parent; a session keeps its branch leaves.
    What schema 1 stored is one line of turns, in the order they began."""
    conn.exec_driver_sql("ALTER TABLE events ADD COLUMN parent_invocation_id TEXT")
    conn.exec_driver_sql("ALTER TABLE sessions ADD COLUMN branches TEXT NOT NULL DEFAULT '[null]'")
    conn.exec_driver_sql("ALTER TABLE sessions ADD COLUMN active_branch INTEGER NOT NULL DEFAULT 1")
    for key in _rows(conn, "SELECT app_name, user_id, id FROM sessions"):
        turns = [
            turn
            for (turn,) in _rows(
                conn,
                "SELECT invocation_id FROM events WHERE app_name=? AND user_id=? AND"
                " session_id=? GROUP BY invocation_id ORDER BY MIN(seq)",
                *key,
            )
        ]
        for parent, turn in zip([None, *turns], turns, strict=False):
            conn.exec_driver_sql(
                "UPDATE events SET parent_invocation_id=? WHERE app_name=? AND user_id=?"
                " AND session_id=? AND invocation_id=?",
                (parent, *key, turn),
            )
        conn.exec_driver_sql(
            "UPDATE sessions SET branches=? WHERE app_name=? AND user_id=? AND id=?",
            (json.dumps([turns[-1] if turns else None], separators=(",", ":")), *key),
        )


def _columns(conn: sa.Connection, table: str) -> set[str]:
    return {row[1] for row in _rows(conn, f"PRAGMA table_info({table})")}


def _add_leases_v3(conn: sa.Connection) -> None:
    """Schema 3: the turn lease on the session row. Branches and leases were
    developed side by side, each as "schema 2"; a file stamped 2 by the lease
    work alone has the lease columns and no branches, so each half is added
    only where it is missing."""
    if "parent_invocation_id" not in _columns(conn, "events"):
        _add_branches_v2(conn)
    present = _columns(conn, "sessions")
    for name, kind in (("holder", "TEXT"), ("lease_until", "REAL")):
        if name not in present:
            conn.exec_driver_sql(f"ALTER TABLE sessions ADD COLUMN {name} {kind}")


MIGRATIONS: dict[int, Migration] = {2: _add_branches_v2, 3: _add_leases_v3}
