"""One conformance suite for every `SessionStore`.

Each test runs against `MemoryStore`, `SQLiteStore` (a real file) and
`DatabaseStore` on a real PostgreSQL server and on a SQLite file. Where a test
reads back through ``stores.reopen()``, a persistent store is closed and a
fresh one opened on the same file or database, so "stored" means "on disk".
"""

from __future__ import annotations

import copy
import itertools
import os
import threading
from collections.abc import Iterator
from dataclasses import replace as dataclasses_replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_nb._core.branches import path_turns
from agent_nb._core.state import apply_delta
from agent_nb._core.types import (
    Event,
    FunctionCall,
    FunctionResponse,
    TextMessage,
    TurnComplete,
    Usage,
)
from agent_nb.errors import SessionBusyError, SessionExistsError, StaleSessionError
from agent_nb.stores import (
    DatabaseStore,
    LeaseOwner,
    MemoryStore,
    SessionRecord,
    SessionStore,
    SQLiteStore,
)
from tests.fixtures_postgres import TempPostgres

APP, USER = "app", "alice"


class Stores:
    """Makes stores of one kind; ``reopen`` gives the same data through a new object."""

    def __init__(self, kind: str, tmp_path: Path, pg: TempPostgres | None = None) -> None:
        self.kind = kind
        self.tmp_path = tmp_path
        self.pg = pg
        self.count = 0
        self.opened: list[SessionStore] = []
        self.store = self.new()

    def _open(self, where: str) -> SessionStore:
        if self.kind == "sqlite":
            return SQLiteStore(where)
        return DatabaseStore(where)

    def new(self) -> SessionStore:
        self.count += 1
        store: SessionStore
        if self.kind == "memory":
            store = MemoryStore()
        elif self.kind == "sqlite":
            store = SQLiteStore(self.tmp_path / f"store{self.count}.db")
        elif self.kind == "db-sqlite":
            store = DatabaseStore(f"sqlite:///{self.tmp_path}/db{self.count}.db")
        else:
            assert self.pg is not None
            store = DatabaseStore(self.pg.fresh_url())
        self.opened.append(store)
        return store

    def reopen(self) -> SessionStore:
        if isinstance(self.store, SQLiteStore):
            where = self.store.path
        elif isinstance(self.store, DatabaseStore):
            where = self.store.url.render_as_string(hide_password=False)
        else:
            return self.store
        self.store.close()
        self.store = self._open(where)
        self.opened.append(self.store)
        return self.store


@pytest.fixture(
    params=["memory", "sqlite", pytest.param("db-postgres", marks=pytest.mark.slow), "db-sqlite"]
)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    pg = request.getfixturevalue("postgres") if request.param == "db-postgres" else None
    made = Stores(request.param, tmp_path, pg)
    yield made
    for store in made.opened:
        store.close()


@pytest.fixture
def store(stores: Stores) -> SessionStore:
    return stores.store


_turns = itertools.count()


def msg(text: str, /, **delta: Any) -> TextMessage:
    """A one-event turn of its own (each call a new invocation id)."""
    return TextMessage(
        text=text, author="user", invocation_id=f"inv{next(_turns)}", state_delta=delta
    )


def turn_of(record: SessionRecord, index: int) -> str:
    return record.events[index].invocation_id


def texts(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, TextMessage)]


def new(store: SessionStore, session_id: str = "s1", user: str = USER) -> SessionRecord:
    return store.create_session(APP, user, session_id)


def stored(store: SessionStore, session_id: str = "s1", user: str = USER) -> SessionRecord:
    record = store.get_session(APP, user, session_id)
    assert record is not None, f"session {session_id!r} should be stored"
    return record


def test_unknown_session_is_none_and_new_session_is_empty(store: SessionStore) -> None:
    assert store.get_session(APP, USER, "nope") is None
    record = new(store)
    assert (record.events, record.state, record.revision) == ([], {}, 0)
    again = stored(store)
    assert (again.events, again.state, again.revision) == ([], {}, 0)
    assert again is not record


