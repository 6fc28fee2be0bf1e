"""Scoped state (ADK prefixes), instruction templating, tools and the tool loop."""

from __future__ import annotations

import asyncio
from typing import Literal

import pytest

from agent_nb import (
    Agent,
    AgentRunner,
    FunctionCall,
    FunctionResponse,
    TextMessage,
    ToolContext,
)
from agent_nb._core.tools import as_tool
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import MaxTurnsExceededError
from tests.fixtures_runtime import RunnerFactory


def test_user_and_app_state_are_shared_session_state_is_not(
    runner: AgentRunner, make_runner: RunnerFactory
) -> None:
    a = runner.get_or_create_session("a")
    b = runner.get_or_create_session("b")
    a.run("x", state_delta={"user:lang": "fr", "app:theme": "dark", "topic": "cats"})
    assert b.state == {"user:lang": "fr", "app:theme": "dark"}
    assert a.state["topic"] == "cats"
    other_user = make_runner(model="scripted", store=runner.store, user_id="bob")
    c = other_user.get_or_create_session("c")
    assert c.state == {"app:theme": "dark"}  # app: crosses users, user: does not


def test_state_reads_are_deep_copies(runner: AgentRunner) -> None:
    s = runner.get_or_create_session("s")
    s.run("x", state_delta={"items": [1, 2]})
    s.state["items"].append(3)
    assert s.state["items"] == [1, 2]


def test_state_values_must_be_json(runner: AgentRunner) -> None:
    s = runner.get_or_create_session("s")
    with pytest.raises(TypeError, match="JSON-serialisable"):
        s.run("x", state_delta={"when": {1, 2}})
    assert s.history == []


def test_temp_state_is_visible_to_later_tools_in_the_turn_and_then_gone(
    make_runner: RunnerFactory,
) -> None:
    seen: list[object] = []

    def remember(value: str, tool_context: ToolContext) -> str:
        """Remember a value for this turn only."""
        tool_context.state["temp:scratch"] = value
        tool_context.state["kept"] = value.upper()
        return "ok"

    def recall(tool_context: ToolContext) -> str:
        """Read back the remembered value."""
        seen.append(tool_context.state.get("temp:scratch"))
        return str(tool_context.state.get("temp:scratch"))

    backend = ScriptedBackend(
        [ToolCallChunk("remember", {"value": "v1"}), ToolCallChunk("recall", {}), "done",
         ToolCallChunk("recall", {}), "done again"]
    )  # fmt: skip
    runner = make_runner(Agent(tools=[remember, recall]), model=backend)
    s = runner.get_or_create_session("s")
    s.run("first turn")
    assert seen == ["v1"]
    assert s.state == {"kept": "V1"}
    assert all("temp:scratch" not in e.state_delta for e in s.history)
    s.run("second turn")
    assert seen == ["v1", None]


def test_instructions_are_templated_from_state(make_runner: RunnerFactory) -> None:
    backend = ScriptedBackend()
    agent = Agent(instructions='Reply in {user:language}. {missing?}JSON like {"a": 1} stays.')
    runner = make_runner(agent, model=backend)
    s = runner.get_or_create_session("s")
    s.run("hi", state_delta={"user:language": "French"})
    expected = 'Reply in French. JSON like {"a": 1} stays.'
    assert backend.requests[-1].system_instruction == expected


def test_missing_instruction_key_fails_the_turn_with_a_clear_error(
    make_runner: RunnerFactory,
) -> None:
    runner = make_runner(Agent(instructions="Use {tone}"), model=ScriptedBackend())
    s = runner.get_or_create_session("s")
    with pytest.raises(KeyError, match="state has no 'tone'"):
        s.run("hi")
    assert s.history[0].text == "hi"  # nothing recorded is lost
    assert s.run("again", state_delta={"tone": "dry"}).text.startswith("You said")


