"""Kernel restart and shutdown with open chat widgets: no traceback, no abort."""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from jupyter_client.manager import AsyncKernelManager

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

OPEN_WIDGETS = """\
from agent_nb import AgentRunner, ChatWidget, set_runner
from agent_nb.backends import ScriptedBackend
backend = ScriptedBackend(token_delay=0.02)
set_runner(AgentRunner(model=backend))
backend.enqueue(" ".join(["word"] * 500))
a, b, c = ChatWidget("k-a"), ChatWidget("k-a"), ChatWidget()
a.send_message("stream while the kernel goes")
a._views.attached("p", "v"); a._views.detached("p", "v", destroyed=True)  # grace timer runs
print("OPEN", a.session.busy)
"""


async def _execute(km: AsyncKernelManager, code: str) -> str:
    client = km.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        out: list[str] = []
        reply = await client.execute_interactive(
            code,
            timeout=60,
            output_hook=lambda m: (
                out.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else None
            ),
        )
        assert reply["content"]["status"] == "ok", reply["content"]
        return "".join(out)
    finally:
        client.stop_channels()


async def _restart_and_shut_down(log: pathlib.Path) -> None:
    km = AsyncKernelManager(kernel_name="python3")
    with log.open("wb") as err:
        await km.start_kernel(stderr=err, stdout=err)
        try:
            assert "OPEN True" in await _execute(km, OPEN_WIDGETS)
            await km.restart_kernel(now=False)  # graceful: the kernel exits by itself
            assert "OPEN True" in await _execute(km, OPEN_WIDGETS)
            assert "fine" in await _execute(km, "print('fine')")
        finally:
            await km.shutdown_kernel(now=False)
    assert not await km.is_alive()


def test_restart_and_shutdown_with_open_widgets_are_clean(tmp_path: pathlib.Path) -> None:
    log = tmp_path / "kernel.log"
    asyncio.run(_restart_and_shut_down(log))
    text = log.read_text(errors="replace")
    for bad in ("Traceback", "Abort", "Fatal Python error", "Exception ignored"):
        assert bad not in text, text
