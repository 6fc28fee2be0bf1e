"""One live MCP client session, held by a task on the MCP loop.

The official SDK (``mcp.Client``) speaks the protocol; this module only holds
its session open between turns and says, in one line naming the server, what
went wrong. The SDK's context managers (anyio task groups, the stdio child
process) must be entered and left by one task, so a connection is one task
(`Connection._serve`): it enters the client, lists the tools, hands them
over, and waits until it is told to close. Tool calls from other tasks use
the open session.

* **Start**: bounded by the server's ``start_timeout``; a server that never
  completes the handshake is cancelled (its process ended) and the error says
  so. A missing command, an unreachable URL and a refused handshake are each
  one line, with the server's last line on stderr where it wrote one.
* **A call**: bounded by its ``timeout`` (the SDK's request timeout,
  which also tells the server to cancel). A server that dies mid-call fails
  that call (`ToolServerError`; the turn makes it the tool's error result)
  and marks the connection stopped: the next turn starts it again.
* **Close**: the client is left (the SDK ends the server: stdin closed, then
  SIGTERM, then SIGKILL to its process group), bounded by `CLOSE_SECONDS`.

A server's stderr goes to a temporary file, not to the notebook: servers log
freely, and the cell is the user's.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import tempfile
from collections.abc import Mapping
from typing import Any, Literal

from ...errors import ToolServerError, ToolServerTimeoutError
from .loop import CLOSE_SECONDS, closed, opened

__all__ = ["Connection", "ServerParams", "State"]

State = Literal["not started", "starting", "running", "stopped", "failed", "closed"]

#: Pages of ``tools/list`` read at most (a paginator that never ends cannot hang a start).
_MAX_PAGES = 100


@dataclasses.dataclass(frozen=True)
class ServerParams:
    """How to reach one server: a command (stdio) or a URL (streamable HTTP)."""

    name: str
    timeout: float  # each call
    start_timeout: float  # the start: handshake and tool list
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] | None = None

    @property
    def where(self) -> str:
        """The command line or the URL, as the user wrote it."""
        if self.url is not None:
            return self.url
        return " ".join([self.command or "", *self.args])


class Connection:
    """One server's client session (see the module docstring)."""

    def __init__(self, params: ServerParams) -> None:
        self.params = params
        self.state: State = "starting"
        self.error: str | None = None
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._closing: asyncio.Event | None = None
        # Held open for the connection's life (closed when its task ends).
        self._stderr = tempfile.TemporaryFile(  # noqa: SIM115
            mode="w+", encoding="utf-8", errors="replace"
        )

    @property
    def name(self) -> str:
        return self.params.name

    # -- start ------------------------------------------------------------------

    async def open(self) -> list[Any]:
        """Start the server and list its tools (``mcp.types.Tool``); on the MCP loop."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[list[Any]] = loop.create_future()
        self._closing = asyncio.Event()
        self._task = loop.create_task(self._serve(ready), name=f"mcp:{self.name}")
        opened(self)
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.params.start_timeout)
        except asyncio.TimeoutError:
            message = (
                f"MCP server {self.name!r} did not finish starting within "
                f"{self.params.start_timeout:g} s ({self.params.where}){self._last_words()}"
            )
            await self._stop_task(cancel=True)
            self._fail(message)
            raise ToolServerTimeoutError(message, server=self.name) from None
        except BaseException:
            await self._stop_task(cancel=True)
            raise

    async def _serve(self, ready: asyncio.Future[list[Any]]) -> None:
        from mcp import Client
        from mcp.types import Implementation

        assert self._closing is not None
        try:
            async with contextlib.AsyncExitStack() as stack:
                transport = await self._transport(stack)
                client = Client(
                    transport,
                    read_timeout_seconds=self.params.start_timeout,
                    client_info=Implementation(name="agent_nb", version=_version()),
                )
                await stack.enter_async_context(client)
                tools = await _list_tools(client)
                self._client = client
                self.state = "running"
                ready.set_result(tools)
                await self._closing.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:  # every failure becomes the one line
            if not ready.done():
                self._fail(self._start_failure(exc))
                ready.set_exception(ToolServerError(self.error or "", server=self.name))
            elif self.state == "running":
                self.state = "stopped"
        finally:
            self._client = None
            if self.state == "running":
                self.state = "closed"
            self._stderr.close()
            closed(self)

    async def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        params = self.params
        if params.url is not None:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            # The SDK's defaults (30 s to connect, 300 s to read a held stream),
            # with the user's headers (a token, say).
            http = httpx2.AsyncClient(
                headers=dict(params.headers or {}), timeout=httpx2.Timeout(30.0, read=300.0)
            )
            await stack.enter_async_context(http)
            return streamable_http_client(params.url, http_client=http)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        server = StdioServerParameters(
            command=params.command or "", args=list(params.args),
            env=dict(params.env) if params.env is not None else None, cwd=params.cwd,
        )  # fmt: skip
        return stdio_client(server, errlog=self._stderr)

    def _start_failure(self, exc: BaseException) -> str:
        leaf = _leaf(exc)
        head = f"MCP server {self.name!r}"
        if isinstance(leaf, FileNotFoundError) and self.params.url is None:
            return (
                f"{head} could not start: no program {self.params.command!r} was found "
                "(install it, or give its full path)"
            )
        if isinstance(leaf, PermissionError) and self.params.url is None:
            return f"{head} could not start: {self.params.command!r} may not be run ({leaf})"
        if self.params.url is not None and _is_http_error(leaf):
            return f"{head} could not be reached at {self.params.url}: {_text(leaf)}"
        if _closed(leaf):
            return (
                f"{head} exited before completing the MCP handshake ({self.params.where})"
                f"{self._last_words()}"
            )
        return f"{head} refused the MCP handshake: {_text(leaf)}{self._last_words()}"

    def _fail(self, message: str) -> None:
        self.state = "failed"
        self.error = message

    def _last_words(self) -> str:
        """The server's last line on stderr, if it wrote one."""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.flush()
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 2000))
            lines = [ln.strip() for ln in self._stderr.read().splitlines() if ln.strip()]
            if lines:
                return f"; it said: {lines[-1][:300]}"
        return ""

    # -- calls ------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """Call ``tool``; the ``mcp.types.CallToolResult`` (on the MCP loop)."""
        from mcp import MCPError
        from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        client = self._client
        if client is None or self.state != "running":
            raise ToolServerError(
                f"MCP server {self.name!r} is {self.state}; run the cell again to restart it",
                server=self.name,
            )
        try:
            return await client.call_tool(tool, arguments, read_timeout_seconds=self.params.timeout)
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise ToolServerTimeoutError(
                    f"MCP server {self.name!r} did not answer {tool!r} within "
                    f"{self.params.timeout:g} s",
                    server=self.name,
                ) from exc
            if exc.code == CONNECTION_CLOSED:
                self._stopped()
                raise ToolServerError(
                    f"MCP server {self.name!r} stopped during the call to {tool!r}"
                    f"{self._last_words()}",
                    server=self.name,
                ) from exc
            raise ToolServerError(
                f"MCP server {self.name!r} failed the call to {tool!r}: {exc.message}",
                server=self.name,
            ) from exc
        except (OSError, EOFError) as exc:  # a transport that broke under the call
            self._stopped()
            raise ToolServerError(
                f"MCP server {self.name!r} stopped during the call to {tool!r}: {_text(exc)}",
                server=self.name,
            ) from exc

    def _stopped(self) -> None:
        """The server is gone: let the serving task clean up (the next turn restarts it)."""
        self.state = "stopped"
        if self._closing is not None:
            self._closing.set()

    # -- close ------------------------------------------------------------------

    async def aclose(self) -> None:
        """End the session and the server (on the MCP loop; bounded)."""
        starting = self.state == "starting"
        if self.state in ("running", "starting"):
            self.state = "closed"
        await self._stop_task(cancel=starting)

    async def _stop_task(self, *, cancel: bool = False) -> None:
        """Let the serving task leave the client (``cancel``: it is stuck in its
        handshake; cancelling still ends the process, the SDK's close is shielded)."""
        task = self._task
        if task is None or task.done():
            closed(self)
            return
        if self._closing is not None:
            self._closing.set()
        if cancel:
            task.cancel()
        done, _ = await asyncio.wait({task}, timeout=CLOSE_SECONDS)
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=CLOSE_SECONDS)
        closed(self)


async def _list_tools(client: Any) -> list[Any]:
    tools: list[Any] = []
    cursor = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside anyio's exception groups."""
    while True:
        inner = getattr(exc, "exceptions", None)
        if not inner:
            return exc
        real = [e for e in inner if not isinstance(e, asyncio.CancelledError)]
        exc = (real or inner)[0]


def _closed(exc: BaseException) -> bool:
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED


def _is_http_error(exc: BaseException) -> bool:
    module = type(exc).__module__
    return module.startswith(("httpx", "httpcore")) or isinstance(exc, OSError)


def _text(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agent_nb")
    except PackageNotFoundError:
        return "0"
