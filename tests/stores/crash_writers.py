"""The processes the SIGKILL rounds kill, forked from one server that has imported them.

``python -m tests.stores.crash_writers`` imports what a writer needs (the SQL
stores, SQLAlchemy's SQLite and PostgreSQL dialects, psycopg, the runner), with
no thread started and no file or connection open, then serves jobs: for each
JSON line ``[role, *args]`` on stdin it forks one child that runs ``role``
(see `ROLES`), and for the next line (``reap``) it reaps that child and prints
``GONE pid status``. The child opens its own store after the fork, so each
round still reopens (and, the first time, migrates) the file or database, as a
fresh process would; forking spares each round the seconds a fresh
interpreter spends importing SQLAlchemy and psycopg.

A child prints ``pid N`` first, then what its role reports. Each line is one
``write`` of fewer than ``PIPE_BUF`` bytes, so a kill never leaves half a line.
`WriterServer` is the tests' side: `start` a role, read its lines, `kill` it
with a real SIGKILL (sent by the test, to a pid that stays unreaped until then).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_nb._core.types import (
    Event,
    FunctionCall,
    FunctionResponse,
    TextMessage,
    TurnComplete,
    Usage,
)
from tests.fork_server import ForkServerProcess, assert_fork_safe, import_sql_stores

__all__ = ["APP", "ROLES", "SID", "STEPS", "USER", "Writer", "WriterServer", "planned_event"]

APP, USER, SID = "crash", "u", "victim"
STEPS = 5  # events per planned turn


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


# -- the child's side -------------------------------------------------------------


def report(line: str) -> None:
    """One whole line to the test: a single small write is never torn by a kill."""
    os.write(1, (line + "\n").encode())


def append_planned(target: str, mode: str) -> None:
    """Reopen the store and continue the plan; report each index once it committed."""
    from agent_nb.stores import DatabaseStore, SQLiteStore

    if mode == "database":
        store = DatabaseStore(target)
    else:
        store = SQLiteStore(target, durable=mode == "durable")
    record = store.get_session(APP, USER, SID) or store.create_session(APP, USER, SID)
    i = len(record.events)
    report(f"ready {i}")
    while True:
        store.append_event(record, planned_event(i))
        report(str(i))  # only after the commit returned
        i += 1


def look(turn: int) -> str:
    """Look something up.

    Args:
        turn: which turn
    """
    return "x" * 20_000


def runner_turns(db: str, sid: str) -> None:
    """Real `AgentRunner` turns (a tool call each) on a SQLite file; report each stored id."""
    from agent_nb import Agent, AgentRunner
    from agent_nb.backends import ScriptedBackend, ToolCallChunk

    backend = ScriptedBackend()
    runner = AgentRunner(Agent(tools=[look]), model=backend, store="sqlite:///" + db)
    session = runner.get_or_create_session(sid)

    def stored(event: Event | None) -> None:
        if event is not None and not (isinstance(event, TextMessage) and event.is_partial):
            report(event.id)  # listeners run after the event is stored

    session.subscribe(stored)
    report("ready")
    for turn in range(10_000):
        backend.enqueue(ToolCallChunk("look", {"turn": turn}), f"answer {turn} " * 20)
        session.run(f"question {turn}", state_delta={"n": turn, "user:last": turn})


def switch_branches(url: str) -> None:
    """Switch the ``forked`` session's branch in a loop; report revision and branch."""
    from agent_nb.stores import resolve_store

    store = resolve_store(url)
    record = store.get_session(APP, USER, "forked")
    assert record is not None
    report(f"ready {record.revision}")
    while True:
        number = record.active_branch % len(record.branches) + 1
        store.switch_branch(record, number)
        report(f"{record.revision} {number}")  # only after the commit returned


ROLES: dict[str, Callable[..., None]] = {
    "append": append_planned,
    "runner": runner_turns,
    "switch": switch_branches,
}


def _child(job: list[str]) -> None:
    try:
        report(f"pid {os.getpid()}")
        ROLES[job[0]](*job[1:])
    except BaseException:
        report("FAILED " + json.dumps(traceback.format_exc()))
    finally:
        os._exit(1)  # only a SIGKILL is meant to end a writer


def _warm_up() -> None:
    """Run the SQL store once on a scratch file and close it: SQLAlchemy builds its
    per-process caches on first use, which would otherwise cost each child ~0.2 s."""
    import shutil
    import tempfile

    from agent_nb.stores import SQLiteStore

    scratch = tempfile.mkdtemp(prefix="crash_writers_")
    try:
        store = SQLiteStore(os.path.join(scratch, "warm.db"))
        record = store.create_session(APP, USER, SID)
        for i in range(STEPS):
            store.append_event(record, planned_event(i))
        store.get_session(APP, USER, SID)
        store.close()
    finally:
        shutil.rmtree(scratch)


def serve() -> None:
    # Imported before any fork; nothing runs or is open yet (each child opens its own).
    import agent_nb
    import agent_nb.backends  # noqa: F401

    import_sql_stores()
    _warm_up()
    assert_fork_safe()
    pid = 0
    for line in sys.stdin:
        if pid:  # the test killed it, or it failed: reap it only now, so its pid stays its own
            _, status = os.waitpid(pid, 0)
            print(f"GONE {pid} {status}", flush=True)
            pid = 0
            continue
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            _child(json.loads(line))
    if pid:  # stdin closed with a writer still alive (a failed test): end it
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


# -- the tests' side --------------------------------------------------------------


class Writer:
    """One forked child: read what it reports, then `kill` it."""

    def __init__(self, server: WriterServer, pid: int) -> None:
        self.server, self.pid = server, pid

    def readline(self) -> str:
        line = self.server.readline()
        assert not line.startswith(("GONE ", "FAILED ")), f"the writer ended: {line}"
        return line

    def kill(self) -> list[str]:
        """SIGKILL it; return the lines it printed that nobody read yet."""
        lines, status = self.end()
        failed = [json.loads(x[len("FAILED ") :]) for x in lines if x.startswith("FAILED ")]
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
            f"the writer died on its own: {failed}"
        )
        return lines

    def end(self) -> tuple[list[str], int]:
        """SIGKILL and reap it: the lines nobody read yet and its wait status."""
        os.kill(self.pid, signal.SIGKILL)  # unreaped, so still this writer's pid
        self.server.send("reap")
        self.server.live = None
        lines = []
        while not (line := self.server.readline()).startswith("GONE "):
            lines.append(line)
        pid, status = map(int, line.split()[1:])
        assert pid == self.pid
        return lines, status


class WriterServer(ForkServerProcess):
    """The fork server, for as long as a ``with`` block runs."""

    module = "tests.stores.crash_writers"
    live: Writer | None = None  # started and not yet killed

    def start(self, role: str, *args: str | Path) -> Writer:
        """Fork a child running ``role``; returns once it runs (before it opens anything)."""
        if self.live is not None:  # left by a test that failed before its kill
            self.live.end()
        self.send(json.dumps([role, *map(str, args)]))
        first = self.readline().split()
        assert first[0] == "pid", first
        self.live = Writer(self, int(first[1]))
        return self.live


if __name__ == "__main__":
    serve()
