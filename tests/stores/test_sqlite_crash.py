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

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from agent_nb._core.types import (
    Event,
    FunctionCall,
    FunctionResponse,
    TextMessage,
    TurnComplete,
    Usage,
)
from agent_nb.stores import SessionStore, SQLiteStore, resolve_store

pytestmark = pytest.mark.slow  # writer processes killed in rounds

APP, USER, SID = "crash", "u", "victim"
STEPS = 5  # events per planned turn
ROOT = Path(__file__).resolve().parents[2]


def planned_event(i: int) -> Event:
    """Event ``i`` of the writer's plan: deterministic, so both sides agree on it."""
    turn, step = divmod(i, STEPS)
    filler = "x" * random.Random(i).randrange(0, 40_000)  # big rows widen the write window
    common: dict[str, Any] = {
        "id": f"e{i}",
        "invocation_id": f"inv{turn}",
        "timestamp": 1_000.0 + i,
    }
    if step == 0:
        delta = {"turn": turn, "user:asked": turn, "app:total": turn, "temp:x": 1}
        return TextMessage(text=f"q{turn} {filler}", author="user", state_delta=delta, **common)
    if step == 1:
        return FunctionCall(
            name="look", args={"turn": turn}, call_id=f"c{turn}", author="m", **common
        )
    if step == 2:
        return FunctionResponse(
            name="look",
            response={"result": filler},
            call_id=f"c{turn}",
            author="m",
            state_delta={"looked": turn},
            **common,
        )
    if step == 3:
        return TextMessage(text=f"a{turn}", author="m", **common)
    return TurnComplete(usage=Usage(prompt_tokens=turn, generated_tokens=1), author="m", **common)


_WRITER = textwrap.dedent(
    """
    import sys
    from agent_nb.stores import DatabaseStore, SQLiteStore
    from tests.stores.test_sqlite_crash import APP, USER, SID, planned_event

    if sys.argv[2] == "database":
        store = DatabaseStore(sys.argv[1])
    else:
        store = SQLiteStore(sys.argv[1], durable=sys.argv[2] == "durable")
    record = store.get_session(APP, USER, SID) or store.create_session(APP, USER, SID)
    i = len(record.events)
    print("ready", i, flush=True)
    while True:
        store.append_event(record, planned_event(i))
        print(i, flush=True)  # only after the commit returned
        i += 1
    """
)


def kill_writer_at_random(
    db: Path | str, rng: random.Random, *, durable: bool, database: bool = False
) -> list[int]:
    """Run the writer, SIGKILL it at a random moment; return the indices it reported.

    ``db`` is a SQLite path, or with ``database=True`` a `DatabaseStore` URL."""
    mode = "database" if database else "durable" if durable else "fast"
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(db), mode],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    if rng.random() < 0.2:
        time.sleep(rng.uniform(0.0, 0.3))  # sometimes while it opens / migrates the file
    else:
        lines.append(proc.stdout.readline())
        assert lines[0].startswith("ready"), proc.stderr.read() if proc.stderr else ""
        # After a random number of commits, not a random time: on a loaded machine a
        # fixed sleep could end every round before the first commit.
        lines += [proc.stdout.readline() for _ in range(rng.randint(0, 8))]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    # Read through the same file object: readline() above may have buffered more lines.
    lines += proc.stdout.read().splitlines(keepends=True)
    err = proc.stderr.read() if proc.stderr else ""
    proc.stdout.close()
    if proc.stderr:
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL, f"the writer died on its own: {err}"
    # A line without its newline was cut mid-print: the id was not reported.
    return [int(line) for line in lines if line.endswith("\n") and line.strip().isdigit()]


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
    tmp_path: Path,
) -> None:
    db = tmp_path / "crash.db"
    rng = random.Random(20240611)
    count = 0
    rounds = 24
    for n in range(rounds):
        reported = kill_writer_at_random(db, rng, durable=n % 2 == 0)
        count = check_file(db, reported, count)
    assert count > rounds, f"the writer hardly wrote anything ({count} events); kills too early?"


