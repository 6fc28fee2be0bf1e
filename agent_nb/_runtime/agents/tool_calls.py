"""Running the tools a model asked for, with ADK's tool callbacks.

A tool's failure is data for the model (``{"error": ...}``), never a crash
of the turn. ``before_tool_callback`` may answer for the tool, and
``after_tool_callback`` may replace its result (see `callbacks`). A tool
that escalates (``tool_context.escalate()``) marks its response so that the
enclosing `LoopAgent` stops once this agent has finished: the model is asked
again and gives its answer first, as in ADK. A tool that sets
``tool_context.skip_summarization`` (`exit_loop` does, as ADK's) ends the
agent's run after its response, with no further model call. A tool that needs
approval is asked about before anything else (`agent_nb._runtime.approval`):
the user approves the call the model made, before any callback can change it.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from typing import TYPE_CHECKING, Any

from ..._core.approvals import DENIED, READ_ONLY_DENIED
from ..._core.state import State
from ..._core.tools import Tool, ToolContext
from ..._core.types import FunctionCall
from ...backends import ToolCallChunk
from ..approval import Decision, decide
from .callbacks import CallbackContext, call_first
from .spec import ModelAgentSpec

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = [
    "ToolOutcome",
    "approval_for",
    "exit_loop",
    "run_tool",
    "tool_context",
    "tool_result_payload",
]


def exit_loop(tool_context: ToolContext) -> dict[str, Any]:
    """Call this when the task is done and the loop should stop (ends the enclosing LoopAgent)."""
    tool_context.escalate()
    tool_context.skip_summarization = True  # ADK's exit_loop: the model is not asked again
    return {}


def tool_result_payload(result: Any) -> dict[str, Any]:
    """Tool results travel as JSON objects; anything else is wrapped or stringified."""
    payload = result if isinstance(result, dict) else {"result": result}
    try:
        json.dumps(payload)
        return copy.deepcopy(payload)
    except (TypeError, ValueError):
        return {"result": repr(result)}


@dataclasses.dataclass
class ToolOutcome:
    """What one tool call gave: its response, the state it wrote, whether it
    escalated, and whether the agent ends after it (``skip_summarization``)."""

    response: dict[str, Any]
    delta: dict[str, Any] = dataclasses.field(default_factory=dict)
    escalate: bool = False
    skip_summarization: bool = False


def tool_context(ctx: InvocationContext, state: State) -> ToolContext:
    """What a tool (or a `CodeAgent`'s function) of ``ctx``'s agent sees."""
    return CallbackContext.of(ctx, state)  # the same fields; ADK's ToolContext extends it too


def approval_for(agent: ModelAgentSpec, ctx: InvocationContext, call: ToolCallChunk) -> Decision:
    """Whether the call runs, waits for the user's approval, or is refused (the policy)."""
    tool = agent.tool(call.name)
    if call.error is not None or tool is None:
        return "run"  # it gets its error result; nothing runs
    return decide(tool, ctx.turn.approve_tools, approved_run=ctx.approved_run)


async def run_tool(
    agent: ModelAgentSpec,
    ctx: InvocationContext,
    call: ToolCallChunk,
    reads: set[str],
    decision: Decision = "run",
    asked: FunctionCall | None = None,
) -> ToolOutcome:
    """Run one tool the model called (an `AgentTool` runs its agent). ``decision``
    (`approval_for`) comes first: a call that must ask waits for the answer to
    ``asked``, its recorded `FunctionCall`, before any callback or the tool runs."""
    if call.error is not None:
        return ToolOutcome({"error": call.error})
    tool = agent.tool(call.name)
    if tool is None:
        names = ", ".join(t.name for t in agent.tools) or "none"
        return ToolOutcome({"error": f"unknown tool {call.name!r}; available tools: {names}"})
    if decision == "deny":
        return ToolOutcome(dict(READ_ONLY_DENIED))
    if decision == "ask":
        approvals = ctx.turn.approvals
        if approvals is None or asked is None or not await approvals.ask(asked):
            return ToolOutcome(dict(DENIED))
    delta: dict[str, Any] = {}
    context = tool_context(ctx, State(ctx.state_view(), delta, reads))
    args = dict(call.args)
    result = await call_first(
        agent.before_tool_callback, tool=tool, args=args, tool_context=context
    )
    if result is None:
        try:
            result = await _call(tool, args, context, ctx, approved=decision == "ask")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the model sees the failure and may recover
            result = {"error": f"{type(exc).__name__}: {exc}"}
    payload = tool_result_payload(result)
    replaced = await call_first(
        agent.after_tool_callback, tool=tool, args=args, tool_context=context, tool_response=payload
    )
    if replaced is not None:
        payload = tool_result_payload(replaced)
    return ToolOutcome(payload, delta, context.escalated, context.skip_summarization)


async def _call(
    tool: Tool, args: dict[str, Any], context: ToolContext, ctx: InvocationContext, approved: bool
) -> Any:
    if tool.agent is not None:
        from .agent_tool import run_agent_tool

        return await run_agent_tool(tool.agent, args, context, ctx, approved=approved)
    return await tool.call(args, context)
