"""`SessionStore`: where sessions, events and scoped state are kept.

The shared rules live here once, in template methods: an appended event's
state delta is split by prefix (``app:`` / ``user:`` / session), ``temp:``
keys are dropped before anything is written, partial events are never stored,
and every write names the revision it expects so a stale writer is refused
(`StaleSessionError`). Subclasses implement the small ``_``-methods, each of
which must be atomic.

**Branches** (`agent_nb._core.branches`): nothing is ever deleted from a
session. Each event is stored with its turn's parent turn, and the session
keeps its numbered branch leaves and the active one. The template methods work
out every change to those (a new turn extends the active branch, a rewind cuts
it and moves the rest to a new branch, a switch changes the active number) and
hand the store the result to write, so a store implements no tree logic: it
stores an event with its parent (`_append`), and the branch layout with the
replayed session state (`_set_branches`), each in one atomic write.

**Turn leases** let several kernels share one store. A turn first takes the
session's lease (`begin_turn`): one atomic write that records who holds it
(`TurnHolder`: host, pid, a token) and until when, and returns the stored
revision, so the caller can reload only when another writer moved it. A
lease held by someone else makes `begin_turn` raise `SessionBusyError`
naming that holder, before anything is written. The holder renews the lease
while its turn runs (a heartbeat, `renew_turn`) and clears it at the end.
A holder is *provably gone* when its lease expired without a renewal, or at
once when it ran on this host and its pid no longer exists; only then may
another kernel take over (and repair the turn it left unfinished).
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .._core.branches import path_events, path_turns, rewound_branches
from .._core.state import TEMP_PREFIX, ScopedDelta, apply_delta, merge_scopes, split_delta
from .._core.types import Event, TextMessage
from ..errors import SessionBusyError, SessionExistsError

__all__ = ["DEFAULT_LEASE_S", "SessionRecord", "SessionStore", "TurnHolder"]

#: How long a turn's lease lasts without a renewal (the holder renews it every third).
DEFAULT_LEASE_S = 30.0


@dataclass
class SessionRecord:
    """A session as stored: its events, session-scoped state and revision.

    ``events`` is the active branch's path (what the model sees); ``tree`` every
    event ever appended, in order; ``parents`` each turn's parent turn;
    ``branches[n - 1]`` the last turn of branch ``n``; ``active_branch`` the
    active number. ``state`` is the session state replayed along ``events``.
    """

    app_name: str
    user_id: str
    session_id: str
    state: dict[str, Any] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    revision: int = 0
    last_update_time: float = field(default_factory=time.time)
    tree: list[Event] = field(default_factory=list)
    parents: dict[str, str | None] = field(default_factory=dict)
    branches: list[str | None] = field(default_factory=lambda: [None])
    active_branch: int = 1

    @property
    def leaf(self) -> str | None:
        """The active branch's last turn."""
        return self.branches[self.active_branch - 1]

    def refresh_path(self) -> None:
        """Recompute ``events`` from the tree and the active branch."""
        self.events = path_events(self.tree, self.parents, self.leaf)


@dataclass(frozen=True)
class TurnHolder:
    """Who runs a turn: a kernel on ``host`` with process ``pid`` (``token`` tells
    two runners of one process apart)."""

    host: str
    pid: int
    token: str

    @classmethod
    def here(cls) -> TurnHolder:
        return cls(socket.gethostname(), os.getpid(), uuid.uuid4().hex)

    def to_json(self) -> str:
        return json.dumps({"host": self.host, "pid": self.pid, "token": self.token})

    @classmethod
    def from_json(cls, text: str) -> TurnHolder:
        data = json.loads(text)
        return cls(str(data["host"]), int(data["pid"]), str(data["token"]))

    def describe(self) -> str:
        return f"host {self.host}, pid {self.pid}"

    def is_gone(self, lease_until: float, now: float) -> bool:
        """Provably gone: the lease ran out, or the process is dead on this host."""
        if lease_until <= now:
            return True
        if self.host != socket.gethostname():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # alive, owned by another user
            return False
        return False