def test_every_event_kind_round_trips(stores: Stores) -> None:
    record = new(stores.store)
    events: list[Event] = [
        msg("hello", n=1),
        FunctionCall(name="add", args={"a": [1, {"b": None}], "c": "é"}, author="m"),
        FunctionResponse(name="add", response={"result": 3.5}, call_id="c1", author="m"),
        TextMessage(text="partly", author="m", interrupted=True),
        TurnComplete(
            usage=Usage(prompt_tokens=5, cached_tokens=2, generated_tokens=3, tokens_per_s=9.5),
            finish_reason="cancelled",
            interrupted=True,
            error="BackendError: boom",
        ),
    ]
    for event in events:
        stores.store.append_event(record, event)
    back = stored(stores.reopen())
    assert back.events == events
    assert [type(e) for e in back.events] == [type(e) for e in events]
    assert back.revision == record.revision == len(events)


def test_reads_are_copies(store: SessionStore) -> None:
    record = new(store)
    store.append_event(
        record, msg("hi", nested={"list": [1, 2]}, **{"app:a": {"k": [1]}, "user:u": [1]})
    )
    got = stored(store)
    got.state["nested"]["list"].append(99)
    got.state["extra"] = 1
    got.events.clear()
    store.get_app_state(APP)["a"]["k"].append(99)
    store.get_user_state(APP, USER)["u"].append(99)
    store.merged_state(record)["app:a"]["k"].append(99)

    fresh = stored(store)
    assert fresh.state == {"nested": {"list": [1, 2]}}
    assert len(fresh.events) == 1
    assert store.get_app_state(APP) == {"a": {"k": [1]}}
    assert store.get_user_state(APP, USER) == {"u": [1]}
    # The caller's record is not the store's object either.
    record.state["nested"]["list"].append(7)
    assert stored(store).state == {"nested": {"list": [1, 2]}}


def test_delta_is_split_by_prefix(stores: Stores) -> None:
    record = new(stores.store)
    stores.store.append_event(
        record, msg("x", topic="cats", **{"user:lang": "fr", "app:theme": "dark"})
    )
    store = stores.reopen()
    got = stored(store)
    assert got.state == {"topic": "cats"}
    assert store.get_user_state(APP, USER) == {"lang": "fr"}
    assert store.get_app_state(APP) == {"theme": "dark"}
    assert store.merged_state(got) == {"topic": "cats", "user:lang": "fr", "app:theme": "dark"}


def test_temp_keys_are_dropped(stores: Stores) -> None:
    record = new(stores.store)
    kept = stores.store.append_event(record, msg("x", keep=1, **{"temp:scratch": "gone"}))
    assert dict(kept.state_delta) == {"keep": 1}
    assert dict(record.events[-1].state_delta) == {"keep": 1}
    got = stored(stores.reopen())
    assert dict(got.events[0].state_delta) == {"keep": 1}
    assert got.state == {"keep": 1}
    assert "temp:scratch" not in stores.store.merged_state(got)


def test_partial_events_are_never_stored(stores: Stores) -> None:
    record = new(stores.store)
    partial = TextMessage(text="par", author="m", is_partial=True, state_delta={"x": 1})
    assert stores.store.append_event(record, partial) is partial
    assert (record.events, record.revision, record.state) == ([], 0, {})
    got = stored(stores.reopen())
    assert (got.events, got.revision, got.state) == ([], 0, {})


def test_revision_counts_every_write(stores: Stores) -> None:
    record = new(stores.store)
    for i in range(3):
        stores.store.append_event(record, msg(f"m{i}"))
        assert record.revision == i + 1
        assert stored(stores.store).revision == i + 1
    stores.store.rewind(record, turn_of(record, 1))
    assert record.revision == 4
    stores.store.switch_branch(record, 2)
    assert record.revision == 5
    assert stored(stores.reopen()).revision == 5


