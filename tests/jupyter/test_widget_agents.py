"""ChatWidget and multi-agent turns, Python side: authors and the trace panel's data.

Same seams as ``test_widget.py`` (a real widget on a real runner with the
ScriptedBackend, a recording comm); the browser test opens the panel.
"""

from __future__ import annotations

from agent_nb import Agent, AgentRunner, CodeAgent, SequentialAgent, ToolContext, TurnComplete
from agent_nb._jupyter.widget.protocol import entries_from_events
from agent_nb.backends import ScriptedBackend
from tests.fixtures_runtime import RunnerFactory
from tests.jupyter import test_widget as widget_tests
from tests.jupyter.test_widget import WidgetFactory, comm_of, turn_done, wait_for

# The recording comm and the widget factory, as in test_widget.py.
recording_comms = widget_tests.recording_comms
open_widget = widget_tests.open_widget


def count_words(ctx: ToolContext) -> None:
    ctx.state["temp:words"] = len(str(ctx.state.get("text", "")).split())


def pipeline() -> SequentialAgent:
    return SequentialAgent(
        "pair",
        [CodeAgent("counter", count_words),
         Agent("speaker", instructions="There are {temp:words} words.")],
    )  # fmt: skip


def test_a_two_agent_turn_sends_authors_and_its_trace(
    runner: AgentRunner, scripted: ScriptedBackend, open_widget: WidgetFactory
) -> None:
    scripted.enqueue("Three words there.")
    w = open_widget("agents", runner=runner)
    c = comm_of(w)
    session = w.session
    session.run("count", agent=pipeline(), state_delta={"text": "one two three"})
    wait_for(turn_done(c))
    deltas = c.custom("delta")
    assert deltas and {d["author"] for d in deltas} == {"speaker"}  # not the session agent
    entries = wait_for(lambda: w.transcript if w.transcript[-1]["kind"] == "turn" else None)
    assert [e.get("author") for e in entries if e["kind"] == "model"] == ["speaker"]
    trace = entries[-1]["trace"]
    assert trace["invocation_id"] == entries[-1]["invocation_id"]
    counter, speaker = trace["steps"]
    assert counter["agent"] == "counter" and counter["kind"] == "code"
    assert counter["scopes"]["temp"]["wrote"] == {"temp:words": "3"}
    assert counter["scopes"]["session"]["read"] == ["text"]
    assert speaker["scopes"] == {"temp": {"read": ["temp:words"], "wrote": {}}}
    assert speaker["generated_tokens"] > 0
    assert "temp:words" not in session.state  # the trace shows what the store never keeps


def test_a_plain_one_agent_turn_has_no_trace_panel(
    scripted: ScriptedBackend, make_runner: RunnerFactory
) -> None:
    r = make_runner(Agent(), model=scripted)
    scripted.enqueue("Hi.", "Hi again.")
    s = r.get_or_create_session("plain")
    s.run("hello")
    s.run("hello", state_delta={"user:name": "Ada"}, agent=Agent(instructions="To {user:name}"))
    first, second = [e for e in entries_from_events(s.history) if e["kind"] == "turn"]
    assert first["trace"] is None  # nothing to show beyond the transcript
    assert second["trace"] is not None  # one agent, but it read state
    assert second["trace"]["steps"][0]["scopes"]["user"]["read"] == ["user:name"]
    # The panel is what the store holds with the turn, so a store reopened in a
    # new kernel shows the same one.
    stored = [e.trace for e in s.history if isinstance(e, TurnComplete)]
    assert stored == [None, second["trace"]]
