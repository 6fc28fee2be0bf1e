"""`DatabaseStore` beyond the conformance suite: its errors, the URL forms, laziness.

Against the real PostgreSQL of `tests.fixtures_postgres`: a wrong password, an
unreachable port and a database that does not exist are each refused with a
`StoreError` that names the host and never shows the password, not even in
the chained exceptions of the traceback.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import pytest

import agent_nb.stores
from agent_nb import AgentRunner
from agent_nb.errors import StoreConnectionError, StoreError, StoreURLError
from agent_nb.stores import DatabaseStore, SQLiteStore, resolve_store
from tests.fixtures_postgres import PASSWORD, TempPostgres, free_port

SECRET = "Tr0ub4dor-secret"


def refused(url: str) -> StoreError:
    with pytest.raises(StoreError) as caught:
        resolve_store(url)
    whole = "".join(traceback.format_exception(caught.value))
    assert SECRET not in whole and PASSWORD not in whole, whole
    return caught.value


def test_a_wrong_password_names_the_server_not_the_password(postgres: TempPostgres) -> None:
    url = postgres.url(password=SECRET)
    error = refused(url)
    assert isinstance(error, StoreConnectionError)
    assert f"127.0.0.1:{postgres.port}" in str(error) and "refused the login" in str(error)
    assert "agent:***@" in str(error)


def test_an_unreachable_server_names_host_and_port(postgres: TempPostgres) -> None:
    closed = free_port()  # nothing listens there
    error = refused(f"postgresql://agent:{SECRET}@127.0.0.1:{closed}/agent_nb")
    assert isinstance(error, StoreConnectionError) and isinstance(error, ConnectionError)
    assert f"cannot reach the postgresql server at 127.0.0.1:{closed}" in str(error)


def test_a_missing_database_says_how_to_create_it(postgres: TempPostgres) -> None:
    error = refused(postgres.url().replace("/agent_nb", "/no_such_db"))
    assert "has no database 'no_such_db'" in str(error) and "createdb" in str(error)


@pytest.mark.parametrize(
    "url",
    [
        f"mongodb://u:{SECRET}@127.0.0.1/x",  # no such store kind
        f"postgresql+nodriver://u:{SECRET}@127.0.0.1/x",  # no such SQLAlchemy driver
        "sqlite:///",  # no file
        "sqlite:///x.db?cache=shared",  # an option agent_nb does not take
    ],
)
def test_wrong_urls_are_store_url_errors(url: str) -> None:
    error = refused(url)
    assert isinstance(error, StoreURLError) and isinstance(error, ValueError)
    assert "sqlite:///" in str(error) or "postgresql" in str(error)


def test_runner_takes_a_postgres_url_and_a_restart_finds_the_sessions(
    postgres: TempPostgres,
) -> None:
    url = postgres.fresh_url()
    first = AgentRunner(model="scripted", store=url)
    try:
        assert isinstance(first.store, DatabaseStore)
        first.get_or_create_session("kept").run("hello", state_delta={"app:x": 1})
    finally:
        first.shutdown()
    again = AgentRunner(model="scripted", store=url)
    try:
        assert [i.id for i in again.sessions(include_stored=True)] == ["kept"]
        assert again.get_or_create_session("kept").state == {"app:x": 1}
    finally:
        again.shutdown()


def test_sqlite_urls_work_through_database_store_too(tmp_path: Path) -> None:
    store = DatabaseStore(f"sqlite:///{tmp_path}/via-sqlalchemy.db")
    try:
        store.create_session("a", "u", "s")
        assert store.list_sessions("a", "u") == ["s"]
        assert "via-sqlalchemy.db" in repr(store)
    finally:
        store.close()


@pytest.mark.slow  # a fresh interpreter
def test_lazy_names_are_listed_and_sqlalchemy_is_not_imported_early() -> None:
    assert {"DatabaseStore", "SQLiteStore", "MemoryStore"} <= set(dir(agent_nb.stores))
    assert agent_nb.stores.SQLiteStore is SQLiteStore
    code = (
        "import sys, agent_nb, agent_nb.stores;"
        "assert 'sqlalchemy' not in sys.modules, 'imported at import time';"
        "agent_nb.stores.DatabaseStore;"
        "assert 'sqlalchemy' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow  # a fresh interpreter
def test_without_sqlalchemy_a_sql_store_says_how_to_install_it() -> None:
    """``import agent_nb`` and the memory store work; a SQL store names the pip command."""
    code = textwrap.dedent(
        """
        import sys
        sys.modules["sqlalchemy"] = None  # as if it were not installed
        import agent_nb, agent_nb.stores
        from agent_nb.errors import StoreError

        agent_nb.stores.MemoryStore()
        for get in (
            lambda: agent_nb.stores.SQLiteStore,
            lambda: agent_nb.stores.resolve_store("sqlite:///x.db"),
            lambda: agent_nb.stores.resolve_store("postgresql://u@h/db"),
        ):
            try:
                get()
            except StoreError as exc:
                assert "pip install 'sqlalchemy>=2'" in str(exc), exc
                assert isinstance(exc.__cause__, ModuleNotFoundError)
            else:
                raise AssertionError("no StoreError")
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True)