def test_the_revision_alone_is_read_as_get_session_has_it(stores: Stores) -> None:
    """`revision` is what a reader asks before it reloads (two kernels on one store)."""
    store = stores.store
    assert store.revision(APP, USER, "s1") is None
    record = new(store)
    assert store.revision(APP, USER, "s1") == 0
    store.append_event(record, msg("m0"))
    store.append_event(record, msg("m1"))
    store.rewind(record, turn_of(record, 1))
    assert store.revision(APP, USER, "s1") == stored(store).revision == 3
    assert stores.reopen().revision(APP, USER, "s1") == 3
    stores.store.delete_session(APP, USER, "s1")
    assert stores.store.revision(APP, USER, "s1") is None


def test_stale_writer_is_refused_and_nothing_is_written(store: SessionStore) -> None:
    record = new(store)
    first = stored(store)
    second = stored(store)
    store.append_event(first, msg("from the first writer", who="first"))
    with pytest.raises(StaleSessionError, match=r"revision 1.*has 0"):
        store.append_event(second, msg("from a stale writer", who="second"))
    # The stale copy and the store are both untouched.
    assert (second.events, second.revision, second.state) == ([], 0, {})
    now = stored(store)
    assert [e.text for e in now.events if isinstance(e, TextMessage)] == ["from the first writer"]
    assert now.state == {"who": "first"}
    with pytest.raises(StaleSessionError):
        store.switch_branch(second, 1)
    assert len(stored(store).events) == 1
    # Reloading is the documented way out.
    fresh = stored(store)
    store.append_event(fresh, msg("after reload"))
    assert stored(store).revision == 2
    del record


def test_stale_write_does_not_leak_shared_state(store: SessionStore) -> None:
    new(store)
    first, second = stored(store), stored(store)
    store.append_event(first, msg("a"))
    with pytest.raises(StaleSessionError):
        store.append_event(second, msg("b", **{"app:x": 1, "user:y": 2}))
    assert store.get_app_state(APP) == {}
    assert store.get_user_state(APP, USER) == {}


def test_writing_to_a_deleted_session_is_stale(store: SessionStore) -> None:
    record = new(store)
    store.delete_session(APP, USER, "s1")
    with pytest.raises(StaleSessionError, match="s1"):
        store.append_event(record, msg("too late"))
    assert store.get_session(APP, USER, "s1") is None


def test_rewind_moves_turns_to_a_branch_and_replays_session_state(stores: Stores) -> None:
    record = new(stores.store)
    stores.store.append_event(record, msg("one", x=1))
    stores.store.append_event(record, msg("two", x=2, y=1, **{"user:u": "kept"}))
    stores.store.append_event(record, msg("three", z=3))
    assert stores.store.rewind(record, turn_of(record, 1)) == 2
    assert record.state == {"x": 1}
    assert texts(record.events) == ["one"]
    store = stores.reopen()
    got = stored(store)
    assert got.events == record.events
    assert got.state == {"x": 1}
    assert texts(got.tree) == ["one", "two", "three"], "a rewind deletes nothing"
    # Shared scopes are not rolled back by one session's rewind.
    assert store.get_user_state(APP, USER) == {"u": "kept"}
    # Appending after a rewind continues from the cut, on branch 1.
    store.append_event(got, msg("four", w=4))
    again = stored(stores.reopen())
    assert texts(again.events) == ["one", "four"]
    assert again.state == {"x": 1, "w": 4}
    assert (again.active_branch, len(again.branches)) == (1, 2)
    # Branch 2 holds what was replaced, with its own replayed state.
    stores.store.switch_branch(again, 2)
    back = stored(stores.reopen())
    assert texts(back.events) == ["one", "two", "three"]
    assert back.state == {"x": 2, "y": 1, "z": 3}


def test_rewind_to_the_start_and_bad_arguments(store: SessionStore) -> None:
    record = new(store)
    store.append_event(record, msg("one", x=1))
    with pytest.raises(ValueError, match="no turn 'nope' on its active branch"):
        store.rewind(record, "nope")
    with pytest.raises(ValueError, match="branches 1 to 1, not 2"):
        store.switch_branch(record, 2)
    store.rewind(record, turn_of(record, 0))
    got = stored(store)
    assert (got.events, got.state, got.branches) == ([], {}, [None, record.tree[0].invocation_id])
    with pytest.raises(ValueError, match="not the last turn"):  # the old turn cannot grow here
        store.append_event(got, dataclasses_replace(record.tree[0], text="more"))


