"""`AgentSession`: a named multi-turn conversation, as a notebook user holds it.

It forwards the documented API to its `SessionCore` (the runtime side, which
records events and frees memory) and offers nothing that could break the
session when called from a notebook: no way to record an event, blank the
history or mark it closed without closing it. ``dir(session)`` is the API.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._core.branches import (
    Branch,
    Fork,
    TurnNode,
    branch_list,
    forks_on_path,
    turn_order,
    turn_tree,
)
from .._core.reply import Reply
from .._core.trace import InvocationTrace
from .._core.types import Content, Event, FunctionCall, GenerationConfig
from .._core.window import ContextPolicy, check_policy
from ..backends import Backend
from .agents import BaseAgent, check_agent
from .listeners import Listener
from .options import TurnOptions
from .session_core import SessionCore
from .stream import EventStream

__all__ = ["AgentSession"]


class AgentSession:
    """A named multi-turn conversation. Get one with `AgentRunner.get_or_create_session`."""

    __slots__ = ("__weakref__", "_core")

    def __init__(self, core: SessionCore) -> None:
        self._core = core

    # -- identity and views ---------------------------------------------------

    @property
    def id(self) -> str:
        return self._core.id

    @property
    def user_id(self) -> str:
        return self._core.keeper.user_id

    @property
    def agent(self) -> BaseAgent:
        """The agent this session's turns run (``get_or_create_session(id, agent=...)`` sets it)."""
        return self._core.agent

    @property
    def runner(self) -> Any:
        """The `AgentRunner` that hosts this session (typed Any: the runner sits
        above this module)."""
        return self._core.services.owner

    @property
    def closed(self) -> bool:
        return self._core.gate.closed

    @property
    def last_model(self) -> str | Backend | None:
        """The model spec (or backend) the latest turn in this kernel asked for;
        None: the runner's default, or no turn yet (what a widget's badge names)."""
        return self._core.last_model

    @property
    def busy(self) -> bool:
        return self._core.gate.busy

    @property
    def turns(self) -> int:
        """How many turns the history holds."""
        return self._core.keeper.turns

    @property
    def history(self) -> list[Event]:
        """Stored events of the active branch, oldest first (a new list each time)."""
        return self._core.keeper.history()

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
            events = events[-num_recent_events:] if num_recent_events else []
        return events

    @property
    def state(self) -> dict[str, Any]:
        """App, user and session state merged with prefixes (a deep copy)."""
        return self._core.keeper.state()

    def trace(self, invocation_id: str | None = None) -> InvocationTrace | None:
        """What each agent of a turn read and wrote in ``temp:``, session, ``user:`` and
        ``app:`` state (default: the active branch's latest turn). Stored with the
        turn, so it outlives the kernel and follows branches; None for a turn of one
        agent that touched no state (and for turns recorded before traces were stored)."""
        return self._core.trace(invocation_id)

    def invocations(self) -> list[str]:
        """Invocation ids of the active branch's turns, oldest first."""
        return self._core.keeper.invocations()

    def refresh(self) -> bool:
        """Reload from the store if another kernel changed the session since this
        one last read it (its turns, a rewind or a switch there); True if it did.
        One cheap read when nothing moved. Every turn does this by itself; a reader
        that shows the session (``%agent history``, a widget) calls it first."""
        return self._core.refresh()

    # -- branches ---------------------------------------------------------------

    @property
    def branch(self) -> int:
        """The active branch's number (1 until a rewind makes a second one)."""
        return self._core.keeper.branch_layout()[2]

    def branches(self) -> list[Branch]:
        """Every branch, by number: its turns, whether it is active, and how many
        of its first turns it shares with the active one. A rewind moves the
        turns it replaces to a new, highest-numbered branch; numbers never change."""
        parents, leaves, active = self._core.keeper.branch_layout()
        return branch_list(parents, leaves, active)

    def switch_branch(self, number: int) -> None:
        """Make branch ``number`` the active path: what the model sees next and
        what `history` returns. Session state is replayed along it; the KV cache
        keeps the longest prefix the two paths share. Nothing is lost: the branch
        left is still listed under its number. ``user:`` / ``app:`` state is
        shared with other sessions and stays as it is."""
        self._core.switch_branch(number)

    def tree(self) -> list[TurnNode]:
        """Every turn of every branch, in the order they began, each with its
        events, its parent turn and the branches that hold it."""
        parents, leaves, active = self._core.keeper.branch_layout()
        return turn_tree(self._core.keeper.tree(), parents, leaves, active)

    def forks(self) -> list[Fork]:
        """Where the active path took one of several alternative turns (a chat
        app's "‹ 1/2 ›"), with the branch each arrow switches to."""
        parents, leaves, active = self._core.keeper.branch_layout()
        return forks_on_path(turn_order(self._core.keeper.tree()), parents, leaves, active)

    def subscribe(self, on_event: Listener, on_reset: Listener | None = None) -> Callable[[], None]:
        """Call ``on_event(event)`` for every event of every turn (partials and a
        waiting turn's `Waiting` too), and ``on_reset(None)`` when history is
        rewound or the session closes. Callbacks run on the worker thread (a
        turn's first `Waiting` on the thread that started it). Returns an
        unsubscribe function."""
        return self._core.listeners.subscribe(on_event, on_reset)

    def __repr__(self) -> str:
        status = "closed" if self.closed else ("busy" if self.busy else "idle")
        return f"<AgentSession {self.id!r} turns={self.turns} {status}>"

    # -- turns --------------------------------------------------------------

    def run_async(
        self,
        content: str | Content,
        *,
        state_delta: Mapping[str, Any] | None = None,
        model: str | Backend | None = None,
        system: str | None = None,
        config: GenerationConfig | None = None,
        context_policy: ContextPolicy | None = None,
        agent: BaseAgent | None = None,
        turn_options: TurnOptions | None = None,
        replay: bool = False,
    ) -> EventStream:
        """Start a turn now; returns its `EventStream`.

        ``agent`` runs this turn instead of the session's agent (any agent: a
        `SequentialAgent` pipeline too).

        ``context_policy`` overrides the agent's for this turn (``"window"`` or
        ``"error"``); a turn that cannot fit the model's window fails with
        `ContextWindowError` before anything is sent or recorded.

        ``replay=True`` answers a model call identical to one answered before
        from the replay cache (`agent_nb._runtime.replay`; notebook turns do
        by default, Python turns only when asked).

        ``turn_options`` is how a cell or widget hands its settings, decided
        whole (`agent_nb._runtime.turn_settings.turn_options`); the other
        keywords are then ignored.
        """
        if turn_options is not None:  # a cell's or widget's settings, decided whole
            if turn_options.context_policy is not None:
                check_policy(turn_options.context_policy)
            if turn_options.agent is not None:
                check_agent(turn_options.agent)
            return self._core.start_turn(content, state_delta, turn_options)
        if context_policy is not None:
            check_policy(context_policy)
        options = TurnOptions(
            model=model,
            system=system,
            config=config,
            context_policy=context_policy,
            agent=None if agent is None else check_agent(agent),
            replay=replay,
        )
        return self._core.start_turn(content, state_delta, options)

    def run(self, content: str | Content, **kwargs: Any) -> Reply:
        """Run a turn and wait for it (sync). Ctrl-C / kernel interrupt cancels it."""
        return self._core.wait(self.run_async(content, **kwargs))

    def cancel(self) -> None:
        """Cancel the running turn, if any; returns at once. A call waiting for
        approval is answered as not run, and the turn is recorded as interrupted."""
        self._core.gate.cancel()

    # -- approval (`agent_nb._runtime.approval`) ----------------------------------

    @property
    def awaiting_approval(self) -> tuple[FunctionCall, ...]:
        """The tool calls the running turn waits on (empty when none waits);
        the same as the paused `Reply`'s ``awaiting_approval``."""
        return self._core.awaiting_approval

    def approve(self, call_id: str | None = None) -> Reply:
        """Run the waiting tool calls (or the one ``call_id`` names) and go on with
        the turn from where it paused, without asking the model again; returns the
        rest of the turn (which may pause again). ValueError if nothing waits."""
        return self._core.wait(self._core.answer(True, call_id))

    def deny(self, call_id: str | None = None) -> Reply:
        """Refuse the waiting tool calls (or one): each gets "denied by the user" as
        its result and the model goes on; returns the rest of the turn."""
        return self._core.wait(self._core.answer(False, call_id))

    def approve_async(self, call_id: str | None = None) -> EventStream:
        """`approve`, returning the rest of the turn as an `EventStream` at once."""
        return self._core.answer(True, call_id)

    def deny_async(self, call_id: str | None = None) -> EventStream:
        """`deny`, returning the rest of the turn as an `EventStream` at once."""
        return self._core.answer(False, call_id)

    def rewind(self, before_invocation_id: str) -> int:
        """Move the turn ``before_invocation_id`` and every later turn of the
        active branch to a new branch; the active path goes on from just before it.

        Nothing is deleted (`switch_branch` brings the turns back). Session
        state is replayed along the active path and the backend's KV cache is
        trimmed to match. Returns the new branch's number.
        """
        return self._core.rewind(before_invocation_id)

    # -- lifecycle ------------------------------------------------------------

    def close(self) -> None:
        """Return at once; cancel the turn and evict history and KV in the background."""
        self._core.close()

    def delete(self) -> None:
        """Cancel the turn and free everything before returning."""
        self._core.delete()

    def __enter__(self) -> AgentSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
