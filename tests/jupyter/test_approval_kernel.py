"""Approval in a real ipykernel: a notebook run by nbclient (its front end does not
answer ``input()``: the cell says how to answer, a later ``%agent approve`` cell
resumes the turn), a client that answers ``input()`` on the stdin channel (the
cell asks, as in JupyterLab), and a kernel restart while a call waits (the turn
is recorded as interrupted, the call answered: read from the SQLite store)."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import pytest
from jupyter_client.manager import AsyncKernelManager

from agent_nb import FunctionCall, FunctionResponse, TurnComplete
from agent_nb._core.approvals import STOPPED_WAITING, waiting_calls
from agent_nb.stores import SQLiteStore
from tests.jupyter.test_magics_kernel import displays, run, started_kernel, stdout

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]


def setup_code(db: pathlib.Path) -> str:
    return f"""\
from agent_nb import Agent, AgentRunner, set_runner, tool
from agent_nb.backends import ScriptedBackend, ToolCallChunk
written = []

@tool(confirm=True)
def write_note(text: str) -> str:
    \"\"\"Write a note.\"\"\"
    written.append(text)
    return f"wrote {{text!r}}"

backend = ScriptedBackend([ToolCallChunk("write_note", {{"text": "hello"}}, call_id="c1"),
                           "Noted."])
set_runner(AgentRunner(Agent("notes", tools=[write_note]), model=backend,
                       store="sqlite:///{db}"))
"""


def _stored(db: pathlib.Path) -> list[Any]:
    store = SQLiteStore(db)
    try:
        record = store.get_session("agent_nb", "default", "default")
        assert record is not None
        return list(record.events)
    finally:
        store.close()


async def _a_cell_whose_call_waits(kernel: Any, db: pathlib.Path) -> Any:
    """The extension loaded on store ``db``, and a cell whose write call waits for approval."""
    await run(kernel, "%load_ext agent_nb")
    await run(kernel, setup_code(db))
    return await run(kernel, "%%agent\nwrite hello")


def test_a_notebook_cell_says_how_to_answer_and_a_later_cell_approves(
    tmp_path: pathlib.Path,
) -> None:
    asyncio.run(_approve_in_a_later_cell(tmp_path / "sessions.db"))


async def _approve_in_a_later_cell(db: pathlib.Path) -> None:
    async with started_kernel() as kernel:
        cell = await _a_cell_whose_call_waits(kernel, db)
        assert (
            stdout(cell)
            .strip()
            .endswith("answer with %agent approve default or %agent deny default")
        ), cell.outputs
        assert [c.call_id for c in waiting_calls(_stored(db))] == ["c1"]  # in the store
        assert stdout(await run(kernel, "print(written)")).strip() == "[]"

        cell = await run(kernel, "%agent approve")
        shown = displays(cell)[-1]["data"]["text/plain"]
        assert "Noted." in shown and "wrote 'hello'" in shown
        assert stdout(await run(kernel, "print(written)")).strip() == "['hello']"
    events = _stored(db)
    assert waiting_calls(events) == []
    assert isinstance(events[-1], TurnComplete) and not events[-1].interrupted


def test_a_kernel_that_can_ask_asks_with_input(tmp_path: pathlib.Path) -> None:
    asyncio.run(_asks_with_input(tmp_path / "sessions.db"))


async def _execute(client: Any, code: str, answer: str | None = None) -> tuple[str, list[str]]:
    """Run ``code`` with stdin allowed; each input request gets ``answer``. Returns
    the stdout text and the prompts the kernel asked with."""
    out: list[str] = []
    prompts: list[str] = []

    def on_output(msg: dict[str, Any]) -> None:
        content = msg["content"]
        if msg["msg_type"] == "stream":
            out.append(content["text"])
        elif msg["msg_type"] in ("display_data", "update_display_data", "execute_result"):
            out.append(content["data"].get("text/plain", ""))

    def on_input(msg: dict[str, Any]) -> None:
        prompts.append(msg["content"]["prompt"])
        assert answer is not None, f"unexpected input request {msg['content']['prompt']!r}"
        client.input(answer)

    reply = await client.execute_interactive(
        code, timeout=120, allow_stdin=True, output_hook=on_output, stdin_hook=on_input
    )
    assert reply["content"]["status"] == "ok", reply["content"]
    return "".join(out), prompts


async def _asks_with_input(db: pathlib.Path) -> None:
    km = AsyncKernelManager(kernel_name="python3")
    await km.start_kernel()
    client = km.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=120)
        await _execute(client, "%load_ext agent_nb")
        await _execute(client, setup_code(db))
        text, prompts = await _execute(client, "%%agent\nwrite hello", answer="y")
        assert prompts == ['Approve write_note(text="hello")? [y/N] ']
        assert "Noted." in text and "%agent approve" not in text
        assert (await _execute(client, "print(written)"))[0].strip() == "['hello']"
    finally:
        client.stop_channels()
        await km.shutdown_kernel(now=False)


def test_a_restart_while_a_call_waits_records_the_turn_interrupted_and_the_call_answered(
    tmp_path: pathlib.Path,
) -> None:
    asyncio.run(_restart_while_waiting(tmp_path / "sessions.db"))


async def _restart_while_waiting(db: pathlib.Path) -> None:
    async with started_kernel() as kernel:
        cell = await _a_cell_whose_call_waits(kernel, db)
        assert "%agent approve default" in stdout(cell)
        await kernel.km.restart_kernel(now=False)  # graceful, as Lab's restart
        events = _stored(db)
        calls = [e.call_id for e in events if isinstance(e, FunctionCall)]
        responses = [e for e in events if isinstance(e, FunctionResponse)]
        assert calls == [r.call_id for r in responses] == ["c1"]  # nothing dangles
        assert responses[0].response == STOPPED_WAITING
        assert isinstance(events[-1], TurnComplete) and events[-1].interrupted
        # The restarted kernel opens the session and goes on from the recorded turn.
        await run(kernel, "%load_ext agent_nb")
        await run(kernel, setup_code(db))
        check = await run(
            kernel,
            "from agent_nb import get_runner\n"
            "s = get_runner().get_or_create_session('default')\n"
            "print(s.busy, s.awaiting_approval, len(s.history))",
        )
        assert stdout(check).strip() == f"False () {len(events)}"
