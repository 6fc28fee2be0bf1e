"""The MCP thread: one daemon thread whose asyncio loop holds every MCP client session.

An MCP client session is a long-lived conversation with a server (a child
process over stdio, or an HTTP session), so it cannot live in a turn: it
outlives one, and several turns, sessions and runners may share it. It lives
on a loop of its own (a `Worker`, like the runner's), and callers reach it
from the worker loop (a tool call: `on_mcp_loop`) or the kernel's main
thread (``%agent mcp add``: `block_on`).

Every connection still open at interpreter exit is closed here, so a kernel
that shuts down or restarts leaves no server process behind (a runner's
``shutdown()`` closes its own earlier). The SDK's stdio transport starts
each server in a session of its own and, on close, ends its stdin, then
terminates the whole process group.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import time
from collections.abc import Coroutine
from typing import Any, Protocol, TypeVar

from ..worker import Worker

__all__ = ["CLOSE_SECONDS", "block_on", "closed", "on_mcp_loop", "opened"]

T = TypeVar("T")

#: The longest a close waits: the SDK gives a server 2 s to exit after its
#: stdin ends, then 2 s after SIGTERM before SIGKILL.
CLOSE_SECONDS = 8.0

_worker = Worker("agent_nb-mcp")


class _Closable(Protocol):
    async def aclose(self) -> None: ...


_open: set[_Closable] = set()
_open_lock = threading.Lock()


def opened(connection: _Closable) -> None:
    """``connection`` holds a server until it is `closed` (closed at exit if not)."""
    with _open_lock:
        _open.add(connection)


def closed(connection: _Closable) -> None:
    with _open_lock:
        _open.discard(connection)


async def on_mcp_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the MCP loop from any loop (cancelling this cancels it there)."""
    loop = _worker.loop
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


def block_on(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run ``coro`` on the MCP loop and wait for it on this (non-MCP) thread."""
    return _worker.run(coro, timeout)


@atexit.register
def _close_all_at_exit() -> None:
    with _open_lock:
        connections = list(_open)
    if not connections:
        return

    async def close_all() -> None:
        await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)

    deadline = time.monotonic() + CLOSE_SECONDS
    with contextlib.suppress(Exception):  # exit goes on whatever a server does
        block_on(close_all(), timeout=max(0.1, deadline - time.monotonic()))
