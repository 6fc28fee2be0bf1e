"""ADK's ``tests/unittests/tools/test_agent_tool.py``, re-expressed through a real
`AgentRunner` on the scripted model (one backend serves the caller and the tool's agent,
as ADK's one ``MockModel`` does)."""

from __future__ import annotations

from typing import Any

import pydantic

from agent_nb import Agent, AgentTool, CodeAgent, SequentialAgent, ToolContext
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from tests.fixtures_runtime import RunnerFactory
from tests.runtime.adk_support import simplify, turn_events

function_call_no_schema = ToolCallChunk("tool_agent", {"request": "test1"})


def change_state_callback(callback_context: Any) -> None:
    callback_context.state["state_1"] = "changed_value"


def test_agent_tool_no_schema(make_runner: RunnerFactory) -> None:
    """ADK tools/test_agent_tool.py::test_no_schema"""
    model = ScriptedBackend([function_call_no_schema, "response1", "response2"])
    tool_agent = Agent("tool_agent")
    root_agent = Agent("root_agent", tools=[AgentTool(tool_agent)])
    session = make_runner(root_agent, model=model).get_or_create_session("s")
    reply = session.run("test1")
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("root_agent", ("call", "tool_agent", {"request": "test1"})),
        ("root_agent", ("response", "tool_agent", {"result": "response1"})),
        ("root_agent", "response2"),
    ]
    assert [c.text for c in model.requests[1].contents] == ["test1"]  # the tool agent's


def test_agent_tool_update_state(make_runner: RunnerFactory) -> None:
    """ADK tools/test_agent_tool.py::test_update_state: the agent tool reads and changes the
    parent's state"""
    model = ScriptedBackend([function_call_no_schema, "response1", "response2"])
    tool_agent = Agent(
        "tool_agent", instructions="input: {state_1}", before_agent_callback=change_state_callback
    )
    root_agent = Agent("root_agent", tools=[AgentTool(tool_agent)])
    session = make_runner(root_agent, model=model).get_or_create_session("s")
    session.run("test1", state_delta={"state_1": "state1_value"})
    assert "input: changed_value" in model.requests[1].system_instruction
    assert session.state["state_1"] == "changed_value"


def test_agent_tool_update_state_from_a_workflow(make_runner: RunnerFactory) -> None:
    """ADK tools/test_agent_tool.py::test_update_artifacts, with state for artifacts: a
    SequentialAgent as the tool, its callback and the caller's callbacks hand values on"""

    def before_tool_agent(callback_context: Any) -> None:
        first = callback_context.state["temp:artifact_1"]
        callback_context.state["temp:artifact_2"] = first + " 2"

    def before_main_agent(callback_context: Any) -> None:
        callback_context.state["temp:artifact_1"] = "test"

    def after_main_agent(callback_context: Any) -> None:
        callback_context.state["artifact_3"] = callback_context.state["temp:artifact_2"] + " 3"

    tool_agent = SequentialAgent(
        "tool_agent",
        [CodeAgent("echo", lambda ctx: ctx.state["temp:artifact_2"])],
        before_agent_callback=before_tool_agent,
    )
    model = ScriptedBackend([function_call_no_schema, "response2"])
    root_agent = Agent(
        "root_agent",
        tools=[AgentTool(tool_agent)],
        before_agent_callback=before_main_agent,
        after_agent_callback=after_main_agent,
    )
    session = make_runner(root_agent, model=model).get_or_create_session("s")
    reply = session.run("test1")
    assert session.state == {"artifact_3": "test 2 3"}
    responses = [s for _, s in simplify(turn_events(session.history, reply.invocation_id))]
    assert ("response", "tool_agent", {"result": "test 2"}) in responses


def test_agent_tool_description_in_the_spec(make_runner: RunnerFactory) -> None:
    """ADK tools/agent_tool.py (``AgentTool._get_declaration``: the agent's description),
    as test_agent_tool.py::test_no_schema exercises it: the model is offered the
    wrapped agent's description"""
    model = ScriptedBackend(["no tool needed"])
    tool_agent = Agent("tool_agent", description="Answers questions about the weather.")
    root_agent = Agent("root_agent", tools=[AgentTool(tool_agent)])
    make_runner(root_agent, model=model).get_or_create_session("s").run("test1")
    [spec] = model.requests[0].tools
    assert spec.name == "tool_agent"
    assert spec.description == "Answers questions about the weather."
    assert spec.parameters["required"] == ["request"]


