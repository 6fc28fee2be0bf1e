"""ADK's ``tests/unittests/agents/test_sequential_agent.py`` and the ``BaseAgent`` run tests
of ``test_base_agent.py``, re-expressed through a real `AgentRunner` on the scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent_nb import (
    Agent,
    CodeAgent,
    ParallelAgent,
    Role,
    SequentialAgent,
    TextMessage,
    TurnComplete,
)
from agent_nb.backends import ScriptedBackend
from tests.fixtures_runtime import RunnerFactory
from tests.runtime.adk_support import parts_texts, request_texts, simplify, turn_events


def greeting_agent(name: str, *, delay: float = 0.0) -> Any:
    """ADK's ``_TestingAgent``: a custom agent that yields one greeting in its context's branch."""
    from agent_nb import BaseAgent  # the reshaped engine's base class (issue 28)

    class _TestingAgent(BaseAgent):  # type: ignore[misc]
        async def run(self, ctx: Any) -> AsyncIterator[Any]:
            await asyncio.sleep(delay)
            yield TextMessage(
                text=f"Hello, async {self.name}!",
                author=self.name,
                invocation_id=ctx.invocation_id,
                branch=ctx.branch,
            )

    return _TestingAgent(name=name)


def test_sequential_run_async(make_runner: RunnerFactory) -> None:
    """ADK agents/test_sequential_agent.py::test_run_async"""
    agent_1 = greeting_agent("test_agent_1")
    agent_2 = greeting_agent("test_agent_2")
    tree = SequentialAgent("test_agent", [agent_1, agent_2])
    session = make_runner(tree).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("test_agent_1", "Hello, async test_agent_1!"),
        ("test_agent_2", "Hello, async test_agent_2!"),
    ]
    assert all(e.branch is None for e in session.history)


def test_sequential_run_async_model_agents(make_runner: RunnerFactory) -> None:
    """ADK agents/test_sequential_agent.py::test_run_async, with model agents"""
    model = ScriptedBackend(["Hello from one.", "Hello from two."])
    tree = SequentialAgent("seq", [Agent("agent_1"), Agent("agent_2")])
    session = make_runner(tree, model=model).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("agent_1", "Hello from one."),
        ("agent_2", "Hello from two."),
    ]
    assert reply.text == "Hello from two."
    assert len(model.requests) == 2
    last = session.history[-1]
    assert isinstance(last, TurnComplete) and last.author == "seq"
    assert {e.invocation_id for e in session.history} == {reply.invocation_id}


def test_sequential_run_async_code_agents_share_state(make_runner: RunnerFactory) -> None:
    """ADK agents/test_sequential_agent.py::test_run_async, with code agents
    that hand a value on through state"""

    def first(ctx: Any) -> str:
        ctx.state["temp:handoff"] = "baton"
        return "first ran"

    def second(ctx: Any) -> str:
        return f"second got {ctx.state['temp:handoff']}"

    tree = SequentialAgent("seq", [CodeAgent("first", first), CodeAgent("second", second)])
    session = make_runner(tree).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("first", "first ran"),
        ("second", "second got baton"),
    ]


def test_base_agent_run_async(make_runner: RunnerFactory) -> None:
    """ADK agents/test_base_agent.py::test_run_async"""
    agent = greeting_agent("test_agent")
    session = make_runner(agent).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("test_agent", "Hello, async test_agent!")
    ]
    assert reply.text == "Hello, async test_agent!"


def test_base_agent_invalid_agent_name() -> None:
    """ADK agents/test_base_agent.py::test_invalid_agent_name"""
    with pytest.raises(ValueError):
        Agent("not an identifier")
    with pytest.raises(ValueError):
        SequentialAgent("not an identifier", [Agent("a")])
    with pytest.raises(ValueError):
        greeting_agent("not an identifier")


def test_sequential_parallels(make_runner: RunnerFactory) -> None:
    """ADK agents/test_sequence_of_parallel_agents.py::test_sequential_parallels:
    Sequential[Parallel1[Alice, Bob], Parallel2[David, Eve]]; David and Eve see what Alice and
    Bob said (Parallel1 has joined), and neither Alice nor Bob sees the other"""
    model = ScriptedBackend(["I am Alice", "I am Bob", "I am David", "I am Eve"])
    alice = Agent("Alice", description="Agent A", instructions="Say: I am Alice")
    bob = Agent("Bob", description="Agent B", instructions="Say: I am Bob")
    david = Agent("David", description="Agent D", instructions="Respond based on context")
    eve = Agent("Eve", description="Agent E", instructions="Respond based on context")
    root = SequentialAgent(
        "Root",
        [ParallelAgent("Parallel1", [alice, bob]), ParallelAgent("Parallel2", [david, eve])],
        description="Sequential of parallels",
    )
    session = make_runner(root, model=model).get_or_create_session("s")
    session.run("Start")
    assert len(model.requests) == 4
    first, second = model.requests[:2], model.requests[2:]
    for request in first:  # a sibling running beside it is never seen
        assert [parts_texts(c) for c in request.contents] == [["Start"]]
    for request in second:
        assert request.system_instruction == "Respond based on context"
        texts = request_texts(request)
        assert "I am Alice" in texts and "I am Bob" in texts
        contexts = [parts_texts(c) for c in request.contents if c.role is Role.USER][1:]
        assert sorted(contexts) == sorted(
            ["For context:", f"[{e.author}] said: {e.text}"]
            for e in session.history
            if isinstance(e, TextMessage) and e.author in ("Alice", "Bob")
        )
        assert "I am David" not in texts and "I am Eve" not in texts  # siblings again
    branches = {e.author: e.branch for e in session.history if e.author != "user"}
    assert branches["Alice"] == "Parallel1.Alice" and branches["David"] == "Parallel2.David"
