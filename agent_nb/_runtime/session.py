"""`AgentSession`: one conversation's history, state, busy lock and turn loop.

A turn runs as a task on the worker loop (`_turn.run_turn`). The session
object itself is touched from the kernel thread (start, close, read history)
and from the worker (recording events), so the few fields both sides write
are guarded by one lock.

The session knows its runner only as a `SessionHost` (worker, store, backend
lookup, wait, close / rewind / turn-end notices). The runner and the turn
engine use the methods under "runtime side" below, never private attributes.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from .._core.agent import Agent
from .._core.reply import Reply
from .._core.state import check_json_value
from .._core.types import Content, Event, GenerationConfig, Role, TextMessage, TurnComplete
from .._core.window import ContextPolicy, WindowMemory, check_policy, shown
from ..backends import Backend
from ..errors import SessionBusyError, SessionClosedError
from ..stores import SessionRecord
from .host import SessionHost
from .invocation import Invocation
from .stream import EventStream
from .turn import TurnOptions, build_request, run_turn

if TYPE_CHECKING:
    from .runner import AgentRunner

__all__ = ["AgentSession"]

log = logging.getLogger("agent_nb")

Listener = Callable[[Event | None], None]


class AgentSession:
    """A named multi-turn conversation. Get one with `AgentRunner.get_or_create_session`."""

    def __init__(
        self,
        host: SessionHost,
        record: SessionRecord,
        agent: Agent,
        *,
        ephemeral: bool = False,
    ) -> None:
        self._host = host
        self._record = record
        self.agent = agent
        self.ephemeral = ephemeral
        self._lock = threading.Lock()
        self._active: Invocation | None = None
        self._closed = False
        self._listeners: list[tuple[Listener, Listener | None]] = []
        self.last_options = TurnOptions()  # what the latest turn ran with (for rewinds)
        self.last_used = record.last_update_time
        # Context window: the sticky cut, restored from stored history.
        self.window = WindowMemory.from_history(record.events)
        self.last_usage = next(
            (e.usage for e in reversed(record.events) if isinstance(e, TurnComplete)), None
        )
        self.turns = sum(isinstance(e, TurnComplete) for e in record.events)
        self.tokens = sum(
            e.usage.prompt_tokens + e.usage.generated_tokens
            for e in record.events
            if isinstance(e, TurnComplete)
        )

    # -- identity and views ---------------------------------------------------

    @property
    def id(self) -> str:
        return self._record.session_id

    @property
    def user_id(self) -> str:
        return self._record.user_id

    @property
    def runner(self) -> AgentRunner:
        """The runner that hosts this session."""
        return cast("AgentRunner", self._host)

    @property
    def host(self) -> SessionHost:
        return self._host

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def busy(self) -> bool:
        return self._active is not None

    @property
    def history(self) -> list[Event]:
        """Stored events, oldest first (a new list each time)."""
        return list(self._record.events)

    def get_history(
        self, *, num_recent_events: int | None = None, after_timestamp: float | None = None
    ) -> list[Event]:
        """History filtered like ADK's ``GetSessionConfig``."""
        events = self.history
        if after_timestamp is not None:
            events = [e for e in events if e.timestamp >= after_timestamp]
        if num_recent_events is not None:
            if num_recent_events < 0:
                raise ValueError(f"num_recent_events must be >= 0, got {num_recent_events}")
            events = events[len(events) - num_recent_events :] if num_recent_events else []
        return events

    @property
    def state(self) -> dict[str, Any]:
        """App, user and session state merged with prefixes (a deep copy)."""
        return self._host.store.merged_state(self._record)

    def invocations(self) -> list[str]:
        """Invocation ids of the stored turns, oldest first."""
        seen: dict[str, None] = {}
        for event in self._record.events:
            seen.setdefault(event.invocation_id, None)
        return list(seen)

    def history_bytes(self) -> int:
        """A cheap estimate of what the history holds in text."""
        total = 0
        for e in self._record.events:
            total += len(getattr(e, "text", "")) + 200
        return total

    def __repr__(self) -> str:
        status = "closed" if self._closed else ("busy" if self._active else "idle")
        return f"<AgentSession {self.id!r} turns={self.turns} {status}>"

    # -- listeners (widget sync) ----------------------------------------------

    def subscribe(self, on_event: Listener, on_reset: Listener | None = None) -> Callable[[], None]:
        """Call ``on_event(event)`` for every event of every turn (partials too),
        and ``on_reset(None)`` when history is rewound or the session closes.
        Callbacks run on the worker thread. Returns an unsubscribe function."""
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

    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosedError(
                f"session {self.id!r} is closed; call get_runner().get_or_create_session"
                f"({self.id!r}) for a fresh one"
            )

    def run_async(
        self,
        content: str | Content,
        *,
        state_delta: Mapping[str, Any] | None = None,
        model: str | Backend | None = None,
        system: str | None = None,
        config: GenerationConfig | None = None,
        context_policy: ContextPolicy | None = None,
    ) -> EventStream:
        """Start a turn now; returns its `EventStream`.

        ``context_policy`` overrides the agent's for this turn (``"window"`` or
        ``"error"``); a turn that cannot fit the model's window fails with
        `ContextWindowError` before anything is sent or recorded.
        """
        text = _user_text(content)
        if context_policy is not None:
            check_policy(context_policy)
        delta = dict(state_delta or {})
        for key, value in delta.items():
            check_json_value(key, value)
        options = TurnOptions(
            model=model, system=system, config=config, context_policy=context_policy
        )
        with self._lock:
            self._check_open()
            if self._active is not None:
                raise SessionBusyError(
                    f"session {self.id!r} is already running a turn; wait for it, call "
                    "stream.aclose() / session.cancel(), or use another session"
                )
            turn = Invocation(self._host.worker)
            self._active = turn
        user_event = TextMessage(
            text=text,
            author="user",
            invocation_id=turn.invocation_id,
            state_delta=copy.deepcopy(delta),
        )
        try:
            return turn.start(run_turn(self, turn, user_event, options))
        except BaseException:
            with self._lock:
                self._active = None
            raise

    def run(self, content: str | Content, **kwargs: Any) -> Reply:
        """Run a turn and wait for it (sync). Ctrl-C / kernel interrupt cancels it."""
        return self._host.wait(self.run_async(content, **kwargs))

    def cancel(self) -> None:
        """Cancel the running turn, if any; returns at once."""
        turn = self._active
        if turn is not None:
            turn.request_cancel()

    # -- rewind ---------------------------------------------------------------

    def rewind(self, before_invocation_id: str) -> int:
        """Drop the turn ``before_invocation_id`` and every later turn.

        Session state is replayed from what remains and the backend's KV cache
        is trimmed to match. Returns the number of events removed.
        """
        with self._lock:
            self._check_open()
            if self._active is not None:
                raise SessionBusyError(f"session {self.id!r} is running a turn; cannot rewind now")
            events = self._record.events
            index = next(
                (i for i, e in enumerate(events) if e.invocation_id == before_invocation_id),
                None,
            )
            if index is None:
                raise ValueError(
                    f"session {self.id!r} has no turn {before_invocation_id!r}; "
                    f"known turns: {self.invocations()}"
                )
            removed = len(events) - index
            self._host.store.truncate_events(self._record, index)
            self.turns = sum(isinstance(e, TurnComplete) for e in self._record.events)
        # Render with the options of the session's last turn, so the system
        # text matches and the common prefix survives the cache trim.
        # What the next turn shows: the same sticky window cut.
        self._host.session_rewound(
            self,
            lambda: shown(
                build_request(self, self.agent, self.last_options, {}), self.window.start
            ),
        )
        self.notify(None)
        return removed

    # -- lifecycle ------------------------------------------------------------

    def close(self) -> None:
        """Return at once; cancel the turn and evict history and KV in the background."""
        self._host.session_closing(self)

    def delete(self) -> None:
        """Cancel the turn and free everything before returning."""
        self.runner.delete_session(self.id)

    def __enter__(self) -> AgentSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runtime side (the runner and the turn engine; not for notebooks) -----

    def record_event(self, event: Event) -> Event:
        """Store a final event of the running turn; returns the stored copy."""
        stored = self._host.store.append_event(self._record, event)
        if isinstance(stored, TurnComplete):
            self.last_usage = stored.usage
            self.turns += 1
            self.tokens += stored.usage.prompt_tokens + stored.usage.generated_tokens
        self.last_used = stored.timestamp
        return stored

    def finish_turn(self, turn: Invocation) -> None:
        """The turn recorded its last event: the session is free again."""
        with self._lock:
            if self._active is turn:
                self._active = None
        self.last_used = time.time()
        self._host.turn_finished(self)

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
        memory now (the object may live on in user code)."""
        self.notify(None)
        with self._lock:
            self._listeners.clear()
        self._record = dataclasses.replace(self._record, events=[], state={})


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