_RUNNER_WRITER = textwrap.dedent(
    """
    import sys
    from agent_nb import Agent, AgentRunner, TextMessage
    from agent_nb.backends import ScriptedBackend, ToolCallChunk

    def look(turn: int) -> str:
        \"\"\"Look something up.

        Args:
            turn: which turn
        \"\"\"
        return "x" * 20_000

    backend = ScriptedBackend()
    runner = AgentRunner(Agent(tools=[look]), model=backend, store="sqlite:///" + sys.argv[1])
    session = runner.get_or_create_session(sys.argv[2])

    def report(event):
        if not (isinstance(event, TextMessage) and event.is_partial):
            print(event.id, flush=True)  # listeners run after the event is stored

    session.subscribe(report)
    print("ready", flush=True)
    for turn in range(10_000):
        backend.enqueue(ToolCallChunk("look", {"turn": turn}), f"answer {turn} " * 20)
        session.run(f"question {turn}", state_delta={"n": turn, "user:last": turn})
    """
)


def test_sigkill_during_real_runner_turns_leaves_whole_events(tmp_path: Path) -> None:
    """The same through `AgentRunner` (worker-thread writes), one session per round."""
    db = tmp_path / "runner.db"
    rng = random.Random(7)
    snapshots: dict[str, list[Event]] = {}
    for n in range(8):
        sid = f"round-{n}"
        proc = subprocess.Popen(
            [sys.executable, "-c", _RUNNER_WRITER, str(db), sid],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        assert first == "ready\n", proc.stderr.read()
        # Killed after a random number of stored events, however slow the machine (a
        # fixed sleep killed some rounds before their first event under load).
        seen = [proc.stdout.readline() for _ in range(rng.randint(1, 12))]
        assert all(seen), proc.stderr.read()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        reported = [
            x.strip()
            for x in [*seen, *proc.stdout.read().splitlines(keepends=True)]
            if x.endswith("\n")
        ]
        proc.stdout.close()
        proc.stderr.close()

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

_SWITCHER = textwrap.dedent(
    """
    import sys
    from agent_nb.stores import resolve_store
    from tests.stores.test_sqlite_crash import APP, USER

    store = resolve_store(sys.argv[1])
    record = store.get_session(APP, USER, "forked")
    print("ready", record.revision, flush=True)
    while True:
        number = record.active_branch % len(record.branches) + 1
        store.switch_branch(record, number)
        print(record.revision, number, flush=True)  # only after the commit returned
    """
)


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


def test_sigkill_mid_switch_leaves_one_consistent_active_path(tmp_path: Path) -> None:
    """20 rounds: a process switching branches in a loop is killed at random; the
    file always holds one whole active path, its replayed state and revision."""
    db = tmp_path / "forked.db"
    kill_switcher_at_random(f"sqlite:///{db}", sqlite_file=db)


def kill_switcher_at_random(url: str, *, sqlite_file: Path | None = None) -> None:
    """The switch crash rounds on the store at ``url`` (also run on PostgreSQL)."""
    paths = _forked_session(url)
    assert paths == {1: [], 2: ["root", "b1"], 3: ["root", "b1'"]}
    rng = random.Random(20)
    switches = 0
    for _ in range(20):
        proc = subprocess.Popen(
            [sys.executable, "-c", _SWITCHER, url],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stderr is not None
        ready = proc.stdout.readline()
        assert ready.startswith("ready"), proc.stderr.read()
        base = int(ready.split()[1])
        seen = [proc.stdout.readline() for _ in range(rng.randint(1, 4))]  # switches, not time
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        reported = [
            tuple(map(int, line.split()))
            for line in [*seen, *proc.stdout.read().splitlines(keepends=True)]
            if line.endswith("\n")
        ]
        proc.stdout.close()
        proc.stderr.close()
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
