"""`AgentRunner`: the kernel-scoped registry of sessions and agents, and the public API.

``get_runner()`` hands out one runner per process (one kernel), created on
first use. Every runner still alive at interpreter exit -- the kernel's and
any made with ``AgentRunner()`` directly -- is shut down by an ``atexit``
hook, so its worker thread ends while Python can still run it, with or
without an explicit ``shutdown()``. Closing a session only flags it
and schedules the eviction on the worker loop, so ``close()`` returns in
microseconds whatever the history size; ``delete_session`` does the same work
but waits for it.

The runner hands each session a private `SessionServices` (the store, the
worker, model resolution and four notices), never itself; the backends it
has resolved live in a `BackendPool`, which owns everything keyed by a cache key.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .._core.contexts import ConversationReference, DataAgentContext, InlineContext
from .._core.history import contents_to_events
from .._core.ids import check_session_id, is_single_turn_id, new_single_turn_id
from .._core.reply import Reply
from .._core.types import Content, GenerateContentRequest
from ..backends import Backend
from ..errors import RunnerShutDownError
from ..stores import SessionStore, resolve_store
from .agent_registry import AgentRegistry
from .agents import Agent, BaseAgent, check_agent, walk
from .approval import ApprovalPolicy, check_approve_tools
from .chat_modes import ChatModes
from .eviction import Evictions
from .exit_hook import shut_down_at_exit
from .front_door import FrontDoor, TurnRequest
from .holders import Holders
from .leases import TurnLeases
from .mcp import close_toolsets, servers_of
from .model_choice import ModelChoice
from .record_keeper import open_record
from .services import SessionServices
from .session import AgentSession
from .session_core import SessionCore
from .session_info import SessionInfo, describe, stored_infos
from .stream import EventStream, wait_interruptibly
from .worker import Worker

__all__ = ["DEFAULT_MODEL", "AgentRunner"]

DEFAULT_MODEL = "mlx:smollm2-135m"


class _Live(NamedTuple):
    """A live session: what the user holds, and the runtime side the runner drives."""

    session: AgentSession
    core: SessionCore


class AgentRunner:
    """Sessions by id on one model, with a default agent.

    ``model`` is a spec string (``"mlx:smollm2-135m"``, ``"openai:MODEL@URL"``,
    ``"scripted"``) or a `Backend`; it is resolved, and loaded, on first use.
    ``kv_checkpoints`` (None: on with a persistent store) and ``kv_*``: `ModelChoice`,
    the service that holds the model and its backends.
    ``approve_tools``: what a tool that needs approval (``@tool(confirm=True)``)
    does: ``"ask"`` waits for ``session.approve()`` / ``deny()``, ``"read-only"``
    refuses it, ``"all"`` runs it (`agent_nb._runtime.approval`).
    """

    def __init__(
        self,
        agent: BaseAgent | None = None,
        *,
        model: str | Backend = DEFAULT_MODEL,
        store: str | SessionStore | None = None,
        user_id: str = "default",
        app_name: str = "agent_nb",
        kv_checkpoints: bool | None = None,
        kv_disk_budget: int | None = None,
        kv_directory: str | os.PathLike[str] | None = None,
        approve_tools: ApprovalPolicy = "ask",
    ) -> None:
        if not isinstance(user_id, str) or not user_id:
            raise ValueError("user_id must be a non-empty string")
        self._approve_tools = check_approve_tools(approve_tools)
        self._models = ModelChoice(model, kv_checkpoints, kv_disk_budget, kv_directory)
        self._agent: BaseAgent = check_agent(agent) if agent is not None else Agent()
        self._user_id = user_id
        self._app_name = app_name
        self._store = resolve_store(store)
        self._models.bind_store(self._store, app_name, user_id)
        self._leases = TurnLeases(self._store)
        self._agents = AgentRegistry(self._agent)
        self._lock = threading.RLock()
        self._sessions: dict[str, _Live] = {}
        self._worker = Worker()
        self._services = SessionServices(
            app_name=app_name,
            store=self._store,
            leases=self._leases,
            worker=self._worker,
            backend_for=self.backend_for,
            wait=self.wait,
            closing=self._session_closing,
            deleting=lambda core: self.delete_session(core.id),
            rewound=self._session_rewound,
            turn_finished=self._turn_finished,
            owner=self,
            toolsets_used=self._toolsets_used,
            approve_tools=lambda: self._approve_tools,
        )
        self._evictions = Evictions(self._worker, self._evict_now)
        self._holders = Holders()
        self._toolsets: weakref.WeakSet[Any] = weakref.WeakSet()
        self._toolsets_used(self._agent)
        self._chat = ChatModes(
            self,
            open_hidden=self._open_hidden,
            discard_hidden=self._discard_ephemeral,
            check_running=self._check_running,
        )
        self._door = FrontDoor(
            self,
            open_hidden=self._open_hidden,
            discard_hidden=self._discard_ephemeral,
            live_core=self._live_core,
            busy_cores=self._busy_cores,
        )
        self._shut_down = False
        shut_down_at_exit(self)

    # -- the model (`model_choice`) -----------------------------------------------------

    @property
    def model(self) -> str | Backend:
        """The default model's spec (settable: a bad spec fails at once)."""
        return self._models.model

    @model.setter
    def model(self, spec: str | Backend) -> None:
        self._models.model = spec

    @property
    def model_label(self) -> str:
        """The default model as a person reads it (a spec string or a backend's name)."""
        return self._models.model_label

    def check_model(self, spec: str | Backend) -> Backend:
        """Resolve ``spec`` now (raising `ModelNotFoundError` for a bad one) without
        making it the default; turns started with ``model=spec`` then reuse it."""
        return self._models.check_model(spec)

    @property
    def backend(self) -> Backend:
        """The default model's backend (resolved now if needed)."""
        return self._models.backend

    def backend_for(self, model: str | Backend | None) -> Backend:
        """The backend for a turn's ``model=`` (None: the default)."""
        return self._models.backend_for(model)

    @property
    def kv_checkpoints(self) -> bool:
        """Whether each session's KV cache is written to disk after its turns
        (``$AGENT_NB_KV_CHECKPOINTS=0`` still turns the backends' writing off).
        Set False to stop (the files stay), None to follow the store, True to
        insist (refused for a store whose sessions die with the kernel)."""
        return self._models.kv_checkpoints

    @kv_checkpoints.setter
    def kv_checkpoints(self, value: bool | None) -> None:
        self._models.kv_checkpoints = value

    @property
    def kv_disk_budget(self) -> int | None:
        """Bytes the checkpoints may take on disk, least recently used removed
        first (None: the backend's default, 2 GiB for MLX)."""
        return self._models.kv_disk_budget

    @kv_disk_budget.setter
    def kv_disk_budget(self, value: int | None) -> None:
        self._models.kv_disk_budget = value

    def kv_disk_bytes(self) -> dict[str, int]:
        """Checkpoint bytes on disk per session id (this store's, this user's)."""
        return self._models.kv_disk_bytes()

    # -- turns without a session of their own (`chat_modes`) --------------------------

    def run_single_turn_async(self, content: str | Content, **kwargs: Any) -> EventStream:
        """A turn on a hidden temporary session that is removed when the turn ends."""
        return self._chat.run_single_turn_async(content, **kwargs)

    def run_single_turn(self, content: str | Content, **kwargs: Any) -> Reply:
        """`run_single_turn_async`, waited for."""
        return self._chat.run_single_turn(content, **kwargs)

    def generate_content_async(
        self, request: GenerateContentRequest, *, replay: bool = False
    ) -> EventStream:
        """Direct model access: the caller supplies all history; nothing is stored.

        ``replay=True`` answers a request identical to one answered before from
        the replay cache, loading no model (`agent_nb._runtime.replay`; off unless
        asked, as for Python turns)."""
        return self._chat.generate_content_async(request, replay=replay)

    def chat(
        self,
        message: str | Content,
        *,
        conversation: ConversationReference | None = None,
        data_agent: DataAgentContext | None = None,
        inline: InlineContext | None = None,
        history: Sequence[Content] | None = None,
    ) -> EventStream:
        """One message in exactly one of three modes (docs/python-api.md lists them)."""
        return self._chat.chat(
            message,
            conversation=conversation,
            data_agent=data_agent,
            inline=inline,
            history=history,
        )

    # -- the front door (`front_door`) ------------------------------------------------

    def start_turn(self, request: TurnRequest) -> EventStream:
        """Start ``request``'s turn; returns its `EventStream` at once (the way a cell
        and a widget start turns: `agent_nb._runtime.front_door`).

        Raises before anything changes: `SessionBusyError` (the session runs a
        turn), `ContextWindowError` (``max_tokens`` beyond a known window),
        `ModelNotFoundError`, `ToolServerError` (a tool server's name unknown),
        and what the data or the options refuse.
        """
        return self._door.start_turn(request)

    def token_counter(self, request: TurnRequest) -> Callable[[str], int]:
        """Counts text in the tokens of the model ``request``'s turn will run on, its
        options checked now as `start_turn` checks them (a cell fits its ``--data``
        and ``--cells`` to a budget with it before it composes the message)."""
        return self._door.token_counter(request)

    # -- identity -------------------------------------------------------------

    @property
    def agent(self) -> BaseAgent:
        """The default agent of new sessions."""
        return self._agent

    @property
    def user_id(self) -> str:
        return self._user_id

    @property
    def app_name(self) -> str:
        return self._app_name

    @property
    def approve_tools(self) -> ApprovalPolicy:
        """What a tool that needs approval does (``"ask"``, ``"read-only"``, ``"all"``;
        `agent_nb._runtime.approval`); a change holds from the next turn on."""
        return self._approve_tools

    @approve_tools.setter
    def approve_tools(self, value: ApprovalPolicy) -> None:
        self._approve_tools = check_approve_tools(value)

    @property
    def store(self) -> SessionStore:
        """Where sessions are kept (``%config AgentMagics.store`` moves them to another)."""
        return self._store

    # -- what sessions take (SessionServices) ------------------------------------

    @property
    def worker(self) -> Worker:
        return self._worker

    def wait(self, stream: EventStream) -> Reply:
        return wait_interruptibly(stream)

    # -- what sessions tell the runner (the notices in SessionServices) ------------

    def _forget(self, core: SessionCore) -> None:
        """Unregister ``core`` as live (call under the lock)."""
        live = self._sessions.get(core.id)
        if live is not None and live.core is core:
            del self._sessions[core.id]
            self._holders.forget(core.id)

    def _session_closing(self, core: SessionCore) -> None:
        with self._lock:
            if core.gate.closed:
                return
            turn = core.gate.close()
            self._forget(core)
            done = self._evictions.add(core)
        self._evictions.start(core, turn, done)

    def _session_rewound(
        self, core: SessionCore, build: Callable[[], GenerateContentRequest]
    ) -> None:
        self._models.pool.rewind(core.id, build)
        # The other agents of a tree: each cache trimmed to its own next request
        # (one that cannot be built, e.g. it needs a temp: key, is dropped).
        for key, agent in dict(core.memory.caches).items():
            self._models.pool.rewind(key, functools.partial(core.rewind_request, agent))

    def _toolsets_used(self, agent: BaseAgent) -> None:
        for each in walk(agent):
            for toolset in getattr(each, "toolsets", ()):
                self._toolsets.add(toolset)

    def _turn_finished(self, core: SessionCore) -> None:
        if core.ephemeral:
            self._discard_ephemeral(core)

    # -- agents ---------------------------------------------------------------

    def register_agent(self, agent: BaseAgent) -> None:
        """Store an agent (any kind) for `DataAgentContext(agent_name)` and per-session use."""
        self._agents.register(agent)
        self._toolsets_used(agent)

    def get_agent(self, name: str) -> BaseAgent:
        return self._agents.get(name)

    # -- sessions -------------------------------------------------------------

    def get_or_create_session(
        self, session_id: str, *, agent: BaseAgent | str | None = None
    ) -> AgentSession:
        """The live session with this id, else a resumed or new one."""
        check_session_id(session_id)
        self._check_running()
        with self._lock:
            live = self._sessions.get(session_id)
            if live is not None and not live.core.gate.closed:
                if agent is not None:
                    live.core.agent = self._resolve_agent(agent)
                return live.session
        # Never hand out a half-evicted session: wait for its eviction.
        self._evictions.wait(session_id)
        return self._open(session_id, agent, ephemeral=False).session

    def _resolve_agent(self, agent: BaseAgent | str | None) -> BaseAgent:
        if agent is None:
            return self._agent
        if isinstance(agent, str):
            return self.get_agent(agent)
        return check_agent(agent)

    def _open(
        self,
        session_id: str,
        agent: BaseAgent | str | None,
        *,
        ephemeral: bool,
        history: Sequence[Content] = (),
    ) -> _Live:
        resolved = self._resolve_agent(agent)
        with self._lock:
            live = self._sessions.get(session_id)
        if live is not None and not live.core.gate.closed:
            return live
        # The store is read with no lock held: a slow database delays only this
        # caller. Opening only reads: a turn another kernel left open is repaired by
        # the next turn here, once its lease proves that kernel gone (RecordKeeper).
        record = open_record(self.store, self.app_name, self.user_id, session_id)
        for event in contents_to_events(history, author=resolved.name, invocation_id="history"):
            self.store.append_event(record, event)
        core = SessionCore(self._services, record, resolved, ephemeral=ephemeral)
        with self._lock:
            live = self._sessions.get(session_id)
            if live is not None and not live.core.gate.closed:
                return live  # another thread opened it meanwhile: one live session per id
            live = _Live(AgentSession(core), core)
            self._sessions[session_id] = live
            return live

    def _live_core(self, session_id: str) -> SessionCore:
        """The runtime side of the live session ``session_id`` (opened if needed)."""
        self.get_or_create_session(session_id)
        with self._lock:
            return self._sessions[session_id].core

    def _busy_cores(self) -> list[SessionCore]:
        """Sessions running a turn now (hidden single-turn ones included)."""
        with self._lock:
            return [entry.core for entry in self._sessions.values() if entry.core.gate.busy]

    def hold_session(self, session_id: str, holder: str) -> None:
        """Record that ``holder`` (``"%%agent cells"``, ``"ChatWidget 1a2b"``) uses the
        session, for ``%agent sessions`` and for surfaces deciding whether to close it."""
        self._holders.add(session_id, holder)

    def release_session(self, session_id: str, holder: str) -> tuple[str, ...]:
        """``holder`` no longer uses the session; returns who still does."""
        return self._holders.remove(session_id, holder)

    def session_holders(self, session_id: str) -> tuple[str, ...]:
        return self._holders.of(session_id)

    def sessions(
        self, *, include_hidden: bool = False, include_stored: bool = False
    ) -> list[SessionInfo]:
        """Live and evicting sessions (hidden single-turn ones only on request).

        ``include_stored=True`` adds the sessions the store holds for this user
        that are not open here (from past kernels, or other kernels on a shared
        store), least recently updated first, with ``stored_only=True``.
        """
        with self._lock:
            live = [entry.core for entry in self._sessions.values()]
            evicting = self._evictions.sessions()
        infos = describe(live, evicting, include_hidden, self._models.pool.kv_of, self._holders.of)
        if include_stored:
            shown = {info.id for info in infos}
            ids = self.stored_session_ids()
            infos += stored_infos(self.store, self.app_name, self.user_id, ids, shown)
        return infos

    def stored_session_ids(self) -> list[str]:
        """Ids the store holds for this user (with SQLite: also from past kernels)."""
        ids = self.store.list_sessions(self.app_name, self.user_id)
        # Single-turn sessions of a kernel that died mid-turn are not the user's.
        return [i for i in ids if not is_single_turn_id(i)]

    def rewind_session(self, session_id: str, before_invocation_id: str) -> int:
        """`AgentSession.rewind` by id."""
        return self.get_or_create_session(session_id).rewind(before_invocation_id)

    def _evict_now(self, session: SessionCore) -> None:
        for key in session.cache_keys():  # the session's own and its agents' (id/name)
            self._models.pool.drop(key)
        if not self.store.persistent or session.ephemeral:
            self.store.delete_session(self.app_name, self.user_id, session.id)
            self._models.pool.delete_checkpoints(session.id)  # else kept: the next kernel resumes
        session.release()

    def close_session(self, session_id: str) -> None:
        """`AgentSession.close` by id; unknown ids are ignored."""
        with self._lock:
            live = self._sessions.get(session_id)
        if live is not None:
            live.core.close()

    def delete_session(self, session_id: str) -> None:
        """Cancel the session's turn; free history, KV cache (and its checkpoints) and state."""
        check_session_id(session_id)
        with self._lock:
            live = self._sessions.get(session_id)
        if live is not None:
            live.core.close()
        self._evictions.wait(session_id)
        self._holders.forget(session_id)
        self._models.pool.drop(session_id)
        self._models.kv_pool().delete_checkpoints(session_id)
        self.store.delete_session(self.app_name, self.user_id, session_id)

    def clear_all_sessions(self) -> None:
        """Delete every session of this user, synchronously (sign-out / clear data)."""
        with self._lock:
            ids = set(self._sessions) | self._evictions.ids()
        for session_id in ids:
            self.delete_session(session_id)
        self._models.kv_pool().delete_all_checkpoints()  # stored-only sessions' too
        self.store.clear_user(self.app_name, self.user_id)

    def _discard_ephemeral(self, core: SessionCore) -> None:
        with self._lock:
            self._forget(core)
        core.gate.close()
        self._evict_now(core)

    def _open_hidden(
        self, agent: BaseAgent | str | None, history: Sequence[Content]
    ) -> tuple[AgentSession, SessionCore]:
        self._check_running()
        live = self._open(new_single_turn_id(), agent, ephemeral=True, history=history)
        return live.session, live.core

    # -- memory ---------------------------------------------------------------

    def memory(self) -> dict[str, Any]:
        """Backend memory figures plus each session's history, KV and checkpoint bytes."""
        return self._models.kv_pool().figures(self.sessions())

    def trim_memory(self) -> int:
        """Drop the KV caches of idle sessions; returns bytes freed."""
        with self._lock:
            busy = [s.core for s in self._sessions.values() if s.core.gate.busy]
        return self._models.pool.trim(frozenset(key for core in busy for key in core.cache_keys()))

    # -- shutdown -------------------------------------------------------------

    @property
    def is_shut_down(self) -> bool:
        return self._shut_down

    def _check_running(self) -> None:
        if self._shut_down:
            raise RunnerShutDownError("this runner was shut down; use get_runner() for a new one")

    def shutdown(self) -> None:
        """Cancel every turn, stop the worker, release models and the store."""
        if self._shut_down:
            return
        self._shut_down = True
        with self._lock:
            sessions = [entry.core for entry in self._sessions.values()]
        for session in sessions:
            session.gate.close()
        deadline = time.monotonic() + 5
        for session in sessions:
            session.gate.join(timeout=max(0.0, deadline - time.monotonic()))
        self._worker.stop()
        # Its MCP servers end with it (``%agent mcp add``'s and those its turns used).
        close_toolsets([*servers_of(self), *self._toolsets])
        with self._lock:
            self._sessions.clear()
        self._models.pool.close()
        self._leases.close()
        self.store.close()

    def __repr__(self) -> str:
        return f"<AgentRunner model={self.model_label!r} sessions={len(self._sessions)}>"
