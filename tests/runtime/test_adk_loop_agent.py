"""ADK's ``tests/unittests/agents/test_loop_agent.py`` and its ``exit_loop`` tool, re-expressed
through a real `AgentRunner` on the scripted model.

A `LoopAgent` ends after the sub-agent whose event carried ``escalate=True`` finishes (ADK's
check in ``LoopAgent._run_async_impl``): a tool that escalates lets its agent answer once more,
and `exit_loop` (which also sets ``skip_summarization``, as ADK's) costs no further model call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent_nb import (
    Agent,
    BaseAgent,
    CodeAgent,
    FunctionCall,
    FunctionResponse,
    LoopAgent,
    SequentialAgent,
    TextMessage,
    ToolContext,
)
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_runtime import RunnerFactory
from tests.runtime.adk_support import simplify, turn_events


def hello(name: str) -> CodeAgent:
    return CodeAgent(name, lambda ctx: f"Hello, async {name}!")


def escalating(name: str) -> CodeAgent:
    def run(ctx: ToolContext) -> str:
        ctx.escalate()
        return f"Hello, async {name}!"

    return CodeAgent(name, run)


def test_loop_run_async(make_runner: RunnerFactory) -> None:
    """ADK agents/test_loop_agent.py::test_run_async"""
    loop = LoopAgent("test_loop_agent", [hello("test_agent")], max_iterations=2)
    session = make_runner(loop).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("test_agent", "Hello, async test_agent!"),
        ("test_agent", "Hello, async test_agent!"),
    ]


def test_loop_run_async_model_agent(make_runner: RunnerFactory) -> None:
    """ADK agents/test_loop_agent.py::test_run_async, with a model agent"""
    model = ScriptedBackend(["draft 1", "draft 2", "draft 3"])
    loop = LoopAgent("loop", [Agent("drafter")], max_iterations=3)
    session = make_runner(loop, model=model).get_or_create_session("s")
    reply = session.run("write")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("drafter", "draft 1"),
        ("drafter", "draft 2"),
        ("drafter", "draft 3"),
    ]
    assert len(model.requests) == 3
    # The drafter sees its own earlier drafts as its own (MODEL) words.
    assert [c.text for c in model.requests[2].contents] == ["write", "draft 1", "draft 2"]


def test_loop_run_async_with_escalate_action(make_runner: RunnerFactory) -> None:
    """ADK agents/test_loop_agent.py::test_run_async_with_escalate_action"""
    loop = LoopAgent(
        "test_loop_agent",
        [hello("test_non_escalating_agent"), escalating("test_escalating_agent")],
        max_iterations=None,
    )
    session = make_runner(loop).get_or_create_session("s")
    reply = session.run("go")
    # Only two events: the escalating sub-agent ends the loop.
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("test_non_escalating_agent", "Hello, async test_non_escalating_agent!"),
        ("test_escalating_agent", "Hello, async test_escalating_agent!"),
    ]
    escalated = [e for e in session.history if e.author == "test_escalating_agent"]
    assert [e.escalate for e in escalated] == [True]
    assert not any(e.escalate for e in session.history if e.author != "test_escalating_agent")


def test_loop_max_iterations_none_runs_until_escalation(make_runner: RunnerFactory) -> None:
    """ADK agents/test_loop_agent.py::test_run_async_with_escalate_action, with
    ``max_iterations=None`` (ADK's default): no cap, past the old default of 10"""
    counts: list[int] = []

    def count(ctx: ToolContext) -> None:
        n = ctx.state.get("temp:n", 0) + 1
        ctx.state["temp:n"] = n
        counts.append(n)
        if n == 15:
            ctx.escalate()

    loop = LoopAgent("loop", [CodeAgent("counter", count)], max_iterations=None)
    assert loop.max_iterations is None
    make_runner(loop).get_or_create_session("s").run("go")
    assert counts == list(range(1, 16))


def test_loop_escalation_waits_for_the_sub_agent_to_finish(make_runner: RunnerFactory) -> None:
    """ADK agents/test_loop_agent.py::test_run_async_with_escalate_action: the
    loop checks each of its sub-agents' events and stops once that sub-agent has finished"""
    step = SequentialAgent("step", [escalating("critic"), hello("reviser")])
    loop = LoopAgent("loop", [step, hello("never")], max_iterations=5)
    session = make_runner(loop).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("critic", "Hello, async critic!"),
        ("reviser", "Hello, async reviser!"),
    ]


def test_loop_escalation_ends_the_enclosing_loops_too(make_runner: RunnerFactory) -> None:
    """ADK agents/test_loop_agent.py::test_run_async_with_escalate_action, one
    loop inside another: as in ADK, every loop checks the events passing through,
    so the inner loop's escalation ends the outer one too"""
    inner = LoopAgent("inner", [hello("work"), escalating("stop")], max_iterations=None)
    outer = LoopAgent("outer", [inner, hello("tick")], max_iterations=2)
    session = make_runner(outer).get_or_create_session("s")
    reply = session.run("go")
    authors = [a for a, _ in simplify(turn_events(session.history, reply.invocation_id))]
    assert authors == ["work", "stop"]


