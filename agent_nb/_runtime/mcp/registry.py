"""`McpServers`: a runner's MCP servers by name (``%agent mcp add``, ``AgentMagics.mcp_servers``).

A name is how a cell asks for a server's tools (``%%agent --tools fs``) and
how ``%agent mcp list`` and ``remove`` find it. Adding a server starts it
unless told not to (servers from ``ipython_config.py`` start on first use),
so a command that is missing or a URL that does not answer fails the add, in
one line naming the server, and nothing is kept. Adding a name again with
the same command or URL keeps the running server (a re-run cell), with
another one replaces it. The runner closes every server here when it shuts
down.

A runner's servers are kept here, by runner (`servers_of`), not on the
runner: the runner's public surface stays the one documented, and a user's
own servers go in an agent's ``tools`` as `McpToolset` values.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..._core.toolsets import Toolset
from ...errors import ToolServerError
from .loop import CLOSE_SECONDS, block_on
from .toolset import McpToolset

__all__ = ["McpServers", "close_toolsets", "servers_of"]


class McpServers:
    """The named servers of one runner (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._servers: dict[str, McpToolset] = {}

    def add(self, toolset: McpToolset, *, start: bool = True) -> McpToolset:
        """Keep ``toolset`` under its name (started first when ``start``); the one kept."""
        if not isinstance(toolset, McpToolset):
            raise TypeError(f"expected an McpToolset, got {type(toolset).__name__}")
        with self._lock:
            old = self._servers.get(toolset.name)
        if old is not None and old.settings == toolset.settings and old.state != "failed":
            if start:
                old.start()
            return old
        if start:
            toolset.start()  # ToolServerError: nothing is kept
        with self._lock:
            old = self._servers.get(toolset.name)
            self._servers[toolset.name] = toolset
        if old is not None and old is not toolset:
            old.close()
        return toolset

    def get(self, name: str) -> McpToolset:
        with self._lock:
            found = self._servers.get(name)
        if found is None:
            raise ToolServerError(f"no MCP server named {name!r}; {self._known()}", server=name)
        return found

    def pick(self, names: Sequence[str]) -> list[McpToolset]:
        """The servers named, in order (``--tools fs,calc``)."""
        return [self.get(name) for name in names]

    def remove(self, name: str) -> None:
        """Close the server and forget its name."""
        with self._lock:
            found = self._servers.pop(name, None)
        if found is None:
            raise ToolServerError(f"no MCP server named {name!r}; {self._known()}", server=name)
        found.close()

    def names(self) -> list[str]:
        with self._lock:
            return list(self._servers)

    def __contains__(self, name: object) -> bool:
        with self._lock:
            return name in self._servers

    def __iter__(self) -> Iterator[McpToolset]:
        with self._lock:
            return iter(list(self._servers.values()))

    def __len__(self) -> int:
        with self._lock:
            return len(self._servers)

    def close_all(self) -> None:
        """Close every server (the runner's shutdown); the names stay."""
        close_toolsets(list(self))

    def _known(self) -> str:
        names = self.names()
        if not names:
            return "none is added yet (%agent mcp add NAME -- COMMAND ARGS... or NAME URL)"
        return f"added: {', '.join(names)}"


def close_toolsets(toolsets: Iterable[Toolset | Any]) -> None:
    """Close toolsets together (MCP servers end in parallel, each bounded)."""
    mcp: list[McpToolset] = []
    for toolset in toolsets:
        if isinstance(toolset, McpToolset):
            mcp.append(toolset)
        elif isinstance(toolset, Toolset):
            toolset.close()
    if not mcp:
        return

    async def close_all() -> None:
        await asyncio.gather(*(t.aclose() for t in mcp), return_exceptions=True)

    block_on(close_all(), timeout=CLOSE_SECONDS + 2)


_by_runner: weakref.WeakKeyDictionary[Any, McpServers] = weakref.WeakKeyDictionary()
_by_runner_lock = threading.Lock()


def servers_of(runner: Any) -> McpServers:
    """The named servers of ``runner`` (an `AgentRunner`), made on first use."""
    with _by_runner_lock:
        servers = _by_runner.get(runner)
        if servers is None:
            servers = _by_runner[runner] = McpServers()
        return servers