def test_schema_from_type_hints_and_docstring() -> None:
    def lookup(
        city: str,
        days: int = 3,
        unit: Literal["C", "F"] = "C",
        tags: list[str] | None = None,
        tool_context: ToolContext | None = None,
    ) -> dict:
        """Look up the weather.

        Longer explanation that is not part of the description.

        Args:
            city: Name of the city.
            days: How many days
                to forecast.
        """
        return {}

    spec = as_tool(lookup).spec
    assert spec.name == "lookup"
    assert spec.description == "Look up the weather."
    params = spec.parameters
    assert params["required"] == ["city"]
    assert params["properties"]["city"] == {"type": "string", "description": "Name of the city."}
    assert params["properties"]["days"] == {
        "type": "integer",
        "description": "How many days to forecast.",
    }
    assert params["properties"]["unit"] == {"enum": ["C", "F"]}
    assert params["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}


def test_tool_context_parameter_is_hidden_from_the_model() -> None:
    def t(x: int, ctx: ToolContext) -> int:
        """Double."""
        return 2 * x

    tool = as_tool(t)
    assert tool.context_param == "ctx"
    assert "ctx" not in tool.spec.parameters["properties"]


def test_a_parameter_named_tool_context_is_filled_in_as_in_adk(
    make_runner: RunnerFactory,
) -> None:
    seen: list[object] = []

    def peek(tool_context, what: str = "x") -> str:  # type: ignore[no-untyped-def]
        """Look."""
        seen.append(tool_context)
        return "ok"

    tool = as_tool(peek)
    assert tool.context_param == "tool_context"
    assert list(tool.spec.parameters["properties"]) == ["what"]
    assert "required" not in tool.spec.parameters
    model = ScriptedBackend([ToolCallChunk("peek", {}), "done"])
    make_runner(Agent(tools=[peek]), model=model).get_or_create_session("s").run("look")
    assert len(seen) == 1 and isinstance(seen[0], ToolContext)


def test_tool_loop_sync_and_async_tools(make_runner: RunnerFactory) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    async def mul(a: int, b: int) -> dict:
        """Multiply two numbers."""
        await asyncio.sleep(0)
        return {"product": a * b}

    backend = ScriptedBackend(
        [[ToolCallChunk("add", {"a": 2, "b": 3}), ToolCallChunk("mul", {"a": 2, "b": 3})],
         "5 and 6"]
    )  # fmt: skip
    runner = make_runner(Agent(tools=[add, mul]), model=backend)
    s = runner.get_or_create_session("s")
    reply = s.run("compute")
    responses = [e.response for e in s.history if isinstance(e, FunctionResponse)]
    assert responses == [{"result": 5}, {"product": 6}]
    assert reply.text == "5 and 6"
    # The second model call saw the calls and their results.
    second = backend.requests[1]
    assert [p.function_response.name for c in second.contents for p in c.parts
            if p.function_response] == ["add", "mul"]  # fmt: skip
    assert [t.name for t in second.tools] == ["add", "mul"]


def test_tool_exception_becomes_an_error_response_the_model_sees(
    make_runner: RunnerFactory,
) -> None:
    def boom() -> None:
        """Always fails."""
        raise ZeroDivisionError("division by zero")

    backend = ScriptedBackend([ToolCallChunk("boom", {}), ToolCallChunk("nope", {}), "sorry"])
    runner = make_runner(Agent(tools=[boom]), model=backend)
    s = runner.get_or_create_session("s")
    assert s.run("x").text == "sorry"
    responses = [e.response for e in s.history if isinstance(e, FunctionResponse)]
    assert responses[0] == {"error": "ZeroDivisionError: division by zero"}
    assert "unknown tool 'nope'" in responses[1]["error"]
    assert "boom" in responses[1]["error"]


def test_bad_tool_arguments_become_an_error_response(make_runner: RunnerFactory) -> None:
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    backend = ScriptedBackend([ToolCallChunk("add", {"a": 1}), "fine"])
    runner = make_runner(Agent(tools=[add]), model=backend)
    s = runner.get_or_create_session("s")
    s.run("x")
    response = next(e.response for e in s.history if isinstance(e, FunctionResponse))
    assert "TypeError" in response["error"] and "'b'" in response["error"]


def test_max_turns_bounds_the_tool_loop(make_runner: RunnerFactory) -> None:
    def again() -> str:
        """Loop."""
        return "more"

    backend = ScriptedBackend([ToolCallChunk("again", {})] * 5)
    runner = make_runner(Agent(tools=[again], max_turns=3), model=backend)
    s = runner.get_or_create_session("s")
    with pytest.raises(MaxTurnsExceededError, match="max_turns"):
        s.run("x")
    calls = [e for e in s.history if isinstance(e, FunctionCall)]
    responses = [e for e in s.history if isinstance(e, FunctionResponse)]
    assert len(calls) == len(responses) == 3
    assert s.history[-1].finish_reason == "error"


def test_agent_validation() -> None:
    with pytest.raises(ValueError, match="identifier"):
        Agent(name="not valid")
    with pytest.raises(ValueError, match="max_turns"):
        Agent(max_turns=0)
    with pytest.raises(TypeError, match="must be a function"):
        Agent(tools=[42])  # type: ignore[list-item]


def test_user_messages_are_text_messages_by_user(runner: AgentRunner) -> None:
    s = runner.get_or_create_session("s")
    s.run("hello")
    first = s.history[0]
    assert isinstance(first, TextMessage) and first.author == "user"


def test_unreadable_tool_arguments_reach_the_model_and_the_tool_does_not_run(
    make_runner: RunnerFactory,
) -> None:
    ran: list[int] = []

    def add(a: int, b: int) -> int:
        """Add."""
        ran.append(1)
        return a + b

    bad = ToolCallChunk("add", {}, error="the arguments were not a JSON object: '{oops'")
    backend = ScriptedBackend([bad, "fixed it"])
    runner = make_runner(Agent(tools=[add]), model=backend)
    s = runner.get_or_create_session("s")
    assert s.run("x").text == "fixed it"
    response = next(e.response for e in s.history if isinstance(e, FunctionResponse))
    assert response == {"error": "the arguments were not a JSON object: '{oops'"}
    assert ran == []
