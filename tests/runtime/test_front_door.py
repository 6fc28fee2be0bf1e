"""The front door (`AgentRunner.start_turn` with a `TurnRequest`), without IPython:
the re-run rewind, the window check, the options precedence, the data
pipeline, the waiting note, holders and origins, and the blocking iterator."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from agent_nb import AgentRunner, GenerationConfig, TextMessage
from agent_nb._core.types import Event, Rewound, TurnComplete, Waiting
from agent_nb._jupyter.data_question import DataQuestion
from agent_nb._runtime.agents import Agent
from agent_nb._runtime.front_door import TurnRequest
from agent_nb._runtime.options import TurnOptions
from agent_nb._runtime.origins import origin_of
from agent_nb.backends import ScriptedBackend
from agent_nb.errors import ContextWindowError, SessionBusyError
from tests.fixtures_runtime import RunnerFactory


def _texts(runner: AgentRunner, session_id: str) -> list[str]:
    history = runner.get_or_create_session(session_id).history
    return [e.text for e in history if isinstance(e, TextMessage) and e.author == "user"]


def _events(runner: AgentRunner, request: TurnRequest) -> list[Event]:
    return list(runner.start_turn(request))


def test_a_rerun_replaces_its_turn_and_says_where_the_turns_went(runner: AgentRunner) -> None:
    first = runner.start_turn(TurnRequest("first", "s"))
    first_id = first.result().invocation_id
    runner.start_turn(TurnRequest("second", "s")).result()
    events = _events(runner, TurnRequest("first, edited", "s", replaces=first_id))
    rewound = events[0]
    assert isinstance(rewound, Rewound) and rewound.moved_to == 2
    assert rewound.turns[0] == first_id and len(rewound.turns) == 2
    assert not rewound.shared_state
    assert _texts(runner, "s") == ["first, edited"]
    session = runner.get_or_create_session("s")
    assert [b.number for b in session.branches()] == [1, 2]
    assert not any(isinstance(e, Rewound) for e in session.history)  # never stored


def test_a_turn_that_is_not_on_the_path_any_more_is_appended_to(runner: AgentRunner) -> None:
    events = _events(runner, TurnRequest("hello", "s", replaces="no-such-turn"))
    assert not any(isinstance(e, Rewound) for e in events)
    assert _texts(runner, "s") == ["hello"]


def test_max_tokens_beyond_the_window_is_refused_before_the_rewind(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner(model=ScriptedBackend(context_window=64))
    fits = TurnOptions(overrides={"max_tokens": 16})
    first = runner.start_turn(TurnRequest("first", "w", fits)).result()
    too_many = TurnOptions(overrides={"max_tokens": 100})
    with pytest.raises(ContextWindowError, match=r"\(64 tokens for scripted\), got 100") as err:
        runner.start_turn(TurnRequest("again", "w", too_many, replaces=first.invocation_id))
    assert not err.value.sent and err.value.window == 64
    session = runner.get_or_create_session("w")
    assert _texts(runner, "w") == ["first"] and len(session.branches()) == 1
    assert not session.busy


def test_options_precedence_explicit_then_agent_then_kernel_defaults(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    agent = Agent(name="own", config=GenerationConfig(temperature=0.5, max_tokens=30))
    runner.get_or_create_session("p", agent=agent)
    options = TurnOptions(
        overrides={"max_tokens": 7},
        defaults={"max_tokens": 99, "temperature": 0.9, "repetition_stop": 4},
    )
    runner.start_turn(TurnRequest("hi", "p", options)).result()
    config = scripted.requests[-1].config
    assert (config.max_tokens, config.temperature, config.repetition_stop) == (7, 0.5, 4)


def test_the_data_pipeline_answers_from_the_frame(
    runner: AgentRunner, scripted: ScriptedBackend
) -> None:
    frame = pd.DataFrame({"city": ["Oslo", "Rome", "Oslo"], "sales": [3, 5, 4]})
    scripted.enqueue("Oslo sold 7, Rome 5.")
    request = TurnRequest(
        "total sales by city",
        "d",
        TurnOptions(system="Be terse."),
        data=DataQuestion({"df": frame}, "total sales by city", wording="model"),
    )
    reply = runner.start_turn(request).result()
    state_seen = scripted.requests[-1].system_instruction or ""
    assert "Be terse." in state_seen  # the system prompt went into the writer
    assert "Oslo" in state_seen and "7" in state_seen  # the computed answer, not the model's
    assert reply.text == "Oslo sold 7, Rome 5."  # "by city": every city's total


def test_a_busy_session_is_refused_before_new_deletes_it(
    make_runner: RunnerFactory,
) -> None:
    slow = ScriptedBackend([" ".join(["w"] * 30)], token_delay=0.02)
    runner = make_runner(model=slow)
    running = runner.start_turn(TurnRequest("long", "b"))
    with pytest.raises(SessionBusyError, match="already running a turn"):
        runner.start_turn(TurnRequest("again", "b", new=True))
    assert running.result().text.startswith("w")
    assert _texts(runner, "b") == ["long"]


def test_holder_and_origin_are_noted(runner: AgentRunner) -> None:
    stream = runner.start_turn(TurnRequest("hi", "h", holder="ChatWidget 1a2b3c4d"))
    stream.result()
    assert runner.session_holders("h") == ("ChatWidget 1a2b3c4d",)
    assert origin_of(stream.invocation_id) == "ChatWidget 1a2b3c4d"


def test_once_runs_on_a_hidden_session_that_goes_away(runner: AgentRunner) -> None:
    reply = runner.start_turn(TurnRequest("hello")).result()
    assert reply.text == "You said: hello"
    assert runner.sessions(include_hidden=True) == []


def test_the_waiting_note_follows_the_turns_ahead(make_runner: RunnerFactory) -> None:
    model = ScriptedBackend(
        [" ".join(["word"] * 30), "mine"], token_delay=0.02, one_turn_at_a_time=True
    )
    runner = make_runner(model=model)
    ahead = runner.start_turn(TurnRequest("a long one", "widget-chat"))
    while not model.requests:
        threading.Event().wait(0.005)
    events = _events(runner, TurnRequest("hello", "mine"))
    notes = [e.sessions for e in events if isinstance(e, Waiting)]
    assert notes == [("widget-chat",), ()]
    first_text = next(
        i for i, e in enumerate(events) if isinstance(e, TextMessage) and e.author != "user"
    )
    assert max(i for i, e in enumerate(events) if isinstance(e, Waiting)) < first_text
    assert ahead.result().text.startswith("word")
    assert isinstance(events[-1], TurnComplete)


def test_no_waiting_note_when_nothing_is_ahead(make_runner: RunnerFactory) -> None:
    runner = make_runner(model=ScriptedBackend(one_turn_at_a_time=True))
    events = _events(runner, TurnRequest("hello", "alone"))
    assert not any(isinstance(e, Waiting) for e in events)


def test_the_blocking_iterator_raises_the_turns_error_at_the_end(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner(model=ScriptedBackend(context_window=10))
    stream = runner.start_turn(TurnRequest("word " * 40, "e"))
    with pytest.raises(ContextWindowError):
        list(stream)


def test_each_turn_reads_the_data_again(runner: AgentRunner, scripted: ScriptedBackend) -> None:
    """A widget keeps its `DataQuestion`; a frame changed between its turns is read anew."""
    frame = pd.DataFrame({"city": ["Oslo", "Rome", "Oslo"], "sales": [3, 5, 4]})
    data = DataQuestion({"df": frame}, wording="model")
    scripted.enqueue("first", "second")
    runner.start_turn(TurnRequest("total sales by city", "w", data=data)).result()
    assert "7" in scripted.requests[-1].system_instruction
    frame.loc[0, "sales"] = 100
    runner.start_turn(TurnRequest("total sales by city", "w", data=data)).result()
    assert "104" in scripted.requests[-1].system_instruction


def test_a_rerun_stopped_at_once_still_rewinds_and_keeps_its_message(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner(model=ScriptedBackend(token_delay=0.02))
    first = runner.start_turn(TurnRequest("first", "x")).result()
    stream = runner.start_turn(TurnRequest("again " * 20, "x", replaces=first.invocation_id))
    stream.cancel()
    events = list(stream)
    assert isinstance(events[0], Rewound)  # the rewind was whole before the stop landed
    session = runner.get_or_create_session("x")
    assert _texts(runner, "x") == ["again " * 20]
    end = session.history[-1]
    assert isinstance(end, TurnComplete) and end.interrupted