def test_agent_tool_description_of_a_workflow(make_runner: RunnerFactory) -> None:
    """ADK tools/agent_tool.py (``AgentTool._get_declaration``), the agent a SequentialAgent"""
    model = ScriptedBackend(["ok"])
    tool_agent = SequentialAgent(
        "tool_agent", [Agent("inner")], description="Drafts, then edits, a paragraph."
    )
    root_agent = Agent("root_agent", tools=[AgentTool(tool_agent)])
    make_runner(root_agent, model=model).get_or_create_session("s").run("test1")
    assert model.requests[0].tools[0].description == "Drafts, then edits, a paragraph."


def test_agent_tool_output_key(make_runner: RunnerFactory) -> None:
    """ADK tools/test_agent_tool.py::test_custom_schema (its ``output_key`` part): the tool
    agent's output_key lands in the caller's session state"""
    model = ScriptedBackend([function_call_no_schema, "response1", "response2"])
    tool_agent = Agent("tool_agent", output_key="tool_output")
    root_agent = Agent("root_agent", tools=[AgentTool(tool_agent)])
    session = make_runner(root_agent, model=model).get_or_create_session("s")
    reply = session.run("test1")
    assert simplify(turn_events(session.history, reply.invocation_id))[-1] == (
        "root_agent",
        "response2",
    )
    assert session.state == {"tool_output": "response1"}
    assert len(model.requests) == 3


def test_agent_tool_shares_temp_state_with_the_caller(make_runner: RunnerFactory) -> None:
    """ADK tools/test_agent_tool.py::test_update_state, with ``temp:``: the agent tool runs in
    the caller's invocation, so it reads and writes the same ``temp:`` layer"""
    seen: list[Any] = []

    def peek(tool_context: ToolContext) -> str:
        """Read what the tool agent left."""
        seen.append(tool_context.state.get("temp:from_tool_agent"))
        return "ok"

    tool_agent = SequentialAgent(
        "tool_agent",
        [CodeAgent("note", lambda ctx: ctx.state.__setitem__("temp:from_tool_agent", "hi"))],
    )
    model = ScriptedBackend([function_call_no_schema, ToolCallChunk("peek", {}), "done"])
    root_agent = Agent("root_agent", tools=[AgentTool(tool_agent), peek])
    session = make_runner(root_agent, model=model).get_or_create_session("s")
    session.run("test1")
    assert seen == ["hi"]
    assert session.state == {}


class CustomInput(pydantic.BaseModel):
    custom_input: str


class CustomOutput(pydantic.BaseModel):
    custom_output: str


def test_agent_tool_custom_schema(make_runner: RunnerFactory) -> None:
    """ADK tools/test_agent_tool.py::test_custom_schema: the tool's response is the validated
    object itself, and output_key keeps it"""
    model = ScriptedBackend(
        [ToolCallChunk("tool_agent", {"custom_input": "test1"}),
         '{"custom_output": "response1"}', "response2"]
    )  # fmt: skip
    tool_agent = Agent(
        "tool_agent", input_schema=CustomInput, output_schema=CustomOutput, output_key="tool_output"
    )
    root_agent = Agent("root_agent", tools=[AgentTool(tool_agent)])
    session = make_runner(root_agent, model=model).get_or_create_session("s")
    reply = session.run("test1", state_delta={"state_1": "state1_value"})
    assert simplify(turn_events(session.history, reply.invocation_id)) == [
        ("root_agent", ("call", "tool_agent", {"custom_input": "test1"})),
        ("root_agent", ("response", "tool_agent", {"custom_output": "response1"})),
        ("root_agent", "response2"),
    ]
    assert session.state["tool_output"] == {"custom_output": "response1"}
    assert len(model.requests) == 3
    # The second request is the tool agent's.
    assert model.requests[1].response_schema == CustomOutput.model_json_schema()


def test_agent_tool_custom_schema_with_a_value_that_is_not_an_object(
    make_runner: RunnerFactory,
) -> None:
    """ADK tools/test_agent_tool.py::test_custom_schema_with_union (its ``Literal['option3']``
    case): a value that is not an object comes back as ``{"result": value}``"""
    model = ScriptedBackend(
        [ToolCallChunk("tool_agent", {"custom_input": "test_union_3"}), '"option3"',
         "Final response after literal output."]
    )  # fmt: skip
    tool_agent = Agent(
        "tool_agent",
        input_schema=CustomInput,
        output_schema={"anyOf": [CustomOutput.model_json_schema(), {"enum": ["option3"]}]},
        output_key="tool_output_union",
    )
    root_agent = Agent("root_agent", tools=[AgentTool(tool_agent)])
    session = make_runner(root_agent, model=model).get_or_create_session("s")
    reply = session.run("test_union_input_3")
    assert simplify(turn_events(session.history, reply.invocation_id))[1:] == [
        ("root_agent", ("response", "tool_agent", {"result": "option3"})),
        ("root_agent", "Final response after literal output."),
    ]
    assert session.state["tool_output_union"] == "option3"
