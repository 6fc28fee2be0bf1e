"""`ChatWidget`: a chat UI (anywidget) on an `AgentSession`.

The widget does not run turns itself and keeps no transcript of its own: it
subscribes to its session, so a turn started by ``%%agent``, by another widget
or by plain code on the same session streams into every open widget. Session
callbacks arrive on the worker thread; comm sends from there are safe (the
kernel's iopub socket is thread-safe), and one lock keeps each widget's
messages in order.

Streaming text is coalesced by `_DeltaBatcher`: at most one ``delta`` message
per `DELTA_INTERVAL_S`, whatever the model's speed, and the final model entry
that follows carries the full text, so what streamed always equals what is
stored.

Lifetime: `close()` (or the front end closing the comm) unsubscribes and calls
``session.close()`` (background eviction) unless ``evict_on_close=False``.
**New chat** switches the widget to a fresh session id and leaves the old
session alive and listed (``%agent sessions``): the widget cannot know who
else uses it -- ``%%agent`` cells, plain code, another widget -- and one click
must never lose a conversation. Delete it explicitly (``%agent delete ID``)
when it is no longer wanted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import pathlib
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, cast

import anywidget
import traitlets

from ..._core.types import Event, GenerationConfig, TextMessage, TurnComplete
from ..._runtime.kernel_runner import get_runner
from ..._runtime.runner import AgentRunner
from ..._runtime.session import AgentSession
from ...errors import AgentError, ContextWindowError, FrontendNotBuiltError
from .protocol import (
    DELTA_INTERVAL_S,
    DeltaMsg,
    EntryMsg,
    ErrorMsg,
    FromPython,
    SnapshotMsg,
    entries_from_events,
    entry_from_event,
    parse_from_js,
    turn_complete_msg,
)

__all__ = ["ChatWidget"]

log = logging.getLogger("agent_nb")

_STATIC = pathlib.Path(__file__).parents[2] / "static"
_BUNDLE = _STATIC / "widget.js"
_STYLES = _STATIC / "widget.css"
_MISSING = (
    f"agent_nb's widget front end is not built ({_BUNDLE} is missing). Reinstall with "
    "`pip install agent_nb` (the build runs npm), or from a source checkout run "
    "`npm install && npm run build`."
)

Schedule = Callable[[float, Callable[[], None]], None]


def _schedule(delay: float, fn: Callable[[], None]) -> None:
    """Run ``fn`` after ``delay`` s: on this thread's event loop when there is one
    (session callbacks run on the worker loop), else on a timer thread."""
    try:
        asyncio.get_running_loop().call_later(delay, fn)
    except RuntimeError:
        timer = threading.Timer(delay, fn)
        timer.daemon = True
        timer.start()


class _DeltaBatcher:
    """Coalesces streamed text into at most one `DeltaMsg` per ``interval``.

    ``lock`` also orders the widget's other sends: callers flush under it
    before sending an entry, so a delta never overtakes its final text.
    """

    def __init__(
        self,
        send: Callable[[FromPython], None],
        *,
        interval: float = DELTA_INTERVAL_S,
        schedule: Schedule = _schedule,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lock = threading.RLock()
        self._send = send
        self._interval = interval
        self._schedule = schedule
        self._clock = clock
        self._pending: list[str] = []
        self._invocation = ""
        self._author = ""
        self._last = float("-inf")
        self._timer_armed = False

    def add(self, invocation_id: str, text: str, author: str = "") -> None:
        with self.lock:
            if self._pending and (invocation_id, author) != (self._invocation, self._author):
                self._flush_now()
            self._invocation, self._author = invocation_id, author
            self._pending.append(text)
            self._maybe_flush()

    def flush(self) -> None:
        """Send what is pending now (end of a text block or turn)."""
        with self.lock:
            if self._pending:
                self._flush_now()

    def _maybe_flush(self) -> None:
        wait = self._last + self._interval - self._clock()
        if wait <= 0:
            self._flush_now()
        elif not self._timer_armed:
            self._timer_armed = True
            self._schedule(wait, self._on_timer)

    def _on_timer(self) -> None:
        with self.lock:
            self._timer_armed = False
            if self._pending:
                self._maybe_flush()

    def _flush_now(self) -> None:
        text, self._pending = "".join(self._pending), []
        self._last = self._clock()
        self._send(
            DeltaMsg(type="delta", invocation_id=self._invocation, author=self._author, text=text)
        )


def _new_session_id() -> str:
    return f"chat-{uuid.uuid4().hex[:12]}"


class ChatWidget(anywidget.AnyWidget):
    """A chat on a session of the kernel runner: streaming, Stop, New chat.

    ``session`` is None (a new session with a fresh id), a session id (the live
    session with that id, so re-running the cell keeps its history) or an
    `AgentSession`. ``config`` overrides the agent's sampling for the turns
    this widget starts.
    """

    _esm = _BUNDLE if _BUNDLE.is_file() else "export default {};"
    _css = _STYLES if _STYLES.is_file() else ""

    session_id = traitlets.Unicode("").tag(sync=True)
    transcript: traitlets.List[Any] = traitlets.List().tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    session_closed = traitlets.Bool(False).tag(sync=True)
    model_label = traitlets.Unicode("").tag(sync=True)
    #: The role label of model messages, the same while streaming and after.
    agent_name = traitlets.Unicode("assistant").tag(sync=True)

    def __init__(
        self,
        session: AgentSession | str | None = None,
        *,
        runner: AgentRunner | None = None,
        evict_on_close: bool = True,
        config: GenerationConfig | None = None,
        **kwargs: Any,
    ) -> None:
        if not _BUNDLE.is_file():
            raise FrontendNotBuiltError(_MISSING)
        resolved = _resolve_session(session, runner)
        self._runner = cast(AgentRunner, resolved.runner)
        self.evict_on_close = evict_on_close
        self.config = config
        self._session: AgentSession | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._closing = False
        self._batcher = _DeltaBatcher(self._send_msg)
        # Text of the running model message, for views that open mid-turn.
        self._live_text: list[str] = []
        self._live_invocation = ""
        self._live_author = ""
        super().__init__(**kwargs)
        self.on_msg(self._on_frontend_msg)
        self._attach(resolved)

    # -- public -----------------------------------------------------------

    @property
    def session(self) -> AgentSession:
        """The session this widget shows now (changes on New chat)."""
        assert self._session is not None
        return self._session

    @property
    def runner(self) -> AgentRunner:
        return self._runner

    def __repr__(self) -> str:
        # What a static render (nbconvert HTML, a terminal) shows instead of the UI.
        session = self._session
        if session is None:
            return "ChatWidget(closed)"
        return f"ChatWidget(session={session.id!r}, turns={session.turns})"

    def send_message(self, text: str) -> None:
        """Start a turn as if typed into the widget; failures are shown in it."""
        session = self._live_session()
        try:
            stream = session.run_async(text, config=self.config)
        except (AgentError, ValueError, TypeError) as exc:
            self._send_msg(ErrorMsg(type="error", message=str(exc)))
            return
        stream.add_done_callback(self._turn_ended)

    def _turn_ended(self, future: concurrent.futures.Future[Any]) -> None:
        """A turn too big for the model's window records nothing, so no event tells
        the front end: say it here (any thread)."""
        error = future.exception()
        if isinstance(error, ContextWindowError) and not error.sent:
            self._send_msg(ErrorMsg(type="error", message=str(error)))

    def stop(self) -> None:
        """Cancel the running turn (returns at once; the turn records itself as stopped)."""
        if self._session is not None:
            self._session.cancel()

    def new_chat(self) -> AgentSession:
        """Switch to a fresh session id; the old session stays alive for its other users."""
        self._detach()
        session = self._runner.get_or_create_session(_new_session_id())
        self._attach(session)
        return session

    def close(self) -> None:
        """Close the comm and, unless ``evict_on_close=False``, the session."""
        if not getattr(self, "_closing", True):
            self._closing = True
            old = self._detach()
            if old is not None and self.evict_on_close:
                try:
                    old.close()
                except Exception:  # runner already shut down at interpreter exit
                    log.debug("closing session %s failed", old.id, exc_info=True)
        super().close()

    # -- session wiring ------------------------------------------------------

    def _attach(self, session: AgentSession) -> None:
        with self._batcher.lock:
            self._session = session
            self._unsubscribe = session.subscribe(self._on_event, self._on_reset)
            with self.hold_sync():
                self.model_label = self._runner.model_label
                self.agent_name = session.agent.name
                self.session_id = session.id
                self.session_closed = session.closed
                self.busy = session.busy
                self.transcript = entries_from_events(session.history, session.trace)

    def _detach(self) -> AgentSession | None:
        with self._batcher.lock:
            self._batcher.flush()
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None
            old, self._session = self._session, None
            return old

    def _live_session(self) -> AgentSession:
        """The widget's session, reopened under the same id if someone closed it."""
        session = self.session
        if session.closed:
            self._detach()
            session = self._runner.get_or_create_session(session.id)
            self._attach(session)
        return session

    def _on_event(self, event: Event | None) -> None:
        """Session listener (worker thread)."""
        if event is None:
            return
        if isinstance(event, TextMessage) and event.is_partial:
            with self._batcher.lock:
                if (event.invocation_id, event.author) != (
                    self._live_invocation,
                    self._live_author,
                ):
                    self._live_text.clear()
                    self._live_invocation, self._live_author = event.invocation_id, event.author
                self._live_text.append(event.text)
                self._batcher.add(event.invocation_id, event.text, event.author)
            return
        with self._batcher.lock:
            self._batcher.flush()
            self._live_text.clear()
            if isinstance(event, TurnComplete):
                self._send_msg(turn_complete_msg(event))
                self._sync(busy=False)
                return
            entry = entry_from_event(event)
            if entry is None:
                return
            if entry["kind"] == "user":
                self.busy = True
            self._send_msg(EntryMsg(type="entry", entry=entry))

    def _on_reset(self, _: Event | None) -> None:
        """History was rewound or the session is closing (any thread)."""
        with self._batcher.lock:
            self._batcher.flush()
            self._sync(busy=False)

    def _sync(self, *, busy: bool) -> None:
        session = self._session
        if session is None:
            return
        with self.hold_sync():
            self.transcript = entries_from_events(session.history, session.trace)
            self.session_closed = session.closed
            self.busy = busy

    # -- comm ---------------------------------------------------------------------

    def _send_msg(self, msg: FromPython) -> None:
        if self.comm is None:
            return
        with self._batcher.lock:
            self.send(dict(msg))

    def _on_frontend_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        try:
            msg = parse_from_js(content)
        except ValueError as exc:
            self._send_msg(ErrorMsg(type="error", message=str(exc)))
            return
        if msg["type"] == "send":
            self.send_message(msg["text"])
        elif msg["type"] == "stop":
            self.stop()
        elif msg["type"] == "catch_up":
            self._catch_up()
        else:
            self.new_chat()

    def _catch_up(self) -> None:
        """Bring a view opened mid-turn up to date: the turn's stored entries go
        into the transcript, the streamed text in a snapshot. Both are
        idempotent for views that were already open."""
        with self._batcher.lock:
            self._batcher.flush()
            session = self._session
            if session is None or not session.busy:
                self._sync(busy=False)
                return
            self._sync(busy=True)
            text = "".join(self._live_text)
            invocation = self._live_invocation if text else ""
            self._send_msg(
                SnapshotMsg(
                    type="snapshot", invocation_id=invocation, author=self._live_author, text=text
                )
            )

    @traitlets.observe("comm")
    def _watch_comm(self, change: dict[str, Any]) -> None:
        comm = change["new"]
        if comm is not None:
            comm.on_close(self._on_comm_closed)

    def _on_comm_closed(self, _msg: Any) -> None:
        """The front end closed the comm: same as `close()`."""
        self.close()


def _resolve_session(
    session: AgentSession | str | None, runner: AgentRunner | None
) -> AgentSession:
    if isinstance(session, AgentSession):
        if runner is not None and session.runner is not runner:
            raise ValueError("session belongs to another runner; pass one or the other")
        return session
    if runner is None:
        runner = get_runner()
    if session is None:
        return runner.get_or_create_session(_new_session_id())
    if isinstance(session, str):
        return runner.get_or_create_session(session)
    raise TypeError(
        "session must be None, a session id string or an AgentSession, "
        f"got {type(session).__name__}"
    )
