"""`InvocationContext`: the one object a turn's agents work on (ADK's ``invocation_context.py``).

A turn is one invocation. Everything its agents share lives in one `Turn`
(the invocation with its id and cancel token, the options, the backend and
its window, the ``temp:`` layer, the running usage and trace). Each agent
gets a frozen `InvocationContext` over it: `for_agent` names the agent,
`for_branch` starts a parallel branch (ADK's ``branch``, e.g. ``"par.a"``)
with a state layer of its own.

State, as an agent reads it, is a `Scope`:

* the root scope is the state as stored when the turn started (read before
  the turn, off the worker loop) plus every delta the turn's root events
  carried, ``temp:`` included (the invocation's ``temp:`` layer lives here
  and nowhere else); the store applies the same deltas, less ``temp:``, as it
  appends the events, so the two agree without a store read mid-turn;
* a branch scope is the state as it was when the branch started plus the
  branch's own writes, so a branch never sees a sibling's; the parallel agent
  merges the branches' writes in ``sub_agents`` order when all have ended;
* an `AgentTool` run gets a scope over its caller's state whose writes are
  handed back as the tool's state delta.

The context never holds a second copy of a session's data: history and
stored state are read through the callables the session hands in.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .._core.reply import Structured
from .._core.state import apply_delta
from .._core.trace import AgentStep
from .._core.types import Event, FinishReason, Usage
from .._core.window import Window
from ..backends import Backend, CancelToken
from .options import TurnOptions

if TYPE_CHECKING:
    from .agent_memory import AgentMemory
    from .approval import ApprovalPolicy, Approvals
    from .invocation import Invocation

__all__ = ["InvocationContext", "Scope", "Turn"]

E = TypeVar("E", bound=Event)


class NamedAgent(Protocol):
    """What the context needs of an agent (the kinds live in `agents`, above it)."""

    @property
    def name(self) -> str: ...


class Scope:
    """The state one agent reads: a base plus the writes the loop applied to it."""

    def __init__(self, base: Callable[[], dict[str, Any]]) -> None:
        self._base = base
        self.writes: dict[str, Any] = {}

    @classmethod
    def frozen(cls, state: Mapping[str, Any]) -> Scope:
        """A scope over a copy of ``state`` as it is now."""
        kept = copy.deepcopy(dict(state))
        return cls(lambda: copy.deepcopy(kept))

    def view(self) -> dict[str, Any]:
        return apply_delta(self._base(), self.writes)  # a None write deletes the key

    def apply(self, delta: Mapping[str, Any]) -> None:
        self.writes.update(delta)

    def child(self, *, snapshot: bool) -> Scope:
        """A layer over this one: frozen at this moment (a branch) or live (an AgentTool)."""
        return Scope.frozen(self.view()) if snapshot else Scope(self.view)


@dataclasses.dataclass
class Turn:
    """What every agent of one invocation shares (one per turn, mutable)."""

    invocation: Invocation | None  # None: a preview of the next request (a rewind)
    options: TurnOptions
    session_id: str
    user_id: str
    app_name: str
    session_agent: str  # the session's own agent: it keeps the session id as cache key
    tree: bool  # more than one agent: per-agent views and cache keys
    history: Callable[[], list[Event]]
    state: Mapping[str, Any]  # as stored when the turn started (the root scope's base)
    backend_for: Callable[[str | Backend | None], Backend]
    memory: AgentMemory
    window: int | None = None
    user_content: str = ""
    usage: Usage = dataclasses.field(default_factory=Usage)
    finish: FinishReason = "stop"
    max_tokens: int | None = None  # the latest model call's limit (names a "length" finish)
    steps: list[AgentStep] = dataclasses.field(default_factory=list)
    prefit: Window | None = None  # the root agent's first request, fitted before recording
    #: Final messages under an output schema, by event id (`Reply.parsed` takes the last recorded)
    structured: dict[str, Structured] = dataclasses.field(default_factory=dict)
    #: What happens to a call of a tool that needs approval (`agent_nb._runtime.approval`)
    approve_tools: ApprovalPolicy = "ask"
    #: The calls waiting for approval (set when the turn runs; None in a preview)
    approvals: Approvals | None = None
    _backend: Backend | None = None

    @property
    def backend(self) -> Backend:
        """The turn's backend, resolved on first use (a bad spec fails inside the turn)."""
        if self._backend is None:
            self._backend = self.backend_for(self.options.model)
        return self._backend

    def preset_backend(self, backend: Backend | None) -> None:
        """The backend the front door already resolved for ``options.model`` (None: resolve
        on first use), so a turn resolves its model once."""
        self._backend = backend

    def add_usage(self, usage: Usage, finish: FinishReason, max_tokens: int | None) -> None:
        self.usage = self.usage + usage
        self.max_tokens = max_tokens
        if self.finish != "cancelled":
            self.finish = finish


