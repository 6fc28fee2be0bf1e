"""`SessionStore`: where sessions, events and scoped state are kept.

The shared rules live here once, in template methods: an appended event's
state delta is split by prefix (``app:`` / ``user:`` / session), ``temp:``
keys are dropped before anything is written, partial events are never stored,
and every write names the revision it expects so a stale writer is refused
(`StaleSessionError`). Subclasses implement the small ``_``-methods, each of
which must be atomic.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .._core.state import TEMP_PREFIX, ScopedDelta, merge_scopes, split_delta
from .._core.types import Event, TextMessage

__all__ = ["SessionRecord", "SessionStore"]


@dataclass
class SessionRecord:
    """A session as stored: its events, session-scoped state and revision."""

    app_name: str
    user_id: str
    session_id: str
    state: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    revision: int = 0
    last_update_time: float = field(default_factory=time.time)


def _without_temp(event: Event) -> Event:
    if not any(k.startswith(TEMP_PREFIX) for k in event.state_delta):
        return event
    kept = {k: v for k, v in event.state_delta.items() if not k.startswith(TEMP_PREFIX)}
    return dataclasses.replace(event, state_delta=kept)


def replay_session_state(events: Iterable[Event]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for event in events:
        state.update(split_delta(event.state_delta).session)
    return state


class SessionStore(ABC):
    """Keeps sessions. `MemoryStore` is the default; `SQLiteStore` persists."""

    #: True when data outlives the process; `AgentSession.close()` then keeps it.
    persistent: ClassVar[bool] = False

    # -- public template methods -------------------------------------------

    def create_session(
        self, app_name: str, user_id: str, session_id: str
    ) -> SessionRecord:
        record = SessionRecord(app_name, user_id, session_id)
        self._create(record)
        return record

    def get_session(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None:
        """A copy of the stored session, or None."""
        return self._get(app_name, user_id, session_id)

    def append_event(self, record: SessionRecord, event: Event) -> Event:
        """Store ``event`` in one atomic write; update ``record`` to match.

        Returns the event as stored (``temp:`` keys removed from its delta).
        """
        if isinstance(event, TextMessage) and event.is_partial:
            return event
        event = _without_temp(event)
        delta = split_delta(event.state_delta)
        self._append(record, event, delta)
        record.events.append(event)
        record.state.update(copy.deepcopy(delta.session))
        record.revision += 1
        record.last_update_time = event.timestamp
        return event

    def truncate_events(self, record: SessionRecord, keep: int) -> None:
        """Keep the first ``keep`` events (rewind); session state is replayed to match."""
        if not 0 <= keep <= len(record.events):
            raise ValueError(f"keep must be between 0 and {len(record.events)}, got {keep}")
        state = replay_session_state(record.events[:keep])
        self._truncate(record, keep, state)
        del record.events[keep:]
        record.state = state
        record.revision += 1
        record.last_update_time = time.time()

    def merged_state(self, record: SessionRecord) -> dict[str, Any]:
        """App, user and session state as one dict with prefixes (a deep copy)."""
        return merge_scopes(
            self.get_app_state(record.app_name),
            self.get_user_state(record.app_name, record.user_id),
            record.state,
        )

    # -- what a store implements -------------------------------------------

    @abstractmethod
    def _create(self, record: SessionRecord) -> None:
        """Insert a new empty session (replace any stored one with that id)."""

    @abstractmethod
    def _get(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None: ...

    @abstractmethod
    def _append(self, record: SessionRecord, event: Event, delta: ScopedDelta) -> None:
        """Atomically: check ``record.revision``, store the event, apply ``delta``."""

    @abstractmethod
    def _truncate(self, record: SessionRecord, keep: int, state: Mapping[str, Any]) -> None: ...

    @abstractmethod
    def delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        """Remove the session and its events; unknown ids are not an error."""

    @abstractmethod
    def list_sessions(self, app_name: str, user_id: str) -> list[str]:
        """Ids of the user's stored sessions, oldest first."""

    @abstractmethod
    def get_app_state(self, app_name: str) -> dict[str, Any]: ...

    @abstractmethod
    def get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]: ...

    def clear_user(self, app_name: str, user_id: str) -> None:
        """Delete every session of the user (``clear_all_sessions``)."""
        for session_id in self.list_sessions(app_name, user_id):
            self.delete_session(app_name, user_id, session_id)

    def close(self) -> None:  # noqa: B027
        """Release connections; the default holds none."""
