"""Replay at the model-call seam: what makes a call the same, what may be replayed,
and a cache file that breaks never breaks a turn (agent_nb._runtime.replay)."""

from __future__ import annotations

import pathlib
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from agent_nb import (
    Agent,
    AgentRunner,
    FunctionCall,
    GenerationConfig,
    ParallelAgent,
    SequentialAgent,
    TextMessage,
    tool,
)
from agent_nb._core.tools import as_tool
from agent_nb._runtime.options import TurnOptions
from agent_nb._runtime.replay import ReplayCache, replay_cache
from agent_nb.backends import ScriptedBackend, ToolCallChunk

REPLAY = TurnOptions(replay=True)


@pytest.fixture(autouse=True)
def replay_on(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "replay.sqlite"
    monkeypatch.setenv("AGENT_NB_REPLAY", "1")
    monkeypatch.setenv("AGENT_NB_REPLAY_FILE", str(path))
    return path


@pytest.fixture
def runners() -> Iterator[list[AgentRunner]]:
    made: list[AgentRunner] = []
    yield made
    for runner in made:
        runner.shutdown()


def _runner(runners: list[AgentRunner], agent: Any, backend: ScriptedBackend) -> AgentRunner:
    runner = AgentRunner(agent, model=backend)
    runners.append(runner)
    return runner


def _model(*replies: Any, identity: str = "m1") -> ScriptedBackend:
    return ScriptedBackend(list(replies), replay_identity=identity)


def _texts(events: Any, *, user: bool = True) -> list[str]:
    return [
        e.text
        for e in events
        if isinstance(e, TextMessage) and not e.is_partial and (user or e.author != "user")
    ]


def test_the_same_request_replays_the_recorded_answer(runners: list[AgentRunner]) -> None:
    first = _model("The answer is 42.")
    one = _runner(runners, Agent(), first).get_or_create_session("s").run("q?", turn_options=REPLAY)
    again = _model("something else entirely")  # a fresh kernel: a new backend, same model
    session = _runner(runners, Agent(), again).get_or_create_session("s")
    two = session.run("q?", replay=True)
    assert two.text == one.text == "The answer is 42."
    assert (one.usage.replayed_calls, two.usage.replayed_calls) == (0, 1)
    assert again.requests == [] and again.pending == 1  # the model was not asked
    # recorded like any turn: user message, final text, turn end
    assert _texts(session.history) == ["q?", "The answer is 42."]
    assert replay_cache().stats()["hits"] >= 1


def test_the_python_api_default_and_the_switches_leave_replay_off(
    runners: list[AgentRunner], monkeypatch: pytest.MonkeyPatch
) -> None:
    _runner(runners, Agent(), _model("A.")).get_or_create_session("s").run("q", turn_options=REPLAY)
    plain = _model("B.")
    assert _runner(runners, Agent(), plain).get_or_create_session("s").run("q").text == "B."
    monkeypatch.setenv("AGENT_NB_REPLAY", "0")
    off = _model("C.")
    reply = _runner(runners, Agent(), off).get_or_create_session("s").run("q", turn_options=REPLAY)
    assert reply.text == "C." and reply.usage.replayed_calls == 0


def test_a_backend_without_an_identity_is_never_replayed(runners: list[AgentRunner]) -> None:
    for text in ("A.", "B."):
        backend = ScriptedBackend([text])  # replies come from its queue, not the request
        reply = (
            _runner(runners, Agent(), backend)
            .get_or_create_session("s")
            .run("q", turn_options=REPLAY)
        )
        assert reply.text == text


@pytest.mark.parametrize(
    "change",
    ["model", "system", "temperature", "seed", "max_tokens", "tool", "message"],
)
def test_a_change_to_what_decides_the_reply_defeats_replay(
    runners: list[AgentRunner], change: str
) -> None:
    @tool(pure=True)
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    @tool(pure=True)
    def lookup2(city: str, country: str = "") -> str:
        """Look a city up."""
        return city

    def build(variant: bool) -> tuple[Agent, ScriptedBackend, str, TurnOptions]:
        on = variant
        config = GenerationConfig(
            temperature=0.5 if on and change == "temperature" else 0.0,
            seed=7 if (change == "temperature") or (on and change == "seed") else None,
            max_tokens=100 if on and change == "max_tokens" else 512,
        )
        fn = lookup2 if on and change == "tool" else lookup
        fn.__name__ = "lookup"
        agent = Agent(
            instructions="Be brief." if on and change == "system" else "Be terse.",
            tools=[fn],
            config=config,
        )
        backend = _model("Reply.", identity="m2" if on and change == "model" else "m1")
        message = "other?" if on and change == "message" else "q?"
        return agent, backend, message, REPLAY

    agent, backend, message, options = build(False)
    _runner(runners, agent, backend).get_or_create_session("s").run(message, turn_options=options)
    # the same again replays ...
    agent, backend, message, options = build(False)
    same = _runner(runners, agent, backend).get_or_create_session("s")
    assert same.run(message, turn_options=options).usage.replayed_calls == 1
    # ... the change does not
    agent, backend, message, options = build(True)
    changed = _runner(runners, agent, backend).get_or_create_session("s")
    reply = changed.run(message, turn_options=options)
    assert reply.usage.replayed_calls == 0 and len(backend.requests) == 1


def test_sampling_without_a_seed_is_never_replayed(runners: list[AgentRunner]) -> None:
    agent = Agent(config=GenerationConfig(temperature=0.7))
    for text in ("A.", "B."):
        reply = (
            _runner(runners, agent, _model(text))
            .get_or_create_session("s")
            .run("q", turn_options=REPLAY)
        )
        assert reply.text == text and reply.usage.replayed_calls == 0


def _tool_turn(
    runners: list[AgentRunner], fn: Any, calls: list[int], *replies: Any
) -> tuple[Any, ScriptedBackend]:
    backend = _model(*(replies or (ToolCallChunk("add", {"a": 2, "b": 3}), "It is 5.")))
    session = _runner(runners, Agent(tools=[fn]), backend).get_or_create_session("s")
    return session.run("2+3?", turn_options=REPLAY), backend


def test_tool_calls_replay_only_when_every_tool_is_pure(runners: list[AgentRunner]) -> None:
    calls: list[int] = []

    @tool(pure=True)
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        calls.append(a + b)
        return a + b

    first, _ = _tool_turn(runners, add, calls)
    second, backend = _tool_turn(runners, add, calls)
    assert second.text == first.text == "It is 5."
    assert second.usage.replayed_calls == 2 and backend.requests == []
    assert calls == [5, 5]  # the replayed call ran the (pure) tool again
    names = [e.name for e in second.events if isinstance(e, FunctionCall)]
    assert names == ["add"]

    calls.clear()

    def add_impure(a: int, b: int) -> int:
        """Add two numbers."""
        calls.append(a + b)
        return a + b

    add_impure.__name__ = "add"
    for _ in range(2):
        reply, backend = _tool_turn(runners, add_impure, calls)
        assert reply.usage.replayed_calls == 0 and len(backend.requests) == 2


def test_a_changed_tool_result_defeats_the_next_call(runners: list[AgentRunner]) -> None:
    """A pure tool whose code changed: its call replays, its new result is a new request."""

    @tool(pure=True)
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    _tool_turn(runners, add, [])

    @tool(pure=True)
    def add2(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b + 1

    add2.__name__ = "add"
    reply, backend = _tool_turn(runners, add2, [], "It is 6.")  # the call itself is replayed
    assert reply.usage.replayed_calls == 1 and len(backend.requests) == 1
    assert reply.text == "It is 6."


def test_the_pure_mark(runners: list[AgentRunner]) -> None:
    @tool
    def plain(x: int) -> int:
        """X."""
        return x

    @tool(pure=True)
    def pure(x: int) -> int:
        """X."""
        return x

    assert (as_tool(plain).pure, as_tool(pure).pure) == (False, True)
    assert pure(3) == 3  # still a plain function
    with pytest.raises(TypeError):
        tool(pure="yes")  # type: ignore[call-overload]


def _pipeline() -> SequentialAgent:
    return SequentialAgent(
        "pipe",
        [
            Agent("drafter", instructions="Draft.", output_key="draft"),
            ParallelAgent(
                "par",
                [Agent("a", instructions="Critic A."), Agent("b", instructions="Critic B.")],
            ),
            Agent("writer", instructions="Write from {draft}."),
        ],
    )


def test_a_multi_agent_turn_replays_every_call(runners: list[AgentRunner]) -> None:
    replies = ("First draft.", "From A.", "From B.", "Final text.")
    backend = _model(*replies)
    session = _runner(runners, _pipeline(), backend).get_or_create_session("s")
    first = session.run("Go.", turn_options=REPLAY)
    again = _model("x", "y", "z", "w")
    replayed = _runner(runners, _pipeline(), again).get_or_create_session("s")
    second = replayed.run("Go.", turn_options=REPLAY)
    assert again.requests == [] and second.usage.replayed_calls == 4
    assert _texts(second.events) == _texts(first.events)
    assert sorted(_texts(second.events, user=False)) == sorted(replies)
    assert replayed.state["draft"] == session.state["draft"] == "First draft."
    authors = {e.author: e.branch for e in second.events if isinstance(e, TextMessage)}
    assert authors["a"] == "par.a" and authors["b"] == "par.b"


def test_a_second_turn_replays_with_its_history(runners: list[AgentRunner]) -> None:
    for attempt in range(2):
        backend = _model("One.", "Two.")
        session = _runner(runners, Agent(), backend).get_or_create_session("s")
        session.run("first", turn_options=REPLAY)
        reply = session.run("second", turn_options=REPLAY)
        assert reply.text == "Two." and reply.usage.replayed_calls == attempt
    # a different first answer makes the second turn a new request
    backend = _model("Uno.", "Dos.", identity="m1")
    session = _runner(runners, Agent(), backend).get_or_create_session("s")
    session.run("first", turn_options=TurnOptions(replay=False))
    assert session.run("second", turn_options=REPLAY).text == "Dos."


def test_a_corrupt_cache_file_degrades_to_a_normal_turn(
    runners: list[AgentRunner], replay_on: pathlib.Path
) -> None:
    _runner(runners, Agent(), _model("A.")).get_or_create_session("s").run("q", turn_options=REPLAY)
    replay_on.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        replay_on.with_name(replay_on.name + suffix).unlink(missing_ok=True)
    backend = _model("B.")
    reply = (
        _runner(runners, Agent(), backend).get_or_create_session("s").run("q", turn_options=REPLAY)
    )
    assert reply.text == "B." and reply.usage.replayed_calls == 0
    assert replay_cache().error is not None
    assert replay_on.with_name(replay_on.name + ".corrupt").exists()  # kept aside
    # the next turn records afresh, the one after replays
    _runner(runners, Agent(), _model("C.")).get_or_create_session("s").run(
        "q2", turn_options=REPLAY
    )
    again = _runner(runners, Agent(), _model("D.")).get_or_create_session("s")
    assert again.run("q2", turn_options=REPLAY).text == "C."


def test_a_missing_cache_file_is_made_again(
    runners: list[AgentRunner], replay_on: pathlib.Path
) -> None:
    _runner(runners, Agent(), _model("A.")).get_or_create_session("s").run("q", turn_options=REPLAY)
    for suffix in ("", "-wal", "-shm"):
        replay_on.with_name(replay_on.name + suffix).unlink(missing_ok=True)
    backend = _model("B.")
    reply = (
        _runner(runners, Agent(), backend).get_or_create_session("s").run("q", turn_options=REPLAY)
    )
    assert reply.text == "B." and len(backend.requests) == 1
    assert replay_on.exists()


def test_an_unwritable_cache_folder_degrades_too(
    runners: list[AgentRunner], monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("AGENT_NB_REPLAY_FILE", str(blocker / "sub" / "replay.sqlite"))
    for text in ("A.", "B."):
        reply = (
            _runner(runners, Agent(), _model(text))
            .get_or_create_session("s")
            .run("q", turn_options=REPLAY)
        )
        assert reply.text == text


def test_the_budget_removes_the_least_recently_used(tmp_path: pathlib.Path) -> None:
    from agent_nb._core.types import Usage
    from agent_nb._runtime.replay import Recording

    answer = Recording(("x" * 300,), (), Usage(), "stop")
    size = len(answer.to_json().encode())
    cache = ReplayCache(tmp_path / "r.sqlite", budget=2 * size + 10)  # room for two
    for key in ("a", "b", "c"):
        cache.put(key, "m", answer)
    assert cache.get("a") is None  # the oldest went to make room
    assert cache.get("b") is not None  # now the most recently used
    cache.put("d", "m", answer)
    assert cache.get("c") is None and cache.get("b") is not None
    stats = cache.stats()
    assert stats["entries"] == 2 and stats["bytes"] <= 2 * size + 10
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 2


def test_a_cut_short_or_failed_call_is_not_recorded(runners: list[AgentRunner]) -> None:
    failing = _model(RuntimeError("model crashed"))
    with pytest.raises(Exception, match="model crashed"):
        _runner(runners, Agent(), failing).get_or_create_session("s").run("q", turn_options=REPLAY)
    loop = _model("She loves to play with her favourite toys. " * 20)  # the repetition stop
    _runner(runners, Agent(), loop).get_or_create_session("s").run("loop", turn_options=REPLAY)
    assert replay_cache().stats()["entries"] == 0
