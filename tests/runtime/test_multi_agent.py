"""Multi-agent turns (ADK's workflow agents) through a real runner on the scripted model."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from agent_nb import (
    Agent,
    AgentTool,
    CodeAgent,
    DataAgentContext,
    FunctionCall,
    FunctionResponse,
    LoopAgent,
    ParallelAgent,
    SequentialAgent,
    TextMessage,
    ToolContext,
    TurnComplete,
)
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.stores import SQLiteStore
from tests.fixtures_runtime import RunnerFactory


def put_facts(ctx: ToolContext) -> None:
    ctx.state["temp:facts"] = "North sold most"
    ctx.state["runs"] = ctx.state.get("runs", 0) + 1


def pipeline(writer_tools: tuple = ()) -> SequentialAgent:
    return SequentialAgent(
        "pipe",
        [
            CodeAgent("facts", put_facts),
            Agent("writer", instructions="Use: {temp:facts}", tools=writer_tools),
        ],
    )


def test_temp_written_by_code_agent_reaches_the_next_agent_then_vanishes(
    make_runner: RunnerFactory,
) -> None:
    seen: list[object] = []

    def peek(tool_context: ToolContext) -> str:
        """Look at the facts."""
        seen.append(tool_context.state.get("temp:facts"))
        return "ok"

    model = ScriptedBackend([ToolCallChunk("peek", {}), "North did best."])
    runner = make_runner(pipeline((peek,)), model=model)
    session = runner.get_or_create_session("s")
    reply = session.run("who sold most?")
    assert reply.text == "North did best."
    assert model.requests[0].system_instruction == "Use: North sold most"
    assert seen == ["North sold most"]
    authors = [(type(e).__name__, e.author) for e in session.history]
    assert authors == [
        ("TextMessage", "user"),
        ("TextMessage", "facts"),  # carries the session write, no text
        ("FunctionCall", "writer"),
        ("FunctionResponse", "writer"),
        ("TextMessage", "writer"),
        ("TurnComplete", "pipe"),
    ]
    assert len({e.invocation_id for e in session.history}) == 1
    assert session.state == {"runs": 1}  # temp: never stored
    assert all("temp:facts" not in e.state_delta for e in session.history)
    # The next turn: a fresh temp: layer; without the code agent the key is missing.
    model.enqueue("again")
    bare = Agent("writer", instructions="Use: {temp:facts?}")
    session.run("and now?", agent=bare)
    assert model.requests[-1].system_instruction == "Use: "


def test_agent_tool_reads_the_callers_temp(make_runner: RunnerFactory) -> None:
    helper_saw: list[object] = []

    def look(tool_context: ToolContext) -> str:
        """Read the caller's temp value."""
        helper_saw.append(tool_context.state.get("temp:secret"))
        tool_context.state["temp:from_helper"] = "hi"
        return "seen"

    helper = Agent("helper", instructions="secret={temp:secret}", tools=[look])
    model = ScriptedBackend(
        [
            ToolCallChunk("helper", {"request": "what is the secret?"}),
            ToolCallChunk("look", {}),
            "the secret is 42",
            "Helper says 42.",
        ]
    )
    boss = Agent("boss", tools=[AgentTool(helper)])
    session = make_runner(boss, model=model).get_or_create_session("s")
    reply = session.run("ask the helper", state_delta={"temp:secret": "42"})
    assert reply.text == "Helper says 42."
    assert model.requests[1].system_instruction == "secret=42"
    assert model.requests[1].contents[0].text == "what is the secret?"
    assert helper_saw == ["42"]
    response = next(e for e in session.history if isinstance(e, FunctionResponse))
    assert response.response == {"result": "the secret is 42"}
    # The helper's own events stay off the record; the caller's call/response stand for them.
    assert {e.author for e in session.history} == {"user", "boss"}


def test_loop_stops_by_escalation_and_by_max_iterations(make_runner: RunnerFactory) -> None:
    counts: list[int] = []

    def count(ctx: ToolContext) -> None:
        n = ctx.state.get("temp:n", 0) + 1
        ctx.state["temp:n"] = n
        counts.append(n)
        if n == 3:
            ctx.escalate()

    runner = make_runner(LoopAgent("loop", [CodeAgent("counter", count)], max_iterations=10))
    runner.get_or_create_session("a").run("go")
    assert counts == [1, 2, 3]
    counts.clear()
    capped = LoopAgent("loop", [CodeAgent("counter", count)], max_iterations=2)
    runner.get_or_create_session("b").run("go", agent=capped)
    assert counts == [1, 2]


