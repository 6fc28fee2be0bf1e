"""`AgentSession`: one conversation's history, state, busy lock and turn loop.

A turn runs as a task on the worker loop (`_turn.run_turn`). The session
object itself is touched from the kernel thread (start, close, read history)
and from the worker (recording events), so the few fields both sides write
are guarded by one lock.
"""

from __future__ import annotations

import concurrent.futures
import copy
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ._agent import Agent
from ._state import check_json_value
from ._stream import EventStream
from ._types import (
    Content,
    Event,
    GenerationConfig,
    Role,
    TextMessage,
    TurnComplete,
    new_id,
)
from ._window import ContextPolicy, WindowMemory, check_policy
from .errors import SessionBusyError, SessionClosedError

if TYPE_CHECKING:
    from ._reply import Reply
    from ._runner import AgentRunner
    from .backends import Backend
    from .stores import SessionRecord

__all__ = ["AgentSession", "TurnOptions"]

log = logging.getLogger("agent_nb")

Listener = Callable[[Event | None], None]


@dataclasses.dataclass(frozen=True)
class TurnOptions:
    """Per-turn overrides (the magic's ``-m``, ``-s``, ``-t``, ``--max-tokens``)."""

    model: str | Backend | None = None
    system: str | None = None
    config: GenerationConfig | None = None
    agent: Agent | None = None
    context_policy: ContextPolicy | None = None  # None: the agent's


class _ActiveTurn:
    def __init__(self, invocation_id: str, session: AgentSession) -> None:
        from .backends import CancelToken

        self.invocation_id = invocation_id
        self.cancel_token = CancelToken()
        self.future: concurrent.futures.Future[Reply] = concurrent.futures.Future()
        self.task: Any = None  # the asyncio.Task on the worker loop, once started
        self.stream = EventStream(self.future, self.request_cancel)
        self._session = session

    def request_cancel(self) -> None:
        """Stop the turn: the backend sees the token at once; a tool or HTTP wait
        that ignores it is cancelled as an asyncio task shortly after."""
        if self.future.done():
            return
        self.cancel_token.set()
        worker = self._session._runner._worker

        def cancel_task() -> None:
            if self.task is not None and not self.task.done():
                self.task.cancel()

        try:
            worker.loop.call_soon_threadsafe(worker.loop.call_later, 0.25, cancel_task)
        except RuntimeError:  # worker already stopped
            pass


class AgentSession:
    """A named multi-turn conversation. Get one with `AgentRunner.get_or_create_session`."""

    def __init__(
        self,
        runner: AgentRunner,
        record: SessionRecord,
        agent: Agent,
        *,
        ephemeral: bool = False,
    ) -> None:
        self._runner = runner
        self._record = record
        self.agent = agent
        self.ephemeral = ephemeral
        self._lock = threading.Lock()
        self._active: _ActiveTurn | None = None
        self._closed = False
        self._listeners: list[tuple[Listener, Listener | None]] = []
        self.last_options = TurnOptions()  # what the latest turn ran with (for rewinds)
        self.last_used = record.last_update_time
        # Context window (issue 14): the sticky cut, restored from stored history.
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
        return self._runner

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
        return self._runner.store.merged_state(self._record)

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

    def _notify(self, event: Event | None) -> None:
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
            turn = _ActiveTurn(new_id(), self)
            self._active = turn
        user_event = TextMessage(
            text=text,
            author="user",
            invocation_id=turn.invocation_id,
            state_delta=copy.deepcopy(delta),
        )
        from ._turn import run_turn

        try:
            self._runner._worker.submit(run_turn(self, turn, user_event, options))
        except BaseException:
            with self._lock:
                self._active = None
            raise
        return turn.stream

    def run(self, content: str | Content, **kwargs: Any) -> Reply:
        """Run a turn and wait for it (sync). Ctrl-C / kernel interrupt cancels it."""
        stream = self.run_async(content, **kwargs)
        return self._runner._wait(stream)

    def cancel(self) -> None:
        """Cancel the running turn, if any; returns at once."""
        turn = self._active
        if turn is not None:
            turn.request_cancel()

    def _finish_turn(self, turn: _ActiveTurn) -> None:
        with self._lock:
            if self._active is turn:
                self._active = None
        self.last_used = time.time()

    def _record_event(self, event: Event) -> Event:
        stored = self._runner.store.append_event(self._record, event)
        if isinstance(stored, TurnComplete):
            self.last_usage = stored.usage
            self.turns += 1
            self.tokens += stored.usage.prompt_tokens + stored.usage.generated_tokens
        self.last_used = stored.timestamp
        return stored

    def _backend_for(self, options: TurnOptions) -> Backend:
        return self._runner._backend(options.model)

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
            self._runner.store.truncate_events(self._record, index)
            self.turns = sum(isinstance(e, TurnComplete) for e in self._record.events)
        self._runner._after_rewind(self)
        self._notify(None)
        return removed

    # -- lifecycle ------------------------------------------------------------

    def close(self) -> None:
        """Return at once; cancel the turn and evict history and KV in the background."""
        self._runner._close_session(self)

    def delete(self) -> None:
        """Cancel the turn and free everything before returning."""
        self._runner.delete_session(self.id)

    def _mark_closed(self) -> _ActiveTurn | None:
        with self._lock:
            already = self._closed
            self._closed = True
            turn = self._active
        if turn is not None:
            turn.request_cancel()
        return None if already else turn

    def __enter__(self) -> AgentSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
