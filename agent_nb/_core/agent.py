"""`Agent`: a name, instructions (templated from state), tools and sampling.

`AgentTool` wraps any agent (a workflow agent too) so that a model that can
call tools calls it like a function; the runtime runs it with the caller's
state (``temp:`` included) and returns its final text as the tool result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from .numbers import check_int
from .state import check_state_key
from .tools import Tool, as_tool
from .types import GenerationConfig, ToolSpec
from .window import ContextPolicy, check_policy

__all__ = ["Agent", "AgentTool", "check_agent_name"]


def check_agent_name(name: object) -> str:
    """Agent names are Python identifiers (they label events, traces and cache keys)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"agent name must be a Python identifier, got {name!r}")
    return name


@dataclasses.dataclass(frozen=True)
class AgentTool:
    """An agent offered to a model as a tool (ADK's ``AgentTool``).

    The model passes one string, ``request``; the wrapped agent answers it in
    the same invocation with the caller's state (``temp:`` included), and its
    final text is the tool's result. Its own events are not added to the
    conversation (the caller's function call and response stand for them);
    ``%agent trace`` shows what it read and wrote.
    """

    agent: Any  # any agent value; checked by the runtime (no import cycle here)
    description: str = ""

    def __post_init__(self) -> None:
        name = getattr(self.agent, "name", None)
        if name is None:
            raise TypeError(f"AgentTool needs an agent, got {type(self.agent).__name__}")

    @property
    def name(self) -> str:
        return str(self.agent.name)

    def tool(self) -> Tool:
        about = (
            self.description
            or getattr(self.agent, "description", "")
            or (f"Ask the {self.name} agent; it answers in text.")
        )
        spec = ToolSpec(
            name=self.name,
            description=about,
            parameters={
                "type": "object",
                "properties": {"request": {"type": "string", "description": "what to ask"}},
                "required": ["request"],
            },
        )
        return Tool(func=_run_by_runtime, spec=spec, context_param=None, agent=self.agent)


def _run_by_runtime(**_: Any) -> Any:
    raise RuntimeError("an AgentTool is run by the turn engine, not called directly")


@dataclasses.dataclass(frozen=True, init=False)
class Agent:
    """What answers in a session.

    ``instructions`` may reference state, e.g. ``"Reply in {user:language}"``;
    ``max_turns`` bounds model<->tool rounds in one turn. ``context_policy``
    says what happens when the history outgrows the model's window:
    ``"window"`` leaves the oldest whole turns out of what the model is shown
    (history keeps them), ``"error"`` raises `ContextWindowError` (see `agent_nb._core.window`).
    """

    name: str
    instructions: str
    tools: tuple[Tool, ...]
    max_turns: int
    config: GenerationConfig
    context_policy: ContextPolicy
    output_key: str | None

    def __init__(
        self,
        name: str = "assistant",
        instructions: str = "",
        tools: Iterable[Callable[..., Any] | Tool | AgentTool] = (),
        max_turns: int = 10,
        config: GenerationConfig | None = None,
        context_policy: ContextPolicy = "window",
        output_key: str | None = None,
    ) -> None:
        check_agent_name(name)
        max_turns = check_int("max_turns", max_turns, low=1)
        if output_key is not None:
            check_state_key("output_key", output_key)
        built = tuple(t.tool() if isinstance(t, AgentTool) else as_tool(t) for t in tools)
        names = [t.name for t in built]
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique, got {names}")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "instructions", instructions)
        object.__setattr__(self, "tools", built)
        object.__setattr__(self, "max_turns", max_turns)
        object.__setattr__(self, "config", config or GenerationConfig())
        object.__setattr__(self, "context_policy", check_policy(context_policy))
        object.__setattr__(self, "output_key", output_key)

    @property
    def sub_agents(self) -> tuple[Any, ...]:
        """Agents this one may run: those it offers as tools."""
        return tuple(t.agent for t in self.tools if t.agent is not None)

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)