def check_lease(
    session_id: str, holder: TurnHolder, stored: str | None, lease_until: float | None, now: float
) -> None:
    """Raise `SessionBusyError` if someone else holds a live lease on the session."""
    if stored is None or lease_until is None:
        return
    other = TurnHolder.from_json(stored)
    if other.token == holder.token or other.is_gone(lease_until, now):
        return
    where = (
        "this kernel"
        if (other.host, other.pid) == (holder.host, holder.pid)
        else ("another kernel")
    )
    raise SessionBusyError(
        f"session {session_id!r} is running a turn in {where} ({other.describe()}); "
        "wait for that turn to finish, then run this one again, or use another session id"
    )


def _without_temp(event: Event) -> Event:
    if not any(k.startswith(TEMP_PREFIX) for k in event.state_delta):
        return event
    kept = {k: v for k, v in event.state_delta.items() if not k.startswith(TEMP_PREFIX)}
    return dataclasses.replace(event, state_delta=kept)


def replay_session_state(events: Iterable[Event]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for event in events:
        apply_delta(state, split_delta(event.state_delta).session)
    return state


class SessionStore(ABC):
    """Keeps sessions. `MemoryStore` is the default; `SQLiteStore` persists."""

    #: True when data outlives the process; `AgentSession.close()` then keeps it.
    persistent: ClassVar[bool] = False

    @property
    def identity(self) -> str | None:
        """Names the stored data, the same in every process that opens it and
        for a copy of it (KV checkpoints are kept per store with it), or None
        when nothing outlives the process (the memory store, SQLite's ``:memory:``)."""
        return None

    # -- public template methods -------------------------------------------

    def create_session(self, app_name: str, user_id: str, session_id: str) -> SessionRecord:
        """Store a new empty session; an id already stored raises `SessionExistsError`
        (as ADK's ``AlreadyExistsError``), so two kernels creating one id cannot
        overwrite each other."""
        record = SessionRecord(app_name, user_id, session_id)
        if not self._create(record):
            raise SessionExistsError(
                f"session {session_id!r} already exists in {self!r} (user {user_id!r}); "
                "open it with get_session, or delete it first"
            )
        return record

    def get_session(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None:
        """A copy of the stored session, or None."""
        record = self._get(app_name, user_id, session_id)
        if record is not None:
            record.refresh_path()
        return record

    def revision(self, app_name: str, user_id: str, session_id: str) -> int | None:
        """The stored revision of the session (None: not stored): one cheap read, so a
        reader (``%agent history``, a widget on focus) reloads only when another
        kernel moved the session. A store without a cheaper way reads the session."""
        record = self._get(app_name, user_id, session_id)
        return None if record is None else record.revision

    def append_event(self, record: SessionRecord, event: Event) -> Event:
        """Store ``event`` in one atomic write; update ``record`` to match.

        Returns the event as stored (``temp:`` keys removed from its delta).
        """
        if isinstance(event, TextMessage) and event.is_partial:
            return event
        event = _without_temp(event)
        delta = split_delta(event.state_delta)
        turn = event.invocation_id
        branches = list(record.branches)
        if turn in record.parents:
            if turn != record.leaf:
                raise ValueError(
                    f"turn {turn!r} is not the last turn of the active branch; a new "
                    "event belongs to the running turn"
                )
            parent = record.parents[turn]
        else:  # the first event of a new turn: it extends the active branch
            parent = record.leaf
            branches[record.active_branch - 1] = turn
        self._append(record, event, delta, parent, branches)
        record.parents.setdefault(turn, parent)
        record.branches = branches
        record.tree.append(event)
        record.events.append(event)
        apply_delta(record.state, delta.session)
        record.revision += 1
        record.last_update_time = event.timestamp
        return event

    def rewind(self, record: SessionRecord, before_invocation_id: str) -> int:
        """Cut the active branch back to just before turn ``before_invocation_id``.

        Nothing is deleted: that turn and the later ones of the active branch
        become a new branch, whose number is returned; the active branch keeps
        its number and goes on from the cut. Session state is replayed along
        the new active path; ``app:`` / ``user:`` state is shared with other
        sessions and is left as it is.
        """
        if before_invocation_id not in path_turns(record.parents, record.leaf):
            raise ValueError(
                f"session {record.session_id!r} has no turn {before_invocation_id!r} on its "
                f"active branch; its turns: {path_turns(record.parents, record.leaf)}"
            )
        branches = rewound_branches(
            record.branches, record.active_branch, record.parents, before_invocation_id
        )
        self._move(record, branches, record.active_branch)
        return len(branches)

    def switch_branch(self, record: SessionRecord, number: int) -> None:
        """Make branch ``number`` (1-based) the active one; session state is replayed
        along its path. Switching never loses anything: every branch stays."""
        if isinstance(number, bool) or not isinstance(number, int):
            raise TypeError(f"a branch number is an int, got {type(number).__name__}")
        if not 1 <= number <= len(record.branches):
            raise ValueError(
                f"session {record.session_id!r} has branches 1 to {len(record.branches)}, "
                f"not {number}"
            )
        self._move(record, list(record.branches), number)

    def _move(self, record: SessionRecord, branches: list[str | None], active: int) -> None:
        state = replay_session_state(path_events(record.tree, record.parents, branches[active - 1]))
        self._set_branches(record, branches, active, state)
        record.branches = branches
        record.active_branch = active
        record.refresh_path()
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

    def begin_turn(
        self, record: SessionRecord, holder: TurnHolder, *, lease_s: float = DEFAULT_LEASE_S
    ) -> int | None:
        """Take the session's turn lease; return the stored revision (None: the
        session is no longer stored). Raises `SessionBusyError` naming the holder
        of a live lease; nothing else is written then."""
        now = time.time()
        return self._lease(record, holder, now, now + lease_s)

    def renew_turn(
        self, record: SessionRecord, holder: TurnHolder, *, lease_s: float = DEFAULT_LEASE_S
    ) -> None:
        """The heartbeat: extend a lease this holder has (a no-op if it lost it)."""
        self._renew(record, holder, time.time() + lease_s)

    def end_turn(self, record: SessionRecord, holder: TurnHolder) -> None:
        """Clear the lease if this holder still has it."""
        self._renew(record, holder, None)

    # -- what a store implements -------------------------------------------

    @abstractmethod
    def _create(self, record: SessionRecord) -> bool:
        """Insert a new empty session; False (and nothing written) if the id is taken."""

    @abstractmethod
    def _lease(
        self, record: SessionRecord, holder: TurnHolder, now: float, until: float
    ) -> int | None:
        """Atomically: `check_lease`, then store ``holder`` until ``until``; return the
        stored revision (None if the session is gone, writing nothing)."""

    @abstractmethod
    def _renew(self, record: SessionRecord, holder: TurnHolder, until: float | None) -> None:
        """Atomically: if ``holder`` holds the lease, set its end (None: release)."""

    @abstractmethod
    def _get(self, app_name: str, user_id: str, session_id: str) -> SessionRecord | None: ...

    @abstractmethod
    def _append(
        self,
        record: SessionRecord,
        event: Event,
        delta: ScopedDelta,
        parent: str | None,
        branches: list[str | None],
    ) -> None:
        """Atomically: check ``record.revision``, store the event with its turn's
        ``parent`` turn, apply ``delta``, store ``branches`` (the leaves after it)."""

    @abstractmethod
    def _set_branches(
        self,
        record: SessionRecord,
        branches: list[str | None],
        active: int,
        state: Mapping[str, Any],
    ) -> None:
        """Atomically: check ``record.revision``, store the branch leaves, the active
        number and the replayed session ``state``; bump the revision."""

    @abstractmethod
    def delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        """Remove the session and all its events, every branch; unknown ids are not an error."""

    @abstractmethod
    def list_sessions(self, app_name: str, user_id: str) -> list[str]:
        """Ids of the user's stored sessions, least recently updated first (ADK's order:
        by last update)."""

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
