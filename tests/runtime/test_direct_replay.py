"""Direct model access takes the one route: a `ModelCall` on the worker loop with the
cancel token and, when asked, replay (agent_nb._runtime.direct, agent_nb._runtime.replay).

The ScriptedBackend with a replay identity stands for a model; a second runner with
a new backend of the same identity is a restarted kernel.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

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

HISTORY = [
    Content.user("My favourite colour is blue."),
    Content.model("Noted."),
    Content.user("What is my favourite colour?"),
]


@pytest.fixture(autouse=True)
def replay_on(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "replay.sqlite"
    monkeypatch.setenv("AGENT_NB_REPLAY", "1")
    monkeypatch.setenv("AGENT_NB_REPLAY_FILE", str(path))
    return path


@pytest.fixture
def runner_on() -> Iterator[list[AgentRunner]]:
    made: list[AgentRunner] = []
    yield made
    for runner in made:
        runner.shutdown()


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
    runner_on: list[AgentRunner],
) -> None:
    request = GenerateContentRequest(HISTORY, session_id="affinity")
    first = _direct(runner_on, _model("Blue."), request, replay=True)
    again = _model("something else entirely")  # a restarted kernel: same model
    second = _direct(runner_on, again, GenerateContentRequest(HISTORY), replay=True)
    assert _final(first) == _final(second) == ["Blue."]
    assert (_usage(first).usage.replayed_calls, _usage(second).usage.replayed_calls) == (0, 1)
    assert again.requests == [] and again.pending == 1  # the model was not asked
    partial = [e for e in second if isinstance(e, TextMessage) and e.is_partial]
    assert "".join(e.text for e in partial) == "Blue."  # streamed as the model did
    assert replay_cache().stats()["hits"] >= 1


def test_a_direct_call_replays_only_when_asked_and_allowed(
    runner_on: list[AgentRunner], monkeypatch: pytest.MonkeyPatch
) -> None:
    request = GenerateContentRequest(HISTORY)
    _direct(runner_on, _model("Blue."), request, replay=True)
    plain = _direct(runner_on, _model("Green."), request)  # the Python API default
    assert _final(plain) == ["Green."]
    sampled = GenerateContentRequest(HISTORY, config=GenerationConfig(temperature=0.7))
    _direct(runner_on, _model("Red."), sampled, replay=True)
    assert _final(_direct(runner_on, _model("Pink."), sampled, replay=True)) == ["Pink."]
    other_model = _direct(runner_on, _model("Grey.", identity="m2"), request, replay=True)
    assert _final(other_model) == ["Grey."]
    monkeypatch.setenv("AGENT_NB_REPLAY", "0")
    assert _final(_direct(runner_on, _model("Teal."), request, replay=True)) == ["Teal."]


def test_a_replayed_direct_call_reports_its_tool_calls_and_runs_none(
    runner_on: list[AgentRunner],
) -> None:
    request = GenerateContentRequest([Content.user("search mlx")])
    _direct(runner_on, _model(ToolCallChunk("search", {"q": "mlx"})), request, replay=True)
    again = _model()
    events = _direct(runner_on, again, request, replay=True)
    calls = [(e.name, dict(e.args)) for e in events if isinstance(e, FunctionCall)]
    assert calls == [("search", {"q": "mlx"})] and again.requests == []
    assert not any(isinstance(e, FunctionResponse) for e in events)
    assert _usage(events).usage.replayed_calls == 1


def test_a_stopped_direct_call_is_not_recorded(runner_on: list[AgentRunner]) -> None:
    slow = _model(" ".join(["word"] * 200))
    slow.token_delay = 0.01
    runner = AgentRunner(model=slow)
    runner_on.append(runner)
    stream = runner.generate_content_async(GenerateContentRequest(HISTORY), replay=True)
    for event in stream:
        if isinstance(event, TextMessage) and event.is_partial:
            stream.cancel()
    assert stream.result(timeout=5).interrupted
    fresh = _direct(runner_on, _model("Blue."), GenerateContentRequest(HISTORY), replay=True)
    assert _final(fresh) == ["Blue."] and _usage(fresh).usage.replayed_calls == 0


def test_replay_must_be_a_bool(runner_on: list[AgentRunner]) -> None:
    runner = AgentRunner(model=_model())
    runner_on.append(runner)
    with pytest.raises(TypeError, match="replay must be True or False, got 'yes'"):
        runner.generate_content_async(GenerateContentRequest(HISTORY), replay="yes")  # type: ignore[arg-type]
