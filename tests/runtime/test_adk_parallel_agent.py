"""ADK's ``tests/unittests/agents/test_parallel_agent.py`` (and the branch tests of
``test_base_agent.py``), re-expressed through a real `AgentRunner` on the scripted model.

Every event of a parallel branch carries ``branch`` (``"par.a"``; nested: the parent's
branch, a dot, ``"par.a"``), in the session's history, in the store and in exports.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_nb import (
    Agent,
    CodeAgent,
    FunctionCall,
    FunctionResponse,
    ParallelAgent,
    SequentialAgent,
    TextMessage,
    ToolContext,
)
from agent_nb._core.codec import event_from_dict, event_to_dict
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.stores import SQLiteStore
from tests.fixtures_runtime import RunnerFactory
from tests.runtime.adk_support import simplify, turn_events
from tests.runtime.test_adk_sequential_agent import greeting_agent


def greeter(name: str, delay: float = 0.0) -> CodeAgent:
    async def hello(ctx: ToolContext) -> str:
        await asyncio.sleep(delay)
        return f"Hello, async {name}!"

    return CodeAgent(name, hello)


def branches_by_author(events: list[Any]) -> dict[str, set[str | None]]:
    out: dict[str, set[str | None]] = {}
    for event in events:
        if event.author != "user":
            out.setdefault(event.author, set()).add(event.branch)
    return out


def test_parallel_run_async(make_runner: RunnerFactory) -> None:
    """ADK agents/test_parallel_agent.py::test_run_async"""
    agent1 = greeter("test_agent_1", delay=0.3)
    agent2 = greeter("test_agent_2")
    par = ParallelAgent("test_parallel_agent", [agent1, agent2])
    session = make_runner(par).get_or_create_session("s")
    reply = session.run("go")
    events = [e for e in turn_events(session.history, reply.invocation_id) if e.author != "user"]
    texts = [e for e in events if isinstance(e, TextMessage)]
    # agent2 answers first: they run at once and agent1 waits.
    assert [(e.author, e.text) for e in texts] == [
        ("test_agent_2", "Hello, async test_agent_2!"),
        ("test_agent_1", "Hello, async test_agent_1!"),
    ]
    assert texts[0].branch == "test_parallel_agent.test_agent_2"
    assert texts[1].branch == "test_parallel_agent.test_agent_1"


def test_parallel_run_async_custom_agents(make_runner: RunnerFactory) -> None:
    """ADK agents/test_parallel_agent.py::test_run_async, with `BaseAgent`
    subclasses that stamp ``ctx.branch`` themselves, as ADK's ``_TestingAgent`` does"""
    agent1 = greeting_agent("test_agent_1", delay=0.3)
    agent2 = greeting_agent("test_agent_2")
    par = ParallelAgent("test_parallel_agent", [agent1, agent2])
    session = make_runner(par).get_or_create_session("s")
    reply = session.run("go")
    texts = [
        (e.author, e.branch)
        for e in turn_events(session.history, reply.invocation_id)
        if isinstance(e, TextMessage) and e.author != "user"
    ]
    assert texts == [
        ("test_agent_2", "test_parallel_agent.test_agent_2"),
        ("test_agent_1", "test_parallel_agent.test_agent_1"),
    ]


def test_parallel_run_async_branches(make_runner: RunnerFactory) -> None:
    """ADK agents/test_parallel_agent.py::test_run_async_branches"""
    agent1 = greeter("test_agent_1", delay=0.3)
    agent2 = greeter("test_agent_2")
    agent3 = greeter("test_agent_3")
    seq = SequentialAgent("test_sequential_agent", [agent2, agent3])
    par = ParallelAgent("test_parallel_agent", [seq, agent1])
    session = make_runner(par).get_or_create_session("s")
    reply = session.run("go")
    texts = [
        e
        for e in turn_events(session.history, reply.invocation_id)
        if isinstance(e, TextMessage) and e.author != "user"
    ]
    assert [e.author for e in texts] == ["test_agent_2", "test_agent_3", "test_agent_1"]
    # Descendants of the same sub-agent share its branch; sub-agents' branches differ.
    assert texts[0].branch == texts[1].branch == "test_parallel_agent.test_sequential_agent"
    assert texts[2].branch == "test_parallel_agent.test_agent_1"


def test_parallel_run_async_with_branch(make_runner: RunnerFactory) -> None:
    """ADK agents/test_base_agent.py::test_run_async_with_branch: an agent run
    in a branch (here a parallel agent nested in another's branch) extends that branch"""
    inner = ParallelAgent("inner", [greeter("a"), greeter("b")])
    outer = ParallelAgent("outer", [SequentialAgent("seq", [inner, greeter("c")]), greeter("d")])
    session = make_runner(outer).get_or_create_session("s")
    session.run("go")
    assert branches_by_author(session.history) == {
        "a": {"outer.seq.inner.a"},
        "b": {"outer.seq.inner.b"},
        "c": {"outer.seq"},
        "d": {"outer.d"},
        "outer": {None},  # the TurnComplete, outside every branch
    }


