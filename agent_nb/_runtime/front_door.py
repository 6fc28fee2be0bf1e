"""`TurnRequest` and `FrontDoor.start_turn`: the one way a notebook surface starts a turn.

A ``%%agent`` cell and a `ChatWidget` each build a `TurnRequest` and hand it
to `AgentRunner.start_turn`, which returns the turn's `EventStream` at once,
as ADK's ``Runner.run_async(user_id, session_id, new_message, run_config)``.
The turn policy lives here, once, and is testable without IPython:

* **the options**: a surface hands what it was asked (`TurnAsk`) and the
  kernel's settings at that moment (`KernelSettings`), and they are resolved
  here (`turn_settings.turn_options`: one rule for cells and widgets); code
  may hand finished `TurnOptions` instead;
* **the backend** is resolved once, from the options, and handed to the turn;
* **the data** (``--data df``, ``ChatWidget(data=...)``) becomes the turn's
  agent through the request's `DataSource`: the data package sits above the
  runtime, so it builds the agent and the runtime only calls it (the
  import-linter contracts forbid the other way round);
* **the tools** (``--tools NAME``, ``ChatWidget(tools=...)``) are added to
  the session's agent for the turn (`Agent.with_tools`: same name, same KV cache);
  with data, the pipeline's writer is built on that agent;
* **holding and following**: the surface is noted as a holder of the session
  (a widget closing leaves the cells' conversation alone) and as the origin
  of the turn (`origins`); the session follows the store first, so a re-run
  note counts another kernel's turns too; a busy session is refused before
  ``new`` deletes it or a rewind moves it;
* **the window check**: an explicit ``max_tokens`` beyond the model's context
  window is refused with nothing sent or recorded -- at once when the window
  is known, else in the turn's first step on the worker, which reads the
  window without blocking the caller;
* **the re-run rewind** (`TurnRequest.replaces`) runs in that same first step,
  after the window check, while the turn holds the session: the replaced
  turns move to a new branch and a `Rewound` event says which;
* **the waiting note**: on a model that answers one turn at a time, a
  `Waiting` event names the sessions whose turns are ahead, and a new one
  follows each time one of them records its `TurnComplete` (their events
  drive it; nothing polls). It goes to the turn's stream and to its session's
  listeners, so a widget on the session says what its turn waits for,
  whichever surface started it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .._core.tokens import text_counter
from .._core.types import Content, Event, TurnComplete, Waiting
from ..backends import Backend
from ..errors import ContextWindowError, SessionBusyError
from .agents import Agent, BaseAgent
from .approval import waiting_refusal
from .context import Turn
from .mcp import servers_of
from .options import TurnOptions
from .origins import follow_store, note_origin
from .stream import EventStream
from .turn_settings import KernelSettings, TurnAsk, turn_options

if TYPE_CHECKING:
    from .session import AgentSession
    from .session_core import SessionCore

__all__ = ["DataSource", "FrontDoor", "TurnRequest", "check_max_tokens", "resolve_tools"]


class DataSource(Protocol):
    """The data a turn answers from, as the data package hands it to the runtime."""

    def agent_for(
        self, session_agent: BaseAgent, system: str | None, backend: Backend
    ) -> BaseAgent:
        """The turn's agent: the data pipeline, its writer built on ``session_agent``
        with ``system`` in its instructions; ``backend`` is the turn's model."""
        ...


@dataclasses.dataclass(frozen=True)
class TurnRequest:
    """One notebook turn, whichever surface asks for it (see the module docstring)."""

    message: str | Content
    #: The session the turn belongs to; None: a single turn on a hidden temporary session.
    session_id: str | None = None
    #: The turn's options, decided whole (code's way); a notebook surface gives
    #: `ask` and `settings` instead and the runner decides them.
    options: TurnOptions = dataclasses.field(default_factory=TurnOptions)
    #: The invocation id of the turn a re-run replaces (it and the later turns
    #: move to a new branch first); None appends.
    replaces: str | None = None
    #: Delete the session's history, state and KV cache first (``--new``).
    new: bool = False
    #: Who uses the session (``"%%agent cells"``, ``"ChatWidget 1a2b"``).
    holder: str | None = None
    data: DataSource | None = None
    #: Tools the session's agent gets for this turn on top of its own: MCP
    #: toolsets or the names of the runner's MCP servers (``%%agent --tools
    #: NAME``, ``ChatWidget(tools=...)``; the runner looks a name up), or functions.
    tools: tuple[Any, ...] = ()
    #: What the cell's flags or the widget's arguments set for this turn.
    ask: TurnAsk | None = None
    #: The kernel's ``%config AgentMagics.*`` when the turn was asked for.
    settings: KernelSettings | None = None

    @property
    def once(self) -> bool:
        return self.session_id is None


