"""`AgentRunner`: the kernel-scoped registry of sessions and agents, and the public API.

``get_runner()`` hands out one runner per process (one kernel), created on
first use. Every runner still alive at interpreter exit -- the kernel's and
any made with ``AgentRunner()`` directly -- is shut down by an ``atexit``
hook, so its worker thread ends while Python can still run it, with or
without an explicit ``shutdown()``. Closing a session only flags it
and schedules the eviction on the worker loop, so ``close()`` returns in
microseconds whatever the history size; ``delete_session`` does the same work
but waits for it.

The runner is the `SessionHost` its sessions see; the backends it has
resolved live in a `BackendPool`, which owns everything keyed by a cache key.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .._core.contexts import ConversationReference, DataAgentContext, InlineContext, check_chat_mode
from .._core.history import contents_to_events
from .._core.ids import check_session_id, is_single_turn_id, new_single_turn_id
from .._core.reply import Reply
from .._core.types import Content, GenerateContentRequest
from ..backends import Backend, check_spec
from ..errors import RunnerShutDownError, SessionExistsError, UnknownAgentError
from ..stores import SessionStore, resolve_store
from .agents import Agent, AnyAgent, check_agent
from .direct import start_direct
from .eviction import Evictions
from .holders import Holders
from .leases import TurnLeases
from .pool import BackendPool, model_label
from .session import AgentSession
from .session_core import Lifecycle, SessionCore
from .session_info import SessionInfo
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
    """

    def __init__(
        self,
        agent: AnyAgent | None = None,
        *,
        model: str | Backend = DEFAULT_MODEL,
        store: str | SessionStore | None = None,
        user_id: str = "default",
        app_name: str = "agent_nb",
    ) -> None:
        if not isinstance(user_id, str) or not user_id:
            raise ValueError("user_id must be a non-empty string")
        check_spec(model)  # a typo fails here, not at the first turn
        self._agent: AnyAgent = check_agent(agent) if agent is not None else Agent()
        self._user_id = user_id
        self._app_name = app_name
        self._store = resolve_store(store)
        self._leases = TurnLeases(self._store)
        self._model: str | Backend = model
        self._pool = BackendPool()
        self._agents: dict[str, AnyAgent] = {self._agent.name: self._agent}
        self._lock = threading.RLock()
        self._sessions: dict[str, _Live] = {}
        self._lifecycle = Lifecycle(
            closing=self._session_closing,
            deleting=lambda core: self.delete_session(core.id),
            rewound=self._session_rewound,
            turn_finished=self._turn_finished,
        )
        self._worker = Worker()
        self._evictions = Evictions(self._worker, self._evict_now)
        self._holders = Holders()
        self._shut_down = False
        _live_runners.add(self)

    # -- identity -------------------------------------------------------------

    @property
    def agent(self) -> AnyAgent:
        """The default agent of new sessions."""
        return self._agent

    @property
    def user_id(self) -> str:
        return self._user_id

    @property
    def app_name(self) -> str:
        return self._app_name

    @property
    def store(self) -> SessionStore:
        """Where sessions are kept (``%config AgentMagics.store`` moves them to another)."""
        return self._store

    # -- what sessions see (SessionHost) ----------------------------------------

    @property
    def worker(self) -> Worker:
        return self._worker

    def backend_for(self, model: str | Backend | None) -> Backend:
        return self._pool.get(self._model if model is None else model)

    def wait(self, stream: EventStream) -> Reply:
        return wait_interruptibly(stream)

    # -- what sessions tell the runner (their Lifecycle) -------------------------

    def _forget(self, core: SessionCore) -> None:
        """Unregister ``core`` as live (call under the lock)."""
        live = self._sessions.get(core.id)
        if live is not None and live.core is core:
            del self._sessions[core.id]
            self._holders.forget(core.id)

    def _session_closing(self, core: SessionCore) -> None:
        with self._lock:
            if core.closed:
                return
            turn = core.mark_closed()
            self._forget(core)
            done = self._evictions.add(core)
        self._evictions.start(core, turn, done)

    def _session_rewound(
        self, core: SessionCore, build: Callable[[], GenerateContentRequest]
    ) -> None:
        self._pool.rewind(core.id, build)
        # The other agents of a tree: each cache trimmed to its own next request
        # (one that cannot be built, e.g. it needs a temp: key, is dropped).
        for key, agent in core.agent_caches().items():
            self._pool.rewind(key, functools.partial(core.rewind_request, agent))

    def _turn_finished(self, core: SessionCore) -> None:
        if core.ephemeral:
            self._discard_ephemeral(core)

    # -- model ----------------------------------------------------------------

    @property
    def model(self) -> str | Backend:
        return self._model

    @model.setter
    def model(self, spec: str | Backend) -> None:
        self._pool.get(spec)  # fail now on a bad spec, not at the next turn
        self._model = spec

    @property
    def model_label(self) -> str:
        """The default model as a person reads it (a spec string or a backend's name)."""
        return model_label(self._model)

    def check_model(self, spec: str | Backend) -> Backend:
        """Resolve ``spec`` now (raising `ModelNotFoundError` for a bad one) without
        making it the default; turns started with ``model=spec`` then reuse it."""
        return self._pool.get(spec)

    @property
    def backend(self) -> Backend:
        """The default model's backend (resolved now if needed)."""
        return self.backend_for(None)

    # -- agents ---------------------------------------------------------------

    def register_agent(self, agent: AnyAgent) -> None:
        """Store an agent (any kind) for `DataAgentContext(agent_name)` and per-session use."""
        check_agent(agent)
        with self._lock:
            self._agents[agent.name] = agent

    def get_agent(self, name: str) -> AnyAgent:
        try:
            return self._agents[name]
        except KeyError:
            raise UnknownAgentError(
                f"no agent named {name!r}; registered: {sorted(self._agents)}. "
                "Call runner.register_agent(Agent(name=...)) first"
            ) from None

    # -- sessions -------------------------------------------------------------

    def get_or_create_session(
        self, session_id: str, *, agent: AnyAgent | str | None = None
    ) -> AgentSession:
        """The live session with this id, else a resumed or new one."""
        check_session_id(session_id)
        self._check_running()
        with self._lock:
            live = self._sessions.get(session_id)
            if live is not None and not live.core.closed:
                if agent is not None:
                    live.core.agent = self._resolve_agent(agent)
                return live.session
        # Never hand out a half-evicted session: wait for its eviction.
        self._evictions.wait(session_id)
        return self._open(session_id, agent, ephemeral=False).session

    def _resolve_agent(self, agent: AnyAgent | str | None) -> AnyAgent:
        if agent is None:
            return self._agent
        if isinstance(agent, str):
            return self.get_agent(agent)
        return check_agent(agent)

    def _open(
        self,
        session_id: str,
        agent: AnyAgent | str | None,
        *,
        ephemeral: bool,
        history: Sequence[Content] = (),
    ) -> _Live:
        resolved = self._resolve_agent(agent)
        with self._lock:
            live = self._sessions.get(session_id)
            if live is not None and not live.core.closed:
                return live
            # Opening only reads: a turn another kernel left open is repaired by the
            # next turn here, once its lease proves that kernel gone (SessionCore).
            record = self.store.get_session(self.app_name, self.user_id, session_id)
            if record is None:
                try:
                    record = self.store.create_session(self.app_name, self.user_id, session_id)
                except SessionExistsError:  # another kernel created it a moment ago
                    record = self.store.get_session(self.app_name, self.user_id, session_id)
                    if record is None:
                        raise
            for event in contents_to_events(history, author=resolved.name, invocation_id="history"):
                self.store.append_event(record, event)
            core = SessionCore(
                self, self._lifecycle, record, resolved, leases=self._leases, ephemeral=ephemeral
            )
            live = _Live(AgentSession(core), core)
            self._sessions[session_id] = live
            return live

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
        infos = [
            SessionInfo.of(
                s,
                kv_bytes=self._kv_bytes(s),
                evicting=s in evicting,
                holders=self._holders.of(s.id) if s in live else (),
            )
            for s in live + evicting
            if include_hidden or not s.ephemeral
        ]
        if include_stored:
            shown = {info.id for info in infos}
            for session_id in self.stored_session_ids():
                if session_id in shown:
                    continue
                record = self.store.get_session(self.app_name, self.user_id, session_id)
                if record is not None:  # not deleted in the meantime
                    infos.append(SessionInfo.stored(record))
        return infos

    def stored_session_ids(self) -> list[str]:
        """Ids the store holds for this user (with SQLite: also from past kernels)."""
        ids = self.store.list_sessions(self.app_name, self.user_id)
        # Single-turn sessions of a kernel that died mid-turn are not the user's.
        return [i for i in ids if not is_single_turn_id(i)]

    def rewind_session(self, session_id: str, before_invocation_id: str) -> int:
        """`AgentSession.rewind` by id."""
        return self.get_or_create_session(session_id).rewind(before_invocation_id)

    def _kv_bytes(self, session: SessionCore) -> int:
        return sum(self._pool.kv_bytes(key) for key in session.cache_keys())

    def _evict_now(self, session: SessionCore) -> None:
        for key in session.cache_keys():  # the session's own and its agents' (id/name)
            self._pool.drop(key)
        if not self.store.persistent or session.ephemeral:
            self.store.delete_session(self.app_name, self.user_id, session.id)
        session.release()

    def close_session(self, session_id: str) -> None:
        """`AgentSession.close` by id; unknown ids are ignored."""
        with self._lock:
            live = self._sessions.get(session_id)
        if live is not None:
            live.core.close()

    def delete_session(self, session_id: str) -> None:
        """Cancel the session's turn and free history, KV cache and state before returning."""
        check_session_id(session_id)
        with self._lock:
            live = self._sessions.get(session_id)
        if live is not None:
            live.core.close()
        self._evictions.wait(session_id)
        self._holders.forget(session_id)
        self._pool.drop(session_id)
        self.store.delete_session(self.app_name, self.user_id, session_id)

    def clear_all_sessions(self) -> None:
        """Delete every session of this user, synchronously (sign-out / clear data)."""
        with self._lock:
            ids = set(self._sessions) | self._evictions.ids()
        for session_id in ids:
            self.delete_session(session_id)
        self.store.clear_user(self.app_name, self.user_id)

    # -- single turns, direct access, chat modes ----------------------------

    def _discard_ephemeral(self, core: SessionCore) -> None:
        with self._lock:
            self._forget(core)
        core.mark_closed()
        self._evict_now(core)

    def _run_ephemeral(
        self,
        content: str | Content,
        agent: AnyAgent | str | None = None,
        history: Sequence[Content] = (),
        **kwargs: Any,
    ) -> EventStream:
        live = self._open(new_single_turn_id(), agent, ephemeral=True, history=history)
        try:
            return live.session.run_async(content, **kwargs)
        except BaseException:
            self._discard_ephemeral(live.core)
            raise

    def run_single_turn_async(self, content: str | Content, **kwargs: Any) -> EventStream:
        """A turn on a hidden temporary session that is removed when the turn ends."""
        self._check_running()
        return self._run_ephemeral(content, **kwargs)

    def run_single_turn(self, content: str | Content, **kwargs: Any) -> Reply:
        return self.wait(self.run_single_turn_async(content, **kwargs))

    def generate_content_async(self, request: GenerateContentRequest) -> EventStream:
        """Direct model access: the caller supplies all history; nothing is stored."""
        if not isinstance(request, GenerateContentRequest):
            raise TypeError(f"expected a GenerateContentRequest, got {type(request).__name__}")
        self._check_running()
        return start_direct(self._worker, self.backend_for(None), request)

    def chat(
        self,
        message: str | Content,
        *,
        conversation: ConversationReference | None = None,
        data_agent: DataAgentContext | None = None,
        inline: InlineContext | None = None,
        history: Sequence[Content] | None = None,
    ) -> EventStream:
        """One message in exactly one of three modes (see the README table)."""
        check_chat_mode(conversation, data_agent, inline, history)
        if conversation is not None:
            return self.get_or_create_session(conversation.session_id).run_async(message)
        if data_agent is not None:
            agent: AnyAgent = self.get_agent(data_agent.agent_name)
        else:
            assert inline is not None
            agent = Agent(name="inline", instructions=inline.instructions, tools=inline.tools)
        return self._run_ephemeral(message, agent, history or ())

    # -- memory ---------------------------------------------------------------

    def memory(self) -> dict[str, Any]:
        """Backend memory figures plus each session's history and KV bytes."""
        sessions = {
            info.id: {"history_bytes": info.history_bytes, "kv_bytes": info.kv_bytes}
            for info in self.sessions()
        }
        return {
            "backends": self._pool.memory(),
            "sessions": sessions,
            "kv_bytes_total": sum(s["kv_bytes"] for s in sessions.values()),
        }

    def trim_memory(self) -> int:
        """Drop the KV caches of idle sessions; returns bytes freed."""
        with self._lock:
            busy = [s.core for s in self._sessions.values() if s.core.busy]
        return self._pool.trim(frozenset(key for core in busy for key in core.cache_keys()))

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
            session.mark_closed()
        deadline = time.monotonic() + 5
        for session in sessions:
            session.join(timeout=max(0.0, deadline - time.monotonic()))
        self._worker.stop()
        with self._lock:
            self._sessions.clear()
        self._pool.close()
        self._leases.close()
        self.store.close()

    def __repr__(self) -> str:
        return f"<AgentRunner model={self.model_label!r} sessions={len(self._sessions)}>"


#: Every runner not yet garbage-collected: all are shut down at interpreter exit.
_live_runners: weakref.WeakSet[AgentRunner] = weakref.WeakSet()


@atexit.register
def _shutdown_at_exit() -> None:
    for runner in list(_live_runners):
        with contextlib.suppress(Exception):  # one failing runner must not keep others alive
            runner.shutdown()
