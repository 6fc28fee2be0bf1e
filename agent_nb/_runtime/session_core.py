"""`SessionCore`: the runtime's side of one session, made of four parts.

A user holds an `AgentSession`; the runner, the eviction and the turn engine
hold this. It is composed of one part per responsibility, each in its own
module, and adds only what needs more than one of them (starting a turn,
moving the active path, closing):

* `RecordKeeper` (``keeper``): the stored record, its turn lease, its figures;
* `TurnGate` (``gate``): one turn at a time, none once closed;
* `Listeners` (``listeners``): who hears of recorded events (the widget);
* `AgentMemory` (``memory``): each agent's window cut, KV-cache keys, traces.

It knows its runner only as `SessionServices`, handed in at construction.
Everything that can break an invariant when called at the wrong time
(recording an event, freeing the history, marking the session closed)
lives here, out of a notebook user's reach.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .._core.branches import branch_list
from .._core.reply import Reply
from .._core.state import check_json_value
from .._core.trace import InvocationTrace
from .._core.types import (
    Content,
    Event,
    FunctionCall,
    GenerateContentRequest,
    Rewound,
    Role,
    TextMessage,
    TurnComplete,
)
from ..backends import Backend
from ..errors import SessionBusyError, SessionClosedError
from ..stores import SessionRecord
from .agent_memory import AgentMemory
from .agents import Agent, BaseAgent, check_agent
from .agents.requests import shown_request
from .approval import check_approve_tools
from .context import InvocationContext, Turn
from .engine import StreamSink
from .invocation import Invocation
from .listeners import Listeners
from .options import TurnOptions
from .record_keeper import RecordKeeper
from .services import SessionServices
from .stream import EventStream
from .turn import Prepare, run_turn
from .turn_gate import TurnGate

__all__ = ["SessionCore"]


class SessionCore:
    """One conversation, runtime side (see the module docstring)."""

    def __init__(
        self,
        services: SessionServices,
        record: SessionRecord,
        agent: BaseAgent,
        *,
        ephemeral: bool = False,
    ) -> None:
        self.services = services
        self.agent = check_agent(agent)
        self.ephemeral = ephemeral
        self.memory = AgentMemory()
        self.listeners = Listeners()
        self.gate = TurnGate(record.session_id)
        self.keeper = RecordKeeper(
            services.store, services.app_name, services.leases, record, self.memory.follow
        )
        self._last_options = TurnOptions()  # what the latest turn ran with (for rewinds)

    @property
    def id(self) -> str:
        return self.keeper.id

    @property
    def last_model(self) -> str | Backend | None:
        """The model the latest turn in this process asked for (None: the default)."""
        return self._last_options.model

    def cache_keys(self) -> list[str]:
        return self.memory.cache_keys(self.id)

    # -- turns ----------------------------------------------------------------

    def start_turn(
        self,
        content: str | Content,
        state_delta: Mapping[str, Any] | None,
        options: TurnOptions,
        *,
        backend: Backend | None = None,
        prepare: Prepare | None = None,
    ) -> EventStream:
        """Check the input, claim the gate and the lease, start the turn on the worker.

        ``backend``: the turn's backend, already resolved for ``options.model``.
        ``prepare(turn)`` runs on the worker before anything is recorded (the front
        door's window check and re-run rewind, `front_door`); what it raises ends
        the turn with nothing recorded."""
        text = _user_text(content)
        delta = dict(state_delta or {})
        for key, value in delta.items():
            check_json_value(key, value)
        invocation = self.gate.claim(self.services.worker)
        leased = False
        try:
            self.keeper.take_lease()  # SessionBusyError here: nothing was written
            leased = True
            agent = check_agent(options.agent or self.agent)
            if self.services.toolsets_used is not None:
                self.services.toolsets_used(agent)
            user_event = TextMessage(
                text=text,
                author="user",
                invocation_id=invocation.invocation_id,
                state_delta=copy.deepcopy(delta),
            )
            self._last_options = options
            sink = StreamSink(
                invocation.push, store=self.keeper.append, notify=self.listeners.notify
            )
            shared = self._turn(invocation, options, agent)
            shared.preset_backend(backend)
            turn = run_turn(
                shared,
                agent,
                user_event,
                sink,
                on_end=lambda: self._finish_turn(invocation),
                on_steps=self.memory.keep_trace,
                prepare=prepare,
            )
            return invocation.start(turn)
        except BaseException:
            if leased:
                self.keeper.give_back()
            self.gate.release(invocation)
            raise

    def _turn(self, invocation: Invocation | None, options: TurnOptions, agent: BaseAgent) -> Turn:
        """What the agents of one turn share (``invocation`` None: a preview, for rewinds).

        The stored state is read here, on the caller's thread, never on the
        worker loop mid-turn."""
        keeper = self.keeper
        return Turn(
            invocation=invocation,
            options=options,
            session_id=keeper.id,
            user_id=keeper.user_id,
            app_name=self.services.app_name,
            session_agent=self.agent.name,
            tree=not isinstance(agent, Agent) or bool(agent.sub_agents),
            history=keeper.history,
            state=keeper.state(),
            backend_for=self.services.backend_for,
            memory=self.memory,
            approve_tools=check_approve_tools(
                options.approve_tools or self.services.approve_tools()
            ),
        )

    def _finish_turn(self, turn: Invocation) -> None:
        """The turn recorded its last event: the session is free again."""
        self.keeper.give_back()
        self.gate.release(turn)
        self.services.turn_finished(self)

    def wait(self, stream: EventStream) -> Reply:
        return self.services.wait(stream)

    # -- approval -------------------------------------------------------------

    @property
    def awaiting_approval(self) -> tuple[FunctionCall, ...]:
        invocation = self.gate.active
        approvals = None if invocation is None else invocation.approvals
        return () if approvals is None else approvals.shown

    def answer(self, approved: bool, call_id: str | None) -> EventStream:
        """Answer the waiting calls (or one); the stream of the turn's next part."""
        if call_id is not None and not isinstance(call_id, str):
            raise TypeError(f"call_id must be a str or None, got {type(call_id).__name__}")
        invocation = self.gate.active
        approvals = None if invocation is None else invocation.approvals
        if invocation is None or approvals is None:
            raise ValueError(f"session {self.id!r} has no tool call waiting for approval")

        async def on_worker() -> EventStream:
            assert approvals is not None and invocation is not None
            approvals.answer(approved, call_id, self.id)
            stream = invocation.stream  # the part after the pause: the answer's
            approvals.pause_if_waiting()
            return stream

        return self.services.worker.run(on_worker())

    def trace(self, invocation_id: str | None = None) -> InvocationTrace | None:
        """What each agent of a turn read and wrote (default: the active branch's
        latest turn): this kernel's own record of it (full usage), else the one
        stored with the turn's `TurnComplete` (another kernel's, or before a restart)."""
        if invocation_id is None:
            turns = self.keeper.invocations()
            if not turns:
                return None
            invocation_id = turns[-1]
        kept = self.memory.kept_trace(invocation_id)
        if kept is not None:
            return kept
        for event in reversed(self.keeper.tree()):
            if isinstance(event, TurnComplete) and event.invocation_id == invocation_id:
                return InvocationTrace.from_dict(event.trace) if event.trace else None
        return None

    # -- the active path ------------------------------------------------------

    def refresh(self) -> bool:
        """Adopt the stored record if another kernel moved it; True if it did.
        Never during a turn here: that turn started from the latest record."""
        if self.ephemeral or self.gate.closed or self.gate.busy:
            return False
        try:
            with self.gate.idle("reload"):
                moved = self.keeper.refresh()
        except (SessionBusyError, SessionClosedError):
            return False  # a turn started or the session closed meanwhile
        if moved:
            self.listeners.notify(None)  # listeners (a widget) show the reloaded path
        return moved

    def rewind(self, before_invocation_id: str) -> int:
        """Move that turn and the later ones to a new branch; returns its number."""
        return self._change_path("rewind", lambda: self.keeper.rewind(before_invocation_id))

    def rewind_in_turn(self, turn: Turn, before_invocation_id: str) -> Rewound | None:
        """The running turn's re-run rewind (`TurnRequest.replaces`), from its
        `prepare` step: the turn holds the gate and the lease, so nothing else can
        move the path meanwhile. None when that turn is not on the active path
        (any more). Blocking store I/O: called off the worker loop."""
        if before_invocation_id not in self.keeper.invocations():
            return None
        branch = self.keeper.rewind(before_invocation_id)
        self.keeper.follow_path()
        turn.state = self.keeper.state()  # replayed along the new path
        self.services.rewound(self, self.rewind_request)
        self.listeners.notify(None)
        parents, leaves, active = self.keeper.branch_layout()
        moved = branch_list(parents, leaves, active)[branch - 1].own_turns
        return Rewound(
            moved_to=branch,
            turns=tuple(moved),
            shared_state=_shared_state_writes(self.keeper.tree(), set(moved)),
            invocation_id=turn.invocation.invocation_id if turn.invocation else "",
        )

    def switch_branch(self, number: int) -> None:
        self._change_path("switch branches", lambda: self.keeper.switch_branch(number))

    def _change_path(self, what: str, change: Any) -> Any:
        with self.gate.idle(what):
            # Like a turn: another kernel's running turn refuses it (SessionBusyError),
            # and it starts from the latest stored branches, not this kernel's copy.
            self.keeper.take_lease()
            try:
                result = change()
            finally:
                self.keeper.give_back()
                self.keeper.follow_path()
        # Render with the options of the session's last turn, so the system
        # text matches and the common prefix survives the cache trim; what the
        # next turn shows is the same sticky window cut.
        self.services.rewound(self, self.rewind_request)
        self.listeners.notify(None)
        return result

    def rewind_request(self, agent: Agent | None = None) -> GenerateContentRequest:
        """What the next turn would send, to trim a KV cache to (``agent``: another agent
        of a tree; a request that cannot be built any more drops that cache)."""
        options = self._last_options
        root = check_agent(options.agent or self.agent)
        if agent is None:
            own = root if isinstance(root, Agent) else self.agent
            if not isinstance(own, Agent):  # the pool drops a cache it cannot trim
                raise TypeError("no model agent of its own: nothing to trim")
            agent = own
        return shown_request(agent, InvocationContext.root(self._turn(None, options, root), agent))

    # -- lifecycle ------------------------------------------------------------

    def close(self) -> None:
        self.services.closing(self)

    def delete(self) -> None:
        self.services.deleting(self)

    def release(self) -> None:
        """Tell the listeners the session is gone and let its history go from
        memory now (the `AgentSession` may live on in user code)."""
        self.listeners.notify(None)
        self.listeners.clear()
        self.keeper.release()


def _shared_state_writes(events: list[Event], turns: set[str]) -> bool:
    """Whether any of ``turns`` wrote ``user:`` / ``app:`` state (shared with other
    sessions: a branch does not own it)."""
    return any(
        key.startswith(("user:", "app:"))
        for event in events
        if event.invocation_id in turns
        for key in event.state_delta
    )


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