@dataclasses.dataclass(frozen=True)
class InvocationContext:
    """One agent's view of its invocation (see the module docstring)."""

    turn: Turn
    agent: NamedAgent
    scope: Scope
    layers: dict[str | None, Scope]  # this loop's scopes by event branch (None: its root)
    history: Callable[[], list[Event]]
    branch: str | None = None
    #: Inside an `AgentTool` run the user approved: its tools run without asking again
    approved_run: bool = False

    @classmethod
    def root(cls, turn: Turn, agent: NamedAgent) -> InvocationContext:
        scope = Scope.frozen(turn.state)
        return cls(turn, agent, scope, {None: scope}, turn.history)

    # -- copies ---------------------------------------------------------------

    def for_agent(self, agent: NamedAgent) -> InvocationContext:
        return dataclasses.replace(self, agent=agent)

    def for_branch(self, name: str) -> InvocationContext:
        """A parallel branch (ADK's naming: ``par.a``, nested ``par.a.inner.b``)."""
        branch = name if self.branch is None else f"{self.branch}.{name}"
        scope = self.scope.child(snapshot=True)
        self.layers[branch] = scope
        return dataclasses.replace(self, branch=branch, scope=scope)

    def for_tool_run(
        self, agent: NamedAgent, history: Callable[[], list[Event]], *, approved: bool = False
    ) -> InvocationContext:
        """An `AgentTool`'s agent: its own history and loop, over the caller's state.
        ``approved``: the user approved the call of the `AgentTool` (it needs
        approval when a tool below it does), so its agent's tools run without
        asking again; else they ask as anywhere."""
        scope = self.scope.child(snapshot=False)
        approved = approved or self.approved_run
        return InvocationContext(
            self.turn, agent, scope, {None: scope}, history, None, approved_run=approved
        )

    # -- reads ----------------------------------------------------------------

    @property
    def invocation_id(self) -> str:
        invocation = self.turn.invocation
        return "" if invocation is None else invocation.invocation_id

    @property
    def cancel(self) -> CancelToken:
        invocation = self.turn.invocation
        return CancelToken() if invocation is None else invocation.cancel_token

    @property
    def cancelled(self) -> bool:
        invocation = self.turn.invocation
        return invocation is not None and invocation.cancelled

    @property
    def options(self) -> TurnOptions:
        return self.turn.options

    @property
    def backend(self) -> Backend:
        return self.turn.backend

    @property
    def window(self) -> int | None:
        return self.turn.window

    @property
    def session_id(self) -> str:
        return self.turn.session_id

    @property
    def user_id(self) -> str:
        return self.turn.user_id

    @property
    def app_name(self) -> str:
        return self.turn.app_name

    def state_view(self) -> dict[str, Any]:
        """The state this agent reads (a fresh dict, ``temp:`` included)."""
        return self.scope.view()

    def event(self, cls: type[E], **fields: Any) -> E:
        """An event of this agent, in this invocation and branch."""
        return cls(
            invocation_id=self.invocation_id, author=self.agent.name, branch=self.branch, **fields
        )
