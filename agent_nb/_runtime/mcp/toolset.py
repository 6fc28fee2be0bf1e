"""`McpToolset`: the tools of one MCP server, in an agent's ``tools`` (ADK's ``MCPToolset``).

A connection plus an optional filter, ADK's name and shape::

    McpToolset(command="npx", args=["-y", "@modelcontextprotocol/server-filesystem", path])
    McpToolset(url="http://127.0.0.1:8000/mcp", headers={"Authorization": "Bearer ..."})

The server starts on first use (the first turn that offers its tools, or
``%agent mcp add``), as a child process of the kernel with the kernel's
rights, and stays up between turns; `close` (a runner's shutdown, ``%agent
mcp remove``, interpreter exit) ends it. Each of its tools becomes a `Tool`
with the server's own JSON schema, so the grammar constrains the model's
arguments to it exactly as for a Python function.

* **Approval and replay** follow the server's ``readOnlyHint``: a read-only
  tool is pure (replay may answer a call to its agent) and runs without
  asking; any other tool needs the user's approval (``confirm``) and keeps
  its agent from being replayed.
* **Names**: an MCP name that is not a valid tool name (dots, too long)
  is made one (``_`` for each other character, cut to 64); the server is
  called with its own name. ``tool_name_prefix`` tells two servers' tools
  apart.
* Only the code that built the toolset chooses what runs: the model can call
  a listed tool with arguments the grammar allowed, never start a server.
"""

from __future__ import annotations

import asyncio
import os
import re
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..._core.tools import Tool
from ..._core.toolsets import Toolset
from ..._core.types import ToolSpec
from ...errors import ToolServerError
from .connection import Connection, ServerParams
from .loop import block_on, on_mcp_loop
from .results import result_payload

__all__ = ["DEFAULT_START_TIMEOUT", "DEFAULT_TIMEOUT", "McpToolset"]

#: Seconds a server has to answer each call.
DEFAULT_TIMEOUT = 30.0
#: Seconds a server has to start: its handshake and tool list.
DEFAULT_START_TIMEOUT = 60.0

ToolFilter = Iterable[str] | Callable[[str], bool]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_LAUNCHERS = {"npx", "uvx", "bunx", "pnpx", "python", "python3", "node", "deno", "bun", "uv",
              "pipx", "docker", "podman", "java", "ruby", "go", "dotnet", "sh", "bash"}  # fmt: skip


