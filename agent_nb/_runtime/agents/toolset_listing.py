"""Listing an agent tree's toolsets when a turn starts (ADK lists them per invocation).

Every toolset of every model agent in the tree is asked for its tools
together (`Toolset.get_tools`: an MCP server starts on first use), before the
first request is built, so the request, the grammar and replay's purity rule
all see them. Then each agent's tool names must still be unique, and a
``tool_choice`` naming a tool must name one of them. A failure here is a
`ToolServerError` raised before anything is recorded: the cell can be run
again as it is.
"""

from __future__ import annotations

import asyncio

from ...errors import ToolServerError
from .base import BaseAgent, walk
from .llm_agent import Agent

__all__ = ["list_toolsets"]

_CHOICES = ("auto", "required", "none")


async def list_toolsets(root: BaseAgent) -> None:
    """List the toolsets of ``root``'s tree and check each agent's tools (see above)."""
    agents = [a for a in walk(root) if isinstance(a, Agent) and a.toolsets]
    if not agents:
        return
    toolsets = list({id(t): t for a in agents for t in a.toolsets}.values())
    await asyncio.gather(*(t.get_tools() for t in toolsets))
    for agent in agents:
        _check(agent)


def _check(agent: Agent) -> None:
    owner: dict[str, str] = {}
    for tool in agent.tools:
        source = f"MCP server {tool.server!r}" if tool.server else "a Python tool"
        if tool.name in owner:
            raise ToolServerError(
                f"agent {agent.name!r} has two tools named {tool.name!r} ({owner[tool.name]} "
                f"and {source}); leave one out with McpToolset(tool_filter=...) or give one "
                "server a tool_name_prefix",
                server=tool.server or "",
            )
        owner[tool.name] = source
    choice = agent.tool_choice
    if choice not in _CHOICES and choice not in owner:
        raise ToolServerError(
            f"agent {agent.name!r}: tool_choice={choice!r} names no tool it has; its tools "
            f"are {sorted(owner)}"
        )
    if choice == "required" and not owner:
        raise ToolServerError(
            f"agent {agent.name!r}: tool_choice='required' but its servers list no tools"
        )
