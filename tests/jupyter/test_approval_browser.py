"""Approve / Deny in a real JupyterLab: a tool call that waits for approval shows
its name and arguments (as text) with two buttons; a click resumes the turn.

Its own notebook and kernel (`tests.fixtures_lab.lab`); the runner is the
scripted model with a ``@tool(confirm=True)`` tool. Screenshots go to
``test-output/`` (look at them: approval-waiting.png, approval-approved.png).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab
from tests.jupyter.test_widget_browser import show, type_and_send, wait_idle

pytestmark = pytest.mark.browser

SETUP = """\
from agent_nb import tool

written = []

@tool(confirm=True)
def write_note(path: str, text: str) -> str:
    \"\"\"Write text to a file.\"\"\"
    written.append((path, text))
    return f"wrote {len(text)} characters to {path}"

approvals_backend = ScriptedBackend(token_delay=0.01)
set_runner(AgentRunner(Agent("notes", tools=[write_note]), model=approvals_backend))
print("APPROVAL-SETUP-OK")
"""


def _enqueue_write(lab: Lab, text: str, then: str) -> None:
    call = f"ToolCallChunk('write_note', {{'path': 'notes.txt', 'text': {text!r}}})"
    lab.run(f"approvals_backend.enqueue({call}, {then!r})")


def _waiting_block(widget: Any) -> Any:
    block = widget.locator(".anb-past details.anb-tool-waiting").last
    block.locator(".anb-approval").wait_for(state="visible", timeout=30_000)
    return block


def test_approve_in_the_widget_runs_the_tool_and_the_turn_goes_on(lab: Lab) -> None:
    assert "APPROVAL-SETUP-OK" in lab.text(lab.run(SETUP))
    payload = '<img src="x" onerror="window.__xss = 1"><b>hi</b>'
    _enqueue_write(lab, payload, "I wrote notes.txt.")
    _, widget = show(lab, "approve-chat")
    type_and_send(widget, "write a greeting to notes.txt")

    block = _waiting_block(widget)
    assert block.locator(".anb-tool-name").inner_text() == "write_note"
    assert block.locator(".anb-tool-wait").inner_text() == "waiting for approval"
    assert "Run write_note with these arguments?" in block.locator(".anb-approval").inner_text()
    args = block.locator(".anb-tool-json").first
    assert json.dumps(payload) in args.inner_text()  # the arguments as text (JSON)...
    assert args.locator("img, b").count() == 0  # ...never as HTML
    assert widget.locator(".anb-stop").is_enabled()  # the turn is on: Stop works
    assert "waits for your approval" in widget.locator(".anb-status").inner_text()
    assert lab.eval("written") == "[]"
    OUTPUT_DIR.mkdir(exist_ok=True)
    widget.screenshot(path=str(OUTPUT_DIR / "approval-waiting.png"))

    # A second view opened while the call waits shows it waiting too.
    second = lab.widget(lab.run("w_approve_chat"))
    _waiting_block(second)
    assert second.locator(".anb-status").inner_text() == "write_note waits for your approval"

    block.locator("button.anb-approve").click()
    wait_idle(widget)
    widget.locator(".anb-past .anb-model", has_text="I wrote notes.txt.").wait_for(timeout=10_000)
    done = widget.locator(".anb-past details.anb-tool").last
    assert done.locator(".anb-approval").count() == 0
    assert done.evaluate("(block) => block.open")  # what was approved stays in view
    assert f"wrote {len(payload)} characters to notes.txt" in done.inner_text()
    assert lab.eval("written") == repr([("notes.txt", payload)])
    assert lab.page.evaluate("() => window.__xss") is None
    second.locator(".anb-past .anb-model", has_text="I wrote notes.txt.").wait_for()
    assert second.locator(".anb-approval").count() == 0
    widget.screenshot(path=str(OUTPUT_DIR / "approval-approved.png"))


def test_deny_in_the_widget_is_the_tools_result(lab: Lab) -> None:
    _enqueue_write(lab, "second", "Fine, I left it.")
    _, widget = show(lab, "deny-chat")
    type_and_send(widget, "write again")
    block = _waiting_block(widget)
    block.locator("button.anb-deny").click()
    wait_idle(widget)
    widget.locator(".anb-past .anb-model", has_text="Fine, I left it.").wait_for(timeout=10_000)
    denied = widget.locator(".anb-past details.anb-tool").last
    denied.evaluate("(block) => { block.open = true; }")
    assert "anb-tool-failed" in (denied.get_attribute("class") or "")
    assert "denied by the user" in denied.inner_text()
    assert lab.eval("len(written)") == "1"  # only the first test's write
