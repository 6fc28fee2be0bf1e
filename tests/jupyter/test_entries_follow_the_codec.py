"""The widget's transcript entries are the event codec's dicts, renamed for the view.

Events become dicts in one place (`agent_nb._core.codec`): the stores, the
JSON export and the widget all read that dict, so an entry never says
something about an event that the stored row does not.
"""

from __future__ import annotations

import json

from agent_nb import Agent, AgentRunner
from agent_nb._core.codec import event_from_dict, event_to_dict
from agent_nb._core.types import TurnComplete
from agent_nb._jupyter.export import session_json
from agent_nb._jupyter.widget.protocol import entry_from_event, turn_complete_msg
from agent_nb.backends import ScriptedBackend, ToolCallChunk

VIEW_KIND = {"function_call": "tool_call", "function_response": "tool_result",
             "turn_complete": "turn"}  # fmt: skip
# ``trace`` comes from the session's in-memory trace of the turn, not from the
# stored event (temp: state is never stored); test_widget_agents.py checks it.
# ``stale`` is the notebook's mark on the turn (test_replay_and_stale.py).
VIEW_ONLY = {"kind", "usage", "trace", "stale"}


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_every_entry_field_is_the_codecs_value() -> None:
    backend = ScriptedBackend()
    runner = AgentRunner(Agent("helper", tools=[add]), model=backend)
    try:
        backend.enqueue(ToolCallChunk("add", {"a": 1, "b": 2}), "The sum is 3.")
        session = runner.get_or_create_session("s")
        session.run("add 1 and 2")
        history = session.history
        kinds = []
        exported = json.loads(session_json(session))["events"]
        for event, row in zip(history, exported, strict=True):
            data = event_to_dict(event)
            assert event_from_dict(row) == event  # the export is the codec's dict
            entry = entry_from_event(event)
            assert entry is not None
            kinds.append(entry["kind"])
            expected = VIEW_KIND.get(data["kind"]) or (
                "user" if data["author"] == "user" else "model"
            )
            assert entry["kind"] == expected
            for key, value in entry.items():
                if key not in VIEW_ONLY:
                    assert value == data[key], key
            if isinstance(event, TurnComplete):
                usage = dict(entry["usage"])  # type: ignore[typeddict-item]
                assert usage.pop("window_note") is None  # a view field, on top
                assert usage.pop("replayed_calls") == 0  # the codec leaves a 0 out
                assert usage.items() <= data["usage"].items()
                msg = turn_complete_msg(event)
                assert msg["usage"] == entry["usage"]  # type: ignore[typeddict-item]
        assert kinds == ["user", "tool_call", "tool_result", "model", "turn"]
    finally:
        runner.shutdown()