def test_delete_removes_only_that_session(stores: Stores) -> None:
    keep = new(stores.store, "keep")
    gone = new(stores.store, "gone")
    stores.store.append_event(keep, msg("k", **{"user:u": 1}))
    stores.store.append_event(gone, msg("g"))
    stores.store.delete_session(APP, USER, "gone")
    stores.store.delete_session(APP, USER, "never-existed")  # no error
    store = stores.reopen()
    assert store.get_session(APP, USER, "gone") is None
    assert store.list_sessions(APP, USER) == ["keep"]
    assert len(stored(store, "keep").events) == 1
    assert store.get_user_state(APP, USER) == {"u": 1}
    # The id can be used again and starts empty.
    assert new(store, "gone").events == []


def test_create_refuses_an_existing_id_and_keeps_its_data(stores: Stores) -> None:
    record = new(stores.store)
    stores.store.append_event(record, msg("old", x=1))
    with pytest.raises(SessionExistsError, match="'s1' already exists"):
        new(stores.store)
    got = stored(stores.reopen())
    assert [e.text for e in got.events if isinstance(e, TextMessage)] == ["old"]
    assert (got.state, got.revision) == ({"x": 1}, 1)
    # The same id for another user or app is another session.
    assert new(stores.store, user="bob").events == []


def test_list_sessions_by_last_update_per_user_and_app(stores: Stores) -> None:
    records = {sid: new(stores.store, sid) for sid in ("b", "a", "c")}
    new(stores.store, "other-user", user="bob")
    stores.store.create_session("other-app", USER, "z")
    assert stores.store.list_sessions(APP, USER) == ["b", "a", "c"]
    stores.store.append_event(records["b"], msg("b moves last"))
    store = stores.reopen()
    assert store.list_sessions(APP, USER) == ["a", "c", "b"]
    assert store.list_sessions(APP, "bob") == ["other-user"]
    assert store.list_sessions("other-app", USER) == ["z"]
    assert store.list_sessions(APP, "nobody") == []


def test_clear_user_removes_only_that_users_sessions(stores: Stores) -> None:
    for sid in ("s1", "s2"):
        stores.store.append_event(new(stores.store, sid), msg("hi"))
    stores.store.append_event(new(stores.store, "b1", user="bob"), msg("hi"))
    stores.store.create_session("other-app", USER, "s1")
    stores.store.clear_user(APP, USER)
    store = stores.reopen()
    assert store.list_sessions(APP, USER) == []
    assert store.get_session(APP, USER, "s1") is None
    assert store.list_sessions(APP, "bob") == ["b1"]
    assert len(stored(store, "b1", user="bob").events) == 1
    assert store.list_sessions("other-app", USER) == ["s1"]


def test_app_and_user_state_are_shared_across_sessions(stores: Stores) -> None:
    one = new(stores.store, "one")
    two = new(stores.store, "two")
    bobs = new(stores.store, "b", user="bob")
    stores.store.append_event(one, msg("x", mine=1, **{"user:lang": "fr", "app:theme": "dark"}))
    stores.store.append_event(two, msg("y", **{"user:lang": "de"}))
    store = stores.reopen()
    assert store.merged_state(stored(store, "one")) == {
        "mine": 1,
        "user:lang": "de",
        "app:theme": "dark",
    }
    assert store.merged_state(stored(store, "two")) == {"user:lang": "de", "app:theme": "dark"}
    assert store.merged_state(stored(store, "b", user="bob")) == {"app:theme": "dark"}
    other_app = store.create_session("other-app", USER, "o")
    assert store.merged_state(other_app) == {}
    del bobs


