"""The runtime as the notebook layer sees it: the one module `agent_nb._jupyter` imports
from `agent_nb._runtime` (the ``runtime-face`` import contract in ``pyproject.toml``).

A cell and a widget reach the runner through `TurnRequest` and `AgentRunner.start_turn`
(the front door), the kernel's one runner (`get_runner`), and the few values they show
or configure: sessions, the event stream a turn is read from, tool servers, origins of
turns, replay. Everything else in the runtime is its own business; a name the notebook
needs is added here, not imported from the module that defines it.
"""

from __future__ import annotations

from .front_door import TurnRequest, resolve_tools
from .kernel_runner import get_runner, set_runner
from .mcp import DEFAULT_TIMEOUT, McpServers, McpToolset, servers_from_config, servers_of
from .mcp.toolset import DEFAULT_START_TIMEOUT
from .origins import OTHER_KERNEL, follow_store, origin_of
from .pool import model_label
from .replay import replay_cache
from .runner import DEFAULT_MODEL, AgentRunner
from .session import AgentSession
from .session_info import SessionInfo
from .stream import EventStream
from .turn_settings import KernelSettings, TurnAsk

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_START_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "OTHER_KERNEL",
    "AgentRunner",
    "AgentSession",
    "EventStream",
    "KernelSettings",
    "McpServers",
    "McpToolset",
    "SessionInfo",
    "TurnAsk",
    "TurnRequest",
    "follow_store",
    "get_runner",
    "model_label",
    "origin_of",
    "replay_cache",
    "resolve_tools",
    "servers_from_config",
    "servers_of",
    "set_runner",
]
