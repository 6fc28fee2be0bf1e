"""The reference filesystem MCP server behind a ChatWidget in a real JupyterLab: its
write tool waits, shown with the server beside the tool and the arguments as text;
a click on Approve writes the file. Screenshot: test-output/mcp-approval-waiting.png."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab
from tests.jupyter.test_widget_browser import show, type_and_send, wait_idle

from .conftest import FILESYSTEM

pytestmark = pytest.mark.browser


def test_approve_a_filesystem_write_in_the_widget(
    lab: Lab, tmp_path: pathlib.Path, filesystem_server: pathlib.Path
) -> None:
    notes = tmp_path / "notes.md"
    call = f"ToolCallChunk('write_file', {{'path': {str(notes)!r}, 'content': '# Week 1'}})"
    lab.run(
        "from agent_nb import McpToolset\n"
        f"course = McpToolset(command={str(FILESYSTEM)!r}, args=[{str(tmp_path)!r}], "
        "name='course')\n"
        "fs_backend = ScriptedBackend(token_delay=0.01)\n"
        f"fs_backend.enqueue({call}, 'Your notes are written.')\n"
        "set_runner(AgentRunner(Agent('course', tools=[course]), model=fs_backend))"
    )
    _, widget = show(lab, "mcp-approve")
    type_and_send(widget, "write my week 1 notes")
    block = widget.locator(".anb-past details.anb-tool-waiting").last
    block.locator(".anb-approval").wait_for(state="visible", timeout=60_000)
    assert block.locator(".anb-tool-name").inner_text() == "write_file"
    assert "course" in block.locator("summary").inner_text()  # the server beside the tool
    assert "# Week 1" in block.locator(".anb-tool-json").first.inner_text()
    assert not notes.exists()
    OUTPUT_DIR.mkdir(exist_ok=True)
    widget.screenshot(path=str(OUTPUT_DIR / "mcp-approval-waiting.png"))

    approve = block.locator("button.anb-approve")
    approve.click()
    try:  # (full runs twice waited past 60 s here: the picture and the kernel say where)
        wait_idle(widget, timeout=30_000)
    except Exception:
        # Full runs under load have lost this click (the kernel still awaited approval
        # 90 s later, the button enabled again). A person clicks again; a second loss,
        # or a turn that then does not end, fails with what the page and kernel show.
        widget.screenshot(path=str(OUTPUT_DIR / "mcp-approval-click-lost.png"))
        if approve.is_enabled():
            approve.click()
        try:
            wait_idle(widget, timeout=60_000)
        except Exception as exc:
            where = _where(lab, widget)
            raise AssertionError(f"the turn did not end after Approve: {where}") from exc
    finally:
        widget.screenshot(path=str(OUTPUT_DIR / "mcp-approval-after-click.png"))
    widget.locator(".anb-past .anb-model", has_text="Your notes are written.").wait_for()
    assert notes.read_text() == "# Week 1"
    widget.screenshot(path=str(OUTPUT_DIR / "mcp-approval-approved.png"))


#: Where each of agent_nb's threads stands (the last frames of each).
STACKS = (
    "{t.name: [f'{f.f_code.co_filename.rsplit(\"/\", 2)[-1]}:{f.f_lineno} {f.f_code.co_name}' "
    "for f, _ in __import__('traceback').walk_stack(__import__('sys')._current_frames()[t.ident])]"
    "[:4] for t in __import__('threading').enumerate() if t.name.startswith('agent_nb')}"
)


def _where(lab: Lab, widget: Any) -> str:
    """What the page and the kernel say about a turn that did not end (for the report)."""
    status = widget.locator(".anb-status").inner_text()
    try:
        kernel = lab.eval(
            "(w_mcp_approve.busy, w_mcp_approve.session.busy, "
            "w_mcp_approve.session.awaiting_approval, course.state, "
            "[type(e).__name__ for e in w_mcp_approve.session.history][-6:], "
            "__import__('agent_nb._runtime.mcp.loop', fromlist=['x'])._worker.loop.is_running(), "
            "sorted(t.name for t in __import__('threading').enumerate()))",
            timeout=20,
        )
        kernel += " stacks: " + lab.eval(STACKS, timeout=20)
    except Exception as exc:  # a kernel that no longer runs cells says so too
        kernel = f"no answer from the kernel ({exc})"
    return f"status {status!r}; kernel: {kernel}"
