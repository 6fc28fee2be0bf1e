"""`RecordKeeper`: a session's stored record, its turn lease, and its figures.

The session is data; the store changes it (ADK's session service). The
keeper is the one place that appends to a session's record and moves its
active path, and the one place that opens a record (`open_record`:
get-or-create, for the runner and for a turn that finds its session deleted).

**Shared stores.** Before a turn writes anything it takes the session's turn
lease (`TurnLeases.take`): another kernel's running turn makes it fail there
with `SessionBusyError`. The lease also returns the stored revision; when
another kernel moved it, the record is reloaded, so every turn starts from the
latest stored history and state (an unchanged revision costs nothing more).
A stored turn left unfinished is repaired only then, holding the lease, i.e.
once its writer is provably gone. The backend's KV cache needs no notice: it
keeps the longest common token prefix of what it held and the new request.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from .._core.branches import path_turns
from .._core.types import Event, FunctionCall, FunctionResponse, TurnComplete, Usage
from ..errors import SessionExistsError, StaleSessionError
from ..stores import SessionRecord, SessionStore
from .leases import TurnLeases

__all__ = [
    "RecordKeeper",
    "close_unfinished_turn",
    "estimate_history_bytes",
    "history_totals",
    "open_record",
]


def open_record(store: SessionStore, app_name: str, user_id: str, session_id: str) -> SessionRecord:
    """The stored session, or a new one (another kernel may create it meanwhile)."""
    record = store.get_session(app_name, user_id, session_id)
    if record is not None:
        return record
    try:
        return store.create_session(app_name, user_id, session_id)
    except SessionExistsError:  # another kernel created it a moment ago
        record = store.get_session(app_name, user_id, session_id)
        if record is None:
            raise
        return record


def close_unfinished_turn(store: SessionStore, record: SessionRecord) -> None:
    """Finish a stored turn that a dead kernel left open (persistent stores only).

    A kernel killed mid-turn leaves a prefix of that turn: maybe a function
    call without its response, and no `TurnComplete`. Recording the missing
    pieces keeps the rule that no call is ever left unanswered.
    """
    events = record.events
    if not events or isinstance(events[-1], TurnComplete):
        return
    invocation_id = events[-1].invocation_id
    answered = {e.call_id for e in events if isinstance(e, FunctionResponse)}
    reason = "the kernel stopped before this turn finished"
    for event in [e for e in events if e.invocation_id == invocation_id]:
        if isinstance(event, FunctionCall) and event.call_id not in answered:
            store.append_event(
                record,
                FunctionResponse(
                    name=event.name,
                    response={"error": reason},
                    call_id=event.call_id,
                    author=event.author,
                    branch=event.branch,
                    invocation_id=invocation_id,
                ),
            )
    store.append_event(
        record,
        TurnComplete(
            finish_reason="error", interrupted=True, error=reason, invocation_id=invocation_id
        ),
    )


def history_totals(events: list[Event]) -> tuple[int, int, Usage | None]:
    """Turns, tokens and the latest usage of a stored history."""
    completes = [e for e in events if isinstance(e, TurnComplete)]
    tokens = sum(e.usage.prompt_tokens + e.usage.generated_tokens for e in completes)
    return len(completes), tokens, completes[-1].usage if completes else None


def estimate_history_bytes(events: list[Event]) -> int:
    """A cheap estimate of what a history holds in text."""
    return sum(len(getattr(e, "text", "")) + 200 for e in events)


class RecordKeeper:
    """One session's record in its store (see the module docstring)."""

    def __init__(
        self,
        store: SessionStore,
        app_name: str,
        leases: TurnLeases,
        record: SessionRecord,
        on_path: Callable[[list[Event]], None],
    ) -> None:
        self.store = store
        self.app_name = app_name
        self._leases = leases
        self._on_path = on_path  # the active path changed: agents' window cuts follow it
        self.last_usage: Usage | None = None
        self.turns = self.tokens = 0
        self._adopt(record)

    def _adopt(self, record: SessionRecord) -> None:
        """Take ``record`` as this session's (at open, and when another kernel moved it)."""
        self._record = record
        self.last_used = record.last_update_time
        self.follow_path()

    def follow_path(self) -> None:
        """Figures and window cuts from the active path (at load, after a rewind or switch)."""
        events = self._record.events
        self._on_path(events)
        self.turns, self.tokens, self.last_usage = history_totals(events)

    # -- reads ----------------------------------------------------------------

    @property
    def id(self) -> str:
        return self._record.session_id

    @property
    def user_id(self) -> str:
        return self._record.user_id

    def history(self) -> list[Event]:
        """Stored events of the active branch, oldest first (a new list each time)."""
        return list(self._record.events)

    def tree(self) -> list[Event]:
        """Every stored event of every branch, in the order they were recorded."""
        return list(self._record.tree)

    def branch_layout(self) -> tuple[dict[str, str | None], list[str | None], int]:
        """Copies of the turn parents, the branch leaves and the active number."""
        record = self._record
        return dict(record.parents), list(record.branches), record.active_branch

    def invocations(self) -> list[str]:
        """Turn ids of the active path, oldest first."""
        return path_turns(self._record.parents, self._record.leaf)

    def state(self) -> dict[str, Any]:
        """App, user and session state merged with prefixes (a deep copy)."""
        return self.store.merged_state(self._record)

    def history_bytes(self) -> int:
        """A cheap estimate of what the history holds in text."""
        return estimate_history_bytes(self._record.tree)  # every branch is kept in memory

    # -- writes ---------------------------------------------------------------

    def take_lease(self) -> None:
        """Hold the session's turn lease; start from the latest stored session."""
        revision = self._leases.take(self._record)
        if revision is None:  # deleted by another kernel: start it afresh
            record = open_record(self.store, self.app_name, self.user_id, self.id)
            revision = self._leases.take(record)
            if revision is None:
                raise StaleSessionError(
                    f"session {self.id!r} keeps being deleted by another kernel; try again"
                )
            self._adopt(record)
        if revision != self._record.revision:
            latest = self.store.get_session(self.app_name, self.user_id, self.id)
            if latest is None:
                self._leases.give_back(self._record)
                raise StaleSessionError(
                    f"session {self.id!r} was deleted by another kernel; run the turn again"
                )
            self._adopt(latest)
        # Holding the lease proves the writer of an unfinished turn is gone.
        close_unfinished_turn(self.store, self._record)

    def refresh(self) -> bool:
        """Adopt the stored record if its revision moved (another kernel); True if so.
        One cheap read when nothing moved."""
        revision = self.store.revision(self.app_name, self.user_id, self.id)
        if revision in (None, self._record.revision):
            return False  # unchanged, or deleted there: the next turn starts it afresh
        latest = self.store.get_session(self.app_name, self.user_id, self.id)
        if latest is None:
            return False
        self._adopt(latest)
        return True

    def give_back(self) -> None:
        self._leases.give_back(self._record)
        self.last_used = time.time()

    def append(self, event: Event) -> Event:
        """Store a final event of the running turn; returns the stored copy (blocking:
        the turn's loop calls it off the worker loop)."""
        stored = self.store.append_event(self._record, event)
        if isinstance(stored, TurnComplete):
            self.last_usage = stored.usage
            self.turns += 1
            self.tokens += stored.usage.prompt_tokens + stored.usage.generated_tokens
        self.last_used = stored.timestamp
        return stored

    def rewind(self, before_invocation_id: str) -> int:
        return self.store.rewind(self._record, before_invocation_id)

    def switch_branch(self, number: int) -> None:
        self.store.switch_branch(self._record, number)

    def release(self) -> None:
        """Let the history go from memory now (the user's `AgentSession` may live on)."""
        self._record = dataclasses.replace(
            self._record, events=[], tree=[], parents={}, branches=[None], active_branch=1, state={}
        )
