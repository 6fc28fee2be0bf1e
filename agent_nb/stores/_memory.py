"""`MemoryStore`: the default, in-process store.

It hands out copies, never its own objects, so code written against it
behaves the same on `SQLiteStore` (where every read is a fresh object).
Events are frozen dataclasses with deep-copied payloads, so copying the list
is enough for them. It keeps every event once, in ``tree`` (branches are lists
of the same objects, never copies); the active path is derived on read.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Mapping
from typing import Any

from .._core.state import ScopedDelta, apply_delta
from .._core.types import Event
from ..errors import StaleSessionError
from ._base import LeaseOwner, SessionRecord, SessionStore, check_lease

__all__ = ["MemoryStore"]

_Key = tuple[str, str, str]


class MemoryStore(SessionStore):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[_Key, SessionRecord] = {}
        self._app_state: dict[str, dict[str, Any]] = {}
        self._user_state: dict[tuple[str, str], dict[str, Any]] = {}
        self._leases: dict[_Key, tuple[str, float]] = {}

    @staticmethod
    def _copy(record: SessionRecord) -> SessionRecord:
        return SessionRecord(
            record.app_name,
            record.user_id,
            record.session_id,
            state=copy.deepcopy(record.state),
            revision=record.revision,
            last_update_time=record.last_update_time,
            tree=list(record.tree),
            parents=dict(record.parents),
            branches=list(record.branches),
            active_branch=record.active_branch,
        )

    def _create(self, record: SessionRecord) -> bool:
        key = (record.app_name, record.user_id, record.session_id)
        with self._lock:
            if key in self._sessions:
                return False
            self._sessions[key] = self._copy(record)
            return True

    def _lease(
        self, record: SessionRecord, owner: LeaseOwner, now: float, until: float
    ) -> int | None:
        key = (record.app_name, record.user_id, record.session_id)
        with self._lock:
            stored = self._sessions.get(key)
            if stored is None:
                return None
            held_by, held_until = self._leases.get(key, (None, None))
            check_lease(record.session_id, owner, held_by, held_until, now)
            self._leases[key] = (owner.to_json(), until)
            return stored.revision

    def _renew(self, record: SessionRecord, owner: LeaseOwner, until: float | None) -> None:
        key = (record.app_name, record.user_id, record.session_id)
        with self._lock:
            held = self._leases.get(key)
            if held is None or LeaseOwner.from_json(held[0]).token != owner.token:
                return
            if until is None:
                del self._leases[key]
            else:
                self._leases[key] = (held[0], until)

    def _get(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None:
        with self._lock:
            stored = self._sessions.get((app_name, user_id, session_id))
            return None if stored is None else self._copy(stored)

    def revision(self, app_name: str, user_id: str, session_id: str) -> int | None:
        with self._lock:
            stored = self._sessions.get((app_name, user_id, session_id))
            return None if stored is None else stored.revision

    def _stored(self, record: SessionRecord) -> SessionRecord:
        stored = self._sessions.get((record.app_name, record.user_id, record.session_id))
        if stored is None:
            raise StaleSessionError(
                f"session {record.session_id!r} is no longer in the store (deleted elsewhere); "
                "ask the runner for it again"
            )
        if stored.revision != record.revision:
            raise StaleSessionError(
                f"session {record.session_id!r} changed in the store (revision "
                f"{stored.revision}, this copy has {record.revision}); reload it and retry"
            )
        return stored

    def _append(
        self,
        record: SessionRecord,
        event: Event,
        delta: ScopedDelta,
        parent: str | None,
        branches: list[str | None],
    ) -> None:
        with self._lock:
            stored = self._stored(record)
            stored.tree.append(event)
            stored.parents.setdefault(event.invocation_id, parent)
            stored.branches = list(branches)
            apply_delta(stored.state, delta.session)
            stored.revision += 1
            stored.last_update_time = event.timestamp
            if delta.app:
                apply_delta(self._app_state.setdefault(record.app_name, {}), delta.app)
            if delta.user:
                key = (record.app_name, record.user_id)
                apply_delta(self._user_state.setdefault(key, {}), delta.user)

    def _set_branches(
        self,
        record: SessionRecord,
        branches: list[str | None],
        active: int,
        state: Mapping[str, Any],
    ) -> None:
        with self._lock:
            stored = self._stored(record)
            stored.branches = list(branches)
            stored.active_branch = active
            stored.state = copy.deepcopy(dict(state))
            stored.revision += 1
            stored.last_update_time = time.time()

    def delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        with self._lock:
            self._sessions.pop((app_name, user_id, session_id), None)
            self._leases.pop((app_name, user_id, session_id), None)

    def list_sessions(self, app_name: str, user_id: str) -> list[str]:
        with self._lock:
            mine = [
                r
                for (app, user, _), r in self._sessions.items()
                if app == app_name and user == user_id
            ]
        # sorted() is stable: sessions updated at the same instant keep creation order.
        return [r.session_id for r in sorted(mine, key=lambda r: r.last_update_time)]

    def get_app_state(self, app_name: str) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._app_state.get(app_name, {}))

    def get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._user_state.get((app_name, user_id), {}))
