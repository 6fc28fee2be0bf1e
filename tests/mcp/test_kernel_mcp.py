"""MCP servers in a real kernel: ``AgentMagics.mcp_servers`` read from ``ipython_config.py``,
started by a ``%%agent --tools`` cell, and gone (no orphan process) after a kernel restart
and after a shutdown."""

from __future__ import annotations

import asyncio
import json
import pathlib
import sys

import pytest

from tests.jupyter.test_magics_kernel import run, started_kernel, stdout
from tests.waiting import async_wait_until

from .conftest import DEMO, alive

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(600)]

CONFIG = f"""
c.InteractiveShellApp.extensions = ["agent_nb"]
c.AgentMagics.mcp_servers = {{
    "mcpServers": {{
        "calc": {{"command": {sys.executable!r}, "args": [{str(DEMO)!r}]}},
    }}
}}
"""

SERVER_PID = (  # a cell awaits at top level: the kernel's loop is running
    "from agent_nb import get_runner\n"
    "from agent_nb._runtime.mcp import servers_of\n"
    "calc = servers_of(get_runner()).get('calc')\n"
    "pid = next(t for t in calc.tools if t.name == 'pid')\n"
    "print((await pid.call({}, None))['result'])"
)


def test_config_servers_start_on_use_and_end_with_the_kernel(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = tmp_path / "ipython" / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_config.py").write_text(CONFIG)
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))  # the kernel reads it
    asyncio.run(_config_servers(), debug=False)


async def _config_servers() -> None:
    async with started_kernel() as kernel:
        listed = await run(kernel, "%agent mcp list")
        assert stdout(listed).splitlines()[:2] == [
            f"calc  [not started]  stdio: {sys.executable} {DEMO}",
            "    starts on first use (%%agent --tools calc)",
        ]
        # A turn that offers the server's tools starts it (the scripted model calls none).
        await run(kernel, "%%agent --tools calc -m scripted\nhello")
        state = await run(
            kernel,
            "from agent_nb import get_runner\nfrom agent_nb._runtime.mcp import servers_of\n"
            "print(servers_of(get_runner()).get('calc').state)",
        )
        assert stdout(state).strip() == "running"
        first = int(stdout(await run(kernel, SERVER_PID)).strip())
        assert alive(first)

        await kernel.km.restart_kernel(now=False)  # a graceful restart, as JupyterLab's
        await kernel.kc.wait_for_ready(timeout=120)
        await async_wait_until(lambda: not alive(first), timeout=30, what="the old server")

        await run(kernel, "%%agent --tools calc -m scripted\nagain")
        second = int(stdout(await run(kernel, SERVER_PID)).strip())
        assert second != first and alive(second)
        kernel_pid = json.loads(
            stdout(await run(kernel, "import os, json; print(json.dumps(os.getpid()))"))
        )
        assert alive(kernel_pid)
        await kernel.km.shutdown_kernel(now=False)  # a graceful shutdown, as JupyterLab's
        assert not alive(kernel_pid)
        await async_wait_until(lambda: not alive(second), timeout=30, what="the server")