def test_parallel_merge_follows_sub_agent_order(make_runner: RunnerFactory) -> None:
    async def slow(ctx: ToolContext) -> str:
        import asyncio

        await asyncio.sleep(0.05)  # finishes last, but is listed first
        ctx.state["winner"] = "first"
        ctx.state["temp:only_a"] = 1
        return "a done"

    def fast(ctx: ToolContext) -> str:
        ctx.state["winner"] = "second"
        return "b done"

    def after(ctx: ToolContext) -> str:
        return f"{ctx.state['winner']} {ctx.state['temp:only_a']}"

    tree = SequentialAgent(
        "pipe",
        [
            ParallelAgent("both", [CodeAgent("a", slow), CodeAgent("b", fast)]),
            CodeAgent("c", after),
        ],
    )
    session = make_runner(tree).get_or_create_session("s")
    reply = session.run("go")
    assert reply.text == "second 1"  # b listed later wins, whatever finished first
    assert session.state == {"winner": "second"}
    texts = [(e.author, e.text) for e in session.history if isinstance(e, TextMessage)]
    assert ("both", "") in texts  # the merge event carries the merged session write


def test_cancel_during_the_second_agent_keeps_everything_consistent(
    make_runner: RunnerFactory,
) -> None:
    model = ScriptedBackend(["first agent answer", " ".join(["word"] * 400)], token_delay=0.01)
    tree = SequentialAgent("pipe", [Agent("one"), Agent("two"), Agent("three")])
    session = make_runner(tree, model=model).get_or_create_session("s")

    def cancel_when_two_speaks() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(model.requests) < 2:
            time.sleep(0.005)
        time.sleep(0.1)
        session.cancel()

    threading.Thread(target=cancel_when_two_speaks).start()
    reply = session.run("go")
    assert reply.finish_reason == "cancelled"
    history = session.history
    last = history[-1]
    assert isinstance(last, TurnComplete) and last.interrupted
    two = [e for e in history if isinstance(e, TextMessage) and e.author == "two"]
    assert two and two[0].interrupted
    assert len(model.requests) == 2  # "three" never ran
    assert not session.busy


def test_failing_sub_agent_ends_with_a_recorded_error(make_runner: RunnerFactory) -> None:
    def boom(ctx: ToolContext) -> None:
        raise RuntimeError("no data")

    session = make_runner(SequentialAgent("pipe", [CodeAgent("bad", boom), Agent("w")]))
    s = session.get_or_create_session("s")
    with pytest.raises(RuntimeError, match="no data"):
        s.run("go")
    last = s.history[-1]
    assert isinstance(last, TurnComplete) and "no data" in (last.error or "")


def test_rewind_of_a_multi_agent_turn(make_runner: RunnerFactory) -> None:
    model = ScriptedBackend(["one", "two", "three"])
    session = make_runner(pipeline(), model=model).get_or_create_session("s")
    session.run("first")
    second = session.run("second")
    assert session.state == {"runs": 2}
    assert session.rewind(second.invocation_id) == 2  # the turn moved to branch 2
    assert session.state == {"runs": 1}
    assert session.turns == 1
    # Switching back replays the pipeline's state along the path, every author kept.
    session.switch_branch(2)
    assert session.state == {"runs": 2}
    assert session.turns == 2
    authors = [e.author for e in session.history if e.invocation_id == second.invocation_id]
    assert authors == ["user", "facts", "writer", "pipe"]
    third = session.run("third")
    assert third.text == "three"


def test_the_trace_follows_the_active_branch(make_runner: RunnerFactory, tmp_path: Path) -> None:
    def agent(name: str) -> SequentialAgent:
        def mark(ctx: ToolContext) -> None:
            ctx.state["temp:from"] = name

        return SequentialAgent("pipe", [CodeAgent(f"mark_{name}", mark), Agent("writer")])

    store = SQLiteStore(tmp_path / "b.db")
    runner = make_runner(model=ScriptedBackend(["a", "b"]), store=store)
    session = runner.get_or_create_session("s")
    first = session.run("q", agent=agent("one"))
    assert session.rewind(first.invocation_id) == 2  # the first run moved to branch 2
    assert session.trace() is None  # the active branch has no turn now
    session.run("q", agent=agent("two"))
    assert session.trace().steps[0].agent == "mark_two"  # type: ignore[union-attr]
    session.switch_branch(2)
    assert session.trace().steps[0].agent == "mark_one"  # type: ignore[union-attr]
    runner.shutdown()
    # In a new kernel too, from what the store holds.
    again = make_runner(store=SQLiteStore(tmp_path / "b.db")).get_or_create_session("s")
    assert again.trace().steps[0].agent == "mark_one"  # type: ignore[union-attr]
    assert again.trace(first.invocation_id).steps[0].agent == "mark_one"  # type: ignore[union-attr]


