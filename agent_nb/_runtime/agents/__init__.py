"""The agent kinds (ADK's ``agents/``): each is a value with one method,
``async def run(ctx)``, that yields events; the turn's one loop records them.
"""

from .agent_tool import AgentTool
from .base import BaseAgent, check_agent, check_agent_name, walk
from .callbacks import CallbackContext, ReadonlyContext
from .code_agent import CodeAgent
from .llm_agent import Agent
from .tool_calls import exit_loop, tool_result_payload
from .workflow import LoopAgent, ParallelAgent, SequentialAgent

__all__ = [
    "Agent",
    "AgentTool",
    "BaseAgent",
    "CallbackContext",
    "CodeAgent",
    "LoopAgent",
    "ParallelAgent",
    "ReadonlyContext",
    "SequentialAgent",
    "check_agent",
    "check_agent_name",
    "exit_loop",
    "tool_result_payload",
    "walk",
]