def test_merged_state_key_order_app_user_override_session(store: SessionStore) -> None:
    # A session key spelled like a prefixed key cannot exist (prefixes route it),
    # so the merged view is unambiguous: every key appears once.
    record = new(store)
    store.append_event(record, msg("x", a=1, **{"user:a": 2, "app:a": 3}))
    assert store.merged_state(record) == {"a": 1, "user:a": 2, "app:a": 3}


# -- a model-based check: random appends and rewinds match a plain-dict model --

_values = st.one_of(st.integers(-5, 5), st.text(max_size=3), st.none(), st.lists(st.booleans()))
_keys = st.sampled_from(["k", "n", "user:k", "user:n", "app:k", "temp:k"])
_ops = st.lists(
    st.one_of(
        st.tuples(
            st.just("append"), st.sampled_from(["s1", "s2"]), st.dictionaries(_keys, _values)
        ),
        st.tuples(st.just("rewind"), st.sampled_from(["s1", "s2"]), st.integers(0, 6)),
        st.tuples(st.just("switch"), st.sampled_from(["s1", "s2"]), st.integers(1, 6)),
    ),
    max_size=16,
)


_examples = itertools.count()


@pytest.mark.slow  # property-based: 40 random histories per store
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=_ops)
def test_random_turns_rewinds_and_switches_match_lines_rebuilt_from_scratch(
    stores: Stores, ops: list[Any]
) -> None:
    """Every turn ever recorded stays reachable, and the active path equals the
    one a plain model of numbered lines (copied lists of turns) gives.

    Each example is an app of its own in the one store (its ``app:`` and ``user:``
    state start empty), so an example costs a reopen, not a new schema."""
    store = stores.store
    app = f"example{next(_examples)}"
    records = {sid: store.create_session(app, USER, sid) for sid in ("s1", "s2")}
    deltas: dict[str, dict[str, Any]] = {}  # turn -> its stored delta
    lines: dict[str, list[list[str]]] = {"s1": [[]], "s2": [[]]}
    active = {"s1": 0, "s2": 0}
    recorded: dict[str, list[str]] = {"s1": [], "s2": []}
    shared: dict[str, Any] = {}
    for op, sid, arg in ops:
        line = lines[sid][active[sid]]
        if op == "append":
            event = store.append_event(records[sid], msg("m", **arg))
            kept = {k: copy.deepcopy(v) for k, v in arg.items() if not k.startswith("temp:")}
            deltas[event.invocation_id] = kept
            line.append(event.invocation_id)
            recorded[sid].append(event.invocation_id)
            apply_delta(shared, {k: v for k, v in kept.items() if ":" in k})
        elif op == "rewind" and line:
            cut = min(arg, len(line) - 1)
            assert store.rewind(records[sid], line[cut]) == len(lines[sid]) + 1
            lines[sid].append(list(line))  # the new branch: the whole old path
            del line[cut:]
        elif op == "switch" and arg <= len(lines[sid]):
            store.switch_branch(records[sid], arg)
            active[sid] = arg - 1
    store = stores.reopen()  # what was stored, not what this object remembers
    for sid in ("s1", "s2"):
        got = store.get_session(app, USER, sid)
        assert got is not None
        path = lines[sid][active[sid]]
        assert [e.invocation_id for e in got.events] == path
        assert [dict(e.state_delta) for e in got.events] == [deltas[t] for t in path]
        assert path_turns(got.parents, got.leaf) == path
        reachable = {t for leaf in got.branches for t in path_turns(got.parents, leaf)}
        assert reachable == set(recorded[sid]), "every recorded turn is on some branch"
        assert [path_turns(got.parents, leaf) for leaf in got.branches] == lines[sid]
        expected: dict[str, Any] = {}
        for t in path:
            apply_delta(expected, {k: v for k, v in deltas[t].items() if ":" not in k})
        assert store.merged_state(got) == {**expected, **shared}
        assert got.revision == records[sid].revision


def test_persistent_flag(store: SessionStore) -> None:
    assert store.persistent is not isinstance(store, MemoryStore)


