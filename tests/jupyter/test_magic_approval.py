"""``%%agent`` with a tool that needs approval, in a real IPython shell.

No one can answer ``input()`` here (no kernel, stdin not a terminal), so the
cell ends with the line that says how to answer, and ``%agent approve`` /
``%agent deny`` resume the turn in a later cell. With stdin on a real
pseudo-terminal the cell asks there instead. The approval policy is
``%config AgentMagics.approve_tools``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import Agent, FunctionCall, FunctionResponse, TurnComplete, get_runner, tool
from agent_nb._core.approvals import DENIED, READ_ONLY_DENIED
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_magics import run, usage_error

written: list[str] = []


@tool(confirm=True)
def write_note(text: str) -> str:
    """Write a note."""
    written.append(text)
    return f"wrote {text!r}"


@pytest.fixture(autouse=True)
def _writer_session(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    written.clear()
    get_runner().get_or_create_session("default", agent=Agent("notes", tools=[write_note]))
    backend.enqueue(ToolCallChunk("write_note", {"text": "hello"}, call_id="c1"), "Noted.")


def _history() -> list[Any]:
    return get_runner().get_or_create_session("default").history


def test_a_cell_that_cannot_ask_says_how_to_answer_and_approve_resumes_the_turn(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    result, cap = run(shell, "%%agent\nwrite hello")
    assert result.success, cap.stderr
    assert cap.stdout.strip().splitlines()[-1] == (
        '‖ tool call waits for approval: write_note(text="hello") — answer with '
        "%agent approve default or %agent deny default"
    )
    assert written == [] and len(backend.requests) == 1
    # The session is waiting: a new message is refused with the same line.
    result, cap = run(shell, "%%agent\nsomething else")
    usage_error(result, cap, "%agent approve default")

    result, cap = run(shell, "%agent approve")
    assert result.success, cap.stderr
    assert written == ["hello"] and len(backend.requests) == 2
    shown = cap.outputs[-1].data["text/plain"]
    assert "Noted." in shown and "wrote 'hello'" in shown
    history = _history()
    assert isinstance(history[-1], TurnComplete) and not history[-1].interrupted
    result, cap = run(shell, "%agent approve")
    usage_error(result, cap, "has no tool call waiting for approval")


def test_deny_in_a_later_cell_is_the_tools_result(shell: InteractiveShell) -> None:
    assert run(shell, "%%agent\nwrite hello")[0].success
    result, cap = run(shell, "%agent deny default --call c1")
    assert result.success, cap.stderr
    assert written == []
    responses = [e.response for e in _history() if isinstance(e, FunctionResponse)]
    assert responses == [DENIED]
    result, cap = run(shell, "%agent deny nosuch")
    usage_error(result, cap, "session 'nosuch' has no tool call waiting for approval")


@pytest.fixture
def terminal_stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A real pseudo-terminal on stdin: what a terminal IPython reads ``input()`` from.
    The test writes the person's answers into its other end."""
    leader, follower = os.openpty()
    stdin = os.fdopen(follower, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    yield lambda text: os.write(leader, text.encode())
    stdin.close()
    os.close(leader)


@pytest.mark.parametrize(("typed", "approved"), [("y\n", True), ("n\n", False)])
def test_a_cell_that_can_ask_asks_with_input_and_goes_on_in_the_same_cell(
    shell: InteractiveShell,
    backend: ScriptedBackend,
    terminal_stdin: Any,
    typed: str,
    approved: bool,
) -> None:
    terminal_stdin(typed)
    result, cap = run(shell, "%%agent\nwrite hello")
    assert result.success, cap.stderr
    assert 'Approve write_note(text="hello")? [y/N]' in cap.stdout
    assert "%agent approve" not in cap.stdout  # nothing left to answer
    expected = ["hello"] if approved else []
    assert written == expected
    history = _history()
    response = next(e for e in history if isinstance(e, FunctionResponse))
    assert (response.response == DENIED) is not approved
    assert isinstance(history[-1], TurnComplete) and not history[-1].interrupted
    assert "Noted." in cap.outputs[-1].data["text/plain"]


def test_read_only_refuses_without_asking_and_a_bad_policy_is_refused(
    shell: InteractiveShell,
) -> None:
    assert run(shell, "%config AgentMagics.approve_tools = 'read-only'")[0].success
    result, cap = run(shell, "%%agent\nwrite hello")
    assert result.success, cap.stderr
    assert "%agent approve" not in cap.stdout and written == []
    history = _history()
    assert [e.needs_approval for e in history if isinstance(e, FunctionCall)] == [False]
    assert [e.response for e in history if isinstance(e, FunctionResponse)] == [READ_ONLY_DENIED]
    result, _ = run(shell, "%config AgentMagics.approve_tools = 'sometimes'")
    assert not result.success
