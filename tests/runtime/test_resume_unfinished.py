"""A turn left open by a dead kernel is closed by the next turn (persistent store).

Opening the session only reads; the next turn takes the session's lease, which
proves the old writer gone (it held none, or it expired), and repairs first."""

from __future__ import annotations

from pathlib import Path

from agent_nb import FunctionCall, FunctionResponse, TextMessage, TurnComplete
from agent_nb.stores import SQLiteStore
from tests.fixtures_runtime import RunnerFactory


def test_the_next_turn_closes_a_turn_that_a_dead_kernel_left_open(
    tmp_path: Path, make_runner: RunnerFactory
) -> None:
    db = tmp_path / "sessions.db"
    store = SQLiteStore(db)
    record = store.create_session("agent_nb", "default", "s")
    # What a kernel killed inside a tool leaves behind: no response, no TurnComplete.
    store.append_event(record, TextMessage(text="go", author="user", invocation_id="inv1"))
    store.append_event(
        record, FunctionCall(name="slow", args={}, call_id="c1", author="a", invocation_id="inv1")
    )
    store.append_event(
        store.create_session("agent_nb", "default", "_st-dead"),
        TextMessage(text="x", author="user", invocation_id="inv2"),
    )
    store.close()

    runner = make_runner(model="scripted", store=f"sqlite:///{db}")
    session = runner.get_or_create_session("s")
    assert len(session.history) == 2  # opening wrote nothing
    assert session.run("next").text == "You said: next"
    history = session.history
    response = history[2]
    assert isinstance(response, FunctionResponse) and response.call_id == "c1"
    assert "kernel stopped" in response.response["error"]
    assert isinstance(history[3], TurnComplete) and history[3].interrupted
    assert isinstance(history[4], TextMessage) and history[4].text == "next"
    assert runner.stored_session_ids() == ["s"]  # the dead single-turn session is hidden
