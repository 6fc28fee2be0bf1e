"""Crash safety: kill a writing process with SIGKILL, then inspect the file.

What "no half-written turn" means here. The store commits one transaction per
event, so a turn (user message, tool call, tool result, model text,
`TurnComplete`) is several commits and a kill can land between two of them.
What must never happen is anything else:

* the file fails ``PRAGMA integrity_check``;
* an event the writer saw committed (it prints the id only after
  ``append_event`` returned, then flushes) is missing;
* a torn event: a row that does not decode, or session state / revision /
  ``user:`` / ``app:`` state that disagree with the stored events (they are
  written in the same transaction as the event, so they must match exactly);
* a gap or reordering: the stored events must be exactly a *prefix* of what
  the writer meant to write, so every turn is complete except possibly the
  last one, which is a prefix of its planned events.

Each round the writer reopens the same file and continues the plan where the
store says it stopped, so recovery after a kill is exercised too.
"""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

import pytest

from agent_nb._core.types import Event, TextMessage, TurnComplete
from agent_nb.stores import SessionStore, SQLiteStore, resolve_store
from tests.stores.crash_writers import APP, SID, STEPS, USER, WriterServer, planned_event

pytestmark = pytest.mark.slow  # writer processes killed in rounds


def kill_writer_at_random(
    writers: WriterServer,
    target: Path | str,
    rng: random.Random,
    *,
    durable: bool,
    database: bool = False,
) -> list[int]:
    """Fork a writer, SIGKILL it at a random moment; return the indices it reported.

    ``target`` is a SQLite path, or with ``database=True`` a `DatabaseStore` URL."""
    mode = "database" if database else "durable" if durable else "fast"
    writer = writers.start("append", target, mode)
    lines: list[str] = []
    if rng.random() < 0.2:
        # Sometimes while it opens / migrates the file: the child runs from here, and
        # opening takes about 0.1 s. Any moment is a valid kill; none is required.
        time.sleep(rng.uniform(0.0, 0.15))
    else:
        lines.append(writer.readline())
        assert lines[0].startswith("ready"), lines
        # After a random number of commits, not a random time: on a loaded machine a
        # fixed sleep could end every round before the first commit.
        lines += [writer.readline() for _ in range(rng.randint(0, 8))]
    lines += writer.kill()  # and what it committed and reported before the kill landed
    return [int(line) for line in lines if line.strip().isdigit()]


def check_file(db: Path, reported: list[int], before: int) -> int:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        tables = conn.execute("SELECT name FROM sqlite_master WHERE name='events'").fetchall()
        if not tables:  # killed before the schema transaction committed
            assert before == 0 and not reported
            return 0
        seqs = [s for (s,) in conn.execute("SELECT seq FROM events ORDER BY seq")]
    store = SQLiteStore(db)
    try:
        count = check_record(store, reported, before)
        assert seqs == list(range(count)), "event positions have a gap"
        return count
    finally:
        store.close()


def check_record(store: SessionStore, reported: list[int], before: int) -> int:
    """The stored session is exactly a whole-event prefix of the plan; returns its length."""
    record = store.get_session(APP, USER, SID)
    if record is None:  # killed before the session was created
        assert before == 0 and not reported
        return 0
    count = len(record.events)
    assert count >= before, "events committed in an earlier round were lost"
    assert reported == list(range(before, before + len(reported)))
    assert all(i < count for i in reported), "an event reported committed is missing"
    # At most one commit can have landed between the last print and the kill.
    assert count - before - len(reported) in (0, 1)
    assert record.events == [_stored(planned_event(i)) for i in range(count)]
    assert record.revision == count
    # State written in the same transactions agrees with the events.
    turns = [e.state_delta["turn"] for e in record.events if "turn" in e.state_delta]
    looked = [e.state_delta["looked"] for e in record.events if "looked" in e.state_delta]
    expected = {} if not turns else {"turn": turns[-1]}
    if looked:
        expected["looked"] = looked[-1]
    assert record.state == expected
    shared = {} if not turns else {"user:asked": turns[-1], "app:total": turns[-1]}
    assert store.merged_state(record) == {**expected, **shared}
    # Every turn but the last is whole and ends with TurnComplete.
    by_turn: dict[str, list[Event]] = {}
    for event in record.events:
        by_turn.setdefault(event.invocation_id, []).append(event)
    for events in list(by_turn.values())[:-1]:
        assert len(events) == STEPS and isinstance(events[-1], TurnComplete)
    return count


def _stored(event: Event) -> Event:
    """The event as the store keeps it (``temp:`` keys dropped)."""
    import dataclasses

    kept = {k: v for k, v in event.state_delta.items() if not k.startswith("temp:")}
    return dataclasses.replace(event, state_delta=kept)


def test_sigkill_at_random_points_never_corrupts_or_loses_committed_events(
    tmp_path: Path, writers: WriterServer
) -> None:
    db = tmp_path / "crash.db"
    rng = random.Random(20240611)
    count = 0
    rounds = 24
    for n in range(rounds):
        reported = kill_writer_at_random(writers, db, rng, durable=n % 2 == 0)
        count = check_file(db, reported, count)
    assert count > rounds, f"the writer hardly wrote anything ({count} events); kills too early?"


