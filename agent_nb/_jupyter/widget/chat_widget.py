"""`ChatWidget`: a chat UI (anywidget) on an `AgentSession`.

The widget does not run turns itself and keeps no transcript of its own: it
subscribes to its session, so a turn started by ``%%agent``, by another widget
or by plain code on the same session streams into every open widget. Session
callbacks arrive on the worker thread; comm sends from there are safe (the
kernel's iopub socket is thread-safe), and one lock keeps each widget's
messages in order.

Streaming text is coalesced by `DeltaBatcher` (`delta_batcher`): at most one ``delta`` message
per `DELTA_INTERVAL_S`, whatever the model's speed, and the final model entry
that follows carries the full text, so what streamed always equals what is
stored.

Lifetime is the seed's ViewModel (`lifecycle`): page reloads, a closed and
reopened notebook tab and second views keep the widget; its output cleared,
its cell deleted or re-run close it after `CLOSE_GRACE_S`, as does `close()`.
A closed widget's outputs say so and how to reopen the session (`outputs`).
Closing unsubscribes, cancels the turn the widget started, and closes the
sessions it **owns** -- ones a widget created (``ChatWidget()``, a new id,
*New chat*) or was handed with ``evict_on_close=True`` -- unless something
else still holds them (``%%agent`` cells, another open widget: the runner's
holders). A session anyone else made is only detached. Ownership belongs to
the session, not to one widget, so re-running ``ChatWidget("x")`` hands it
on: the last widget to let go closes it.

``data={"name": df}`` makes every message a question about those DataFrames,
answered as a ``%%agent --data`` cell answers it (`agent_nb.data`): the data
agent plans and computes, the session's agent words the sentence (checked),
and the turn shows the result table and its chart, which are stored with the
turn. The chart is drawn by a vega-embed bundle the view asks for once per
page (`ChartModuleMsg`), so a chat without charts never loads it.
"""

from __future__ import annotations

import concurrent.futures
import logging
import pathlib
import uuid
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

import anywidget
import traitlets

from ..._core.types import (
    Event,
    GenerationConfig,
    PromptProgress,
    TextMessage,
    TurnComplete,
    Waiting,
)
from ..._runtime.face import (
    AgentRunner,
    AgentSession,
    EventStream,
    TurnAsk,
    TurnRequest,
    follow_store,
    get_runner,
    model_label,
    resolve_tools,
)
from ...backends import Backend
from ...errors import AgentError, ContextWindowError, FrontendNotBuiltError, ToolServerError
from ..data_question import DataQuestion
from ..front_end import batch_run
from ..holder_names import widget_holder
from ..staleness import STALE_MARKS
from ..turn_settings import kernel_settings
from ..waiting import waiting_note
from .data_view import chart_module_source
from .delta_batcher import DeltaBatcher
from .lifecycle import CLOSE_GRACE_S, ViewTracker
from .outputs import Outputs, keep_closed
from .protocol import (
    ChartModuleMsg,
    EntryMsg,
    ErrorMsg,
    FromPython,
    ProgressMsg,
    SnapshotMsg,
    ViewMsg,
    WaitingMsg,
    entries_from_events,
    entry_from_event,
    fork_dicts,
    parse_from_js,
    turn_complete_msg,
)
from .static_view import closed_bundle, static_bundle

__all__ = ["CLOSE_GRACE_S", "ChatWidget"]

log = logging.getLogger("agent_nb")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

_STATIC = pathlib.Path(__file__).parents[2] / "static"
_BUNDLE = _STATIC / "widget.js"
_STYLES = _STATIC / "widget.css"
_MISSING = (
    f"agent_nb's widget front end is not built ({_BUNDLE} is missing). Reinstall with "
    "`pip install agent_nb` (the build runs npm), or from a source checkout run "
    "`npm install && npm run build`."
)


def _new_session_id() -> str:
    return f"chat-{uuid.uuid4().hex[:12]}"


_OWNED: weakref.WeakSet[AgentSession] = weakref.WeakSet()
"""Sessions that widgets own. Per session, not per widget: a widget re-run on
the same id takes the session over, and the last widget holding it closes it."""


