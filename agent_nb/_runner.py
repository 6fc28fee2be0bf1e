"""`AgentRunner`: the kernel-scoped owner of sessions, agents, backends and the store.

``get_runner()`` hands out one runner per process (one kernel), created on
first use. Every runner still alive at interpreter exit -- the kernel's and
any made with ``AgentRunner()`` directly -- is shut down by an ``atexit``
hook, so its worker thread ends while Python can still run it, with or
without an explicit ``shutdown()``. Closing a session only flags it
and schedules the eviction on the worker loop, so ``close()`` returns in
microseconds whatever the history size; ``delete_session`` does the same work
but waits for it.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import dataclasses
import threading
import time
import uuid
import weakref
from collections.abc import Sequence
from typing import Any

from ._agent import Agent
from ._contexts import ConversationReference, DataAgentContext, InlineContext
from ._history import contents_to_events
from ._ids import check_session_id
from ._reply import Reply
from ._session import AgentSession
from ._stream import EventStream
from ._turn import close_unfinished_turn
from ._types import Content, GenerateContentRequest
from ._worker import Worker
from .backends import Backend, check_spec, resolve_backend
from .stores import SessionStore, resolve_store

__all__ = ["AgentRunner", "SessionInfo", "get_runner", "set_runner"]

DEFAULT_MODEL = "mlx:smollm2-135m"


@dataclasses.dataclass(frozen=True)
class SessionInfo:
    id: str
    user_id: str
    turns: int
    tokens: int
    history_bytes: int
    kv_bytes: int
    last_used: float
    closed: bool = False
    evicting: bool = False
    busy: bool = False


class AgentRunner:
    """Sessions by id on one model, with a default agent.

    ``model`` is a spec string (``"mlx:smollm2-135m"``, ``"openai:MODEL@URL"``,
    ``"scripted"``) or a `Backend`; it is resolved, and loaded, on first use.
    """

    def __init__(
        self,
        agent: Agent | None = None,
        *,
        model: str | Backend = DEFAULT_MODEL,
        store: str | SessionStore | None = None,
        user_id: str = "default",
        app_name: str = "agent_nb",
    ) -> None:
        if not isinstance(user_id, str) or not user_id:
            raise ValueError("user_id must be a non-empty string")
        check_spec(model)  # a typo fails here, not at the first turn
        self.agent = agent or Agent()
        self.user_id = user_id
        self.app_name = app_name
        self.store = resolve_store(store)
        self._model: str | Backend = model
        self._backends: dict[str, Backend] = {}
        self._agents: dict[str, Agent] = {self.agent.name: self.agent}
        self._lock = threading.RLock()
        self._sessions: dict[str, AgentSession] = {}
        self._evicting: dict[str, tuple[AgentSession, concurrent.futures.Future[None]]] = {}
        self._worker = Worker()
        self._shut_down = False
        _live_runners.add(self)

    # -- model ----------------------------------------------------------------

    @property
    def model(self) -> str | Backend:
        return self._model

    @model.setter
    def model(self, spec: str | Backend) -> None:
        self._backend(spec)  # fail now on a bad spec, not at the next turn
        self._model = spec

    def _backend(self, spec: str | Backend | None = None) -> Backend:
        spec = self._model if spec is None else spec
        if isinstance(spec, Backend):
            key = spec.spec or f"instance:{id(spec)}"
            with self._lock:
                if self._backends.get(key, spec) is not spec:
                    # Same spec, different settings (api key, timeout): keep both.
                    key = f"{key}#{id(spec)}"
                return self._backends.setdefault(key, spec)
        with self._lock:
            backend = self._backends.get(spec)
            if backend is None:
                backend = resolve_backend(spec)
                self._backends[spec] = backend
            return backend

    def check_model(self, spec: str | Backend) -> Backend:
        """Resolve ``spec`` now (raising `ModelNotFoundError` for a bad one) without
        making it the default; turns started with ``model=spec`` then reuse it."""
        return self._backend(spec)

    @property
    def backend(self) -> Backend:
        """The default model's backend (resolved now if needed)."""
        return self._backend()

    # -- agents ---------------------------------------------------------------

    def register_agent(self, agent: Agent) -> None:
        """Store an agent for `DataAgentContext(agent_name)` and per-session use."""
        if not isinstance(agent, Agent):
            raise TypeError(f"expected an Agent, got {type(agent).__name__}")
        with self._lock:
            self._agents[agent.name] = agent

    def get_agent(self, name: str) -> Agent:
        try:
            return self._agents[name]
        except KeyError:
            raise KeyError(
                f"no agent named {name!r}; registered: {sorted(self._agents)}. "
                "Call runner.register_agent(Agent(name=...)) first"
            ) from None

    # -- sessions -------------------------------------------------------------

    def get_or_create_session(
        self, session_id: str, *, agent: Agent | str | None = None
    ) -> AgentSession:
        """The live session with this id, else a resumed or new one."""
        check_session_id(session_id)
        self._check_running()
        with self._lock:
            live = self._sessions.get(session_id)
            if live is not None and not live.closed:
                if agent is not None:
                    live.agent = self._resolve_agent(agent)
                return live
            evicting = self._evicting.get(session_id)
        if evicting is not None and not self._worker.in_worker():
            # Never hand out a half-evicted session: wait for its eviction.
            evicting[1].result()
        return self._open(session_id, agent, ephemeral=False)

    def _resolve_agent(self, agent: Agent | str | None) -> Agent:
        if agent is None:
            return self.agent
        if isinstance(agent, str):
            return self.get_agent(agent)
        return agent

    def _open(
        self, session_id: str, agent: Agent | str | None, *, ephemeral: bool
    ) -> AgentSession:
        resolved = self._resolve_agent(agent)
        with self._lock:
            live = self._sessions.get(session_id)
            if live is not None and not live.closed:
                return live
            record = self.store.get_session(self.app_name, self.user_id, session_id)
            if record is None:
                record = self.store.create_session(self.app_name, self.user_id, session_id)
            elif self.store.persistent:
                close_unfinished_turn(self.store, record)
            session = AgentSession(self, record, resolved, ephemeral=ephemeral)
            self._sessions[session_id] = session
            return session

    def sessions(self, *, include_hidden: bool = False) -> list[SessionInfo]:
        """Live and evicting sessions (hidden single-turn ones only on request)."""
        with self._lock:
            live = list(self._sessions.values())
            evicting = [s for s, _ in self._evicting.values()]
        infos = []
        for session in live + evicting:
            if session.ephemeral and not include_hidden:
                continue
            infos.append(
                SessionInfo(
                    id=session.id,
                    user_id=session.user_id,
                    turns=session.turns,
                    tokens=session.tokens,
                    history_bytes=session.history_bytes(),
                    kv_bytes=self._kv_bytes(session.id),
                    last_used=session.last_used,
                    closed=session.closed,
                    evicting=session in evicting,
                    busy=session.busy,
                )
            )
        return infos

    def stored_session_ids(self) -> list[str]:
        """Ids the store holds for this user (with SQLite: also from past kernels)."""
        ids = self.store.list_sessions(self.app_name, self.user_id)
        # Single-turn sessions of a kernel that died mid-turn are not the user's.
        return [i for i in ids if not i.startswith("_st-")]

    def _kv_bytes(self, key: str) -> int:
        with self._lock:
            backends = list(self._backends.values())
        return sum(b.cache_bytes(key) for b in backends)

    def _drop_caches(self, key: str) -> None:
        with self._lock:
            backends = list(self._backends.values())
        for backend in backends:
            backend.drop_cache(key)

    def _after_rewind(self, session: AgentSession) -> None:
        from ._turn import build_request

        with self._lock:
            backends = [b for b in self._backends.values() if b.supports_prompt_cache]
        if not backends:
            return
        try:
            # Render with the options of the session's last turn, so the system
            # text matches and the common prefix survives the trim.
            request = build_request(session, session.agent, session.last_options, {})
        except Exception:  # e.g. instructions need a state key the rewind removed
            request = None
        for backend in backends:
            if request is None or not request.contents:
                backend.drop_cache(session.id)
                continue
            try:
                backend.rewind_cache(session.id, request)
            except Exception:  # history is already cut; a fresh cache is always correct
                backend.drop_cache(session.id)

    def rewind_session(self, session_id: str, before_invocation_id: str) -> int:
        """`AgentSession.rewind` by id."""
        return self.get_or_create_session(session_id).rewind(before_invocation_id)

    def _close_session(self, session: AgentSession) -> None:
        with self._lock:
            if session.closed:
                return
            turn = session._mark_closed()
            if self._sessions.get(session.id) is session:
                del self._sessions[session.id]
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            self._evicting[session.id] = (session, done)
        try:
            self._worker.submit(self._evict(session, turn, done))
        except RuntimeError:  # worker gone (shutdown): evict inline
            self._evict_now(session)
            done.set_result(None)

    async def _evict(
        self,
        session: AgentSession,
        turn: Any,
        done: concurrent.futures.Future[None],
    ) -> None:
        try:
            if turn is not None:
                await asyncio.wrap_future(turn.future)
        except BaseException:  # the turn's own failure was reported to its stream
            pass
        try:
            # Model work (freeing MLX buffers) must not stall other sessions'
            # streaming on this loop.
            await asyncio.to_thread(self._evict_now, session)
        finally:
            with self._lock:
                if self._evicting.get(session.id, (None,))[0] is session:
                    del self._evicting[session.id]
            done.set_result(None)

    def _evict_now(self, session: AgentSession) -> None:
        self._drop_caches(session.id)
        if not self.store.persistent or session.ephemeral:
            self.store.delete_session(self.app_name, self.user_id, session.id)
        session._notify(None)
        session._listeners.clear()
        # Let the history go now (the session object may live on in user code).
        session._record = dataclasses.replace(session._record, events=[], state={})

    def close_session(self, session_id: str) -> None:
        """`AgentSession.close` by id; unknown ids are ignored."""
        with self._lock:
            session = self._sessions.get(session_id)
        if session is not None:
            session.close()

    def delete_session(self, session_id: str) -> None:
        """Cancel the session's turn and free history, KV cache and state before returning."""
        check_session_id(session_id)
        with self._lock:
            session = self._sessions.get(session_id)
        if session is not None:
            session.close()
        with self._lock:
            evicting = self._evicting.get(session_id)
        if evicting is not None and not self._worker.in_worker():
            evicting[1].result()
        self._drop_caches(session_id)
        self.store.delete_session(self.app_name, self.user_id, session_id)

    def clear_all_sessions(self) -> None:
        """Delete every session of this user, synchronously (sign-out / clear data)."""
        with self._lock:
            ids = set(self._sessions) | set(self._evicting)
        for session_id in ids:
            self.delete_session(session_id)
        self.store.clear_user(self.app_name, self.user_id)

    # -- single turns, direct access, chat modes ----------------------------

    def _discard_ephemeral(self, session: AgentSession) -> None:
        with self._lock:
            if self._sessions.get(session.id) is session:
                del self._sessions[session.id]
        session._closed = True
        self._evict_now(session)

    def _ephemeral(
        self, agent: Agent | str | None = None, history: Sequence[Content] = ()
    ) -> AgentSession:
        session = self._open(f"_st-{uuid.uuid4()}", agent, ephemeral=True)
        if history:
            for event in contents_to_events(
                history, author=session.agent.name, invocation_id="history"
            ):
                self.store.append_event(session._record, event)
        return session

    def run_single_turn_async(self, content: str | Content, **kwargs: Any) -> EventStream:
        """A turn on a hidden temporary session that is removed when the turn ends."""
        self._check_running()
        session = self._ephemeral()
        try:
            return session.run_async(content, **kwargs)
        except BaseException:
            self._discard_ephemeral(session)
            raise

    def run_single_turn(self, content: str | Content, **kwargs: Any) -> Reply:
        return self._wait(self.run_single_turn_async(content, **kwargs))

    def generate_content_async(self, request: GenerateContentRequest) -> EventStream:
        """Direct model access: the caller supplies all history; nothing is stored."""
        from ._direct import start_direct

        if not isinstance(request, GenerateContentRequest):
            raise TypeError(
                f"expected a GenerateContentRequest, got {type(request).__name__}"
            )
        self._check_running()
        return start_direct(self, request)

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
        modes = [m for m in (conversation, data_agent, inline) if m is not None]
        if len(modes) != 1:
            raise ValueError(
                "chat() needs exactly one of conversation=ConversationReference(session_id), "
                "data_agent=DataAgentContext(agent_name) or inline=InlineContext(...); "
                f"got {len(modes)}"
            )
        if conversation is not None:
            if history is not None:
                raise ValueError(
                    "history= is for the stateless modes; in conversation mode the runner "
                    "keeps the history"
                )
            return self.get_or_create_session(conversation.session_id).run_async(message)
        if data_agent is not None:
            agent: Agent = self.get_agent(data_agent.agent_name)
        else:
            assert inline is not None
            agent = Agent(name="inline", instructions=inline.instructions, tools=inline.tools)
        session = self._ephemeral(agent, history or ())
        try:
            return session.run_async(message)
        except BaseException:
            self._discard_ephemeral(session)
            raise

    # -- waiting from sync code ------------------------------------------------

    def _wait(self, stream: EventStream) -> Reply:
        """Block for a turn; KeyboardInterrupt cancels it, waits for the record, re-raises."""
        try:
            while True:
                # Short waits keep the main thread responsive to Ctrl-C / kernel interrupts.
                try:
                    return stream.result(timeout=0.1)
                except concurrent.futures.TimeoutError:
                    continue
        except KeyboardInterrupt:
            stream.cancel()
            with contextlib.suppress(Exception):
                stream.result(timeout=10)
            raise

    # -- memory ---------------------------------------------------------------

    def memory(self) -> dict[str, Any]:
        """Backend memory figures plus each session's history and KV bytes."""
        with self._lock:
            backends = dict(self._backends)
        sessions = {
            info.id: {"history_bytes": info.history_bytes, "kv_bytes": info.kv_bytes}
            for info in self.sessions()
        }
        return {
            "backends": {spec: b.memory() for spec, b in backends.items()},
            "sessions": sessions,
            "kv_bytes_total": sum(s["kv_bytes"] for s in sessions.values()),
        }

    def trim_memory(self) -> int:
        """Drop the KV caches of idle sessions; returns bytes freed."""
        with self._lock:
            busy = frozenset(s.id for s in self._sessions.values() if s.busy)
            backends = list(self._backends.values())
        return sum(b.trim_memory(keep=busy) for b in backends)

    # -- shutdown -------------------------------------------------------------

    def _check_running(self) -> None:
        if self._shut_down:
            raise RuntimeError("this runner was shut down; use get_runner() for a new one")

    def shutdown(self) -> None:
        """Cancel every turn, stop the worker, release models and the store."""
        if self._shut_down:
            return
        self._shut_down = True
        with self._lock:
            sessions = list(self._sessions.values())
        for session in sessions:
            session._mark_closed()
        deadline = time.monotonic() + 5
        for session in sessions:
            turn = session._active
            if turn is not None:
                with contextlib.suppress(Exception):
                    turn.future.result(timeout=max(0.0, deadline - time.monotonic()))
        self._worker.stop()
        with self._lock:
            backends = list(self._backends.values())
            self._backends.clear()
            self._sessions.clear()
        for backend in backends:
            backend.close()
        self.store.close()

    def __repr__(self) -> str:
        model = self._model if isinstance(self._model, str) else type(self._model).__name__
        return f"<AgentRunner model={model!r} sessions={len(self._sessions)}>"


_runner: AgentRunner | None = None
_live_runners: weakref.WeakSet[AgentRunner] = weakref.WeakSet()
_runner_lock = threading.Lock()


def get_runner() -> AgentRunner:
    """The kernel-scoped runner, created on first use."""
    global _runner
    with _runner_lock:
        if _runner is None or _runner._shut_down:
            _runner = AgentRunner()
        return _runner


def set_runner(runner: AgentRunner) -> AgentRunner | None:
    """Replace the kernel-scoped runner; returns the previous one (not shut down)."""
    global _runner
    if not isinstance(runner, AgentRunner):
        raise TypeError(f"expected an AgentRunner, got {type(runner).__name__}")
    with _runner_lock:
        previous, _runner = _runner, runner
    return previous


@atexit.register
def _shutdown_at_exit() -> None:
    for runner in list(_live_runners):
        with contextlib.suppress(Exception):  # one failing runner must not keep others alive
            runner.shutdown()

