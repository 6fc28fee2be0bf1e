"""What only `SQLiteStore` has: a file, WAL, a schema version, and sessions
that come back in a new runner or a new process (a kernel restart)."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
import sqlalchemy as sa

from agent_nb import Agent, AgentRunner, TextMessage, ToolContext, TurnComplete
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import StaleSessionError, StoreURLError
from agent_nb.stores import LeaseOwner, SQLiteStore, resolve_store
from agent_nb.stores._schema import MIGRATIONS, SCHEMA_VERSION, Migration
from tests.fixtures_runtime import RunnerFactory
from tests.stores.legacy import (
    SCHEMA_V1,
    add_branch_columns_v2,
    add_lease_columns_v2,
    create_v1,
)

APP, USER = "agent_nb", "default"


def texts(events: list[Any]) -> list[str]:
    return [e.text for e in events if isinstance(e, TextMessage)]


def raw(db: Path, sql: str) -> list[Any]:
    """Look at the file with a separate, plain sqlite3 connection."""
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


# -- the file ------------------------------------------------------------------


def test_wal_journal_tables_and_schema_version(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SQLiteStore(db)
    try:
        assert store.journal_mode == "wal"
        assert raw(db, "PRAGMA journal_mode") == [("wal",)]
        assert store.user_version == SCHEMA_VERSION
        assert raw(db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
        tables = {name for (name,) in raw(db, "SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"app_states", "user_states", "sessions", "events"} <= tables
    finally:
        store.close()
    assert raw(db, "PRAGMA integrity_check") == [("ok",)]


def test_resolve_store_sqlite_url(tmp_path: Path) -> None:
    store = resolve_store(f"sqlite:///{tmp_path}/url.db")
    try:
        assert isinstance(store, SQLiteStore)
        assert store.path == str(tmp_path / "url.db")
        assert store.persistent
    finally:
        store.close()
    with pytest.raises(ValueError, match="sqlite:///path"):
        resolve_store("sqlite:/nowhere.db")


def test_one_event_is_one_row_with_the_revision_bumped(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SQLiteStore(db)
    record = store.create_session(APP, USER, "s")
    event = TextMessage(text="hi", author="user", state_delta={"n": 1, "user:l": "fr"})
    store.append_event(record, event)
    # Visible to another connection at once: the transaction committed.
    assert raw(db, "SELECT seq, id, kind FROM events") == [(0, event.id, "text")]
    assert raw(db, "SELECT revision, state FROM sessions") == [(1, '{"n":1}')]
    assert raw(db, "SELECT state FROM user_states") == [('{"l":"fr"}',)]
    store.close()


class _Next(SQLiteStore):
    """A future schema: the next version adds a column, through the migration hook."""

    calls: ClassVar[list[int]] = []
    schema_version = SCHEMA_VERSION + 1

    @staticmethod
    def _add_title(conn: sa.Connection) -> None:
        _Next.calls.append(1)
        conn.exec_driver_sql("ALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT ''")

    migrations: ClassVar[dict[int, Migration]] = {**MIGRATIONS, SCHEMA_VERSION + 1: _add_title}


def test_migration_hook_runs_once_and_keeps_data(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    old = SQLiteStore(db)
    old.append_event(old.create_session(APP, USER, "s"), TextMessage(text="kept", author="user"))
    old.close()

    _Next.calls.clear()
    new = _Next(db)
    assert new.user_version == SCHEMA_VERSION + 1 and _Next.calls == [1]
    assert "title" in {row[1] for row in raw(db, "PRAGMA table_info(sessions)")}
    record = new.get_session(APP, USER, "s")
    assert record is not None and texts(record.events) == ["kept"]
    new.close()
    _Next(db).close()
    assert _Next.calls == [1], "a migration must not run again on a migrated file"

    # This code only knows its own version: it refuses the newer file instead of damaging it.
    with pytest.raises(RuntimeError, match=rf"version {SCHEMA_VERSION + 1}.*upgrade agent_nb"):
        SQLiteStore(db)


def test_a_version_1_file_gains_turn_leases_and_keeps_its_sessions(tmp_path: Path) -> None:
    db = tmp_path / "v1.db"
    with sqlite3.connect(db) as conn:  # what agent_nb before turn leases wrote
        create_v1(conn)
        conn.execute("PRAGMA user_version=1")
        conn.execute(
            "INSERT INTO sessions VALUES (?, ?, 's', '{\"n\":1}', 0, 1.0, 1.0)", (APP, USER)
        )
    store = SQLiteStore(db)
    try:
        assert store.user_version == SCHEMA_VERSION == 3
        record = store.get_session(APP, USER, "s")
        assert record is not None and record.state == {"n": 1}
        holder = LeaseOwner.here()
        assert store.begin_turn(record, holder) == 0
        store.end_turn(record, holder)
    finally:
        store.close()


def test_read_only_url_reads_and_refuses_writes(tmp_path: Path) -> None:
    db = tmp_path / "ro.db"
    writer = SQLiteStore(db)
    writer.append_event(writer.create_session(APP, USER, "s"), TextMessage(text="kept", author="u"))
    writer.close()
    store = resolve_store(f"sqlite:///{db}?mode=ro")
    try:
        assert isinstance(store, SQLiteStore) and store.read_only
        record = store.get_session(APP, USER, "s")
        assert record is not None and texts(record.events) == ["kept"]
        with pytest.raises(PermissionError, match=r"read-only \(mode=ro\)"):
            store.append_event(record, TextMessage(text="no", author="u"))
        with pytest.raises(PermissionError, match="read-only"):
            store.create_session(APP, USER, "new")
    finally:
        store.close()
    assert sorted(p.name for p in tmp_path.iterdir() if "?" in p.name) == []
    with pytest.raises(FileNotFoundError, match="no such file"):
        resolve_store(f"sqlite:///{tmp_path}/missing.db?mode=ro")
    with pytest.raises(StoreURLError, match="mode=ro"):
        resolve_store(f"sqlite:///{db}?cache=shared")


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    SQLiteStore(db).close()

    def broken(conn: sa.Connection) -> None:
        conn.exec_driver_sql("CREATE TABLE half_done (x)")
        raise RuntimeError("migration bug")

    class Broken(SQLiteStore):
        schema_version = SCHEMA_VERSION + 1
        migrations: ClassVar[dict[int, Migration]] = {**MIGRATIONS, SCHEMA_VERSION + 1: broken}

    with pytest.raises(RuntimeError, match="migration bug"):
        Broken(db)
    assert raw(db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert raw(db, "SELECT name FROM sqlite_master WHERE name='half_done'") == []
    SQLiteStore(db).close()  # still opens with the old code


def test_bad_paths_name_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "s.db"
    with pytest.raises(FileNotFoundError, match=r"no/such/dir.*does not exist"):
        SQLiteStore(missing)
    with pytest.raises(IsADirectoryError, match=re.escape(str(tmp_path))):
        SQLiteStore(tmp_path)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database file at all" * 100)
    with pytest.raises(ValueError, match=r"junk\.db.*not a usable agent_nb session database"):
        SQLiteStore(junk)
    assert junk.read_bytes().startswith(b"this is not"), "a foreign file must be left alone"


def test_a_writer_locked_out_too_long_gets_a_clear_timeout(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SQLiteStore(db, timeout=0.1)
    record = store.create_session(APP, USER, "s")
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another kernel holds the write lock
    try:
        with pytest.raises(TimeoutError, match=r"s\.db.*locked by another writer"):
            store.append_event(record, TextMessage(text="blocked", author="user"))
        assert store.get_session(APP, USER, "s") is not None  # WAL: reads still work
    finally:
        other.execute("ROLLBACK")
        other.close()
    store.append_event(record, TextMessage(text="later", author="user"))
    assert record.revision == 1
    store.close()


def test_in_memory_database_works(tmp_path: Path) -> None:
    store = SQLiteStore(":memory:")
    record = store.create_session(APP, USER, "s")
    store.append_event(record, TextMessage(text="hi", author="user"))
    assert store.list_sessions(APP, USER) == ["s"]
    store.close()


def test_closed_store_says_how_to_get_data_back(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    store.close()
    store.close()  # twice is fine
    with pytest.raises(RuntimeError, match="is closed; open a new SQLiteStore"):
        store.list_sessions(APP, USER)


def test_two_processes_worth_of_stores_on_one_file(tmp_path: Path) -> None:
    """Two kernels on one file: reads see each other's commits, a stale write is refused."""
    db = tmp_path / "s.db"
    first, second = SQLiteStore(db), SQLiteStore(db)
    try:
        mine = first.create_session(APP, USER, "s")
        theirs = second.get_session(APP, USER, "s")
        assert theirs is not None
        first.append_event(mine, TextMessage(text="first", author="user"))
        with pytest.raises(StaleSessionError, match="changed by another writer"):
            second.append_event(theirs, TextMessage(text="second", author="user"))
        reloaded = second.get_session(APP, USER, "s")
        assert reloaded is not None and texts(reloaded.events) == ["first"]
        second.append_event(reloaded, TextMessage(text="second", author="user"))
        seen_by_first = first.get_session(APP, USER, "s")
        assert seen_by_first is not None
        assert texts(seen_by_first.events) == ["first", "second"]
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("where", ["file", ":memory:"])
def test_writer_threads_and_a_reader_thread_share_one_store(tmp_path: Path, where: str) -> None:
    """Each thread gets a pooled connection of the file; ``:memory:`` is one
    connection (else each thread would see a database of its own), used in turn."""
    store = SQLiteStore(tmp_path / "s.db" if where == "file" else where, durable=False)
    errors: list[BaseException] = []

    def write(sid: str) -> None:
        try:
            record = store.create_session(APP, USER, sid)
            for i in range(40):
                store.append_event(record, TextMessage(text=str(i), author="user"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):  # read from this thread meanwhile
        for sid in store.list_sessions(APP, USER):
            record = store.get_session(APP, USER, sid)
            assert record is None or record.revision == len(record.events)
    for thread in threads:
        thread.join()
    assert errors == []
    for n in range(4):
        record = store.get_session(APP, USER, f"t{n}")
        assert record is not None and texts(record.events) == [str(i) for i in range(40)]
    store.close()


# -- through the real runner -----------------------------------------------------


def remember(fact: str, tool_context: ToolContext) -> str:
    """Remember a fact for later turns.

    Args:
        fact: what to remember
    """
    tool_context.state["fact"] = fact
    tool_context.state["user:facts"] = [*tool_context.state.get("user:facts", []), fact]
    tool_context.state["temp:scratch"] = "never stored"
    return "noted"


def runner_on(db: Path, *replies: Any, user_id: str = USER) -> AgentRunner:
    return AgentRunner(
        Agent(tools=[remember]),
        model=ScriptedBackend(list(replies)),
        store=f"sqlite:///{db}",
        user_id=user_id,
    )


def test_a_new_runner_resumes_history_and_state(tmp_path: Path, make_runner: RunnerFactory) -> None:
    db = tmp_path / "s.db"
    first = runner_on(db, ToolCallChunk("remember", {"fact": "cats purr"}), "Noted.")
    session = first.get_or_create_session("demo")
    session.run("remember cats", state_delta={"topic": "cats", "app:theme": "dark"})
    before, state_before = session.history, session.state
    first.shutdown()

    second = make_runner.adopt(runner_on(db, "Cats purr."))
    again = second.get_or_create_session("demo")
    assert again.history == before
    assert (
        again.state
        == state_before
        == {
            "topic": "cats",
            "fact": "cats purr",
            "user:facts": ["cats purr"],
            "app:theme": "dark",
        }
    )
    assert again.turns == 1
    assert second.stored_session_ids() == ["demo"]
    reply = again.run("what do cats do?")
    assert reply.text == "Cats purr."
    # The model saw the resumed history: the KV cache is rebuilt from it.
    backend = second.backend
    assert isinstance(backend, ScriptedBackend)
    seen = [c.text for c in backend.requests[-1].contents if c.text]
    assert seen == ["remember cats", "Noted.", "what do cats do?"]


_CHILD = textwrap.dedent(
    """
    import json, sys
    from agent_nb import AgentRunner
    from agent_nb.backends import ScriptedBackend

    runner = AgentRunner(model=ScriptedBackend(["One.", "Two."]), store=sys.argv[1])
    session = runner.get_or_create_session("kernel-a")
    session.run("first", state_delta={"n": 1, "user:name": "Ada"})
    session.run("second", state_delta={"n": 2})
    print(json.dumps([e.id for e in session.history]))
    # No shutdown: the interpreter exits as a kernel restart would (atexit only).
    """
)


@pytest.mark.slow  # a fresh interpreter
def test_a_new_process_resumes_what_another_process_stored(
    tmp_path: Path, make_runner: RunnerFactory
) -> None:
    db = tmp_path / "s.db"
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, f"sqlite:///{db}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    ids = json.loads(done.stdout.strip().splitlines()[-1])
    runner = make_runner.adopt(runner_on(db))
    session = runner.get_or_create_session("kernel-a")
    assert [e.id for e in session.history] == ids
    assert texts(session.history) == ["first", "One.", "second", "Two."]
    assert session.state == {"n": 2, "user:name": "Ada"}
    assert session.turns == 2
    runner.shutdown()
    assert raw(db, "PRAGMA integrity_check") == [("ok",)]


def test_close_keeps_the_data_and_delete_removes_it(
    tmp_path: Path, make_runner: RunnerFactory
) -> None:
    db = tmp_path / "s.db"
    runner = make_runner.adopt(runner_on(db, "Kept.", "Gone."))
    kept = runner.get_or_create_session("kept")
    kept.run("keep me")
    gone = runner.get_or_create_session("gone")
    gone.run("delete me")

    kept.close()  # memory only
    back = runner.get_or_create_session("kept")  # waits for the eviction
    assert back is not kept
    assert texts(back.history) == ["keep me", "Kept."]

    gone.delete()
    assert runner.store.get_session(APP, USER, "gone") is None
    assert runner.stored_session_ids() == ["kept"]
    assert runner.get_or_create_session("gone").history == []
    runner.shutdown()
    assert raw(db, "SELECT id FROM sessions ORDER BY id") == [("gone",), ("kept",)]
    assert raw(db, "SELECT COUNT(*) FROM events WHERE session_id='gone'") == [(0,)]


def test_rewind_is_stored(tmp_path: Path, make_runner: RunnerFactory) -> None:
    db = tmp_path / "s.db"
    runner = runner_on(db, "A.", "B.")
    session = runner.get_or_create_session("s")
    session.run("one", state_delta={"n": 1})
    second = session.run("two", state_delta={"n": 2})
    session.rewind(second.invocation_id)
    runner.shutdown()
    runner = make_runner.adopt(runner_on(db))
    again = runner.get_or_create_session("s")
    assert texts(again.history) == ["one", "A."]
    assert again.state == {"n": 1}


def test_clear_all_sessions_clears_stored_sessions_of_this_user_only(
    tmp_path: Path, make_runner: RunnerFactory
) -> None:
    db = tmp_path / "s.db"
    earlier = runner_on(db, "x", "y")
    for sid in ("old-1", "old-2"):
        earlier.get_or_create_session(sid).run("hi")
    earlier.shutdown()
    bob = runner_on(db, "z", user_id="bob")
    bob.get_or_create_session("bobs").run("hi")
    bob.shutdown()

    runner = make_runner.adopt(runner_on(db, "w"))
    runner.get_or_create_session("live").run("hi")
    assert runner.stored_session_ids() == ["old-1", "old-2", "live"]
    runner.clear_all_sessions()
    assert runner.stored_session_ids() == []
    assert runner.get_or_create_session("old-1").history == []
    runner.shutdown()
    assert raw(db, "SELECT user_id, id FROM sessions WHERE user_id='bob'") == [("bob", "bobs")]


def test_two_runners_on_one_file_each_start_from_the_latest_history(
    tmp_path: Path, make_runner: RunnerFactory
) -> None:
    db = tmp_path / "s.db"
    one = make_runner.adopt(runner_on(db, "from one"))
    two = make_runner.adopt(runner_on(db, "from two", "again two"))
    a = one.get_or_create_session("shared")
    b = two.get_or_create_session("shared")
    a.run("hello from one", state_delta={"who": "one"})
    assert b.run("hello from two").text == "from two"  # reloaded, not StaleSessionError
    assert texts(b.history) == ["hello from one", "from one", "hello from two", "from two"]
    assert b.state["who"] == "one"
    request = two.backend_for(None).requests[0]  # type: ignore[attr-defined]
    assert [c.text for c in request.contents][-3:] == [
        "hello from one",
        "from one",
        "hello from two",
    ]
    record = one.store.get_session(APP, USER, "shared")
    assert record is not None
    assert texts(record.events) == texts(b.history)
    assert isinstance(record.events[-1], TurnComplete)
    # A stale record below the runtime is still refused by the store itself.
    with pytest.raises(StaleSessionError):
        one.store.append_event(
            dataclasses.replace(record, revision=0), TextMessage(text="stale", author="user")
        )


def test_a_file_of_schema_1_loads_as_one_branch(tmp_path: Path) -> None:
    """A file written before branches existed (schema 1, made here with its own
    DDL and rows as that code wrote them) migrates in place: its turns are one line."""
    db = tmp_path / "v1.db"
    from agent_nb._core.codec import event_to_dict

    events = [
        TextMessage(text=f"q{t}", author="user", invocation_id=f"t{t}", state_delta={"n": t})
        for t in range(3)
    ]
    with sqlite3.connect(db) as conn:
        conn.executescript(SCHEMA_V1)
        conn.execute("INSERT INTO sessions VALUES (?, ?, 's', '{\"n\": 2}', 3, 1.0, 2.0)",
                     (APP, USER))  # fmt: skip
        for seq, e in enumerate(events):
            conn.execute(
                "INSERT INTO events VALUES (?, ?, 's', ?, ?, ?, 'user', 'text', ?, ?)",
                (APP, USER, seq, e.id, e.invocation_id, e.timestamp, json.dumps(event_to_dict(e))),
            )
        conn.execute("PRAGMA user_version=1")
    store = SQLiteStore(db)
    try:
        assert store.user_version == SCHEMA_VERSION
        record = store.get_session(APP, USER, "s")
        assert record is not None and texts(record.events) == ["q0", "q1", "q2"]
        assert (record.branches, record.active_branch, record.revision) == (["t2"], 1, 3)
        assert record.parents == {"t0": None, "t1": "t0", "t2": "t1"}
        # ...and branches from there on like any other session, under a turn lease.
        holder = LeaseOwner.here()
        assert store.begin_turn(record, holder) == 3
        assert store.rewind(record, "t1") == 2
        assert texts(record.events) == ["q0"] and record.state == {"n": 0}
        store.end_turn(record, holder)
    finally:
        store.close()


@pytest.mark.parametrize("half", ["branches", "leases"])
def test_a_file_stamped_2_by_either_half_gains_the_other(tmp_path: Path, half: str) -> None:
    """Branches and turn leases were built side by side, each calling itself
    schema 2; a file written by either one alone reaches schema 3 with both."""
    db = tmp_path / "v2.db"
    with sqlite3.connect(db) as conn:
        create_v1(conn)
        conn.execute("INSERT INTO sessions VALUES (?, ?, 's', '{}', 0, 1.0, 1.0)", (APP, USER))
        if half == "branches":
            add_branch_columns_v2(conn)
        else:
            add_lease_columns_v2(conn)
        conn.execute("PRAGMA user_version=2")
    store = SQLiteStore(db)
    try:
        assert store.user_version == SCHEMA_VERSION == 3
        record = store.get_session(APP, USER, "s")
        assert record is not None and (record.branches, record.active_branch) == ([None], 1)
        holder = LeaseOwner.here()
        assert store.begin_turn(record, holder) == 0
        store.append_event(record, TextMessage(text="hi", author="user", invocation_id="t"))
        store.end_turn(record, holder)
        again = store.get_session(APP, USER, "s")
        assert again is not None and again.branches == ["t"] and texts(again.events) == ["hi"]
    finally:
        store.close()