class ChatWidget(anywidget.AnyWidget):
    """A chat on a session of the kernel runner: streaming, Stop, New chat.

    ``session`` is None (a new session with a fresh id), a session id (the live
    session with that id, so re-running the cell keeps its history) or an
    `AgentSession`. Turns run as a ``%%agent`` cell's do (`turn_settings`):
    ``model`` and the fields ``config`` sets win, then the agent's own
    `GenerationConfig`, then the kernel's ``%config AgentMagics`` settings
    (max_tokens, temperature, repetition_stop, system_prompt, default_model,
    context_policy).

    **Lifetime.** Reloading the page, closing the notebook's tab and opening
    it again, a second view: the widget and its conversation stay. Clearing
    its output, deleting or re-running its cell: after ``CLOSE_GRACE_S``
    seconds with no view left, it closes, as ``close()`` does at once.

    **Ownership: what a close frees.** The widget owns a session it created
    (``ChatWidget()``, an id no live session has, *New chat*) or one given
    with ``evict_on_close=True``. Closing closes the owned sessions --
    background eviction of history and KV cache; with a persistent store
    (SQLite) only from memory, the session reloads when asked for -- unless
    ``%%agent`` cells or another open widget use them too: those, and every
    session the widget does not own, are only detached, and ``%agent
    sessions`` shows who still holds them. ``evict_on_close=False``: this
    widget never closes a session. *New chat* from an owned session without a
    turn discards it.

    **Data.** ``data={"sales": df}`` (name -> DataFrame): each message is a
    question the data agent answers from those tables; the turn shows the
    sentence, the result table and its chart (see the module docstring).
    ``data_context``: your words for their columns and values, as ``%%agent
    --data-context`` takes them (a dict, or a YAML file's path).

    **Tools.** ``tools=[...]``: what the session's agent may call in this
    widget's turns, on top of its own: `McpToolset`s, names of MCP servers
    added with ``%agent mcp add`` (or ``AgentMagics.mcp_servers``), or
    Python functions. A tool block names its server beside the tool.
    """

    _esm = _BUNDLE if _BUNDLE.is_file() else "export default {};"
    _css = _STYLES if _STYLES.is_file() else ""

    session_id = traitlets.Unicode("").tag(sync=True)
    transcript: traitlets.List[Any] = traitlets.List().tag(sync=True)
    #: Where the active path took one of several alternative turns (`ForkDict`s).
    forks: traitlets.List[Any] = traitlets.List().tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    session_closed = traitlets.Bool(False).tag(sync=True)
    model_label = traitlets.Unicode("").tag(sync=True)
    #: The role label of model messages, the same while streaming and after.
    agent_name = traitlets.Unicode("assistant").tag(sync=True)
    #: The widget's id as its views in one page know it (they count each other).
    view_key = traitlets.Unicode("").tag(sync=True)
    #: Set when the widget closes: what a view still shown tells the person.
    closed_note = traitlets.Unicode("").tag(sync=True)

    #: Seconds from the last view destroyed to the close (class-wide or per widget).
    close_grace_s: float = CLOSE_GRACE_S

    def __init__(
        self,
        session: AgentSession | str | None = None,
        *,
        runner: AgentRunner | None = None,
        model: str | Backend | None = None,
        config: GenerationConfig | None = None,
        evict_on_close: bool | None = None,
        data: Mapping[str, Any] | None = None,
        data_context: Mapping[str, Any] | str | None = None,
        tools: Iterable[Any] = (),
        **kwargs: Any,
    ) -> None:
        if not _BUNDLE.is_file():
            raise FrontendNotBuiltError(_MISSING)
        # A bad table or context fails here, in one line, not at the first question
        self._data = _data_question(data, data_context)
        if evict_on_close is not None and not isinstance(evict_on_close, bool):
            raise TypeError(
                "evict_on_close must be None (close only sessions the widget created), "
                f"True or False, got {evict_on_close!r}"
            )
        resolved, created = _resolve_session(session, runner)
        self._runner = cast(AgentRunner, resolved.runner)
        self._tools = resolve_tools(self._runner, tools)  # an unknown server name fails here
        if model is not None:
            self._runner.check_model(model)  # a typo fails here, not at the first message
        self.evict_on_close = evict_on_close
        self.config = config
        self._model = model
        self._session: AgentSession | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._closing = False
        self._left: list[AgentSession] = []  # owned sessions left by New chat
        self._turn: EventStream | None = None  # the latest turn this widget started
        self._views = ViewTracker(self._grace_expired, grace_s=self.close_grace_s)
        self._outputs = Outputs()
        self._closed_view: dict[str, str] = {}  # what its outputs show once closed
        self._batcher = DeltaBatcher(self._send_msg)
        # Text of the running model message, for views that open mid-turn.
        self._live_text: list[str] = []
        self._live_invocation = ""
        self._live_author = ""
        # What the running turn waits for on the model (`Waiting`), until it starts.
        self._waiting: WaitingMsg | None = None
        # The latest turn seen to start: a `Waiting` for it that comes later (told on
        # the thread of the turn ahead, which may end after this one got the model)
        # is stale, and would put "waiting…" back over the streaming reply.
        self._started_invocation = ""
        super().__init__(**kwargs)
        key = self.model_id or uuid.uuid4().hex
        self.view_key = key
        self._holder = widget_holder(key)
        self.on_msg(self._on_frontend_msg)
        STALE_MARKS.subscribe(self._marks_changed)
        if evict_on_close or (created and evict_on_close is None):
            _OWNED.add(resolved)
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

    @property
    def closed(self) -> bool:
        """The widget was closed (by `close()`, its comm or its lifecycle)."""
        return self._closing

    @property
    def owned_sessions(self) -> list[AgentSession]:
        """The live sessions a close of this widget would close if nobody else held them."""
        sessions = [*self._left, *([self._session] if self._session else [])]
        return [s for s in sessions if s in _OWNED and not s.closed]

    def _ipython_display_(self) -> None:
        """Shown through a display id, not as the cell's ``Out[n]``: a close
        replaces every output this kernel made of it with its closed note."""
        data, metadata = self._repr_mimebundle_()
        self._outputs.show(data, metadata, live=WIDGET_VIEW in data)

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The live view, plus the transcript as text for where no widget renders
        (an nbconvert HTML page); a batch run (nbconvert, papermill), which no
        front end watches, gets only the text (see `agent_nb._jupyter.front_end`).
        A closed widget is only text: the transcript as it stood and its note."""
        from IPython import get_ipython

        if self._closing:
            return dict(self._closed_view), {}
        data, metadata = super()._repr_mimebundle_(**kwargs) or ({}, {})
        data = {**data, **static_bundle(self._session)}
        if batch_run(get_ipython()):
            data.pop(WIDGET_VIEW, None)
        return data, metadata

    def send_message(self, text: str) -> None:
        """Start a turn as if typed into the widget; failures are shown in it."""
        session = self._live_session()
        try:
            request = TurnRequest(
                text,
                session.id,
                holder=self._holder,
                data=self._data,
                tools=self._tools,
                ask=TurnAsk(model=self._model, config=self.config),
                settings=kernel_settings(),
            )
            stream = self._runner.start_turn(request)
        except (AgentError, ValueError, TypeError) as exc:
            self._send_msg(ErrorMsg(type="error", message=str(exc)))
            return
        self._turn = stream
        stream.add_done_callback(self._turn_ended)

    def _turn_ended(self, future: concurrent.futures.Future[Any]) -> None:
        """A turn too big for the model's window records nothing, so no event tells
        the front end: say it here (any thread). A turn cancelled before it ran
        (the runner shutting down) has nothing to say."""
        if future.cancelled():
            return
        error = future.exception()
        if isinstance(error, ToolServerError) or (
            isinstance(error, ContextWindowError) and not error.sent
        ):
            self._send_msg(ErrorMsg(type="error", message=str(error)))

    def stop(self) -> None:
        """Cancel the running turn (returns at once; the turn records itself as stopped)."""
        if self._session is not None:
            self._session.cancel()

    def answer(self, call_id: str | None = None, *, approved: bool) -> None:
        """Approve or deny a tool call the session's turn waits on (the buttons'
        action; None: every waiting call). The rest of the turn streams in here;
        a refusal (nothing waits any more) is shown in the widget."""
        session = self._live_session()
        try:
            stream = (session.approve_async if approved else session.deny_async)(call_id)
        except (AgentError, ValueError, TypeError) as exc:
            self._send_msg(ErrorMsg(type="error", message=str(exc)))
            return
        self._turn = stream
        stream.add_done_callback(self._turn_ended)

    def switch_branch(self, number: int) -> None:
        """Make branch ``number`` the session's active conversation (the ‹ › arrows).
        Every open view of the session follows; a refusal is shown in the widget."""
        try:
            self._live_session().switch_branch(number)
        except (AgentError, ValueError, TypeError) as exc:
            self._send_msg(ErrorMsg(type="error", message=str(exc)))

    def new_chat(self) -> AgentSession:
        """Switch to a fresh session id. The old conversation stays for its other
        users (and until this widget closes, if it owns it); an owned one
        without a turn is discarded."""
        old = self._detach()
        if old is not None and old in _OWNED and not old.closed:
            if old.turns == 0 and not old.busy:
                self._close_unheld(old)
            else:
                self._left.append(old)
        session = self._runner.get_or_create_session(_new_session_id())
        if self.evict_on_close is not False:
            _OWNED.add(session)
        self._attach(session)
        return session

    def close(self) -> None:
        """Close now: unsubscribe, cancel this widget's turn, close the sessions it
        owns that nobody else holds, turn its outputs into a note that says so,
        close the comm. A second call does nothing more."""
        self._close(keep_model=False)

    def _close(self, *, keep_model: bool) -> None:
        """``keep_model``: the comm stays open, the model emptied, for a view that
        comes back (an undo of a deleted cell) to say the widget closed."""
        if not getattr(self, "_closing", True):
            self._closing = True
            self._views.cancel()
            turn = self._turn
            if turn is not None and (not turn.done or self._waits_on(turn)):
                turn.cancel()  # a turn of this widget's paused for approval is stopped too
            current = self._detach()
            shown = static_bundle(current)  # the transcript before its session may go
            freed = [s for s in [*self._left, current] if s is not None and self._close_unheld(s)]
            self._left.clear()
            if current is not None:
                self.closed_note = _closed_note(self._runner, current, current in freed)
            note = self.closed_note or "This chat widget was closed."
            self._closed_view = closed_bundle(shown, note)
            self._outputs.replace(self._closed_view)
            if keep_model and self.comm is not None:
                with self.hold_sync():
                    self.transcript, self.forks, self.busy = [], [], False
                keep_closed(self._close_comm)
                return
        self._close_comm()

    def _waits_on(self, turn: EventStream) -> bool:
        """The session's turn ``turn`` paused for approval (its stream ended at the pause)."""
        session = self._session
        return session is not None and any(
            call.invocation_id == turn.invocation_id for call in session.awaiting_approval
        )

    def _close_comm(self) -> None:
        super().close()
        # ipywidgets hides a closed widget from display (``_repr_mimebundle_ =
        # None``); this one still shows as its closed note.
        self.__dict__.pop("_repr_mimebundle_", None)

    def _close_unheld(self, session: AgentSession) -> bool:
        """Close an owned session nobody else holds; True when it was closed."""
        if self.evict_on_close is False or session not in _OWNED or session.closed:
            return False
        if self._runner.session_holders(session.id):
            return False
        try:
            session.close()
        except Exception:  # runner already shut down at interpreter exit
            log.debug("closing session %s failed", session.id, exc_info=True)
            return False
        return True

    def _grace_expired(self) -> None:
        """No view came back within the grace period (timer thread)."""
        log.debug(
            "ChatWidget on %r displayed nowhere for %.1f s: closing",
            self.session_id,
            self._views.grace_s,
        )
        self._close(keep_model=True)

    # -- session wiring ------------------------------------------------------

    def _attach(self, session: AgentSession) -> None:
        with self._batcher.lock:
            self._session = session
            self._unsubscribe = session.subscribe(self._on_event, self._on_reset)
            self._runner.hold_session(session.id, self._holder)
            with self.hold_sync():
                self.model_label = self._badge()
                self.agent_name = session.agent.name
                self.session_id = session.id
                self.session_closed = session.closed
                self.busy = session.busy
                self.transcript = self._entries(session)
                self.forks = fork_dicts(session.forks())

    def _detach(self) -> AgentSession | None:
        with self._batcher.lock:
            self._batcher.flush()
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None
            old, self._session = self._session, None
            if old is not None:
                self._runner.release_session(old.id, self._holder)
            return old

    def _badge(self) -> str:
        """The model of the session's latest turn in this kernel, else the next turn's."""
        session = self._session
        used = session.last_model if session is not None and session.turns else None
        if used is None:
            used = TurnAsk(model=self._model).model_in(kernel_settings())
        return model_label(used) if used is not None else self._runner.model_label

    def _live_session(self) -> AgentSession:
        """The widget's session, reopened under the same id if someone closed it."""
        session = self.session
        if session.closed:
            owned = session in _OWNED
            self._detach()
            session = self._runner.get_or_create_session(session.id)
            if owned:
                _OWNED.add(session)
            self._attach(session)
        return session

    def _on_event(self, event: Event | None) -> None:
        """Session listener (worker thread)."""
        if event is None:
            return
        if isinstance(event, Waiting):
            self._tell_waiting(event)
            return
        if not (isinstance(event, TextMessage) and event.author == "user"):
            with self._batcher.lock:
                # The turn started (or ended): the note is cleared before its first
                # token, whichever thread would have told it so.
                if self._waiting is not None:
                    invocation = self._waiting["invocation_id"]
                    self._send_msg(WaitingMsg(type="waiting", invocation_id=invocation, note=""))
                self._waiting = None
                self._started_invocation = event.invocation_id
        if isinstance(event, PromptProgress):  # transient, like partial text
            self._send_msg(
                ProgressMsg(
                    type="progress",
                    invocation_id=event.invocation_id,
                    done=event.done,
                    total=event.total,
                )
            )
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

    def _tell_waiting(self, event: Waiting) -> None:
        """The turn waits for other sessions' turns (or no longer): the cell's words."""
        msg = WaitingMsg(
            type="waiting", invocation_id=event.invocation_id, note=waiting_note(event)
        )
        with self._batcher.lock:
            if event.invocation_id == self._started_invocation:
                return
            self._waiting = msg if msg["note"] else None
            self._send_msg(msg)

    def _on_reset(self, _: Event | None) -> None:
        """History was rewound or the session is closing (any thread)."""
        with self._batcher.lock:
            self._batcher.flush()
            self._sync(busy=False)

    def _entries(self, session: AgentSession) -> list[Any]:
        return entries_from_events(session.history, STALE_MARKS.of_session(session.id))

    def _marks_changed(self) -> None:
        """A ``%%agent`` answer on this session went stale (or fresh again)."""
        with self._batcher.lock:
            if self._session is not None and not self.busy:
                self.transcript = self._entries(self._session)

    def _sync(self, *, busy: bool) -> None:
        session = self._session
        if session is None:
            return
        with self.hold_sync():
            self.transcript = self._entries(session)
            self.forks = fork_dicts(session.forks())
            self.session_closed = session.closed
            self.busy = busy
            self.model_label = self._badge()

    # -- comm ---------------------------------------------------------------------

    def _send_msg(self, msg: FromPython) -> None:
        if self.comm is None:
            return
        with self._batcher.lock:
            self.send(dict(msg))

    def _on_frontend_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if self._closing:  # a closed shell's view (`outputs`) only shows its note
            return
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
        elif msg["type"] == "view":
            self._on_view(msg)
        elif msg["type"] == "switch_branch":
            self.switch_branch(msg["branch"])
        elif msg["type"] == "chart_module":
            self._send_chart_module(msg["id"])
        elif msg["type"] == "approval":
            self.answer(msg["call_id"], approved=msg["approved"])
        else:
            self.new_chat()

    def _send_chart_module(self, request_id: str) -> None:
        try:
            source, error = chart_module_source(), None
        except OSError as exc:  # a checkout built before vega.js existed: tables only
            source, error = "", f"no chart module ({exc}); run `npm install && npm run build`"
        self._send_msg(
            ChartModuleMsg(type="chart_module", id=request_id, source=source, error=error)
        )

    def _on_view(self, msg: ViewMsg) -> None:
        event, page, view, live = msg["event"], msg["page_id"], msg["view_id"], msg["live"]
        if event == "attached":
            self._views.attached(page, view, live)
            if self._session is not None:
                self.model_label = self._badge()  # %config may have changed the model
        elif event == "page_gone":
            self._views.page_gone(page)
        elif event == "connected":
            self._views.connected(page, live)
        else:
            self._views.detached(page, view, live, destroyed=event == "destroyed")

    def _catch_up(self) -> None:
        """Bring a view opened mid-turn up to date: the turn's stored entries go
        into the transcript, the streamed text in a snapshot. Both are
        idempotent for views that were already open. A view also asks when it
        gains focus: a session another kernel moved is reloaded first."""
        if self._session is not None:
            follow_store(self._session)  # a reload resets the transcript (_on_reset)
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
            if self._waiting is not None:
                self._send_msg(self._waiting)

    @traitlets.observe("comm")
    def _watch_comm(self, change: dict[str, Any]) -> None:
        comm = change["new"]
        if comm is not None:
            comm.on_close(self._on_comm_closed)

    def _on_comm_closed(self, _msg: Any) -> None:
        """The front end closed the comm: same as `close()`."""
        self.close()


