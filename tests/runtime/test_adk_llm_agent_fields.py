"""ADK's ``agents/test_llm_agent_fields.py`` and ``flows/llm_flows/test_instructions.py``
(instructions given as text or as a function of the context, checked when the agent is built),
re-expressed through a real `AgentRunner` on the scripted model."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

import pytest

from agent_nb import Agent, CodeAgent, LoopAgent, ParallelAgent, SequentialAgent, ToolContext
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_runtime import RunnerFactory


def system_text(make_runner: RunnerFactory, agent: Agent, **run: Any) -> str:
    model = ScriptedBackend(["ok"])
    make_runner(agent, model=model).get_or_create_session("s").run("hi", **run)
    return model.requests[0].system_instruction


def test_canonical_instruction_str(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_fields.py::test_canonical_instruction_str"""
    assert system_text(make_runner, Agent("test_agent", instructions="instruction")) == (
        "instruction"
    )


def test_canonical_instruction(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_fields.py::test_canonical_instruction"""

    def _instruction_provider(ctx: Any) -> str:
        return f"instruction: {ctx.state['state_var']}"

    agent = Agent("test_agent", instructions=_instruction_provider)
    text = system_text(make_runner, agent, state_delta={"state_var": "state_value"})
    assert text == "instruction: state_value"


def test_async_canonical_instruction(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_fields.py::test_async_canonical_instruction"""

    async def _instruction_provider(ctx: Any) -> str:
        return f"instruction: {ctx.state['state_var']}"

    agent = Agent("test_agent", instructions=_instruction_provider)
    text = system_text(make_runner, agent, state_delta={"state_var": "state_value"})
    assert text == "instruction: state_value"


def test_function_system_instruction(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_instructions.py::test_function_system_instruction: a
    provider's text is not templated; it gets a read-only context of the invocation"""
    seen: list[Any] = []

    def build_function_instruction(readonly_context: Any) -> str:
        seen.append(readonly_context)
        return (
            "This is the function agent instruction for invocation:"
            " provider template intact { customerId }"
            " provider template intact { customer_int }"
            f" {readonly_context.invocation_id}."
        )

    model = ScriptedBackend(["ok"])
    agent = Agent("agent", instructions=build_function_instruction)
    session = make_runner(agent, model=model).get_or_create_session("s")
    reply = session.run("hi", state_delta={"customerId": "1234567890", "customer_int": 30})
    assert model.requests[0].system_instruction == (
        "This is the function agent instruction for invocation:"
        " provider template intact { customerId }"
        " provider template intact { customer_int }"
        f" {reply.invocation_id}."
    )
    [ctx] = seen
    assert ctx.agent_name == "agent"
    assert ctx.session_id == "s"
    assert ctx.user_content in ("hi",) or getattr(ctx.user_content, "text", None) == "hi"
    assert isinstance(ctx.state, Mapping) and not isinstance(ctx.state, MutableMapping)
    assert ctx.state["customer_int"] == 30


def test_async_function_system_instruction(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_instructions.py::test_async_function_system_instruction"""

    async def build_function_instruction(readonly_context: Any) -> str:
        return f"intact {{ customerId }} {readonly_context.invocation_id}."

    model = ScriptedBackend(["ok"])
    agent = Agent("agent", instructions=build_function_instruction)
    session = make_runner(agent, model=model).get_or_create_session("s")
    reply = session.run("hi", state_delta={"customerId": "1234567890"})
    assert model.requests[0].system_instruction == f"intact {{ customerId }} {reply.invocation_id}."


def test_instruction_provider_called_at_each_model_call(make_runner: RunnerFactory) -> None:
    """ADK agents/test_llm_agent_fields.py::test_canonical_instruction: the provider is asked
    again for every model call, so it sees state written by a tool in between"""

    def bump(tool_context: ToolContext) -> str:
        """Bump the counter."""
        tool_context.state["n"] = tool_context.state.get("n", 0) + 1
        return "bumped"

    model = ScriptedBackend([ToolCallChunk("bump", {}), "done"])
    agent = Agent("agent", instructions=lambda ctx: f"n={ctx.state.get('n', 0)}", tools=[bump])
    make_runner(agent, model=model).get_or_create_session("s").run("go")
    assert [r.system_instruction for r in model.requests] == ["n=0", "n=1"]


@pytest.mark.parametrize("bad", [42, ["a", "b"], b"bytes", None])
def test_instructions_of_another_type_fail_when_built(bad: Any) -> None:
    """ADK agents/test_llm_agent_fields.py (``instruction: Union[str, InstructionProvider]``,
    validated by pydantic when the agent is built)"""
    with pytest.raises(TypeError, match="instructions"):
        Agent("test_agent", instructions=bad)


def test_instruction_provider_returning_another_type_fails_the_turn(
    make_runner: RunnerFactory,
) -> None:
    """ADK agents/test_llm_agent_fields.py::test_canonical_instruction, the provider returning
    something other than text: the turn fails with a TypeError that names the agent"""
    model = ScriptedBackend(["never"])
    agent = Agent("test_agent", instructions=lambda ctx: 42)
    session = make_runner(agent, model=model).get_or_create_session("s")
    with pytest.raises(TypeError, match="test_agent"):
        session.run("hi")
    assert model.requests == []
    assert not session.busy


def test_build_system_instruction_with_namespace(make_runner: RunnerFactory) -> None:
    """ADK flows/llm_flows/test_instructions.py::test_build_system_instruction_with_namespace"""
    agent = Agent(
        "agent",
        instructions="Use the echo_info tool to echo { customerId }, {app:key}, {user:key}, {a:key}.",  # noqa: E501
    )
    text = system_text(
        make_runner,
        agent,
        state_delta={"customerId": "1234567890", "app:key": "app_value", "user:key": "user_value"},
    )
    assert text == "Use the echo_info tool to echo 1234567890, app_value, user_value, {a:key}."


def test_include_contents_field() -> None:
    """ADK agents/test_llm_agent_fields.py (``include_contents: Literal['default', 'none']``)"""
    assert Agent("a").include_contents == "default"
    assert Agent("a", include_contents="none").include_contents == "none"
    with pytest.raises(ValueError, match="include_contents"):
        Agent("a", include_contents="all")  # type: ignore[arg-type]


def test_description_field() -> None:
    """ADK agents/test_base_agent.py (``BaseAgent.description``), on every agent kind"""
    a = Agent("a", description="Answers.")
    assert a.description == "Answers."
    assert Agent("b").description == ""
    assert SequentialAgent("s", [a], description="seq").description == "seq"
    assert ParallelAgent("p", [Agent("c")], description="par").description == "par"
    assert LoopAgent("l", [Agent("d")], description="loop").description == "loop"
    assert CodeAgent("e", lambda ctx: None, description="code").description == "code"


def test_before_model_callback() -> None:
    """ADK agents/test_llm_agent_fields.py::test_before_model_callback"""

    def _before_model_callback(callback_context: Any, llm_request: Any) -> None:
        return None

    agent = Agent("test_agent", before_model_callback=_before_model_callback)
    assert agent.before_model_callback is not None
