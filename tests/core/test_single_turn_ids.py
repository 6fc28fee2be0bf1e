"""The hidden single-turn session ids: one prefix, known in one place."""

from __future__ import annotations

from agent_nb import AgentRunner
from agent_nb._core.ids import check_session_id, is_single_turn_id, new_single_turn_id
from agent_nb.backends import ScriptedBackend


def test_a_new_single_turn_id_passes_the_rule_and_is_recognised() -> None:
    first, second = new_single_turn_id(), new_single_turn_id()
    assert first != second
    assert check_session_id(first) == first
    assert is_single_turn_id(first)
    assert not is_single_turn_id("default") and not is_single_turn_id("st-x")


def test_the_runner_hides_exactly_those_sessions() -> None:
    backend = ScriptedBackend()
    runner = AgentRunner(model=backend)
    try:
        store = runner.store
        store.create_session(runner.app_name, runner.user_id, new_single_turn_id())
        store.create_session(runner.app_name, runner.user_id, "visible")
        assert runner.stored_session_ids() == ["visible"]
        backend.enqueue("hi")
        assert runner.run_single_turn("hello").text == "hi"
        assert [i.id for i in runner.sessions(include_hidden=True)] == []  # removed when done
    finally:
        runner.shutdown()
