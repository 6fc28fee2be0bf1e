"""Tools from MCP servers, on the official ``mcp`` SDK (imported only when a server starts).

`McpToolset` is one server's tools in an agent's ``tools``; `McpServers` a
runner's servers by name (`servers_of`); `toolset_from_config` reads the ``mcpServers``
format of Claude Desktop and VS Code. The client sessions live on one MCP
thread (`loop`) and are closed with the runner or at interpreter exit.
"""

from __future__ import annotations

from .config import servers_from_config, toolset_from_config
from .registry import McpServers, close_toolsets, servers_of
from .toolset import DEFAULT_TIMEOUT, McpToolset

__all__ = [
    "DEFAULT_TIMEOUT",
    "McpServers",
    "McpToolset",
    "close_toolsets",
    "servers_from_config",
    "servers_of",
    "toolset_from_config",
]
