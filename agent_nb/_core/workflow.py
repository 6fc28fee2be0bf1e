"""Workflow agents (ADK's names): several agents in one turn.

`SequentialAgent` runs its sub-agents in order, `ParallelAgent` runs them at
once (each branch sees the state as it was when the branch started plus its
own writes; afterwards the branches' writes are merged **in `sub_agents`
order**, so on a conflict the later-listed branch wins whatever finished
first), `LoopAgent` repeats them until a sub-agent escalates
(`ToolContext.escalate()`) or ``max_iterations`` is reached, and `CodeAgent`
is a step with no model. All of them are values: the runtime's turn engine
runs them (``agent_nb._runtime.agents``), with one invocation id and one
``temp:`` layer for the whole tree.

A tree is checked when it is built: names are identifiers and unique within
the tree (they label events and key per-agent KV caches), and no agent
contains itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeAlias

from .agent import Agent, check_agent_name
from .numbers import check_int

__all__ = [
    "AnyAgent",
    "CodeAgent",
    "LoopAgent",
    "ParallelAgent",
    "SequentialAgent",
    "check_agent",
    "is_agent",
    "walk",
]


@dataclasses.dataclass(frozen=True)
class CodeAgent:
    """A step with no model: ``fn(ctx)`` (sync or async) reads and writes
    ``ctx.state`` (a `ToolContext`'s, ``temp:`` included) and may return text,
    recorded as this agent's message."""

    name: str
    fn: Callable[..., Any]
    description: str = ""

    def __post_init__(self) -> None:
        check_agent_name(self.name)
        if not callable(self.fn):
            raise TypeError(
                f"CodeAgent fn must be a function fn(ctx), got {type(self.fn).__name__}"
            )

    @property
    def sub_agents(self) -> tuple[AnyAgent, ...]:
        return ()


@dataclasses.dataclass(frozen=True, init=False)
class _Workflow:
    name: str
    sub_agents: tuple[AnyAgent, ...]
    description: str

    def __init__(self, name: str, sub_agents: Iterable[AnyAgent], description: str = "") -> None:
        check_agent_name(name)
        if isinstance(sub_agents, (str, bytes)) or not isinstance(sub_agents, Iterable):
            raise TypeError(f"{type(self).__name__} sub_agents must be a list of agents")
        subs = tuple(sub_agents)
        if not subs:
            raise ValueError(f"{type(self).__name__} {name!r} needs at least one sub-agent")
        for sub in subs:
            if not is_agent(sub):
                raise TypeError(
                    f"{type(self).__name__} {name!r}: sub_agents must be Agent, SequentialAgent, "
                    f"ParallelAgent, LoopAgent, CodeAgent or DataAgent values, got "
                    f"{type(sub).__name__}"
                )
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "sub_agents", subs)
        object.__setattr__(self, "description", description)
        check_agent(self)


class SequentialAgent(_Workflow):
    """Run ``sub_agents`` one after another in the same invocation."""


class ParallelAgent(_Workflow):
    """Run ``sub_agents`` concurrently; their state writes merge in list order."""


@dataclasses.dataclass(frozen=True, init=False)
class LoopAgent(_Workflow):
    """Run ``sub_agents`` in order, again and again, until one escalates or
    ``max_iterations`` rounds have run."""

    max_iterations: int

    def __init__(
        self,
        name: str,
        sub_agents: Iterable[AnyAgent],
        max_iterations: int = 10,
        description: str = "",
    ) -> None:
        check_agent_name(name)
        checked = check_int(f"LoopAgent {name!r} max_iterations", max_iterations, low=1)
        object.__setattr__(self, "max_iterations", checked)
        super().__init__(name, sub_agents, description)


#: Any agent value the runtime can run (`DataAgent` is a `CodeAgent`).
AnyAgent: TypeAlias = "Agent | CodeAgent | SequentialAgent | ParallelAgent | LoopAgent"


def is_agent(value: object) -> bool:
    return isinstance(value, (Agent, CodeAgent, _Workflow))


def walk(agent: AnyAgent) -> Iterator[AnyAgent]:
    """Every agent of the tree, depth first (agents offered as tools included)."""
    yield agent
    for sub in agent.sub_agents:
        yield from walk(sub)


def check_agent(agent: object) -> AnyAgent:
    """``agent`` if it is a valid agent tree, else a clear error before anything runs."""
    if not is_agent(agent):
        raise TypeError(
            "expected an agent (Agent, SequentialAgent, ParallelAgent, LoopAgent, CodeAgent "
            f"or DataAgent), got {type(agent).__name__}"
        )
    root: str = agent.name  # type: ignore[attr-defined]
    seen: dict[str, int] = {}

    def visit(node: AnyAgent, path: tuple[int, ...]) -> None:
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
            if not is_agent(sub):
                raise TypeError(f"AgentTool needs an agent, got {type(sub).__name__}")
            visit(sub, (*path, id(node)))

    visit(agent, ())  # type: ignore[arg-type]
    return agent  # type: ignore[return-value]
