"""Approval before a tool acts, through a real runner on the scripted model.

The turn pauses at a call of a ``@tool(confirm=True)`` tool, with the call
recorded; ``session.approve()`` / ``deny()`` resume it in place, without asking
the model again. Policies, one call by ``call_id``, stops while waiting, the
store's view from another runner, workflow agents and `AgentTool` runs.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from agent_nb import (
    Agent,
    AgentTool,
    FunctionCall,
    FunctionResponse,
    ParallelAgent,
    TextMessage,
    TurnComplete,
    tool,
)
from agent_nb._core.approvals import DENIED, READ_ONLY_DENIED, STOPPED_WAITING, waiting_calls
from agent_nb._core.tools import Tool, as_tool
from agent_nb._runtime.replay import agent_is_pure
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import SessionBusyError
from agent_nb.stores import SQLiteStore
from tests.fixtures_runtime import RunnerFactory
from tests.waiting import wait_until

WRITES: list[dict[str, Any]] = []


@tool(confirm=True)
def write_note(path: str, text: str) -> dict[str, Any]:
    """Write text to a file (acts: needs approval).

    Args:
        path: where
        text: what
    """
    WRITES.append({"path": path, "text": text})
    return {"written": len(text)}


@tool(pure=True)
def read_note(path: str) -> str:
    """Read a note (pure: runs without asking)."""
    return f"contents of {path}"


@pytest.fixture(autouse=True)
def _no_writes() -> None:
    WRITES.clear()


def _writer(model: ScriptedBackend, make_runner: RunnerFactory, **kwargs: Any) -> Any:
    agent = Agent("writer", tools=[write_note, read_note])
    return make_runner(agent, model=model, **kwargs).get_or_create_session("demo")


def _dangling(history: list[Any]) -> list[str]:
    calls = {e.call_id for e in history if isinstance(e, FunctionCall)}
    answered = {e.call_id for e in history if isinstance(e, FunctionResponse)}
    return sorted(calls - answered)


def test_the_turn_pauses_at_the_call_and_approve_runs_it_without_asking_the_model_again(
    make_runner: RunnerFactory,
) -> None:
    call = ToolCallChunk("write_note", {"path": "a.txt", "text": "hi"}, call_id="c1")
    model = ScriptedBackend([call, "Done: wrote a.txt."])
    session = _writer(model, make_runner)

    paused = session.run("write hi to a.txt")
    assert [(c.name, dict(c.args), c.call_id) for c in paused.awaiting_approval] == [
        ("write_note", {"path": "a.txt", "text": "hi"}, "c1")
    ]
    assert session.awaiting_approval == paused.awaiting_approval
    assert 'waiting for approval: write_note(path="a.txt", text="hi")' in paused.note
    assert WRITES == [] and session.busy
    # Recorded as waiting: the call is stored, with no response and no TurnComplete.
    assert [type(e).__name__ for e in session.history] == ["TextMessage", "FunctionCall"]
    assert waiting_calls(session.history)[0].call_id == "c1"
    assert len(model.requests) == 1

    rest = session.approve()
    assert WRITES == [{"path": "a.txt", "text": "hi"}]
    assert rest.text == "Done: wrote a.txt." and rest.awaiting_approval == ()
    assert rest.invocation_id == paused.invocation_id
    kinds = [type(e).__name__ for e in rest.events]
    assert kinds == ["FunctionResponse", "TextMessage", "TurnComplete"]
    assert rest.events[0].response == {"written": 2}
    # One more model call, after the tool's result: the call itself was not asked again.
    assert len(model.requests) == 2
    assert list(paused.events) + list(rest.events) == session.history
    assert not session.busy and session.awaiting_approval == ()
    assert _dangling(session.history) == []


def test_deny_makes_the_refusal_the_tools_result_and_the_model_goes_on(
    make_runner: RunnerFactory,
) -> None:
    call = ToolCallChunk("write_note", {"path": "a.txt", "text": "hi"})
    model = ScriptedBackend([call, "Understood, I did not write it."])
    session = _writer(model, make_runner)
    assert session.run("write it").awaiting_approval

    rest = session.deny()
    assert WRITES == []
    response = rest.events[0]
    assert isinstance(response, FunctionResponse) and response.response == DENIED
    assert rest.text == "Understood, I did not write it."
    sent = model.requests[-1].contents[-1].parts[0].function_response
    assert sent is not None and sent.response == DENIED  # the model read the refusal


def test_call_id_answers_one_call_and_the_next_waits_in_turn(make_runner: RunnerFactory) -> None:
    first = ToolCallChunk("write_note", {"path": "1", "text": "a"}, call_id="first")
    second = ToolCallChunk("write_note", {"path": "2", "text": "b"}, call_id="second")
    model = ScriptedBackend([[first, second], "Both handled."])
    session = _writer(model, make_runner)
    assert [c.call_id for c in session.run("two").awaiting_approval] == ["first"]

    with pytest.raises(ValueError, match="'second' is not waiting for approval; waiting: 'first'"):
        session.approve(call_id="second")
    middle = session.approve(call_id="first")
    assert [c.call_id for c in middle.awaiting_approval] == ["second"]
    assert [type(e).__name__ for e in middle.events] == ["FunctionResponse", "FunctionCall"]
    end = session.deny(call_id="second")
    assert end.text == "Both handled." and end.awaiting_approval == ()
    assert WRITES == [{"path": "1", "text": "a"}]
    assert len(model.requests) == 2
    with pytest.raises(ValueError, match="no tool call waiting for approval"):
        session.approve()


def test_read_only_refuses_without_asking_and_all_runs_without_asking(
    make_runner: RunnerFactory,
) -> None:
    model = ScriptedBackend()
    session = _writer(model, make_runner, approve_tools="read-only")
    model.enqueue(ToolCallChunk("write_note", {"path": "x", "text": "y"}), "ok")
    reply = session.run("write")
    assert reply.awaiting_approval == () and reply.text == "ok"
    calls = [e for e in reply.events if isinstance(e, FunctionCall)]
    assert calls[0].needs_approval is False
    assert [e.response for e in reply.events if isinstance(e, FunctionResponse)] == [
        READ_ONLY_DENIED
    ]
    # A tool that needs no approval runs under any policy.
    model.enqueue(ToolCallChunk("read_note", {"path": "x"}), "read")
    reply = session.run("read")
    assert [e.response for e in reply.events if isinstance(e, FunctionResponse)] == [
        {"result": "contents of x"}
    ]

    session.runner.approve_tools = "all"
    model.enqueue(ToolCallChunk("write_note", {"path": "x", "text": "y"}), "written")
    reply = session.run("write")
    assert reply.awaiting_approval == () and WRITES == [{"path": "x", "text": "y"}]
    with pytest.raises(ValueError, match="approve_tools must be 'ask'"):
        session.runner.approve_tools = "never"


def test_a_stop_while_waiting_records_the_turn_interrupted_with_the_call_answered(
    make_runner: RunnerFactory,
) -> None:
    model = ScriptedBackend([ToolCallChunk("write_note", {"path": "x", "text": "y"})])
    session = _writer(model, make_runner)
    paused = session.run("write")
    assert paused.awaiting_approval
    with pytest.raises(SessionBusyError, match=r"waiting for approval.*%agent approve demo"):
        session.run("something else")

    session.cancel()
    wait_until(lambda: not session.busy, what="the stopped turn to be recorded")
    history = session.history
    assert _dangling(history) == []
    response = next(e for e in history if isinstance(e, FunctionResponse))
    assert response.response == STOPPED_WAITING
    end = history[-1]
    assert isinstance(end, TurnComplete) and end.interrupted
    assert WRITES == [] and session.awaiting_approval == ()
    model.enqueue("fine")
    assert session.run("again").text == "fine"  # the session is free again


def test_the_store_shows_the_waiting_call_to_another_kernel_and_a_shutdown_answers_it(
    tmp_path: Path, make_runner: RunnerFactory
) -> None:
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    model = ScriptedBackend([ToolCallChunk("write_note", {"path": "x", "text": "y"}, call_id="c")])
    first = make_runner(Agent("writer", tools=[write_note]), model=model, store=url)
    session = first.get_or_create_session("demo")
    assert session.run("write").awaiting_approval

    store = SQLiteStore(tmp_path / "sessions.db")  # another kernel's view of the same file
    record = store.get_session("agent_nb", "default", "demo")
    assert record is not None
    assert [c.call_id for c in waiting_calls(record.events)] == ["c"]

    first.shutdown()  # what a kernel shutting down (or restarting) does at exit
    record = store.get_session("agent_nb", "default", "demo")
    assert record is not None and waiting_calls(record.events) == []
    assert _dangling(record.events) == []
    assert [e.response for e in record.events if isinstance(e, FunctionResponse)] == [
        STOPPED_WAITING
    ]
    end = record.events[-1]
    assert isinstance(end, TurnComplete) and end.interrupted
    store.close()


def test_parallel_branches_wait_together_and_one_approve_answers_both(
    make_runner: RunnerFactory,
) -> None:
    model = ScriptedBackend(
        [
            ToolCallChunk("write_note", {"path": "a", "text": "1"}),
            ToolCallChunk("write_note", {"path": "b", "text": "2"}),
            "a done",
            "b done",
        ]
    )
    par = ParallelAgent("par", [Agent("a", tools=[write_note]), Agent("b", tools=[write_note])])
    session = make_runner(par, model=model).get_or_create_session("p")
    assert session.run("go").awaiting_approval
    # A branch that reaches its call after the pause joins it: one answer for both.
    wait_until(lambda: len(session.awaiting_approval) == 2, what="both branches to wait")
    rest = session.approve()
    assert rest.awaiting_approval == () and isinstance(rest.events[-1], TurnComplete)
    assert sorted(w["path"] for w in WRITES) == ["a", "b"]
    assert _dangling(session.history) == []
    assert sorted(e.text for e in session.history if isinstance(e, TextMessage) and e.text) == [
        "a done",
        "b done",
        "go",
    ]


def test_an_agent_tool_with_an_acting_tool_below_waits_once(make_runner: RunnerFactory) -> None:
    model = ScriptedBackend(
        [
            ToolCallChunk("helper", {"request": "write it"}),
            ToolCallChunk("write_note", {"path": "h", "text": "t"}),  # the helper's own call
            "helper wrote it",
            "all done",
        ]
    )
    helper = Agent("helper", tools=[write_note])
    root = Agent("root", tools=[AgentTool(helper)])
    assert root.tool("helper") is not None and root.tool("helper").confirm  # type: ignore[union-attr]
    session = make_runner(root, model=model).get_or_create_session("t")
    paused = session.run("delegate")
    assert [c.name for c in paused.awaiting_approval] == ["helper"]
    rest = session.approve()
    assert rest.awaiting_approval == () and rest.text == "all done"
    assert WRITES == [{"path": "h", "text": "t"}]


def test_a_tool_that_needs_approval_is_never_pure_and_keeps_its_agent_from_replay() -> None:
    assert as_tool(write_note).confirm and not as_tool(write_note).pure
    assert not agent_is_pure(Agent("w", tools=[read_note, write_note]))
    assert agent_is_pure(Agent("r", tools=[read_note]))
    assert not agent_is_pure(Agent("t", tools=[AgentTool(Agent("w", tools=[write_note]))]))
    with pytest.raises(ValueError, match="both pure=True and confirm=True"):
        tool(pure=True, confirm=True)
    with pytest.raises(ValueError, match="cannot be both pure and confirm"):
        Tool(
            func=read_note,
            spec=as_tool(read_note).spec,
            context_param=None,
            pure=True,
            confirm=True,
        )
    with pytest.raises(TypeError, match="confirm must be True or False"):
        tool(confirm="yes")  # type: ignore[call-overload]


def test_approve_async_streams_the_rest_of_the_turn(make_runner: RunnerFactory) -> None:
    model = ScriptedBackend([ToolCallChunk("write_note", {"path": "x", "text": "y"}), "streamed"])
    session = _writer(model, make_runner)

    async def main() -> list[Any]:
        events = [e async for e in session.run_async("write")]
        assert session.awaiting_approval
        return events + [e async for e in session.approve_async()]

    events = asyncio.run(main())
    assert any(isinstance(e, TextMessage) and e.is_partial for e in events)
    assert isinstance(events[-1], TurnComplete) and not events[-1].interrupted
    assert [e for e in events if not (isinstance(e, TextMessage) and e.is_partial)] == (
        session.history
    )


def test_an_agent_tool_not_approved_as_a_whole_lets_its_agents_calls_ask(
    make_runner: RunnerFactory,
) -> None:
    """A toolset lists its tools only when a turn runs, so an `AgentTool` may not know
    at build time that its agent acts: its agent's calls then ask by themselves."""
    model = ScriptedBackend(
        [
            ToolCallChunk("helper", {"request": "write it"}),
            ToolCallChunk("write_note", {"path": "h", "text": "t"}, call_id="inner"),
            "helper wrote it",
            "all done",
        ]
    )
    built = AgentTool(Agent("helper", tools=[write_note])).tool()
    unmarked = dataclasses.replace(built, confirm=False)  # as if its tools were unknown
    session = make_runner(Agent("root", tools=[unmarked]), model=model).get_or_create_session("u")
    paused = session.run("delegate")
    assert [(c.name, c.call_id) for c in paused.awaiting_approval] == [("write_note", "inner")]
    assert written_paths() == []
    assert session.approve().text == "all done"
    assert written_paths() == ["h"]


def written_paths() -> list[str]:
    return [w["path"] for w in WRITES]


def test_an_answer_that_comes_before_the_call_waits_is_kept_for_it() -> None:
    """A view shows Approve as soon as the call is recorded, before the turn's task
    reaches the wait: a click in between answers the call (it once raised "no tool
    call waiting" and the turn then waited forever, the widget's buttons redrawn)."""
    from agent_nb._runtime.approval import Approvals

    async def main() -> tuple[bool, list[Any]]:
        paused: list[Any] = []
        approvals = Approvals(on_pause=paused.append)
        call = FunctionCall(name="write_note", call_id="c1", needs_approval=True)
        with pytest.raises(ValueError, match="no tool call waiting"):
            approvals.answer(True, "c1", "demo")  # not recorded yet: nothing to answer
        approvals.expect(call)
        with pytest.raises(ValueError, match="'c2' is not waiting"):
            approvals.answer(True, "c2", "demo")
        approvals.answer(True, "c1", "demo")
        with pytest.raises(ValueError, match="no tool call waiting"):
            approvals.answer(False, "c1", "demo")  # answered once: not again
        return await approvals.ask(call), paused

    approved, paused = asyncio.run(main())
    assert approved and paused == []  # it ran at once: the turn did not pause
