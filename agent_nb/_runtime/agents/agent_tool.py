"""`AgentTool`: an agent offered to a model as a tool (ADK's ``AgentTool``).

The model passes one string, ``request``; the wrapped agent answers it in the
same invocation with the caller's state (``temp:`` included), and its final
text is the tool's result. As in ADK, an agent with an ``input_schema`` takes
that schema's arguments instead: they are validated (a mismatch goes back to
the model as the tool's ``{"error": ...}``) and the agent is asked with their
JSON; an agent with an ``output_schema`` gives its validated JSON object as
the tool's response itself (``{"custom_output": ...}``; a value that is not
an object comes as ``{"result": value}``). Like ADK, which runs the agent on a runner of its
own, its events go through their own loop (the same `drive`), into a list
that is its history, not into the session: the caller's function call and
response stand for them. What it wrote to state is handed back with the
tool's response; ``%agent trace`` shows what it read and wrote. An agent
with a tool that needs approval below it needs approval itself, as a tool
(`agent_nb._runtime.approval`).
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from ..._core.reply import final_texts, last_structured
from ..._core.schemas import Schema
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
        answers = "in JSON" if _schema(self.agent, "output_spec") else "in text"
        about = (
            self.description
            or self.agent.description
            or f"Ask the {self.name} agent; it answers {answers}."
        )
        inputs = _schema(self.agent, "input_spec")
        spec = ToolSpec(
            name=self.name,
            description=about,
            parameters=dict(inputs.json_schema) if inputs is not None else _REQUEST,
        )
        acts = _acts(self.agent)
        return Tool(_run_by_runtime, spec, context_param=None, agent=self.agent, confirm=acts)


#: What the model passes by default: a request with something in it (a forced
#: call under ``tool_choice="required"`` would otherwise come back as ``""``).
_REQUEST = {
    "type": "object",
    "properties": {
        "request": {
            "type": "string",
            "description": "what to ask",
            "minLength": 1,
            "pattern": "\\S",
        },
    },
    "required": ["request"],
}


def _acts(agent: BaseAgent) -> bool:
    """A tool below ``agent`` needs approval, or may (a toolset lists its tools only
    when a turn runs): then calling the agent needs it, once (its run asks no
    more, `InvocationContext.for_tool_run`), and the call is recorded where every
    view of the session shows it waiting."""
    seen: set[int] = set()

    def acts(node: Any) -> bool:
        if id(node) in seen:
            return False
        seen.add(id(node))
        if getattr(node, "toolsets", ()) or any(t.confirm for t in getattr(node, "tools", ())):
            return True
        return any(acts(sub) for sub in getattr(node, "sub_agents", ()))

    return acts(agent)


def _schema(agent: BaseAgent, which: str) -> Schema | None:
    """A model agent's ``input_spec`` / ``output_spec`` (other kinds have none)."""
    found = getattr(agent, which, None)
    return found if isinstance(found, Schema) else None


def _question(agent: BaseAgent, args: dict[str, Any]) -> str | dict[str, Any]:
    """What ``agent`` is asked for the model's ``args``, or the tool's error result."""
    inputs = _schema(agent, "input_spec")
    if inputs is not None:
        try:
            value = inputs.validate(args)
        except ValueError as exc:
            return {"error": f"the arguments do not match {agent.name}'s input schema: {exc}"}
        return json.dumps(inputs.to_json(value), ensure_ascii=False)
    request = args.get("request")
    if not isinstance(request, str) or not request.strip():
        return {"error": "call this agent with {'request': 'what to ask'}"}
    return request


def _run_by_runtime(**_: Any) -> Any:
    raise RuntimeError("an AgentTool is run by the turn engine, not called directly")


async def run_agent_tool(
    agent: BaseAgent,
    args: dict[str, Any],
    context: ToolContext,
    ctx: InvocationContext,
    *,
    approved: bool = False,
) -> dict[str, Any]:
    """Run ``agent`` on ``args["request"]`` (or its input schema's arguments); its
    writes go to ``context.state``. ``approved``: the user approved this call."""
    request = _question(agent, args)
    if isinstance(request, dict):
        return request
    events: list[Event] = []
    question = TextMessage(text=request, author="user", invocation_id=ctx.invocation_id)
    inner = ctx.for_tool_run(agent, lambda: [question, *events], approved=approved)
    await drive(agent.run_async(inner), inner, Collect(events))
    for key, value in inner.scope.writes.items():
        context.state[key] = value
    structured = last_structured(events, ctx.turn.structured)
    if structured is not None and structured.author == agent.name:
        if structured.error is not None:
            return {
                "error": f"{agent.name}'s reply does not match its output schema: "
                f"{structured.error}"
            }
        data = structured.data  # JSON already; ADK: the object itself, else {"result": ...}
        return dict(data) if isinstance(data, dict) else {"result": data}
    texts = final_texts(events)
    return {"result": texts[-1] if texts else ""}
