"""The error tree: every error agent_nb raises on purpose is an `AgentError`,
and each one that replaced a builtin still is that builtin."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import Agent, AgentRunner, get_runner
from agent_nb.backends import ScriptedBackend
from agent_nb.errors import (
    AgentError,
    MissingStateKeyError,
    RunnerShutDownError,
    StaleSessionError,
    StoreClosedError,
    StoreError,
    StoreFormatError,
    StoreIOError,
    StoreIsADirectoryError,
    StoreLockedError,
    StoreNotFoundError,
    StorePermissionError,
    StoreVersionError,
    StreamConsumedError,
    UnknownAgentError,
)
from agent_nb.stores import SQLiteStore
from tests.fixtures_magics import run, usage_error
from tests.fixtures_runtime import RunnerFactory

MIXINS = [
    (MissingStateKeyError, KeyError),
    (UnknownAgentError, KeyError),
    (RunnerShutDownError, RuntimeError),
    (StreamConsumedError, RuntimeError),
    (StoreLockedError, TimeoutError),
    (StoreFormatError, ValueError),
    (StoreClosedError, RuntimeError),
    (StoreVersionError, RuntimeError),
    (StoreIOError, OSError),
    (StoreNotFoundError, FileNotFoundError),
    (StoreIsADirectoryError, IsADirectoryError),
    (StorePermissionError, PermissionError),
]


@pytest.mark.parametrize(("error", "builtin"), MIXINS)
def test_each_new_error_is_an_agent_error_and_the_builtin_it_replaced(
    error: type[Exception], builtin: type[Exception]
) -> None:
    assert issubclass(error, AgentError) and issubclass(error, builtin)
    if error.__name__.startswith("Store"):
        assert issubclass(error, StoreError)


def test_stale_session_error_is_a_store_error() -> None:
    assert issubclass(StaleSessionError, StoreError)


def test_key_errors_read_as_plain_sentences() -> None:
    assert str(UnknownAgentError("no agent named 'x'")) == "no agent named 'x'"


def test_the_runner_raises_from_the_tree(make_runner: RunnerFactory) -> None:
    runner = make_runner()
    with pytest.raises(UnknownAgentError, match="no agent named 'ghost'"):
        runner.get_agent("ghost")
    runner.shutdown()
    with pytest.raises(RunnerShutDownError, match="use get_runner"):
        runner.get_or_create_session("late")


def test_a_missing_state_key_fails_the_turn_with_an_agent_error(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner(Agent(instructions="Use {tone}"))
    with pytest.raises(MissingStateKeyError, match="state has no 'tone'"):
        runner.get_or_create_session("s").run("hi")


def test_a_stream_iterated_twice(runner: AgentRunner) -> None:
    stream = runner.get_or_create_session("twice").run_async("hi")

    async def drain() -> None:
        async for _ in stream:
            pass
        async for _ in stream:
            pass

    with pytest.raises(StreamConsumedError, match="already iterated"):
        asyncio.run(drain())


def test_sqlite_errors_are_store_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreIsADirectoryError):
        SQLiteStore(tmp_path)
    with pytest.raises(StoreNotFoundError):
        SQLiteStore(tmp_path / "no" / "s.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 100)
    with pytest.raises(StoreFormatError, match="not a usable agent_nb session database"):
        SQLiteStore(junk)
    store = SQLiteStore(tmp_path / "s.db")
    store.close()
    with pytest.raises(StoreClosedError, match="is closed"):
        store.list_sessions("app", "user")


def test_a_locked_store_is_a_store_locked_error(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SQLiteStore(db, timeout=0.1)
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreLockedError, match="locked by another writer"):
            store.create_session("app", "user", "s")
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
        store.close()


def test_the_magics_turn_a_store_error_into_one_usage_error(
    shell: InteractiveShell, backend: ScriptedBackend, tmp_path: Path
) -> None:
    """Before the tree was complete a closed store raised a bare RuntimeError,
    which the magics showed as a traceback."""
    run(shell, f"%config AgentMagics.store = 'sqlite:///{tmp_path / 's.db'}'")
    runner = get_runner()
    runner.model = backend
    runner.store.close()
    result, cap = run(shell, "%%agent closed\nhello")
    usage_error(result, cap, "is closed; open a new SQLiteStore")
