"""The reference filesystem MCP server (npm) in a real kernel cell: a read tool runs
without asking; a write tool waits for approval, recorded in the session, until
a later ``%agent approve`` cell runs it (its file appears only then)."""

from __future__ import annotations

import asyncio
import json
import pathlib

import pytest

from tests.jupyter.test_magics_kernel import displays, run, started_kernel, stdout

from .conftest import FILESYSTEM

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]


def setup_code(folder: pathlib.Path) -> str:
    syllabus, notes = str(folder / "syllabus.md"), str(folder / "notes.md")
    return f"""\
from agent_nb import Agent, AgentRunner, McpToolset, set_runner
from agent_nb.backends import ScriptedBackend, ToolCallChunk
course = McpToolset(command={str(FILESYSTEM)!r}, args=[{str(folder)!r}], name="course")
backend = ScriptedBackend([
    [ToolCallChunk("read_text_file", {{"path": {syllabus!r}}}),
     ToolCallChunk("write_file", {{"path": {notes!r}, "content": "Week 1 notes"}})],
    "I read the syllabus and wrote your notes.",
])
set_runner(AgentRunner(Agent("course", tools=[course]), model=backend))
"""


PROBE = """\
from agent_nb import FunctionCall, FunctionResponse, get_runner
history = get_runner().get_or_create_session("default").history
print(json.dumps({
    "calls": [[e.name, e.server, e.needs_approval] for e in history
              if isinstance(e, FunctionCall)],
    "answered": [e.name for e in history if isinstance(e, FunctionResponse)],
}))
"""


def test_a_write_tool_of_the_filesystem_server_waits_for_approval_in_a_cell(
    tmp_path: pathlib.Path, filesystem_server: pathlib.Path
) -> None:
    (tmp_path / "syllabus.md").write_text("Week 1: means and medians\n")
    asyncio.run(_write_waits(tmp_path))


async def _write_waits(folder: pathlib.Path) -> None:
    async with started_kernel() as kernel:
        await run(kernel, "%load_ext agent_nb\nimport json")
        await run(kernel, setup_code(folder))
        cell = await run(kernel, "%%agent\nRead the syllabus and write my notes")
        line = stdout(cell).strip().splitlines()[-1]
        assert line.startswith("‖ tool call waits for approval: write_file(path=")
        assert line.endswith("answer with %agent approve default or %agent deny default")
        assert not (folder / "notes.md").exists()
        seen = json.loads(stdout(await run(kernel, PROBE)))
        assert seen == {
            "calls": [["read_text_file", "course", False], ["write_file", "course", True]],
            "answered": ["read_text_file"],  # the read ran without asking; the write waits
        }

        cell = await run(kernel, "%agent approve")
        assert (
            "I read the syllabus and wrote your notes." in displays(cell)[-1]["data"]["text/plain"]
        )
        assert (folder / "notes.md").read_text() == "Week 1 notes"
        seen = json.loads(stdout(await run(kernel, PROBE)))
        assert seen["answered"] == ["read_text_file", "write_file"]