def test_a_deletion_is_a_none_in_the_delta_in_every_scope(stores: Stores) -> None:
    record = new(stores.store)
    stores.store.append_event(record, msg("set", a=1, b=2, **{"user:u": 1, "app:x": 1}))
    stores.store.append_event(record, msg("del", a=None, **{"user:u": None, "app:x": None}))
    assert record.state == {"b": 2}
    store = stores.reopen()
    got = stored(store)
    assert dict(got.events[1].state_delta) == {"a": None, "user:u": None, "app:x": None}
    assert got.state == {"b": 2}
    assert store.merged_state(got) == {"b": 2}
    # A rewind replays the deletion the same way, and so does switching back.
    store.append_event(got, msg("again", a=3))
    assert stored(store).state == {"a": 3, "b": 2}
    assert store.rewind(got, turn_of(got, 2)) == 2
    assert stored(store).state == {"b": 2}
    store.switch_branch(got, 2)
    assert stored(store).state == {"a": 3, "b": 2}
    store.switch_branch(got, 1)
    assert stored(store).state == {"b": 2}


def test_turn_lease_refuses_a_second_holder_until_released(stores: Stores) -> None:
    record = new(stores.store)
    mine = LeaseOwner.here()
    other = LeaseOwner("another-host", 4242, "t-other")
    assert stores.store.begin_turn(record, mine) == 0
    assert stores.store.begin_turn(record, mine) == 0  # the holder itself may renew
    stores.store.renew_turn(record, mine)
    with pytest.raises(SessionBusyError, match=r"'s1'.*\(host .+, pid \d+\)"):
        stores.store.begin_turn(record, other)
    stores.store.append_event(record, msg("by the holder"))
    stores.store.end_turn(record, other)  # not the owner: no effect
    with pytest.raises(SessionBusyError):
        stores.store.begin_turn(record, other)
    stores.store.end_turn(record, mine)
    assert stores.reopen().begin_turn(record, other) == 1
    assert stores.store.begin_turn(SessionRecord(APP, USER, "gone"), other) is None


def test_a_lease_whose_holder_is_provably_gone_can_be_taken(stores: Stores) -> None:
    record = new(stores.store)
    late = LeaseOwner("another-host", 1, "t-late")
    stores.store.begin_turn(record, late, lease_s=-1)  # expired: never renewed
    me = LeaseOwner.here()
    assert stores.store.begin_turn(record, me) == 0
    stores.store.end_turn(record, me)
    dead = LeaseOwner(me.host, 2**22 + 12345, "t-dead")  # above pid_max: no such process
    stores.store.begin_turn(record, dead, lease_s=600)
    assert stores.store.begin_turn(record, me) == 0
    alive = LeaseOwner(me.host, os.getpid(), "t-alive")  # same host, a live pid
    stores.store.end_turn(record, me)
    stores.store.begin_turn(record, alive, lease_s=600)
    with pytest.raises(SessionBusyError, match=f"pid {os.getpid()}"):
        stores.store.begin_turn(record, me)


def test_a_writer_thread_and_a_reader_share_the_store_made_on_another_thread(
    stores: Stores,
) -> None:
    """The runtime writes from its writer thread, not the thread that opened the
    store, while the kernel's thread reads: neither may see a torn write."""
    store = stores.store
    record = new(store)
    holder = LeaseOwner.here()
    errors: list[BaseException] = []

    def write() -> None:
        try:
            assert store.begin_turn(record, holder) == 0
            for i in range(20):
                store.append_event(record, msg(str(i), n=i, **{"user:last": i}))
            store.end_turn(record, holder)
        except BaseException as exc:
            errors.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    reads = 0
    while writer.is_alive() or not reads:
        got = stored(store)
        assert got.revision == len(got.events) and got.state == (
            {"n": got.revision - 1} if got.revision else {}
        )
        reads += 1
    writer.join()
    assert errors == []
    back = stored(stores.reopen())
    assert texts(back.events) == [str(i) for i in range(20)]
    assert stores.store.merged_state(back) == {"n": 19, "user:last": 19}
