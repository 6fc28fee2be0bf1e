"""Several kernels on one store: real processes on a real SQLite file and a real PostgreSQL.

Each "kernel" is a process running `tests.runtime.shared_kernel` (an
`AgentRunner` with `ScriptedBackend`), driven line by line from here, so the
order of turns across processes is exactly the one a test states. The
processes are forked from one imported server (`tests.runtime.kernel_server`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_nb import AgentRunner
from agent_nb._core.types import (
    Event,
    FunctionCall,
    FunctionResponse,
    TextMessage,
    TurnComplete,
)
from agent_nb.stores import SessionStore, resolve_store
from tests.fixtures_postgres import TempPostgres
from tests.fixtures_runtime import RunnerFactory
from tests.runtime.kernel_server import Kernel, KernelServer

pytestmark = pytest.mark.slow  # a second kernel process per test

ROOT = Path(__file__).resolve().parents[2]
APP = "agent_nb"


@pytest.fixture(scope="module")
def kernel_server() -> Iterator[KernelServer]:
    with KernelServer() as server:
        yield server


class Kernels:
    """Starts kernels for one test and stops every one after it."""

    def __init__(self, server: KernelServer) -> None:
        self.server = server
        self.started: list[Kernel] = []

    def __call__(self, url: str, user: str = "default") -> Kernel:
        kernel = self.server.start(url, user)
        self.started.append(kernel)
        return kernel


@pytest.fixture
def kernels(kernel_server: KernelServer) -> Iterator[Kernels]:
    made = Kernels(kernel_server)
    yield made
    for kernel in made.started:
        kernel.stop()


def user_texts(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, TextMessage) and e.author == "user"]


def assert_whole_turns(events: list[Event]) -> None:
    """Every turn ends with its `TurnComplete`: no orphan user message anywhere."""
    by_turn: dict[str, list[Event]] = {}
    for event in events:
        by_turn.setdefault(event.invocation_id, []).append(event)
    for invocation, turn in by_turn.items():
        assert isinstance(turn[0], TextMessage) and turn[0].author == "user", invocation
        assert isinstance(turn[-1], TurnComplete), f"turn {invocation} has no TurnComplete"
        assert sum(isinstance(e, TurnComplete) for e in turn) == 1


def stored_events(url: str, session_id: str, user: str = "default") -> list[Event]:
    store = resolve_store(url)
    try:
        record = store.get_session(APP, user, session_id)
        return [] if record is None else record.events
    finally:
        store.close()


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/shared.db"
    pg: TempPostgres = request.getfixturevalue("postgres")
    return pg.fresh_url()


def test_two_kernels_alternate_turns_on_one_session(url: str, kernels: Kernels) -> None:
    a, b = kernels(url), kernels(url)
    for i in range(5):
        for name, kernel in (("A", a), ("B", b)):
            got = kernel.ask(op="turn", sid="main", text=f"{name}{i}")
            assert got["ok"], got
            # The model saw every earlier turn, whichever kernel ran it.
            expected = [t for j in range(i + 1) for t in (f"A{j}", f"B{j}")]
            expected = expected[: expected.index(f"{name}{i}") + 1]
            assert [t for t in got["seen"] if not t.startswith("You said")] == expected
    events = stored_events(url, "main")
    assert user_texts(events) == [f"{n}{i}" for i in range(5) for n in "AB"]
    assert_whole_turns(events)


def test_a_turn_running_in_another_kernel_fails_at_once_naming_it(
    url: str, kernels: Kernels, tmp_path: Path
) -> None:
    a, b = kernels(url), kernels(url)
    assert a.ask(op="turn", sid="main", text="first")["ok"]
    gate = tmp_path / "gate"
    assert a.ask(op="slow", sid="main", gate=str(gate)) == {"in_tool": True}
    before = stored_events(url, "main")
    got = b.ask(op="turn", sid="main", text="while A is busy")
    assert got["error"] == "SessionBusyError", got
    assert f"pid {a.pid}" in got["message"] and "another kernel" in got["message"]
    assert stored_events(url, "main") == before, "B wrote something before failing"
    gate.touch()
    assert a.read()["ok"]
    assert b.ask(op="turn", sid="main", text="after A")["ok"]
    events = stored_events(url, "main")
    assert user_texts(events) == ["first", "a slow question", "after A"]
    assert_whole_turns(events)


def test_a_dead_kernels_turn_is_repaired_by_the_next_turn_not_by_opening(
    url: str, kernels: Kernels, tmp_path: Path
) -> None:
    a = kernels(url)
    assert a.ask(op="turn", sid="main", text="before the crash")["ok"]
    assert a.ask(op="slow", sid="main", gate=str(tmp_path / "never")) == {"in_tool": True}
    a.kill()
    left = stored_events(url, "main")
    assert isinstance(left[-1], FunctionCall)  # the dead kernel's unfinished turn

    b = kernels(url)
    assert b.ask(op="state", sid="main") == {"state": {}}  # opening the session ...
    assert stored_events(url, "main") == left  # ... only reads
    # Same host, dead pid: the writer is provably gone, so B takes over at once.
    assert b.ask(op="turn", sid="main", text="after the crash")["ok"]
    events = stored_events(url, "main")
    assert events[: len(left)] == left
    repaired = events[len(left) : len(left) + 2]
    assert isinstance(repaired[0], FunctionResponse) and "error" in repaired[0].response
    assert isinstance(repaired[1], TurnComplete) and repaired[1].interrupted
    assert user_texts(events) == ["before the crash", "a slow question", "after the crash"]
    assert_whole_turns(events)


def test_rewind_and_switch_take_the_lease_and_start_from_the_latest_branches(
    url: str, kernels: Kernels, tmp_path: Path
) -> None:
    a, b = kernels(url), kernels(url)
    assert b.ask(op="history", sid="main")["texts"] == []  # B's copy: before A's turns
    one = a.ask(op="turn", sid="main", text="one")["turn"]
    two = a.ask(op="turn", sid="main", text="two")["turn"]
    # B reloads before its rewind, so it knows A's turns and cuts at the right one.
    assert b.ask(op="rewind", sid="main", turn=two) == {"ok": True, "branch": 2}
    assert b.ask(op="history", sid="main") == {
        "texts": ["one"], "branch": 1, "branches": [[one], [one, two]], "turns": 1,
    }  # fmt: skip
    # A's next turn starts from B's rewind, not from A's own copy.
    got = a.ask(op="turn", sid="main", text="three")
    assert [t for t in got["seen"] if not t.startswith("You said")] == ["one", "three"]
    three = got["turn"]
    # A switches back; B's next turn goes on along branch 2, which A made active.
    assert a.ask(op="switch", sid="main", branch=2) == {"ok": True}
    got = b.ask(op="turn", sid="main", text="four")
    assert [t for t in got["seen"] if not t.startswith("You said")] == ["one", "two", "four"]
    four = got["turn"]
    assert b.ask(op="history", sid="main") == {
        "texts": ["one", "two", "four"], "branch": 2,
        "branches": [[one, three], [one, two, four]], "turns": 3,
    }  # fmt: skip
    # A turn running in A refuses B's switch and rewind before anything is written.
    gate = tmp_path / "gate"
    assert a.ask(op="slow", sid="main", gate=str(gate)) == {"in_tool": True}
    before = stored_events(url, "main")
    for cmd in ({"op": "switch", "branch": 1}, {"op": "rewind", "turn": one}):
        got = b.ask(sid="main", **cmd)
        assert got["error"] == "SessionBusyError", got
        assert f"pid {a.pid}" in got["message"] and "another kernel" in got["message"]
    assert stored_events(url, "main") == before, "B changed the session before failing"
    gate.touch()
    assert a.read()["ok"]
    assert b.ask(op="switch", sid="main", branch=1) == {"ok": True}
    assert b.ask(op="history", sid="main")["texts"] == ["one", "three"]
    events = stored_events(url, "main")
    assert user_texts(events) == ["one", "three"]
    assert_whole_turns(events)


def test_a_class_on_one_postgres_server(postgres: TempPostgres, kernels: Kernels) -> None:
    """3 users x 2 kernels: app: state reaches all, user: state stays each user's,
    sessions stay apart, and six concurrent writers lose no event."""
    url = postgres.fresh_url()
    users = ["teacher", "ana", "ben"]
    procs = {(u, k): kernels(url, u) for u in users for k in (0, 1)}
    assert procs["teacher", 0].ask(
        op="turn", sid="main", text="setup", delta={"app:course": "stats 101"}
    )["ok"]
    for (user, k), kernel in procs.items():
        got = kernel.ask(op="turn", sid="main", text=f"hi from {k}", delta={"user:name": user})
        assert got["ok"], got
    for (user, _), kernel in procs.items():
        state = kernel.ask(op="state", sid="main")["state"]
        assert state == {"app:course": "stats 101", "user:name": user}
    # Six writers at once, each on its own session, all writing app: and user: state.
    n = 6
    for (user, k), kernel in procs.items():
        kernel.send(op="turns", sid=f"work-{k}", n=n, delta_key=f"app:{user}_{k}_")
    for kernel in procs.values():
        got = kernel.read()
        assert got == {"ok": True, "failures": []}
    store = resolve_store(url)
    try:
        for user in users:
            # Same session id "main" for every user, three separate conversations.
            main = store.get_session(APP, user, "main")
            assert main is not None
            assert {t for t in user_texts(main.events)} <= {"setup", "hi from 0", "hi from 1"}
            assert_whole_turns(main.events)
            assert sorted(store.list_sessions(APP, user)) == ["main", "work-0", "work-1"]
            assert store.get_user_state(APP, user) == {"name": user}
            for k in (0, 1):
                work = store.get_session(APP, user, f"work-{k}")
                assert work is not None
                assert user_texts(work.events) == [f"{user} turn {i}" for i in range(n)]
                assert_whole_turns(work.events)
        app_state = store.get_app_state(APP)
        expected = {f"{u}_{k}_{i}": i for u in users for k in (0, 1) for i in range(n)}
        assert app_state == {"course": "stats 101", **expected}, "a concurrent app: write was lost"
    finally:
        store.close()


def test_opening_a_session_with_a_dead_kernels_turn_only_reads(
    tmp_path: Path, make_runner: RunnerFactory
) -> None:
    url = f"sqlite:///{tmp_path}/s.db"
    store: SessionStore = resolve_store(url)
    record = store.create_session(APP, "default", "main")
    store.append_event(record, TextMessage(text="half a turn", author="user", invocation_id="i1"))
    revision = record.revision
    store.close()
    runner: AgentRunner = make_runner(store=url)
    session = runner.get_or_create_session("main")
    assert user_texts(session.history) == ["half a turn"]
    again = resolve_store(url)
    try:
        stored = again.get_session(APP, "default", "main")
        assert stored is not None and stored.revision == revision
    finally:
        again.close()


def test_stored_sessions_are_listed_after_a_restart(
    tmp_path: Path, make_runner: RunnerFactory
) -> None:
    url = f"sqlite:///{tmp_path}/s.db"
    first = make_runner(store=url)
    first.get_or_create_session("old").run("hello")
    first.get_or_create_session("older").run("hello")
    first.shutdown()
    runner = make_runner(store=url)
    assert runner.sessions() == []
    listed = runner.sessions(include_stored=True)
    assert [(i.id, i.turns, i.stored_only) for i in listed] == [
        ("old", 1, True),
        ("older", 1, True),
    ]
    runner.get_or_create_session("old")
    assert [(i.id, i.stored_only) for i in runner.sessions(include_stored=True)] == [
        ("old", False),
        ("older", True),
    ]
