"""A store's identity is an id kept inside it (issue 39, 3.9): KV checkpoints are kept
under it, so a copied or moved SQLite file keeps them, and every kernel opening one
database (a file or a PostgreSQL schema) agrees on it."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

from agent_nb._core.types import TextMessage
from agent_nb.stores import DatabaseStore, SQLiteStore, resolve_store
from tests.fixtures_postgres import TempPostgres

DATA = Path(__file__).parent / "data"


def identity_of(path: Path | str) -> str | None:
    store = SQLiteStore(path)
    try:
        return store.identity
    finally:
        store.close()


def test_a_copied_or_moved_file_is_the_same_store(tmp_path: Path) -> None:
    original = tmp_path / "a.db"
    store = SQLiteStore(original)
    store.append_event(store.create_session("app", "u", "s"), TextMessage(text="hi", author="u"))
    first = store.identity
    store.close()
    assert first is not None and str(tmp_path) not in first  # not where it lives
    copy = tmp_path / "elsewhere" / "copy.db"
    copy.parent.mkdir()
    shutil.copy(original, copy)
    moved = tmp_path / "moved.db"
    shutil.move(original, moved)
    assert identity_of(copy) == identity_of(moved) == first
    assert identity_of(moved) == first  # kept, not made again on each open
    assert identity_of(tmp_path / "other.db") != first  # another store


def test_an_older_file_gets_its_id_on_first_open_and_keeps_it(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(DATA / "sqlite_store_v3.db", db)
    with contextlib.closing(sqlite3.connect(db)) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "agent_nb_store" not in tables  # written before stores had ids
    first = identity_of(db)
    assert first is not None and first.startswith("agent_nb-store:")
    moved = tmp_path / "moved.db"
    shutil.move(db, moved)
    assert identity_of(moved) == first
    with contextlib.closing(sqlite3.connect(moved)) as conn:
        assert conn.execute("SELECT COUNT(*) FROM agent_nb_store").fetchone() == (1,)


def test_a_read_only_file_reads_its_id_and_one_without_falls_back_to_its_path(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ro.db"
    writable = identity_of(db)
    read_only = resolve_store(f"sqlite:///{db}?mode=ro")
    try:
        assert read_only.identity == writable
    finally:
        read_only.close()
    old = tmp_path / "old.db"
    shutil.copy(DATA / "sqlite_store_v3.db", old)
    never_opened_writable = resolve_store(f"sqlite:///{old}?mode=ro")
    try:
        assert never_opened_writable.identity == f"sqlite:///{old.resolve()}"
    finally:
        never_opened_writable.close()


def test_every_kernel_on_one_postgres_schema_agrees_on_its_id(postgres: TempPostgres) -> None:
    url = postgres.fresh_url()
    stores = [DatabaseStore(url) for _ in range(2)]
    other = DatabaseStore(postgres.fresh_url())
    try:
        ids = {s.identity for s in stores}
        assert len(ids) == 1 and None not in ids
        assert other.identity not in ids
        assert "s3cret" not in str(ids)  # no password, nor anything of the URL
    finally:
        for store in [*stores, other]:
            store.close()