def test_loop_exit_loop_tool_makes_no_further_model_call(make_runner: RunnerFactory) -> None:
    """ADK src/google/adk/tools/exit_loop_tool.py (``exit_loop``) in a LoopAgent, as
    test_loop_agent.py::test_run_async_with_escalate_action: the model calls ``exit_loop``;
    the loop ends with no further model call"""
    from agent_nb import exit_loop  # ADK's function tool, exported by the reshaped engine

    model = ScriptedBackend(["first try", ToolCallChunk("exit_loop", {}), "never said"])
    critic = Agent("critic", instructions="Call exit_loop when done.", tools=[exit_loop])
    loop = LoopAgent("loop", [critic], max_iterations=5)
    session = make_runner(loop, model=model).get_or_create_session("s")
    reply = session.run("improve this")
    assert len(model.requests) == 2
    assert model.pending == 1
    assert [t.name for t in model.requests[0].tools] == ["exit_loop"]
    steps = simplify(turn_events(session.history, reply.invocation_id))
    assert steps[:2] == [("critic", "first try"), ("critic", ("call", "exit_loop", {}))]
    assert [(author, step[:2]) for author, step in steps[2:]] == [
        ("critic", ("response", "exit_loop"))
    ]  # and nothing after the tool's response
    response = next(e for e in session.history if isinstance(e, FunctionResponse))
    assert response.escalate is True
    assert not any(isinstance(e, TextMessage) and e.text == "never said" for e in session.history)


def test_loop_tool_context_escalate_finishes_the_agents_run(make_runner: RunnerFactory) -> None:
    """ADK agents/test_loop_agent.py::test_run_async_with_escalate_action, the escalation
    coming from a tool (``tool_context.actions.escalate = True`` in ADK, no
    ``skip_summarization``): the model is asked again and its answer is yielded after the
    escalating response, then the loop stops"""
    calls: list[int] = []

    def check(tool_context: ToolContext) -> str:
        """Check the draft; stops the loop on the second check."""
        calls.append(1)
        if len(calls) == 2:
            tool_context.escalate()
            return "good enough"
        return "needs work"

    model = ScriptedBackend(
        [ToolCallChunk("check", {}), "revised", ToolCallChunk("check", {}),
         "I have done my job after escalation!!", "never said"]
    )  # fmt: skip
    loop = LoopAgent("loop", [Agent("reviser", tools=[check])], max_iterations=None)
    session = make_runner(loop, model=model).get_or_create_session("s")
    reply = session.run("go")
    assert calls == [1, 1]
    assert len(model.requests) == 4  # call, answer; call -> escalated, answer; no 5th request
    assert model.pending == 1
    responses = [e for e in session.history if isinstance(e, FunctionResponse)]
    assert [r.response for r in responses] == [{"result": "needs work"}, {"result": "good enough"}]
    assert [r.escalate for r in responses] == [False, True]
    assert simplify(turn_events(session.history, reply.invocation_id))[-2:] == [
        ("reviser", ("response", "check", {"result": "good enough"})),
        ("reviser", "I have done my job after escalation!!"),
    ]
    assert reply.text == "I have done my job after escalation!!"


class _EscalatingThenSpeaking(BaseAgent):
    """ADK's ``_TestingAgentWithEscalateAction``: escalates, then yields one more message."""

    async def run(self, ctx: Any) -> AsyncIterator[Any]:
        yield ctx.event(TextMessage, text=f"Hello, async {self.name}!", escalate=True)
        yield ctx.event(TextMessage, text="I have done my job after escalation!!")


def test_loop_escalating_agent_yields_its_text_after_the_escalation(
    make_runner: RunnerFactory,
) -> None:
    """ADK agents/test_loop_agent.py::test_run_async_with_escalate_action (its agent that
    yields after escalating, and the ignored agent after it)"""
    loop = LoopAgent(
        "test_loop_agent",
        [hello("test_non_escalating_agent"), _EscalatingThenSpeaking("test_escalating_agent"),
         hello("test_ignored_agent")],
        max_iterations=None,
    )  # fmt: skip
    session = make_runner(loop).get_or_create_session("s")
    reply = session.run("go")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("test_non_escalating_agent", "Hello, async test_non_escalating_agent!"),
        ("test_escalating_agent", "Hello, async test_escalating_agent!"),
        ("test_escalating_agent", "I have done my job after escalation!!"),
    ]


def test_loop_exit_loop_in_a_sequence_runs_the_rest_of_that_sub_agent(
    make_runner: RunnerFactory,
) -> None:
    """ADK agents/test_loop_agent.py::test_run_async_with_escalate_action, the
    classic refinement loop: [critic (may call exit_loop), refiner]; exit_loop on round 2"""
    from agent_nb import exit_loop

    def refine(ctx: ToolContext) -> str:
        ctx.state["rounds"] = ctx.state.get("rounds", 0) + 1
        return f"refined {ctx.state['rounds']}"

    model = ScriptedBackend(["not yet", ToolCallChunk("exit_loop", {})])
    critic = Agent("critic", tools=[exit_loop])
    step = SequentialAgent("step", [critic, CodeAgent("refine", refine)])
    loop = LoopAgent("loop", [step], max_iterations=10)
    session = make_runner(loop, model=model).get_or_create_session("s")
    session.run("go")
    assert len(model.requests) == 2
    assert session.state == {"rounds": 2}
    kinds: list[Any] = [
        (e.author, type(e).__name__) for e in session.history if e.author in ("critic", "refine")
    ]
    assert kinds[:2] == [("critic", "TextMessage"), ("refine", "TextMessage")]
    assert ("critic", "FunctionCall") in kinds
    assert kinds[-1] == ("refine", "TextMessage")
    assert sum(1 for e in session.history if isinstance(e, FunctionCall)) == 1
