"""Writes the legacy store files of this folder (kept for provenance; `dump` is also
how `tests.stores.test_legacy_files` reads a file back).

``sqlite_store_v3.db`` was written by the raw-sqlite3 `SQLiteStore` (schema 3,
``PRAGMA user_version``) and ``database_store_v1.db`` by `DatabaseStore` on a
``sqlite:///`` URL (``agent_nb_schema`` version 1), both as of agent_nb commit
2545d05, before the two became one SQL store. Each ``.json`` next to a file is
what that code read back (`dump`). To remake them, check out that commit and run
``PYTHONPATH=<that checkout> python tests/stores/data/make_legacy.py tests/stores/data``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agent_nb._core.codec import event_to_dict
from agent_nb._core.types import FunctionCall, FunctionResponse, TextMessage, TurnComplete, Usage
from agent_nb.stores import LeaseOwner, SessionStore

APP = "agent_nb"
#: A kernel that took a lease and never gave it back (long expired when read).
HOLDER = LeaseOwner("old-kernel.example", 4242, "legacy-token")


def turn(store: SessionStore, record: Any, n: int, **delta: Any) -> None:
    inv = f"inv{n}"
    t = 1_700_000_000.0 + n * 10
    store.append_event(
        record,
        TextMessage(
            text=f"question {n} ‹ünï›",
            author="user",
            invocation_id=inv,
            timestamp=t,
            id=f"u{n}",
            state_delta={"turn": n, **delta},
        ),
    )
    store.append_event(
        record,
        FunctionCall(
            name="look",
            args={"q": n, "nested": {"k": [1, 2.5]}},
            call_id=f"c{n}",
            author="helper",
            invocation_id=inv,
            timestamp=t + 1,
            id=f"f{n}",
        ),
    )
    store.append_event(
        record,
        FunctionResponse(
            name="look",
            response={"rows": ["r"] * 3},
            call_id=f"c{n}",
            author="helper",
            invocation_id=inv,
            timestamp=t + 2,
            id=f"r{n}",
            state_delta={"looked": n},
        ),
    )
    store.append_event(
        record,
        TextMessage(
            text=f"answer {n}\n```py\nx = {n}\n```",
            author="model",
            invocation_id=inv,
            timestamp=t + 3,
            id=f"a{n}",
        ),
    )
    store.append_event(
        record,
        TurnComplete(
            usage=Usage(prompt_tokens=10 * n, generated_tokens=n),
            author="model",
            invocation_id=inv,
            timestamp=t + 4,
            id=f"d{n}",
        ),
    )


def fill(store: SessionStore) -> None:
    main = store.create_session(APP, "default", "main")
    turn(store, main, 0, **{"app:theme": "dark", "user:lang": "fr"})
    turn(store, main, 1, speed=float("inf"))
    turn(store, main, 2)
    store.rewind(main, "inv1")  # turns 1-2 become branch 2
    turn(store, main, 3, **{"user:lang": "de"})
    store.switch_branch(main, 2)  # the active branch is not the last one
    assert store.begin_turn(main, HOLDER, lease_s=5.0) == main.revision  # never ended
    other = store.create_session(APP, "bob", "bobs")
    turn(store, other, 7, **{"user:lang": "en"})
    store.create_session(APP, "default", "empty")


def dump(store: SessionStore) -> dict[str, Any]:
    """What the store reads back: every session's events, tree, branches and state."""
    out: dict[str, Any] = {"sessions": {}, "app": store.get_app_state(APP), "users": {}}
    for user in ("default", "bob"):
        out["users"][user] = store.get_user_state(APP, user)
        for sid in store.list_sessions(APP, user):
            record = store.get_session(APP, user, sid)
            assert record is not None
            out["sessions"][f"{user}/{sid}"] = {
                "events": [event_to_dict(e) for e in record.events],
                "tree": [event_to_dict(e) for e in record.tree],
                "parents": record.parents,
                "branches": record.branches,
                "active_branch": record.active_branch,
                "state": record.state,
                "revision": record.revision,
                "last_update_time": record.last_update_time,
            }
    return out


def main(folder: Path) -> None:
    from agent_nb.stores import DatabaseStore, SQLiteStore

    made: list[tuple[str, SessionStore]] = [
        ("sqlite_store_v3", SQLiteStore(folder / "sqlite_store_v3.db")),
        ("database_store_v1", DatabaseStore(f"sqlite:///{folder}/database_store_v1.db")),
    ]
    for name, store in made:
        fill(store)
        (folder / f"{name}.json").write_text(json.dumps(dump(store), indent=1, sort_keys=True))
        store.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
