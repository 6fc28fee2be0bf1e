"""Real MCP servers for the tests, on this machine only: the demo server written with
the SDK's `MCPServer` (tests/mcp/demo_server.py) over stdio and over streamable HTTP
on a free 127.0.0.1 port, and the reference filesystem server from npm (installed
by ``.ci/setup --test`` into tests/mcp/npm)."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agent_nb import McpToolset
from tests.net import free_port
from tests.waiting import wait_until

HERE = pathlib.Path(__file__).resolve().parent
DEMO = HERE / "demo_server.py"
FILESYSTEM = HERE / "npm" / "node_modules" / ".bin" / "mcp-server-filesystem"

#: Starting a Python or Node server takes seconds on a busy 2-core machine.
START_TIMEOUT = 60.0

ToolsetFactory = Callable[..., McpToolset]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie counts as gone)."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children_of(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.fixture
def toolsets() -> Iterator[ToolsetFactory]:
    """Makes `McpToolset`s and closes every one after the test."""
    made: list[McpToolset] = []

    def make(**kwargs: Any) -> McpToolset:
        kwargs.setdefault("start_timeout", START_TIMEOUT)
        toolset = McpToolset(**kwargs)
        made.append(toolset)
        return toolset

    yield make
    for toolset in made:
        toolset.close()


@pytest.fixture
def demo_stdio(toolsets: ToolsetFactory) -> ToolsetFactory:
    """The demo server over stdio (keyword arguments go to `McpToolset`)."""

    def make(**kwargs: Any) -> McpToolset:
        kwargs.setdefault("name", "demo")
        return toolsets(command=sys.executable, args=[str(DEMO)], **kwargs)

    return make


@pytest.fixture(scope="module")
def demo_http_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo server over streamable HTTP on a free loopback port."""
    port = free_port()
    log = tmp_path_factory.mktemp("demo-http") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, str(DEMO), "--http", str(port)], stdout=out, stderr=out
        )

    def listening() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"the demo HTTP server exited:\n{log.read_text()[-3000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            return False
        return True

    try:
        wait_until(listening, timeout=START_TIMEOUT, interval=0.1, what="the demo HTTP server")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def filesystem_server() -> pathlib.Path:
    if not FILESYSTEM.exists():
        pytest.fail(
            "the npm filesystem MCP server is not installed; run .ci/setup --test "
            "(npm ci --prefix tests/mcp/npm)"
        )
    return FILESYSTEM


@pytest.fixture
def no_pid_left() -> Iterator[list[int]]:
    """Pids a test records; each must be gone (not a zombie) when it ends."""
    pids: list[int] = []
    yield pids
    try:
        wait_until(lambda: not any(alive(p) for p in pids), timeout=15, what="servers to exit")
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