class McpToolset(Toolset):
    """The tools of one MCP server (see the module docstring).

    ``command`` and ``args`` start a server over stdio (``env`` adds
    environment variables to the few the SDK passes on; ``cwd`` its working
    folder); ``url`` reaches one over streamable HTTP (``headers`` go with
    every request). ``tool_filter`` is a list of tool names, or a function of
    a name returning True for the tools to keep. ``name`` labels the server
    (in traces, the widget, errors); by default it comes from the command or
    the URL. ``timeout`` bounds every call and ``start_timeout`` the start
    (the handshake and the tool list; ``npx`` may first download the
    server), in seconds.
    """

    def __init__(
        self,
        *,
        command: str | None = None,
        args: Iterable[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        tool_filter: ToolFilter | None = None,
        tool_name_prefix: str = "",
        name: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> None:
        if (command is None) == (url is None):
            raise ValueError(
                "McpToolset needs either command= (a server over stdio) or url= (streamable "
                "HTTP), not both"
            )
        for what, seconds in (("timeout", timeout), ("start_timeout", start_timeout)):
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
                raise ValueError(f"{what} must be a positive number of seconds, got {seconds!r}")
        times = (float(timeout), float(start_timeout))
        if not isinstance(tool_name_prefix, str):
            raise TypeError(
                f"tool_name_prefix must be a str, got {type(tool_name_prefix).__name__}"
            )
        if command is not None:
            params = _stdio(command, args, env, cwd, headers, name, times)
        else:
            params = _http(url, headers, env, args, name, times)
        self._params = params
        self._filter = _check_filter(tool_filter)
        self._prefix = tool_name_prefix
        self._starting: asyncio.Lock | None = None
        self._connection: Connection | None = None
        self._tools: tuple[Tool, ...] = ()
        self._listed = False
        self._error: str | None = None

    # -- what it is ---------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._params.name

    @property
    def where(self) -> str:
        """The command line or URL that reaches the server."""
        return self._params.where

    @property
    def transport(self) -> str:
        return "http" if self._params.url is not None else "stdio"

    @property
    def timeout(self) -> float:
        return self._params.timeout

    @property
    def tools(self) -> tuple[Tool, ...]:
        return self._tools

    @property
    def listed(self) -> bool:
        return self._listed

    @property
    def state(self) -> str:
        """``not started``, ``starting``, ``running``, ``stopped`` (it exited; the next
        turn starts it again), ``failed`` (see `error`) or ``closed``."""
        if self._error:
            return "failed"
        connection = self._connection
        return "not started" if connection is None else connection.state

    @property
    def error(self) -> str | None:
        """Why the latest start failed, in one line naming the server."""
        return self._error

    @property
    def settings(self) -> tuple[Any, ...]:
        """What reaches the server and picks its tools: two toolsets with the same
        settings are the same server (a re-run ``%agent mcp add`` keeps it)."""
        return (self._params, self._filter, self._prefix)

    def __repr__(self) -> str:
        return f"McpToolset(name={self.name!r}, {self.transport}: {self.where!r}, {self.state})"

    # -- start, list, close ----------------------------------------------------------

    async def get_tools(self) -> tuple[Tool, ...]:
        """Start the server if it is not running, and return its (filtered) tools."""
        return await on_mcp_loop(self._ensure())

    def start(self) -> tuple[Tool, ...]:
        """`get_tools` from plain (non-async) code: ``%agent mcp add`` checks a server so."""
        return block_on(self._ensure())

    async def _ensure(self) -> tuple[Tool, ...]:
        # Only ever run on the MCP loop: one start at a time, a second turn waits for it.
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            connection = self._connection
            if connection is not None and connection.state == "running":
                return self._tools
            fresh = self._connection = Connection(self._params)
            try:
                listing = await fresh.open()
                tools = self._as_tools(fresh, listing)
            except ToolServerError as exc:
                self._error = str(exc)
                await fresh.aclose()
                raise
            self._error = None
            self._tools = tools
            self._listed = True
            return tools

    def close(self) -> None:
        """End the server (it starts again on next use)."""
        connection = self._connection
        if connection is None or connection.state not in ("running", "starting"):
            return
        block_on(connection.aclose())

    async def aclose(self) -> None:
        connection = self._connection
        if connection is not None:
            await on_mcp_loop(connection.aclose())

    # -- tools ------------------------------------------------------------------------

    def _as_tools(self, connection: Connection, listing: list[Any]) -> tuple[Tool, ...]:
        offered = [t.name for t in listing]
        keep = self._filter
        if isinstance(keep, frozenset):
            missing = sorted(keep - set(offered))
            if missing:
                raise ToolServerError(
                    f"MCP server {self.name!r} has no tool {', '.join(map(repr, missing))}; "
                    f"it offers {offered}",
                    server=self.name,
                )
        tools: list[Tool] = []
        names: dict[str, str] = {}
        for mcp_tool in listing:
            if isinstance(keep, frozenset) and mcp_tool.name not in keep:
                continue
            if callable(keep) and not keep(mcp_tool.name):
                continue
            name = _tool_name(self._prefix + mcp_tool.name)
            if name in names:
                raise ToolServerError(
                    f"MCP server {self.name!r}: tools {names[name]!r} and {mcp_tool.name!r} both "
                    f"become {name!r}; leave one out with tool_filter",
                    server=self.name,
                )
            names[name] = mcp_tool.name
            tools.append(self._tool(connection, name, mcp_tool))
        return tuple(tools)

    def _tool(self, connection: Connection, name: str, mcp_tool: Any) -> Tool:
        server_name = mcp_tool.name
        annotations = mcp_tool.annotations
        read_only = bool(annotations is not None and annotations.read_only_hint is True)
        description = (mcp_tool.description or mcp_tool.title or server_name).strip()

        async def call(**arguments: Any) -> Any:
            result = await on_mcp_loop(connection.call(server_name, arguments))
            return result_payload(result)

        call.__name__ = name
        call.__doc__ = description
        schema = dict(mcp_tool.input_schema or {"type": "object", "properties": {}})
        spec = ToolSpec(name=name, description=description, parameters=schema)
        return Tool(
            func=call, spec=spec, context_param=None, pure=read_only, confirm=not read_only,
            server=self.name,
        )  # fmt: skip


def _stdio(
    command: str,
    args: Iterable[str],
    env: Mapping[str, str] | None,
    cwd: str | os.PathLike[str] | None,
    headers: Mapping[str, str] | None,
    name: str | None,
    times: tuple[float, float],
) -> ServerParams:
    if not isinstance(command, str) or not command.strip():
        raise ValueError(f"command must be a non-empty string, got {command!r}")
    if headers is not None:
        raise ValueError("headers= goes with url=; a stdio server takes env= instead")
    if isinstance(args, str):
        raise TypeError("args must be a list of strings (one per argument), not one str")
    args = tuple(args)
    if not all(isinstance(a, str) for a in args):
        raise TypeError("args must be a list of strings (one per argument)")
    checked_env = _str_map("env", env)
    folder = None if cwd is None else os.fspath(cwd)
    label = _check_name(name) if name is not None else _stdio_label(command, args)
    return ServerParams(label, *times, command=command, args=args, env=checked_env, cwd=folder)


def _http(
    url: str | None,
    headers: Mapping[str, str] | None,
    env: Mapping[str, str] | None,
    args: Iterable[str],
    name: str | None,
    times: tuple[float, float],
) -> ServerParams:
    if env is not None or tuple(args):
        raise ValueError("env= and args= go with command=; an HTTP server takes headers=")
    parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"url must be an http:// or https:// URL, got {url!r}")
    assert url is not None
    where = parts.hostname + (f"-{parts.port}" if parts.port else "")
    label = _check_name(name) if name is not None else re.sub(r"[^A-Za-z0-9_.-]", "_", where)
    return ServerParams(label, *times, url=url, headers=_str_map("headers", headers))


def _str_map(what: str, value: Mapping[str, str] | None) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise TypeError(f"{what} must be a dict of strings to strings")
    return dict(value)


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
        raise ValueError(f"a server name is 1 to 64 letters, digits, '_', '.' or '-', got {name!r}")
    return name


def _stdio_label(command: str, args: tuple[str, ...]) -> str:
    """A launcher (``npx``, ``python``) names its first non-option argument's package."""
    word = os.path.basename(command)
    if word in _LAUNCHERS:
        word = next((a for a in args if not a.startswith("-")), word)
    word = word.rsplit("/", 1)[-1].split("@", 1)[0] or word
    word = os.path.splitext(word)[0] if word.endswith((".py", ".js", ".ts", ".mjs")) else word
    return re.sub(r"[^A-Za-z0-9_.-]", "_", word)[:64] or "mcp"


def _tool_name(raw: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_-]", "_", raw)[:64]
    if not name or not (name[0].isalpha() or name[0] == "_"):
        name = ("_" + name)[:64]
    assert _NAME.fullmatch(name), name
    return name


def _check_filter(tool_filter: ToolFilter | None) -> frozenset[str] | Callable[[str], bool] | None:
    if tool_filter is None or callable(tool_filter):
        return tool_filter
    if isinstance(tool_filter, str):
        raise TypeError("tool_filter must be a list of tool names (or a function), not one str")
    names = frozenset(tool_filter)
    if not all(isinstance(n, str) for n in names):
        raise TypeError("tool_filter must be a list of tool names (or a function of a name)")
    return names