def _closed_note(runner: AgentRunner, session: AgentSession, freed: bool) -> str:
    """What a view of a closed widget says: what became of the session, how to reopen it."""
    reopen = f"run ChatWidget({session.id!r}) in a cell to open it again"
    if not freed:
        held = runner.session_holders(session.id)
        users = f" (used by {', '.join(held)})" if held else ""
        return f"This chat widget was closed; session {session.id!r} lives on{users}: {reopen}."
    if runner.store.persistent:
        return (
            f"This chat widget was closed and session {session.id!r} left memory; "
            f"the store keeps it: {reopen}."
        )
    return (
        f"This chat widget was closed and session {session.id!r} was freed (the memory "
        "store keeps nothing after a close); run ChatWidget() for a new chat."
    )


def _resolve_session(
    session: AgentSession | str | None, runner: AgentRunner | None
) -> tuple[AgentSession, bool]:
    """The session and whether this call created it (it was not live before)."""
    if isinstance(session, AgentSession):
        if runner is not None and session.runner is not runner:
            raise ValueError("session belongs to another runner; pass one or the other")
        return session, False
    if runner is None:
        runner = get_runner()
    if session is None:
        return runner.get_or_create_session(_new_session_id()), True
    if isinstance(session, str):
        live = {info.id for info in runner.sessions()}
        return runner.get_or_create_session(session), session not in live
    raise TypeError(
        "session must be None, a session id string or an AgentSession, "
        f"got {type(session).__name__}"
    )


def _data_question(data: Mapping[str, Any] | None, context: Any) -> DataQuestion | None:
    """The widget's tables and the user's words for them; a context without tables, or
    one that is neither a dict nor a YAML file, is a clear error."""
    from ...data.context import read_context

    if data is None:
        if context is not None:
            raise ValueError("data_context= describes the tables of data=: pass data= too")
        return None
    try:
        words = read_context(context) if context is not None else None
    except ValueError as exc:
        raise ValueError(str(exc).replace("--context", "data_context=")) from None
    return DataQuestion(data, follow_names=True, context=words)
