"""The file formats of the raw-sqlite3 `SQLiteStore` of old, as it created them.

Copied here from that code (agent_nb commit 2545d05, ``agent_nb/stores/_sqlite.py``)
so tests can build files of each old schema with plain sqlite3, the way that
code did, and open them with today's store. The checked-in files under
``data/`` are whole databases written by that code itself (``make_legacy.py``).
"""

from __future__ import annotations

import sqlite3

__all__ = ["SCHEMA_V1", "add_branch_columns_v2", "add_lease_columns_v2", "create_v1"]

#: Schema 1: the tables, before branches and turn leases.
SCHEMA_V1 = """
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


def create_v1(conn: sqlite3.Connection) -> None:
    for statement in SCHEMA_V1.split(";"):
        if statement.strip():
            conn.execute(statement)


def add_branch_columns_v2(conn: sqlite3.Connection) -> None:
    """The columns the branches work called schema 2 (on a file without events)."""
    conn.execute("ALTER TABLE events ADD COLUMN parent_invocation_id TEXT")
    conn.execute("ALTER TABLE sessions ADD COLUMN branches TEXT NOT NULL DEFAULT '[null]'")
    conn.execute("ALTER TABLE sessions ADD COLUMN active_branch INTEGER NOT NULL DEFAULT 1")


def add_lease_columns_v2(conn: sqlite3.Connection) -> None:
    """The columns the turn-lease work called schema 2."""
    conn.execute("ALTER TABLE sessions ADD COLUMN holder TEXT")
    conn.execute("ALTER TABLE sessions ADD COLUMN lease_until REAL")
