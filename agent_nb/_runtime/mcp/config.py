"""The ``mcpServers`` format of Claude Desktop, VS Code and Cursor, read as `McpToolset`s.

So an existing configuration can be pasted into ``ipython_config.py``::

    c.AgentMagics.mcp_servers = {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
        "search": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer x"}},
    }

Each entry is ``command`` / ``args`` / ``env`` / ``cwd`` (stdio) or ``url`` /
``headers`` (streamable HTTP); ``type`` (VS Code: ``"stdio"``, ``"http"``),
``timeout`` (seconds per call), ``start_timeout`` (seconds for the start: a
server that fetches its package on first use needs more) and ``disabled`` are
read too. The whole file's object
(``{"mcpServers": {...}}``, VS Code's ``{"servers": {...}}``) may be given
as it is. Keys other clients keep for themselves (``alwaysAllow``,
``autoApprove``, ...) are ignored; any other key is an error that lists the
allowed ones, since a misspelt ``comand`` would otherwise start nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .toolset import DEFAULT_START_TIMEOUT, DEFAULT_TIMEOUT, McpToolset

__all__ = ["servers_from_config", "toolset_from_config"]

_READ = {"type", "command", "args", "env", "cwd", "url", "headers", "timeout", "start_timeout",
         "disabled"}  # fmt: skip
# Other clients' own settings, which say nothing about reaching the server.
_OTHERS = {"alwaysAllow", "autoApprove", "description", "gallery", "version", "transportType",
           "icon", "name", "title", "notes"}  # fmt: skip
_TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamableHttp": "http"}


def servers_from_config(
    config: Mapping[str, Any], *, timeout: float = DEFAULT_TIMEOUT
) -> list[McpToolset]:
    """The enabled servers of a ``mcpServers`` mapping (name -> entry), in order."""
    if not isinstance(config, Mapping):
        raise TypeError(f"mcp_servers must be a dict of server name -> entry, got {config!r}")
    for outer in ("mcpServers", "servers"):
        if set(config) == {outer} and isinstance(config[outer], Mapping):
            config = config[outer]
    toolsets = []
    for name, entry in config.items():
        if isinstance(entry, Mapping) and entry.get("disabled") is True:
            continue
        toolsets.append(toolset_from_config(name, entry, timeout=timeout))
    return toolsets


def toolset_from_config(
    name: str, entry: Mapping[str, Any], *, timeout: float = DEFAULT_TIMEOUT
) -> McpToolset:
    """One ``mcpServers`` entry (see the module docstring)."""
    where = f"mcp_servers[{name!r}]"
    if not isinstance(entry, Mapping):
        raise TypeError(f"{where} must be a dict (command/args/env or url/headers), got {entry!r}")
    unknown = sorted(set(entry) - _READ - _OTHERS)
    if unknown:
        raise ValueError(f"{where} has unknown keys {unknown}; allowed: {sorted(_READ)}")
    kind = entry.get("type")
    if kind is not None and kind not in _TYPES:
        hint = (
            "; the legacy SSE transport is not supported: use the server's streamable HTTP URL"
            if kind == "sse"
            else ""
        )
        raise ValueError(f"{where}: type must be one of {sorted(_TYPES)}, got {kind!r}{hint}")
    seconds = entry.get("timeout", timeout)
    start = entry.get("start_timeout", DEFAULT_START_TIMEOUT)
    try:
        if "url" in entry or _TYPES.get(kind or "") == "http":
            return McpToolset(
                url=entry.get("url"), headers=entry.get("headers"), name=name,
                timeout=seconds, start_timeout=start,
            )  # fmt: skip
        return McpToolset(
            command=entry.get("command"), args=entry.get("args") or (), env=entry.get("env"),
            cwd=entry.get("cwd"), name=name, timeout=seconds, start_timeout=start,
        )  # fmt: skip
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where}: {exc}") from exc
