"""ChatWidget, Python side, for a tool call that waits for approval: the call
reaches the front end as an entry that needs approval, the Approve / Deny
messages resume the turn, a bad or late answer is reported, and closing the
widget while the call waits stops the turn with the call answered.

The widget, runner and session are real; the comm is `RecordingComm`
(tests/jupyter/test_widget.py), installed where a kernel installs its own."""

from __future__ import annotations

from typing import Any

import pytest

from agent_nb import Agent, FunctionCall, FunctionResponse, TurnComplete, tool
from agent_nb._core.approvals import DENIED, STOPPED_WAITING
from agent_nb._jupyter.widget.chat_widget import ChatWidget
from agent_nb._jupyter.widget.protocol import parse_from_js
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_runtime import RunnerFactory
from tests.jupyter.test_widget import comm_of, recording_comms, wait_for

__all__ = ["recording_comms"]  # the autouse fixture, used here too

DONE: list[str] = []


@tool(confirm=True)
def delete_file(path: str) -> str:
    """Delete a file."""
    DONE.append(path)
    return f"deleted {path}"


@pytest.fixture
def waiting_widget(make_runner: RunnerFactory) -> Any:
    DONE.clear()
    model = ScriptedBackend([ToolCallChunk("delete_file", {"path": "<b>x</b>"}, call_id="c1")])
    runner = make_runner(Agent("fs", tools=[delete_file]), model=model)
    widget = ChatWidget("approve", runner=runner, evict_on_close=False)
    c = comm_of(widget)
    c.from_frontend({"type": "send", "text": "delete x"})
    wait_for(lambda: widget.session.awaiting_approval)
    yield widget, model
    widget.close()


def _entries(widget: ChatWidget, kind: str) -> list[dict[str, Any]]:
    return [m["entry"] for m in comm_of(widget).custom("entry") if m["entry"]["kind"] == kind]


def test_the_waiting_call_reaches_the_front_end_and_approve_resumes_the_turn(
    waiting_widget: Any,
) -> None:
    widget, model = waiting_widget
    (call,) = _entries(widget, "tool_call")
    assert call["needs_approval"] is True and call["args"] == {"path": "<b>x</b>"}
    assert call["call_id"] == "c1" and call["name"] == "delete_file"
    assert widget.busy and DONE == []
    # A view opened now (a page reload) catches up and gets the waiting call to show.
    comm_of(widget).from_frontend({"type": "catch_up"})
    assert [e["kind"] for e in widget.transcript] == ["user", "tool_call"]
    assert widget.transcript[1]["needs_approval"] is True and widget.busy

    model.enqueue("Deleted.")
    comm_of(widget).from_frontend({"type": "approval", "call_id": "c1", "approved": True})
    wait_for(lambda: comm_of(widget).custom("turn_complete"))
    assert DONE == ["<b>x</b>"]
    (result,) = _entries(widget, "tool_result")
    assert result["response"] == {"result": "deleted <b>x</b>"}
    assert [e["kind"] for e in widget.transcript] == [
        "user",
        "tool_call",
        "tool_result",
        "model",
        "turn",
    ]
    assert widget.transcript[1]["needs_approval"] is True  # history still says it asked


def test_deny_from_the_front_end_is_the_tools_result(waiting_widget: Any) -> None:
    widget, model = waiting_widget
    model.enqueue("I left it.")
    comm_of(widget).from_frontend({"type": "approval", "call_id": "c1", "approved": False})
    wait_for(lambda: comm_of(widget).custom("turn_complete"))
    assert DONE == []
    assert _entries(widget, "tool_result")[0]["response"] == DENIED


def test_a_bad_or_late_answer_is_reported_in_the_widget(waiting_widget: Any) -> None:
    widget, model = waiting_widget
    c = comm_of(widget)
    c.from_frontend({"type": "approval", "call_id": "c1"})
    assert "needs a string 'call_id' and a bool 'approved'" in c.custom("error")[-1]["message"]
    c.from_frontend({"type": "approval", "call_id": "other", "approved": True})
    assert "'other' is not waiting for approval" in c.custom("error")[-1]["message"]
    model.enqueue("ok")
    c.from_frontend({"type": "approval", "call_id": "c1", "approved": True})
    wait_for(lambda: c.custom("turn_complete"))
    c.from_frontend({"type": "approval", "call_id": "c1", "approved": True})  # a second click
    assert "no tool call waiting for approval" in c.custom("error")[-1]["message"]
    assert DONE == ["<b>x</b>"]
    assert parse_from_js({"type": "approval", "call_id": "c", "approved": False}) == {
        "type": "approval",
        "call_id": "c",
        "approved": False,
    }


def test_closing_the_widget_while_the_call_waits_stops_the_turn_with_the_call_answered(
    waiting_widget: Any,
) -> None:
    widget, _ = waiting_widget
    session = widget.session
    widget.close()
    wait_for(lambda: not session.busy)
    history = session.history
    calls = [e.call_id for e in history if isinstance(e, FunctionCall)]
    responses = [e for e in history if isinstance(e, FunctionResponse)]
    assert calls == [r.call_id for r in responses] == ["c1"]
    assert responses[0].response == STOPPED_WAITING
    assert isinstance(history[-1], TurnComplete) and history[-1].interrupted
    assert DONE == []
