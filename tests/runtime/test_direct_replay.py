"""Direct model access takes the one route: a `ModelCall` on the worker loop with the
cancel token and, when asked, replay (agent_nb._runtime.direct, agent_nb._runtime.replay).

The ScriptedBackend with a replay identity stands for a model; a second runner with
a new backend of the same identity is a restarted kernel.
"""

from __future__ import annotations

import pytest

from agent_nb import (
    AgentRunner,
    Content,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    GenerationConfig,
    TextMessage,
    TurnComplete,
)
from agent_nb._runtime.replay import replay_cache
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.runtime import test_replay as replay_tests

HISTORY = [
    Content.user("My favourite colour is blue."),
    Content.model("Noted."),
    Content.user("What is my favourite colour?"),
]


# The replay file of the test's own (autouse) and the runners shut down after it.
replay_on = replay_tests.replay_on
runners = replay_tests.runners


def _model(*replies: str | ToolCallChunk, identity: str = "m1") -> ScriptedBackend:
    return ScriptedBackend(list(replies), replay_identity=identity)


def _direct(
    made: list[AgentRunner], backend: ScriptedBackend, request: GenerateContentRequest, **kw: bool
) -> list[object]:
    runner = AgentRunner(model=backend)
    made.append(runner)
    return list(runner.generate_content_async(request, **kw))


def _final(events: list[object]) -> list[str]:
    return [e.text for e in events if isinstance(e, TextMessage) and not e.is_partial]


def _usage(events: list[object]) -> TurnComplete:
    done = events[-1]
    assert isinstance(done, TurnComplete)
    return done


def test_a_direct_call_asked_to_replay_gets_the_recorded_answer(
    runners: list[AgentRunner],
) -> None:
    request = GenerateContentRequest(HISTORY, session_id="affinity")
    first = _direct(runners, _model("Blue."), request, replay=True)
    again = _model("something else entirely")  # a restarted kernel: same model
    second = _direct(runners, again, GenerateContentRequest(HISTORY), replay=True)
    assert _final(first) == _final(second) == ["Blue."]
    assert (_usage(first).usage.replayed_calls, _usage(second).usage.replayed_calls) == (0, 1)
    assert again.requests == [] and again.pending == 1  # the model was not asked
    partial = [e for e in second if isinstance(e, TextMessage) and e.is_partial]
    assert "".join(e.text for e in partial) == "Blue."  # streamed as the model did
    assert replay_cache().stats()["hits"] >= 1


def test_a_direct_call_replays_only_when_asked_and_allowed(
    runners: list[AgentRunner], monkeypatch: pytest.MonkeyPatch
) -> None:
    request = GenerateContentRequest(HISTORY)
    _direct(runners, _model("Blue."), request, replay=True)
    plain = _direct(runners, _model("Green."), request)  # the Python API default
    assert _final(plain) == ["Green."]
    sampled = GenerateContentRequest(HISTORY, config=GenerationConfig(temperature=0.7))
    _direct(runners, _model("Red."), sampled, replay=True)
    assert _final(_direct(runners, _model("Pink."), sampled, replay=True)) == ["Pink."]
    other_model = _direct(runners, _model("Grey.", identity="m2"), request, replay=True)
    assert _final(other_model) == ["Grey."]
    monkeypatch.setenv("AGENT_NB_REPLAY", "0")
    assert _final(_direct(runners, _model("Teal."), request, replay=True)) == ["Teal."]


def test_a_replayed_direct_call_reports_its_tool_calls_and_runs_none(
    runners: list[AgentRunner],
) -> None:
    request = GenerateContentRequest([Content.user("search mlx")])
    _direct(runners, _model(ToolCallChunk("search", {"q": "mlx"})), request, replay=True)
    again = _model()
    events = _direct(runners, again, request, replay=True)
    calls = [(e.name, dict(e.args)) for e in events if isinstance(e, FunctionCall)]
    assert calls == [("search", {"q": "mlx"})] and again.requests == []
    assert not any(isinstance(e, FunctionResponse) for e in events)
    assert _usage(events).usage.replayed_calls == 1


def test_a_stopped_direct_call_is_not_recorded(runners: list[AgentRunner]) -> None:
    slow = _model(" ".join(["word"] * 200))
    slow.token_delay = 0.01
    runner = AgentRunner(model=slow)
    runners.append(runner)
    stream = runner.generate_content_async(GenerateContentRequest(HISTORY), replay=True)
    for event in stream:
        if isinstance(event, TextMessage) and event.is_partial:
            stream.cancel()
    assert stream.result(timeout=5).interrupted
    fresh = _direct(runners, _model("Blue."), GenerateContentRequest(HISTORY), replay=True)
    assert _final(fresh) == ["Blue."] and _usage(fresh).usage.replayed_calls == 0


def test_replay_must_be_a_bool(runners: list[AgentRunner]) -> None:
    runner = AgentRunner(model=_model())
    runners.append(runner)
    with pytest.raises(TypeError, match="replay must be True or False, got 'yes'"):
        runner.generate_content_async(GenerateContentRequest(HISTORY), replay="yes")  # type: ignore[arg-type]