def test_sigkill_during_real_runner_turns_leaves_whole_events(
    tmp_path: Path, writers: WriterServer
) -> None:
    """The same through `AgentRunner` (real turns, worker-thread writes), one session
    per round (`crash_writers.runner_turns`)."""
    db = tmp_path / "runner.db"
    rng = random.Random(7)
    snapshots: dict[str, list[Event]] = {}
    for n in range(8):
        sid = f"round-{n}"
        writer = writers.start("runner", db, sid)
        assert writer.readline() == "ready\n"
        # Killed after a random number of stored events, however slow the machine (a
        # fixed sleep killed some rounds before their first event under load).
        seen = [writer.readline() for _ in range(rng.randint(1, 12))]
        reported = [x.strip() for x in [*seen, *writer.kill()]]

        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        store = SQLiteStore(db)
        try:
            record = store.get_session("agent_nb", "default", sid)
            assert record is not None
            ids = [e.id for e in record.events]
            assert ids[: len(reported)] == reported, "a reported event is missing or out of order"
            assert len(ids) - len(reported) in (0, 1)
            assert record.revision == len(ids)
            asked = [e for e in record.events if isinstance(e, TextMessage) and e.author == "user"]
            assert record.state == ({"n": len(asked) - 1} if asked else {})
            # Whole turns, then at most one unfinished one at the end.
            by_turn: dict[str, list[Event]] = {}
            for event in record.events:
                by_turn.setdefault(event.invocation_id, []).append(event)
            for events in list(by_turn.values())[:-1]:
                kinds = [type(e).__name__ for e in events]
                assert kinds == [
                    "TextMessage",
                    "FunctionCall",
                    "FunctionResponse",
                    "TextMessage",
                    "TurnComplete",
                ]
            # Earlier rounds' sessions are untouched.
            for old, events in snapshots.items():
                again = store.get_session("agent_nb", "default", old)
                assert again is not None and again.events == events
            snapshots[sid] = record.events
        finally:
            store.close()
    assert sum(len(v) for v in snapshots.values()) > 8


# -- switching branches ----------------------------------------------------------


def _forked_session(url: str) -> dict[int, list[str]]:
    """Three branches with their own session state; returns each one's event texts."""
    store = resolve_store(url)
    record = store.create_session(APP, USER, "forked")
    for turn in ("root", "b1"):
        store.append_event(record, TextMessage(text=turn, author="user", invocation_id=turn,
                                               state_delta={"on": turn}))  # fmt: skip
    store.rewind(record, "b1")
    store.append_event(record, TextMessage(text="b1'", author="user", invocation_id="b1x",
                                           state_delta={"on": "b1'"}))  # fmt: skip
    store.rewind(record, "root")
    paths = {n: [e.text for e in _path(store, n)] for n in (1, 2, 3)}
    store.close()
    return paths


def _path(store: SessionStore, number: int) -> list[Event]:
    record = store.get_session(APP, USER, "forked")
    assert record is not None
    store.switch_branch(record, number)
    return record.events


def test_sigkill_mid_switch_leaves_one_consistent_active_path(
    tmp_path: Path, writers: WriterServer
) -> None:
    """20 rounds: a process switching branches in a loop is killed at random; the
    file always holds one whole active path, its replayed state and revision."""
    db = tmp_path / "forked.db"
    kill_switcher_at_random(writers, f"sqlite:///{db}", sqlite_file=db)


def kill_switcher_at_random(
    writers: WriterServer, url: str, *, sqlite_file: Path | None = None
) -> None:
    """The switch crash rounds on the store at ``url`` (also run on PostgreSQL)."""
    paths = _forked_session(url)
    assert paths == {1: [], 2: ["root", "b1"], 3: ["root", "b1'"]}
    rng = random.Random(20)
    switches = 0
    for _ in range(20):
        writer = writers.start("switch", url)
        ready = writer.readline()
        assert ready.startswith("ready"), ready
        base = int(ready.split()[1])
        seen = [writer.readline() for _ in range(rng.randint(1, 4))]  # switches, not time
        reported = [tuple(map(int, line.split())) for line in [*seen, *writer.kill()]]
        if sqlite_file is not None:
            with sqlite3.connect(sqlite_file) as conn:
                assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        store = resolve_store(url)
        try:
            record = store.get_session(APP, USER, "forked")
            assert record is not None
            assert [r for r, _ in reported] == list(range(base + 1, base + 1 + len(reported)))
            # At most one switch committed between the last print and the kill.
            assert record.revision - base - len(reported) in (0, 1)
            if reported and record.revision == reported[-1][0]:
                assert record.active_branch == reported[-1][1]
            switches += record.revision - base
            expected = paths[record.active_branch]
            assert [e.text for e in record.events] == expected
            assert record.state == ({"on": expected[-1]} if expected else {})
            assert sorted(e.text for e in record.tree) == ["b1", "b1'", "root"]
        finally:
            store.close()
    assert switches > 20, "the writer should have switched many times"
