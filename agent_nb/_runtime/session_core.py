"""`SessionCore`: the runtime's side of one session.

A user holds an `AgentSession`; the runner, the eviction and the turn engine
hold this. Everything that can break an invariant when called at the wrong
time (recording an event, freeing the history, marking the session closed)
lives here, out of a notebook user's reach, and `AgentSession` forwards only
the documented API to it.

The core is touched from the kernel thread (start, close, read history) and
from the worker (recording events), so the few fields both sides write are
guarded by one lock. It knows its runner only as a `SessionHost` (resources)
and a `Lifecycle` (three notices), plus the runner's `TurnLeases`, all handed in
at construction.

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

import contextlib
import copy
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._core.branches import path_turns
from .._core.reply import Reply
from .._core.state import check_json_value
from .._core.trace import InvocationTrace
from .._core.types import (
    Content,
    Event,
    GenerateContentRequest,
    Role,
    TextMessage,
    TurnComplete,
    Usage,
)
from .._core.window import WindowMemory
from ..backends import Backend
from ..errors import SessionBusyError, SessionClosedError, SessionExistsError, StaleSessionError
from ..stores import SessionRecord
from .agents import Agent, AnyAgent, check_agent
from .agents.requests import shown_request
from .context import AgentMemory, InvocationContext, Turn
from .engine import Stream
from .host import SessionHost
from .invocation import Invocation
from .leases import TurnLeases
from .options import TurnOptions
from .stream import EventStream
from .turn import close_unfinished_turn, run_turn

__all__ = ["Lifecycle", "Listener", "SessionCore", "estimate_history_bytes", "history_totals"]

log = logging.getLogger("agent_nb")

#: How many invocations' traces a session keeps in memory (``%agent trace``).
TRACES_KEPT = 20

Listener = Callable[[Event | None], None]


@dataclasses.dataclass(frozen=True)
class Lifecycle:
    """What a session tells its runner: closing, deleting, rewound (trim the KV
    caches), turn ended."""

    closing: Callable[[SessionCore], None]
    deleting: Callable[[SessionCore], None]
    rewound: Callable[[SessionCore, Callable[[], GenerateContentRequest]], None]
    turn_finished: Callable[[SessionCore], None]


class SessionCore:
    """One conversation's record, busy lock, listeners and turn start (runtime side)."""

    def __init__(
        self,
        host: SessionHost,
        lifecycle: Lifecycle,
        record: SessionRecord,
        agent: AnyAgent,
        *,
        leases: TurnLeases,
        ephemeral: bool = False,
    ) -> None:
        self.host = host
        self._leases = leases
        self.agent = check_agent(agent)
        self.ephemeral = ephemeral
        self._lifecycle = lifecycle
        self._record = record
        self._lock = threading.Lock()
        self._active: Invocation | None = None
        self._closed = False
        self._listeners: list[tuple[Listener, Listener | None]] = []
        self._last_options = TurnOptions()  # what the latest turn ran with (for rewinds)
        # Each agent's sticky window cut, and the KV-cache keys of a tree's agents
        # other than the session's own (to trim their caches on rewind/switch).
        self._memory = AgentMemory()
        self._traces: dict[str, InvocationTrace] = {}  # the latest TRACES_KEPT invocations
        self.last_usage: Usage | None = None
        self.turns = self.tokens = 0
        self._adopt(record)

    def _adopt(self, record: SessionRecord) -> None:
        """Take ``record`` as this session's (at open, and when another kernel moved
        it: its turns, a rewind or a switch there change the active path here too)."""
        self._record = record
        self.last_used = record.last_update_time
        self._follow_path()

    def _follow_path(self) -> None:
        """Figures and the window's sticky cut from the active path (at load and
        after a rewind or switch): they describe what the model sees now."""
        events = self._record.events
        memory = self._memory
        window = WindowMemory.from_history(events)
        window.shrink, window.learned = memory.own.shrink, memory.own.learned
        memory.own = window
        # Other agents' cuts are not stored: they restart from the path's like the
        # session's own (a shorter path after a rewind must not keep a longer cut).
        for name, other in memory.windows.items():
            memory.windows[name] = WindowMemory(
                start=min(other.start, window.start), shrink=other.shrink, learned=other.learned
            )
        self.turns, self.tokens, self.last_usage = history_totals(events)

    # -- reads ----------------------------------------------------------------

    @property
    def last_model(self) -> str | Backend | None:
        """The model the latest turn in this process asked for (None: the default)."""
        return self._last_options.model

    @property
    def id(self) -> str:
        return self._record.session_id

    @property
    def user_id(self) -> str:
        return self._record.user_id

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def busy(self) -> bool:
        return self._active is not None

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

    def state(self) -> dict[str, Any]:
        """App, user and session state merged with prefixes (a deep copy)."""
        return self.host.store.merged_state(self._record)

    def history_bytes(self) -> int:
        """A cheap estimate of what the history holds in text."""
        return estimate_history_bytes(self._record.tree)  # every branch is kept in memory

    # -- listeners (widget sync) ----------------------------------------------

    def subscribe(self, on_event: Listener, on_reset: Listener | None = None) -> Callable[[], None]:
        entry = (on_event, on_reset)
        with self._lock:
            self._listeners.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._listeners:
                    self._listeners.remove(entry)

        return unsubscribe

    def notify(self, event: Event | None) -> None:
        """Send ``event`` to the listeners (None: history was reset or the session closed)."""
        with self._lock:
            listeners = list(self._listeners)
        for on_event, on_reset in listeners:
            callback = on_event if event is not None else on_reset
            if callback is None:
                continue
            try:
                callback(event)
            except Exception:  # a broken listener must not break the turn
                log.exception("agent_nb session listener failed")

    # -- turns --------------------------------------------------------------

    def check_open(self) -> None:
        if self._closed:
            raise SessionClosedError(
                f"session {self.id!r} is closed; call get_runner().get_or_create_session"
                f"({self.id!r}) for a fresh one"
            )

    def start_turn(
        self, content: str | Content, state_delta: Mapping[str, Any] | None, options: TurnOptions
    ) -> EventStream:
        """Check the input, claim the busy flag, make the turn's context, start it."""
        text = _user_text(content)
        delta = dict(state_delta or {})
        for key, value in delta.items():
            check_json_value(key, value)
        with self._lock:
            self.check_open()
            if self._active is not None:
                raise SessionBusyError(
                    f"session {self.id!r} is already running a turn; wait for it, call "
                    "stream.aclose() / session.cancel(), or use another session"
                )
            invocation = Invocation(self.host.worker)
            self._active = invocation
        leased = False
        try:
            self._take_lease()  # SessionBusyError here: nothing was written
            leased = True
            agent = check_agent(options.agent or self.agent)
            user_event = TextMessage(
                text=text,
                author="user",
                invocation_id=invocation.invocation_id,
                state_delta=copy.deepcopy(delta),
            )
            self._last_options = options
            sink = Stream(invocation.stream.push, store=self._record_event, notify=self.notify)
            turn = run_turn(
                self._turn(invocation, options, agent),
                agent,
                user_event,
                sink,
                on_end=lambda: self._finish_turn(invocation),
                on_steps=self._keep_trace,
            )
            return invocation.start(turn)
        except BaseException:
            if leased:
                self._leases.give_back(self._record)
            with self._lock:
                self._active = None
            raise

    def _take_lease(self) -> None:
        """Hold the session's turn lease; start from the latest stored session."""
        store = self.host.store
        revision = self._leases.take(self._record)
        if revision is None:  # deleted by another kernel: start it afresh
            record = self._stored_or_new()
            revision = self._leases.take(record)
            if revision is None:
                raise StaleSessionError(
                    f"session {self.id!r} keeps being deleted by another kernel; try again"
                )
            self._adopt(record)
        if revision != self._record.revision:
            latest = store.get_session(self.host.app_name, self.user_id, self.id)
            if latest is None:
                self._leases.give_back(self._record)
                raise StaleSessionError(
                    f"session {self.id!r} was deleted by another kernel; run the turn again"
                )
            self._adopt(latest)
        # Holding the lease proves the writer of an unfinished turn is gone.
        close_unfinished_turn(store, self._record)

    def refresh(self) -> bool:
        """Adopt the stored record if its revision moved (another kernel); True if it
        did. Never during a turn here: that turn started from the latest record."""
        if self._closed or self._active is not None or self.ephemeral:
            return False
        store, app = self.host.store, self.host.app_name
        if store.revision(app, self.user_id, self.id) in (None, self._record.revision):
            return False  # unchanged, or deleted there: the next turn starts it afresh
        latest = store.get_session(app, self.user_id, self.id)
        with self._lock:
            if latest is None or self._closed or self._active is not None:
                return False
            self._adopt(latest)
        self.notify(None)  # listeners (a widget) show the reloaded path
        return True

    def _stored_or_new(self) -> SessionRecord:
        store, app = self.host.store, self.host.app_name
        try:
            return store.create_session(app, self.user_id, self.id)
        except SessionExistsError:
            record = store.get_session(app, self.user_id, self.id)
            if record is None:
                raise
            return record

    def _turn(self, invocation: Invocation | None, options: TurnOptions, agent: AnyAgent) -> Turn:
        """What the agents of one turn share (``invocation`` None: a preview, for rewinds)."""
        tree = not isinstance(agent, Agent) or bool(agent.sub_agents)
        return Turn(
            invocation=invocation,
            options=options,
            session_id=self.id,
            user_id=self.user_id,
            app_name=self.host.app_name,
            session_agent=self.agent.name,
            tree=tree,
            history=self.history,
            stored_state=self.state,
            backend_for=self.host.backend_for,
            memory=self._memory,
        )

    # -- per-agent caches and traces ------------------------------------------

    def cache_keys(self) -> list[str]:
        """Every KV-cache key this session's turns used (its own id first)."""
        return [self.id, *dict(self._memory.caches)]

    def agent_caches(self) -> dict[str, Any]:
        return dict(self._memory.caches)

    def _keep_trace(self, trace: InvocationTrace) -> None:
        with self._lock:
            self._traces[trace.invocation_id] = trace
            while len(self._traces) > TRACES_KEPT:
                del self._traces[next(iter(self._traces))]

    def trace(self, invocation_id: str | None = None) -> InvocationTrace | None:
        """What each agent of a turn read and wrote (default: the active branch's
        latest turn): this kernel's own record of it (full usage), else the one
        stored with the turn's `TurnComplete` (another kernel's, or before a restart)."""
        if invocation_id is None:
            turns = self.invocations()
            if not turns:
                return None
            invocation_id = turns[-1]
        with self._lock:
            kept = self._traces.get(invocation_id)
        if kept is not None:
            return kept
        for event in reversed(self._record.tree):
            if isinstance(event, TurnComplete) and event.invocation_id == invocation_id:
                return InvocationTrace.from_dict(event.trace) if event.trace else None
        return None

    def wait(self, stream: EventStream) -> Reply:
        return self.host.wait(stream)

    def cancel(self) -> None:
        turn = self._active
        if turn is not None:
            turn.request_cancel()

    def _record_event(self, event: Event) -> Event:
        """Store a final event of the running turn; returns the stored copy."""
        stored = self.host.store.append_event(self._record, event)
        if isinstance(stored, TurnComplete):
            self.last_usage = stored.usage
            self.turns += 1
            self.tokens += stored.usage.prompt_tokens + stored.usage.generated_tokens
        self.last_used = stored.timestamp
        return stored

    def _finish_turn(self, turn: Invocation) -> None:
        """The turn recorded its last event: the session is free again."""
        self._leases.give_back(self._record)
        with self._lock:
            if self._active is turn:
                self._active = None
        self.last_used = time.time()
        self._lifecycle.turn_finished(self)

    # -- rewind ---------------------------------------------------------------

    def invocations(self) -> list[str]:
        """Turn ids of the active path, oldest first."""
        return path_turns(self._record.parents, self._record.leaf)

    def rewind(self, before_invocation_id: str) -> int:
        """Move that turn and the later ones to a new branch; returns its number."""
        with self._changing_path("rewind"):
            return self.host.store.rewind(self._record, before_invocation_id)

    def switch_branch(self, number: int) -> None:
        with self._changing_path("switch branches"):
            self.host.store.switch_branch(self._record, number)

    @contextlib.contextmanager
    def _changing_path(self, what: str) -> Iterator[None]:
        with self._lock:
            self.check_open()
            if self._active is not None:
                raise SessionBusyError(
                    f"session {self.id!r} is running a turn; cannot {what} now: wait for it "
                    "or stop it first"
                )
            # Like a turn: another kernel's running turn refuses it (SessionBusyError),
            # and it starts from the latest stored branches, not this kernel's copy.
            self._take_lease()
            try:
                yield
            finally:
                self._leases.give_back(self._record)
                self._follow_path()
        # Render with the options of the session's last turn, so the system
        # text matches and the common prefix survives the cache trim; what the
        # next turn shows is the same sticky window cut.
        self._lifecycle.rewound(self, self.rewind_request)
        self.notify(None)

    def rewind_request(self, agent: Agent | None = None) -> GenerateContentRequest:
        """What the next turn would send, to trim a KV cache to (``agent``: another agent
        of a tree; a request that cannot be built any more drops that cache)."""
        options = self._last_options
        root = check_agent(options.agent or self.agent)
        if agent is None:
            own = root if isinstance(root, Agent) else self.agent
            if not isinstance(own, Agent):
                raise TypeError(
                    "no model agent of its own: nothing to trim"
                )  # the cache is dropped
            agent = own
        turn = self._turn(None, options, root)
        return shown_request(agent, InvocationContext.root(turn, agent))

    # -- lifecycle ------------------------------------------------------------

    def close(self) -> None:
        self._lifecycle.closing(self)

    def delete(self) -> None:
        self._lifecycle.deleting(self)

    def mark_closed(self) -> Invocation | None:
        """Refuse new turns and cancel the running one; returns it on the first call."""
        with self._lock:
            already = self._closed
            self._closed = True
            turn = self._active
        if turn is not None:
            turn.request_cancel()
        return None if already else turn

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the running turn to finish recording."""
        turn = self._active
        if turn is not None:
            with contextlib.suppress(Exception):
                turn.future.result(timeout=timeout)

    def release(self) -> None:
        """Tell the listeners the session is gone and let its history go from
        memory now (the `AgentSession` may live on in user code)."""
        self.notify(None)
        with self._lock:
            self._listeners.clear()
        self._record = dataclasses.replace(
            self._record, events=[], tree=[], parents={}, branches=[None], active_branch=1, state={}
        )


def history_totals(events: list[Event]) -> tuple[int, int, Usage | None]:
    """Turns, tokens and the latest usage of a stored history."""
    completes = [e for e in events if isinstance(e, TurnComplete)]
    tokens = sum(e.usage.prompt_tokens + e.usage.generated_tokens for e in completes)
    return len(completes), tokens, completes[-1].usage if completes else None


def estimate_history_bytes(events: list[Event]) -> int:
    """A cheap estimate of what a history holds in text."""
    return sum(len(getattr(e, "text", "")) + 200 for e in events)


def _user_text(content: str | Content) -> str:
    if isinstance(content, Content):
        if content.role is not Role.USER:
            raise ValueError("a turn's content must have role USER")
        text = content.text
    elif isinstance(content, str):
        text = content
    else:
        raise TypeError(f"content must be a str or Content, got {type(content).__name__}")
    if not text.strip():
        raise ValueError("the message is empty; say something for the model to answer")
    return text