def test_sqlite_round_trip_keeps_authors_and_no_temp(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    path = tmp_path / "s.db"
    runner = make_runner(pipeline(), model=ScriptedBackend(["done"]), store=SQLiteStore(path))
    first = runner.get_or_create_session("s")
    first.run("go")
    runner_lines = first.trace().lines()  # type: ignore[union-attr]
    runner.shutdown()
    again = make_runner(pipeline(), store=SQLiteStore(path)).get_or_create_session("s")
    authors = [e.author for e in again.history]
    assert authors == ["user", "facts", "writer", "pipe"]
    assert again.state == {"runs": 1}
    assert all(not k.startswith("temp:") for e in again.history for k in e.state_delta)
    # The trace was stored with the turn: a new kernel still shows it.
    trace = again.trace()
    assert trace is not None
    assert [(s.agent, s.kind) for s in trace.steps] == [("facts", "code"), ("writer", "model")]
    facts, writer = trace.steps
    assert facts.writes == {"temp:facts": "North sold most", "runs": "1"}
    assert "temp:facts" in writer.reads
    assert trace.lines() == runner_lines


def test_stateless_chat_with_a_registered_pipeline(make_runner: RunnerFactory) -> None:
    model = ScriptedBackend(["North.", "North again."])
    runner = make_runner(model=model)
    runner.register_agent(pipeline())
    for _ in range(2):
        reply = runner.wait(runner.chat("who?", data_agent=DataAgentContext("pipe")))
        assert reply.text.startswith("North")
    assert [len(r.contents) for r in model.requests] == [1, 1]  # nothing carried over
    assert runner.sessions() == []


def test_function_calls_always_get_responses_in_parallel_failures(
    make_runner: RunnerFactory,
) -> None:
    def never(tool_context: ToolContext) -> str:
        """Wait forever."""
        time.sleep(5)
        return "late"

    def fail(ctx: ToolContext) -> None:
        time.sleep(0.1)
        raise ValueError("branch failed")

    model = ScriptedBackend([ToolCallChunk("never", {})])
    tree = ParallelAgent("par", [Agent("waiter", tools=[never]), CodeAgent("bad", fail)])
    session = make_runner(tree, model=model).get_or_create_session("s")
    with pytest.raises(ValueError, match="branch failed"):
        session.run("go")
    calls = {e.call_id for e in session.history if isinstance(e, FunctionCall)}
    answered = {e.call_id for e in session.history if isinstance(e, FunctionResponse)}
    assert calls and calls == answered


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: SequentialAgent("s", [Agent("a"), Agent("a")]), "unique"),
        (lambda: SequentialAgent("s", []), "at least one"),
        (lambda: SequentialAgent("s", ["not an agent"]), "sub_agents must be"),
        (lambda: LoopAgent("l", [Agent("a")], max_iterations=0), "max_iterations"),
        (lambda: Agent("a", output_key="no spaces"), "output_key must be a state key"),
        (lambda: Agent("a", output_key="temp:"), "output_key must be a state key"),
        (lambda: CodeAgent("c", "not callable"), "fn must be a function"),
        (
            lambda: (
                Agent("a", tools=[AgentTool(Agent("a"))])
                and SequentialAgent("s", [Agent("b", tools=[AgentTool(Agent("b"))])])
            ),
            "unique",
        ),
    ],
)
def test_bad_trees_fail_before_anything_runs(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_code_agent_must_return_text_or_none(make_runner: RunnerFactory) -> None:
    session = make_runner(CodeAgent("c", lambda ctx: 42)).get_or_create_session("s")
    with pytest.raises(TypeError, match="must return a str"):
        session.run("go")
    assert isinstance(session.history[-1], TurnComplete)


def test_a_deletion_in_a_parallel_branch_is_seen_by_its_later_agents_and_merged(
    make_runner: RunnerFactory,
) -> None:
    def put(ctx: ToolContext) -> None:
        ctx.state["draft"] = "v1"
        ctx.state["temp:note"] = "n"

    def drop(ctx: ToolContext) -> None:
        del ctx.state["draft"]
        del ctx.state["temp:note"]

    def look(ctx: ToolContext) -> str:
        return f"draft={'draft' in ctx.state} note={'temp:note' in ctx.state}"

    tree = SequentialAgent(
        "pipe",
        [
            CodeAgent("put", put),
            ParallelAgent("par", [SequentialAgent("seq", [CodeAgent("drop", drop),
                                                          CodeAgent("look", look)])]),
            CodeAgent("after", look),
        ],
    )  # fmt: skip
    session = make_runner(tree).get_or_create_session("s")
    reply = session.run("go")
    texts = {e.author: e.text for e in session.history if isinstance(e, TextMessage)}
    assert texts["look"] == "draft=False note=False"  # the branch's own view
    assert reply.text == "draft=False note=False"  # after the merge, temp: too
    assert session.state == {}


def test_code_agents_and_tools_read_the_turns_message_as_user_content(
    make_runner: RunnerFactory,
) -> None:
    seen: list[tuple[str, str]] = []

    def note(ctx: ToolContext) -> None:
        seen.append(("code", ctx.user_content))

    def peek(tool_context: ToolContext) -> str:
        """Look at the question."""
        seen.append(("tool", tool_context.user_content))
        return "ok"

    model = ScriptedBackend([ToolCallChunk("peek", {}), "done", "again"])
    tree = SequentialAgent("pipe", [CodeAgent("note", note), Agent("writer", tools=(peek,))])
    session = make_runner(tree, model=model).get_or_create_session("s")
    session.run("Which region sold most?")
    session.run("And the least?")
    assert seen == [
        ("code", "Which region sold most?"),
        ("tool", "Which region sold most?"),
        ("code", "And the least?"),
    ]