def test_parallel_nested_in_sequential_keeps_branches_to_the_parallel_part(
    make_runner: RunnerFactory,
) -> None:
    """ADK agents/test_parallel_agent.py::test_run_async_branches, inside a
    SequentialAgent: agents before and after the parallel part have no branch"""
    par = ParallelAgent("par", [greeter("a"), greeter("b")])
    tree = SequentialAgent("pipe", [greeter("before"), par, greeter("after")])
    session = make_runner(tree).get_or_create_session("s")
    reply = session.run("go")
    assert branches_by_author(session.history) == {
        "before": {None},
        "a": {"par.a"},
        "b": {"par.b"},
        "after": {None},
        "pipe": {None},
    }
    assert reply.text == "Hello, async after!"
    user = session.history[0]
    assert user.author == "user" and user.branch is None


def test_parallel_branch_on_tool_calls_and_results(make_runner: RunnerFactory) -> None:
    """ADK agents/test_parallel_agent.py::test_run_async: every event of a
    branch carries it, function calls and responses included"""

    def lookup(city: str) -> str:
        """Look a city up."""
        return f"{city} is sunny"

    model = ScriptedBackend([ToolCallChunk("lookup", {"city": "Oslo"}), "Oslo: sunny."])
    par = ParallelAgent("par", [Agent("weather", tools=[lookup]), greeter("other")])
    session = make_runner(par, model=model).get_or_create_session("s")
    session.run("weather?")
    mine = [e for e in session.history if e.author == "weather"]
    assert [type(e) for e in mine] == [FunctionCall, FunctionResponse, TextMessage]
    assert {e.branch for e in mine} == {"par.weather"}


def test_parallel_branch_is_stored_and_exported(make_runner: RunnerFactory, tmp_path: Path) -> None:
    """ADK agents/test_parallel_agent.py::test_run_async_branches: the
    branch survives the store (a new runner reads it back) and the JSON export"""
    path = tmp_path / "branches.db"
    par = ParallelAgent("par", [greeter("a"), SequentialAgent("seq", [greeter("b")])])
    first = make_runner(par, store=SQLiteStore(path))
    first.get_or_create_session("s").run("go")
    first.shutdown()
    again = make_runner(par, store=SQLiteStore(path)).get_or_create_session("s")
    assert branches_by_author(again.history) == {"a": {"par.a"}, "b": {"par.seq"}, "par": {None}}
    exported = {e.author: event_to_dict(e) for e in again.history}
    assert exported["a"]["branch"] == "par.a"
    assert exported["b"]["branch"] == "par.seq"
    assert exported["user"]["branch"] is None
    assert event_from_dict(exported["b"]).branch == "par.seq"


def test_parallel_branch_state_is_isolated_until_the_merge(make_runner: RunnerFactory) -> None:
    """ADK agents/test_parallel_agent.py::test_run_async_branches: a branch
    sees the state as it started plus its own writes, never a sibling's; the parallel agent's
    merge event carries the writes in ``sub_agents`` order"""
    seen: dict[str, Any] = {}

    def writer(key: str, value: str, delay: float) -> CodeAgent:
        async def write(ctx: ToolContext) -> None:
            ctx.state[key] = value
            ctx.state["shared"] = value
            await asyncio.sleep(delay)
            seen[key] = {k: ctx.state.get(k) for k in ("from_a", "from_b", "shared")}

        return CodeAgent(f"write_{key}", write)

    par = ParallelAgent("par", [writer("from_a", "a", 0.2), writer("from_b", "b", 0.0)])
    session = make_runner(par).get_or_create_session("s")
    session.run("go", state_delta={"shared": "start"})
    assert seen["from_a"] == {"from_a": "a", "from_b": None, "shared": "a"}
    assert seen["from_b"] == {"from_a": None, "from_b": "b", "shared": "b"}
    assert session.state == {"shared": "b", "from_a": "a", "from_b": "b"}  # b listed last wins
    merges = [e for e in session.history if e.author == "par" and isinstance(e, TextMessage)]
    assert len(merges) == 1 and merges[0].branch is None
    assert merges[0].state_delta == {"from_a": "a", "shared": "b", "from_b": "b"}


def test_parallel_run_async_records_every_sub_agent_once(make_runner: RunnerFactory) -> None:
    """ADK agents/test_parallel_agent.py::test_run_async: one event per
    branch, one invocation id"""
    par = ParallelAgent("par", [greeter(f"agent_{i}", delay=0.01 * (4 - i)) for i in range(4)])
    session = make_runner(par).get_or_create_session("s")
    reply = session.run("go")
    events = turn_events(session.history, reply.invocation_id)
    assert sorted(simplify(events)) == sorted(
        (f"agent_{i}", f"Hello, async agent_{i}!") for i in range(4)
    )
    assert {e.invocation_id for e in session.history} == {reply.invocation_id}