class DoorHost(Protocol):
    """What the front door uses of the runner that owns it: its public session calls."""

    @property
    def agent(self) -> BaseAgent: ...
    def backend_for(self, model: str | Backend | None) -> Backend: ...
    def get_or_create_session(
        self, session_id: str, *, agent: BaseAgent | str | None = None
    ) -> AgentSession: ...
    def hold_session(self, session_id: str, holder: str) -> None: ...
    def delete_session(self, session_id: str) -> None: ...


class FrontDoor:
    """The turn policy behind `AgentRunner.start_turn`, a service the runner owns.

    Besides the runner's public session calls (`DoorHost`) it is handed the four
    runtime-side ones it needs: open and discard a hidden one-turn session, a
    live session's core, and the cores running a turn now.
    """

    def __init__(
        self,
        host: DoorHost,
        *,
        open_hidden: Callable[[BaseAgent | str | None, Any], tuple[AgentSession, SessionCore]],
        discard_hidden: Callable[[SessionCore], None],
        live_core: Callable[[str], SessionCore],
        busy_cores: Callable[[], list[SessionCore]],
    ) -> None:
        self._host = host
        self._open_hidden = open_hidden
        self._discard_hidden = discard_hidden
        self._live_core = live_core
        self._busy_cores = busy_cores

    def start_turn(self, request: TurnRequest) -> EventStream:
        """`AgentRunner.start_turn` (see the module docstring); returns the stream at once.

        Raises before anything changes: `SessionBusyError` (the session runs a
        turn), `ContextWindowError` (``max_tokens`` beyond a known window),
        `ModelNotFoundError`, and what the data or the options refuse.
        """
        options = self._options_of(request)
        backend = self._host.backend_for(options.model)
        limit = options.overrides.get("max_tokens")
        check_max_tokens(limit, backend, backend.context_window)
        tools = resolve_tools(self._host, request.tools)
        if request.once:
            options = _with_tools(tools, options, self._host.agent)
            options = _with_data(request, options, options.agent or self._host.agent, backend)
            _, core = self._open_hidden(None, ())
            try:
                stream = core.start_turn(
                    request.message,
                    None,
                    options,
                    backend=backend,
                    prepare=_prepare(core, None, limit, backend),
                )
            except BaseException:
                self._discard_hidden(core)
                raise
        else:
            core = self._session_for(request)
            options = _with_tools(tools, options, core.agent)
            options = _with_data(request, options, options.agent or core.agent, backend)
            stream = core.start_turn(
                request.message,
                None,
                options,
                backend=backend,
                prepare=_prepare(core, request.replaces, limit, backend),
            )
        if request.holder:
            note_origin(stream.invocation_id, request.holder)
        if backend.one_turn_at_a_time:
            ahead = [c for c in self._busy_cores() if c is not core]
            _announce_waiting(stream, ahead, core.listeners.notify)
        return stream

    def token_counter(self, request: TurnRequest) -> Callable[[str], int]:
        """`AgentRunner.token_counter`: the options checked as `start_turn` checks them,
        so a bad value or model fails before the message is composed."""
        options = self._options_of(request)
        return text_counter(self._host.backend_for(options.model).count_text_tokens)

    def _options_of(self, request: TurnRequest) -> TurnOptions:
        """The request's options: its own, or its ask resolved against its settings."""
        ask = request.ask
        if ask is None:
            if request.settings is not None:
                raise ValueError("a TurnRequest's settings apply to its ask: give both")
            return request.options
        if request.options != TurnOptions():
            raise ValueError("give a TurnRequest options or an ask, not both")
        if ask.max_tokens is not None and ask.max_tokens < 1:
            # refused with the range this model allows, before the options
            # (whose check would only say ">= 1")
            backend = self._host.backend_for(ask.model_in(request.settings))
            check_max_tokens(ask.max_tokens, backend, backend.context_window)
        return turn_options(request.settings, ask)

    def _session_for(self, request: TurnRequest) -> SessionCore:
        """The request's session, held, followed, and new if asked; refused while busy."""
        session_id = request.session_id
        assert session_id is not None
        session = self._host.get_or_create_session(session_id)
        if request.holder:
            self._host.hold_session(session_id, request.holder)
        if session.awaiting_approval:
            raise SessionBusyError(waiting_refusal(session_id))
        if session.busy:  # checked first: new and a rewind must not cancel someone's turn
            raise SessionBusyError(
                f"session {session_id!r} is already running a turn (a widget or another "
                "thread); wait for it or stop it, or use another session"
            )
        follow_store(session)  # a re-run note counts another kernel's turns too
        if request.new:
            self._host.delete_session(session_id)
            self._host.get_or_create_session(session_id)
            if request.holder:
                self._host.hold_session(session_id, request.holder)
        return self._live_core(session_id)


