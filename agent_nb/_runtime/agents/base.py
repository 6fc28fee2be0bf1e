"""`BaseAgent`: what every agent kind shares, as ADK's ``base_agent.py``.

An agent is a value (a name, a description, its sub-agents, two callbacks)
with one method to implement, ``async def run(ctx)``, an async generator of
events. Nothing here records or streams an event: the turn's one loop
(`agent_nb._runtime.engine`) consumes what the agents yield. `run_async` is
the template method the loop and the workflow agents call: it gives the agent
its own frozen context, honours a stop, and wraps `run` in the
``before_agent`` / ``after_agent`` callbacks (a callback that returns a value
replaces the agent's run, or adds a last message, as in ADK).

A tree is checked when it is built: names are identifiers and unique within
the tree (they label events and key per-agent KV caches), and no agent
contains itself.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from typing import TYPE_CHECKING, Any

from ..._core.types import TextMessage
from .callbacks import AgentCallback, CallbackContext, call_first, check_callbacks, replacement_text

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = ["BaseAgent", "check_agent", "check_agent_name", "walk"]


def check_agent_name(name: object) -> str:
    """Agent names are Python identifiers (they label events, traces and cache keys)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"agent name must be a Python identifier, got {name!r}")
    return name


class BaseAgent:
    """The base of every agent kind; subclasses implement `run`.

    Agents are immutable once built (they are shared by sessions and turns).
    """

    name: str
    description: str
    sub_agents: tuple[BaseAgent, ...]
    before_agent_callback: tuple[AgentCallback, ...]
    after_agent_callback: tuple[AgentCallback, ...]

    def __init__(
        self,
        name: str,
        *,
        description: str = "",
        sub_agents: tuple[BaseAgent, ...] = (),
        before_agent_callback: AgentCallback | list[AgentCallback] | None = None,
        after_agent_callback: AgentCallback | list[AgentCallback] | None = None,
    ) -> None:
        if not isinstance(description, str):
            raise TypeError(f"description must be a str, got {type(description).__name__}")
        self._set("name", check_agent_name(name))
        self._set("description", description)
        self._set("sub_agents", tuple(sub_agents))
        self._set(
            "before_agent_callback", check_callbacks("before_agent_callback", before_agent_callback)
        )
        self._set(
            "after_agent_callback", check_callbacks("after_agent_callback", after_agent_callback)
        )

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new one")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    async def run(self, ctx: InvocationContext) -> AsyncGenerator[Any, None]:
        """Yield this agent's events (ADK's ``_run_async_impl``)."""
        nothing: tuple[Any, ...] = ()
        for never in nothing:  # makes this an async generator (raising at its first step)
            yield never
        raise NotImplementedError(f"{type(self).__name__} must implement run(ctx)")

    async def run_async(self, parent: InvocationContext) -> AsyncGenerator[Any, None]:
        """Run this agent in ``parent``'s invocation: callbacks around `run`."""
        ctx = parent.for_agent(self)
        if ctx.cancelled:
            ctx.turn.finish = "cancelled"
            return
        if self.before_agent_callback:
            context = CallbackContext.of(ctx)
            value = await call_first(self.before_agent_callback, callback_context=context)
            if value is not None or context.state.delta:
                yield ctx.event(
                    TextMessage, text=replacement_text(value), state_delta=dict(context.state.delta)
                )
            if value is not None:
                return
        async for event in self.run(ctx):
            yield event
        if self.after_agent_callback and not ctx.cancelled:
            context = CallbackContext.of(ctx)
            value = await call_first(self.after_agent_callback, callback_context=context)
            if value is not None or context.state.delta:
                yield ctx.event(
                    TextMessage, text=replacement_text(value), state_delta=dict(context.state.delta)
                )


def walk(agent: BaseAgent) -> Iterator[BaseAgent]:
    """Every agent of the tree, depth first (agents offered as tools included)."""
    yield agent
    for sub in agent.sub_agents:
        yield from walk(sub)


def check_agent(agent: object) -> BaseAgent:
    """``agent`` if it is a valid agent tree, else a clear error before anything runs."""
    if not isinstance(agent, BaseAgent):
        raise TypeError(
            "expected an agent (Agent, SequentialAgent, ParallelAgent, LoopAgent, CodeAgent, "
            f"DataAgent or a BaseAgent subclass), got {type(agent).__name__}"
        )
    root = agent.name
    seen: dict[str, int] = {}

    def visit(node: BaseAgent, path: tuple[int, ...]) -> None:
        if id(node) in path:
            raise ValueError(f"agent {node.name!r} contains itself (a cycle in sub_agents)")
        if node.name in seen and seen[node.name] != id(node):
            raise ValueError(
                f"two different agents are named {node.name!r} in the tree of {root!r}; "
                "agent names must be unique within a tree (they label events and KV caches)"
            )
        if node.name in seen:
            raise ValueError(
                f"agent {node.name!r} appears twice in the tree of {root!r}; "
                "use a copy with another name"
            )
        seen[node.name] = id(node)
        for sub in node.sub_agents:
            if not isinstance(sub, BaseAgent):
                raise TypeError(f"sub-agents must be agents, got {type(sub).__name__}")
            visit(sub, (*path, id(node)))

    visit(agent, ())
    return agent
