"""Files written before the one SQL store load with every stored byte kept.

``data/sqlite_store_v3.db`` was written by the raw-sqlite3 `SQLiteStore` and
``data/database_store_v1.db`` by the first `DatabaseStore` on a ``sqlite:///``
URL (both by ``data/make_legacy.py`` at agent_nb commit 2545d05): branches, a
lease left behind by a kernel that never came back, ``app:``/``user:`` state,
every event kind. Each ``.json`` is what that code read back. Today's store
must read the same events (compared as codec dicts), state, branches and
revisions, leave every stored row as it was, and carry on writing.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_nb._core.codec import event_to_dict
from agent_nb._core.types import TextMessage
from agent_nb.errors import SessionBusyError
from agent_nb.stores import DatabaseStore, LeaseOwner, SQLiteStore
from agent_nb.stores._schema import SCHEMA_VERSION
from tests.stores.data.make_legacy import HOLDER, dump

DATA = Path(__file__).parent / "data"
APP = "agent_nb"
TABLES = ("app_states", "user_states", "sessions", "events")


def rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the four tables, as stored (the JSON text byte for byte)."""
    with sqlite3.connect(db) as conn:
        conn.text_factory = bytes
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall() for t in TABLES}


#: Event fields added after these files were written, with the value an old event reads as.
NEW_EVENT_FIELDS = {"branch": None, "escalate": False}


def as_old_code_saw_it(value: Any) -> Any:
    """``value`` without the event fields the old code did not have (at their defaults)."""
    if isinstance(value, list):
        return [as_old_code_saw_it(v) for v in value]
    if isinstance(value, dict):
        kept = {k: as_old_code_saw_it(v) for k, v in value.items()}
        if "kind" in value:
            for name, default in NEW_EVENT_FIELDS.items():
                if kept.get(name, default) == default:
                    kept.pop(name, None)
        return kept
    return value


def column(db: Path, sql: str) -> list[Any]:
    with sqlite3.connect(db) as conn:
        return [value for (value,) in conn.execute(sql)]


@pytest.fixture(params=["sqlite_store_v3", "database_store_v1"])
def old_file(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    db = tmp_path / f"{request.param}.db"
    shutil.copyfile(DATA / f"{request.param}.db", db)
    return db, json.loads((DATA / f"{request.param}.json").read_text())


def test_the_fixtures_are_what_the_old_code_wrote(old_file: tuple[Path, dict[str, Any]]) -> None:
    db, expected = old_file
    with sqlite3.connect(db) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if db.stem == "sqlite_store_v3":
        assert version == 3 and "agent_nb_schema" not in tables
    else:
        assert version == 0 and "agent_nb_schema" in tables
    main = expected["sessions"]["default/main"]
    assert len(main["tree"]) == 20 and len(main["branches"]) == 2 and main["active_branch"] == 2
    assert {e["kind"] for e in main["tree"]} == {
        "text",
        "function_call",
        "function_response",
        "turn_complete",
    }
    assert main["state"]["speed"] == float("inf")


@pytest.mark.parametrize("read_only", [False, True])
def test_an_old_file_loads_with_every_byte_kept(
    old_file: tuple[Path, dict[str, Any]], read_only: bool
) -> None:
    db, expected = old_file
    before = rows(db)
    store = SQLiteStore(db, read_only=read_only)
    try:
        assert as_old_code_saw_it(dump(store)) == expected
        record = store.get_session(APP, "default", "main")
        assert record is not None
        # The events are the stored JSON, decoded, not rebuilt from columns.
        stored = column(db, "SELECT data FROM events WHERE session_id='main' ORDER BY seq")
        assert [json.loads(data) for data in stored] == as_old_code_saw_it(
            [event_to_dict(e) for e in record.tree]
        )
        assert store.user_version == SCHEMA_VERSION
    finally:
        store.close()
    assert rows(db) == before, "opening an old file must not change a stored row"
    # The version is recorded where it was missing, and left in the old code's terms.
    (pragma,) = column(db, "PRAGMA user_version")
    marks = column(db, "SELECT version FROM agent_nb_schema") if not read_only else []
    if db.stem == "sqlite_store_v3":
        assert pragma == 3 and marks == ([] if read_only else [3])
    else:  # the first DatabaseStore's own "1": it still opens the file
        assert pragma == 0 and marks == ([] if read_only else [1])


def test_an_old_file_carries_on_taking_the_old_lease_over(
    old_file: tuple[Path, dict[str, Any]],
) -> None:
    db, expected = old_file
    before = rows(db)
    store = SQLiteStore(db)
    try:
        record = store.get_session(APP, "default", "main")
        assert record is not None
        (holder,) = column(db, "SELECT holder FROM sessions WHERE id='main'")
        assert LeaseOwner.from_json(holder) == HOLDER  # kept in the file
        mine = LeaseOwner.here()
        # The old kernel's lease ran out long ago: it is provably gone.
        assert store.begin_turn(record, mine) == expected["sessions"]["default/main"]["revision"]
        with pytest.raises(SessionBusyError, match="running a turn"):
            store.begin_turn(record, LeaseOwner.here())
        new = TextMessage(text="after", author="user", invocation_id="new", state_delta={"n": 1})
        store.append_event(record, new)
        store.end_turn(record, mine)
    finally:
        store.close()
    again = DatabaseStore(f"sqlite:///{db}")
    try:
        record = again.get_session(APP, "default", "main")
        assert record is not None
        old_tree = expected["sessions"]["default/main"]["tree"]
        read = [event_to_dict(e) for e in record.tree]
        assert as_old_code_saw_it(read[:-1]) == old_tree and read[-1] == event_to_dict(new)
        assert record.parents["new"] == "inv2" and record.branches == ["inv3", "new"]
    finally:
        again.close()
    after = rows(db)
    assert set(before["events"]) < set(after["events"])
    for table in ("app_states", "user_states"):
        assert after[table] == before[table]
