"""`AgentTool`: an agent offered to a model as a tool (ADK's ``AgentTool``).

The model passes one string, ``request``; the wrapped agent answers it in the
same invocation with the caller's state (``temp:`` included), and its final
text is the tool's result. Like ADK, which runs the agent on a runner of its
own, its events go through their own loop (the same `drive`), into a list
that is its history, not into the session: the caller's function call and
response stand for them. What it wrote to state is handed back with the
tool's response; ``%agent trace`` shows what it read and wrote.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..._core.reply import final_texts
from ..._core.tools import Tool, ToolContext
from ..._core.types import Event, TextMessage, ToolSpec
from ..engine import Collect, drive
from .base import BaseAgent

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = ["AgentTool", "run_agent_tool"]


@dataclasses.dataclass(frozen=True)
class AgentTool:
    """An agent offered to a model as a tool; its spec's description is the
    agent's ``description`` (or this one's)."""

    agent: BaseAgent
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.agent, BaseAgent):
            raise TypeError(f"AgentTool needs an agent, got {type(self.agent).__name__}")

    @property
    def name(self) -> str:
        return self.agent.name

    def tool(self) -> Tool:
        about = (
            self.description
            or self.agent.description
            or f"Ask the {self.name} agent; it answers in text."
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


async def run_agent_tool(
    agent: BaseAgent, args: dict[str, Any], context: ToolContext, ctx: InvocationContext
) -> dict[str, Any]:
    """Run ``agent`` on ``args["request"]``; its writes go to ``context.state``."""
    request = args.get("request")
    if not isinstance(request, str) or not request.strip():
        return {"error": "call this agent with {'request': 'what to ask'}"}
    events: list[Event] = []
    question = TextMessage(text=request, author="user", invocation_id=ctx.invocation_id)
    inner = ctx.for_tool_run(agent, lambda: [question, *events])
    await drive(agent.run_async(inner), inner, Collect(events))
    for key, value in inner.scope.writes.items():
        context.state[key] = value
    texts = final_texts(events)
    return {"result": texts[-1] if texts else ""}