def resolve_tools(runner: Any, tools: Any) -> tuple[Any, ...]:
    """``tools`` with each name (a string, or one string alone) looked up among
    ``runner``'s MCP servers (`servers_of`); an unknown name raises
    `ToolServerError` with the names there are. Toolsets and functions pass as they are."""
    if isinstance(tools, str):
        tools = [tools]
    tools = tuple(tools)
    if not any(isinstance(t, str) for t in tools):
        return tools
    servers = servers_of(runner)
    return tuple(servers.get(t) if isinstance(t, str) else t for t in tools)


def _with_tools(tools: tuple[Any, ...], options: TurnOptions, base: BaseAgent) -> TurnOptions:
    """With tools, the turn runs the session's agent with them added (`Agent.with_tools`)."""
    if not tools:
        return options
    agent = options.agent or base
    if not isinstance(agent, Agent):
        raise ValueError(
            f"tools are added to a model agent; this session's agent {agent.name!r} is a "
            f"{type(agent).__name__} (give its model agents the tools instead)"
        )
    return dataclasses.replace(options, agent=agent.with_tools(tools))


def _with_data(
    request: TurnRequest, options: TurnOptions, base: BaseAgent, backend: Backend
) -> TurnOptions:
    """With data, the turn runs the data pipeline; the system prompt is in its writer."""
    if request.data is None:
        return options
    agent = request.data.agent_for(base, options.system, backend)
    return dataclasses.replace(options, agent=agent, system=None)


def check_max_tokens(limit: int | None, backend: Backend, window: int | None) -> None:
    """An explicit ``max_tokens`` outside 1 to the model's ``window`` is refused with
    that range, whichever end it misses (0 and 10**6 get the same line)."""
    if limit is None or (limit >= 1 and (window is None or limit <= window)):
        return
    allowed = (
        f"between 1 and the model's context window ({window:,} tokens for {backend.spec})"
        if window is not None
        else f"at least 1 (the context window of {backend.spec} is not known)"
    )
    raise ContextWindowError(
        f"max_tokens must be {allowed}, got {limit:,}; nothing was sent or recorded",
        tokens=limit,
        window=window,
    )


def _prepare(
    core: SessionCore, replaces: str | None, limit: int | None, backend: Backend
) -> Callable[[Turn], Any]:
    """The turn's first step on the worker: the window check, then the rewind."""

    async def prepare(turn: Turn) -> None:
        if limit is not None:
            check_max_tokens(limit, backend, await backend.resolve_context_window())
        if replaces is None:
            return
        work = asyncio.ensure_future(asyncio.to_thread(core.rewind_in_turn, turn, replaces))
        try:
            await asyncio.shield(work)
        except asyncio.CancelledError:
            await work  # a stop waits for the rewind: it is never left half done
            raise
        finally:
            rewound = work.result() if work.done() and not work.exception() else None
            if rewound is not None and turn.invocation is not None:
                turn.invocation.stream.push(rewound)

    return prepare


def _announce_waiting(
    stream: EventStream, ahead: list[SessionCore], notify: Callable[[Event], None]
) -> None:
    """`Waiting` events for the turns ahead on a one-turn-at-a-time model, each time
    one of them ends (its `TurnComplete`, or its session closing), to ``stream``
    and to ``notify`` (the waiting session's listeners)."""
    if not ahead:
        return
    lock = threading.Lock()
    waiting = {core.id: core for core in ahead}
    stops: list[Callable[[], None]] = []

    def tell() -> None:
        if not stream.done:
            names = tuple(core_id for core_id in waiting)
            event = Waiting(sessions=names, invocation_id=stream.invocation_id)
            stream.push(event)
            notify(event)

    def ended(core_id: str) -> None:
        with lock:
            if waiting.pop(core_id, None) is None:
                return
            tell()
            done = not waiting
        if done:
            stop()

    def stop(*_: object) -> None:
        with lock:
            current, stops[:] = list(stops), []
        for unsubscribe in current:
            unsubscribe()

    def listener(core: SessionCore) -> tuple[Callable[[Event | None], None], ...]:
        def on_event(event: Event | None) -> None:
            if isinstance(event, TurnComplete):
                ended(core.id)

        def on_reset(_: Event | None) -> None:
            if not core.gate.busy:
                ended(core.id)

        return on_event, on_reset

    with lock:
        for core in ahead:
            stops.append(core.listeners.subscribe(*listener(core)))
        tell()
    for core in ahead:  # a turn that ended before its listener came
        if not core.gate.busy:
            ended(core.id)
    stream.add_done_callback(stop)
