"""ADK's state tests (``sessions/test_session_service.py``: ``app:``, ``user:``, ``temp:`` and
session keys; ``LlmAgent.output_key``), re-expressed through real `AgentRunner`s, over the
memory store and an SQLite file as ADK runs them over its in-memory and database services."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_nb import Agent, AgentRunner, CodeAgent, ParallelAgent, SequentialAgent, ToolContext
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.stores import MemoryStore, SessionStore, SQLiteStore
from tests.fixtures_runtime import RunnerFactory

StoreFactory = Callable[[], SessionStore]


@pytest.fixture(params=["memory", "sqlite"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    """Stores that all see the same data: one MemoryStore, or one SQLite file."""
    if request.param == "memory":
        shared = MemoryStore()
        return lambda: shared
    return lambda: SQLiteStore(tmp_path / "state.db")


def runner_for(make_runner: RunnerFactory, stores: StoreFactory, user_id: str) -> AgentRunner:
    return make_runner(Agent("agent"), store=stores(), user_id=user_id, app_name="my_app")


def test_session_state(make_runner: RunnerFactory, stores: StoreFactory) -> None:
    """ADK sessions/test_session_service.py::test_session_state"""
    user1 = runner_for(make_runner, stores, "user1")
    session_11 = user1.get_or_create_session("session11")
    session_11.run("text", state_delta={"key11": "value11"})
    user1.get_or_create_session("session12").run("text", state_delta={"key12": "value12"})
    runner_for(make_runner, stores, "user2").get_or_create_session("session2")
    assert session_11.state.get("key11") == "value11"
    session_11.run(
        "text",
        state_delta={
            "app:key": "value",
            "user:key1": "value1",
            "temp:key": "temp",
            "key11": "value11_new",
        },
    )
    # User and app state is stored, temp state is filtered.
    assert session_11.state.get("app:key") == "value"
    assert session_11.state.get("key11") == "value11_new"
    assert session_11.state.get("user:key1") == "value1"
    assert "temp:key" not in session_11.state
    # A new instance of session 12 gets the user and app state; temp state has no effect.
    again = runner_for(make_runner, stores, "user1")
    session_12 = again.get_or_create_session("session12")
    assert session_12.state == {"key12": "value12", "user:key1": "value1", "app:key": "value"}
    # user1's state is not visible to user2; app state is.
    session_2 = runner_for(make_runner, stores, "user2").get_or_create_session("session2")
    assert session_2.state == {"app:key": "value"}
    # The change to session 11 is persisted.
    reread = again.get_or_create_session("session11")
    assert reread.state == {"key11": "value11_new", "user:key1": "value1", "app:key": "value"}


def test_create_new_session_will_merge_states(
    make_runner: RunnerFactory, stores: StoreFactory
) -> None:
    """ADK sessions/test_session_service.py::test_create_new_session_will_merge_states"""
    runner = runner_for(make_runner, stores, "user")
    session_1 = runner.get_or_create_session("session1")
    session_1.run(
        "text",
        state_delta={"key1": "value1", "app:key": "value", "user:key1": "value1", "temp:key": "t"},
    )
    assert session_1.state == {"key1": "value1", "app:key": "value", "user:key1": "value1"}
    session_2 = runner.get_or_create_session("session2")
    # Session 2 has the persisted user and app states, not session 1's own or temp.
    assert session_2.state == {"app:key": "value", "user:key1": "value1"}


def test_temp_state_is_shared_within_one_invocation_and_gone_after(
    make_runner: RunnerFactory,
) -> None:
    """ADK sessions/test_session_service.py::test_session_state (``temp:`` filtered) with ADK's
    ``State.TEMP_PREFIX`` contract: every agent, tool and callback of one invocation shares
    the ``temp:`` layer; the next invocation starts without it"""
    seen: list[tuple[str, Any]] = []

    def put(ctx: ToolContext) -> None:
        ctx.state["temp:facts"] = "North sold most"

    def peek(tool_context: ToolContext) -> str:
        """Look at the facts."""
        seen.append(("tool", tool_context.state.get("temp:facts")))
        return "ok"

    def before_model(callback_context: Any, llm_request: Any) -> None:
        seen.append(("callback", callback_context.state.get("temp:facts")))

    writer = Agent(
        "writer",
        instructions="Use: {temp:facts?}",
        tools=[peek],
        before_model_callback=before_model,
    )
    model = ScriptedBackend([ToolCallChunk("peek", {}), "North.", ToolCallChunk("peek", {}), "?"])
    tree = SequentialAgent("pipe", [CodeAgent("facts", put), writer])
    session = make_runner(tree, model=model).get_or_create_session("s")
    session.run("who?")
    assert model.requests[0].system_instruction == "Use: North sold most"
    facts = "North sold most"
    assert seen == [("callback", facts), ("tool", facts), ("callback", facts)]
    assert session.state == {}
    assert all(not k.startswith("temp:") for e in session.history for k in e.state_delta)
    seen.clear()
    session.run("again?", agent=writer)  # a new invocation: no temp: layer left
    assert model.requests[-1].system_instruction == "Use: "
    assert ("tool", None) in seen


def test_temp_state_delta_of_a_turn_is_never_stored(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    """ADK sessions/test_session_service.py::test_session_state: ``temp:`` in a turn's delta is
    seen during that turn, then neither in the state nor in any stored event"""
    seen: list[Any] = []

    def peek(tool_context: ToolContext) -> str:
        """Read the temp key."""
        seen.append(tool_context.state.get("temp:key"))
        return "ok"

    path = tmp_path / "temp.db"
    model = ScriptedBackend([ToolCallChunk("peek", {}), "done", ToolCallChunk("peek", {}), "x"])
    agent = Agent("agent", tools=[peek])
    session = make_runner(agent, model=model, store=SQLiteStore(path)).get_or_create_session("s")
    session.run("one", state_delta={"temp:key": "temp", "kept": 1})
    session.run("two")
    assert seen == ["temp", None]
    stored = make_runner(agent, store=SQLiteStore(path)).get_or_create_session("s")
    assert stored.state == {"kept": 1}
    assert all(not k.startswith("temp:") for e in stored.history for k in e.state_delta)


def test_output_key_saves_the_final_text(make_runner: RunnerFactory) -> None:
    """ADK agents/llm_agent.py (``LlmAgent.output_key``, ``__maybe_save_output_to_state``):
    the agent's final text lands in state and feeds the next agent's instructions"""
    model = ScriptedBackend(["draft text", "final text"])
    tree = SequentialAgent(
        "pipe",
        [
            Agent("drafter", output_key="temp:draft"),
            Agent("editor", instructions="Edit: {temp:draft}", output_key="last_answer"),
        ],
    )
    session = make_runner(tree, model=model).get_or_create_session("s")
    assert session.run("write").text == "final text"
    assert model.requests[1].system_instruction == "Edit: draft text"
    # The editor sees the drafter's text as context, not as its own words.
    context = model.requests[1].contents[-1]
    assert [p.text for p in context.parts] == ["For context:", "[drafter] said: draft text"]
    assert session.state == {"last_answer": "final text"}
    carriers = [e for e in session.history if "last_answer" in e.state_delta]
    assert [(e.author, getattr(e, "text", None)) for e in carriers] == [("editor", "final text")]
    trace = session.trace()
    assert trace is not None
    steps = {s.agent: s for s in trace.steps}
    assert steps["drafter"].writes == {"temp:draft": "draft text"}
    assert steps["editor"].reads == ("temp:draft",)
    assert "temp: wrote temp:draft = draft text" in "\n".join(trace.lines())


def test_output_key_in_parallel_branches_merges(make_runner: RunnerFactory) -> None:
    """ADK agents/llm_agent.py (``output_key``) in a ParallelAgent, as ADK's parallel research
    example uses it: each branch's answer under its own key, all there after the merge"""
    model = ScriptedBackend()  # echoes, whatever order the branches call it in
    par = ParallelAgent(
        "par", [Agent("one", output_key="answer_one"), Agent("two", output_key="answer_two")]
    )
    summary = CodeAgent(
        "summary", lambda ctx: f"{ctx.state['answer_one']} | {ctx.state['answer_two']}"
    )
    session = make_runner(
        SequentialAgent("pipe", [par, summary]), model=model
    ).get_or_create_session("s")
    reply = session.run("topic")
    assert session.state == {"answer_one": "You said: topic", "answer_two": "You said: topic"}
    assert reply.text == "You said: topic | You said: topic"
