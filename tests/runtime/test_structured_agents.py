"""Structured output through the turn engine, on the scripted model: `Agent(output_schema=)`,
`Reply.parsed`, ``output_key``, ``tool_choice``, an `AgentTool`'s ``input_schema``, and the
refused and cut-off paths (the embedded model's side is in tests/backends/test_structured_turns.py).
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from agent_nb import Agent, AgentTool, SequentialAgent, TurnComplete
from agent_nb._runtime.options import TurnOptions
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.errors import SchemaError
from tests.fixtures_runtime import RunnerFactory

REGION = {
    "type": "object",
    "properties": {
        "region": {"enum": ["North", "South"]},
        "total": {"type": "integer", "minimum": 0},
    },
    "required": ["region", "total"],
}


class Sale(pydantic.BaseModel):
    region: str
    total: int = pydantic.Field(ge=0)


def test_a_dict_schema_gives_the_dict_and_is_sent_as_the_response_schema(
    make_runner: RunnerFactory,
) -> None:
    model = ScriptedBackend([{"region": "North", "total": 11063}])
    session = make_runner(Agent(output_schema=REGION), model=model).get_or_create_session("s")
    reply = session.run("Which region sold most?")
    assert reply.parsed == {"region": "North", "total": 11063}
    assert reply.text == '{"region": "North", "total": 11063}'
    assert model.requests[0].response_schema == REGION
    assert reply.note == ""


def test_a_pydantic_model_gives_its_instance(make_runner: RunnerFactory) -> None:
    model = ScriptedBackend([{"region": "South", "total": 9}])
    session = make_runner(Agent(output_schema=Sale), model=model).get_or_create_session("s")
    reply = session.run("?")
    assert reply.parsed == Sale(region="South", total=9)
    assert model.requests[0].response_schema == Sale.model_json_schema()


def test_a_reply_that_breaks_the_schema_parses_to_none_and_says_why(
    make_runner: RunnerFactory,
) -> None:
    model = ScriptedBackend([{"region": "East", "total": 1}, "not json at all"])
    session = make_runner(Agent(output_schema=REGION), model=model).get_or_create_session("s")
    reply = session.run("?")
    assert reply.parsed is None
    assert "does not match its schema" in reply.note and "East" in reply.note
    assert session.run("?").parsed is None


def test_a_reply_cut_off_inside_the_json_is_never_a_half_object(
    make_runner: RunnerFactory,
) -> None:
    model = ScriptedBackend(['{"region": "North", "total": 11063}'])
    session = make_runner(
        Agent(output_schema=REGION, output_key="sale"), model=model
    ).get_or_create_session("s")
    reply = session.run("?", turn_options=TurnOptions(overrides={"max_tokens": 2}))
    assert reply.finish_reason == "length"
    assert reply.text == '{"region": "North",'
    assert reply.parsed is None
    assert "JSON object is incomplete" in reply.note and "2-token limit" in reply.note
    assert "sale" not in session.state  # nothing half-written either


def test_output_key_stores_the_json_value_not_the_text(make_runner: RunnerFactory) -> None:
    model = ScriptedBackend([{"region": "North", "total": 3}, {"region": "South", "total": 4}])
    runner = make_runner(Agent(output_schema=Sale, output_key="sale"), model=model)
    session = runner.get_or_create_session("s")
    session.run("?")
    assert session.state["sale"] == {"region": "North", "total": 3}
    session.run("?")
    assert session.state["sale"] == {"region": "South", "total": 4}


def test_a_schema_no_grammar_compiles_from_is_refused_with_nothing_recorded(
    make_runner: RunnerFactory,
) -> None:
    pytest.importorskip("llguidance")
    model = ScriptedBackend(["never sent"])
    bad = {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}
    session = make_runner(Agent(output_schema=bad), model=model).get_or_create_session("s")
    with pytest.raises(SchemaError, match=r"response_schema .*Unimplemented keys"):
        session.run("hi")
    assert session.history == []
    assert model.requests == [] and model.pending == 1
    assert not session.busy


def test_a_sub_agents_bad_schema_is_refused_before_the_first_agent_runs(
    make_runner: RunnerFactory,
) -> None:
    pytest.importorskip("llguidance")
    model = ScriptedBackend(["first", "second"])
    pipeline = SequentialAgent(
        "pipe",
        [Agent("a"), Agent("b", output_schema={"properties": {"a": {"not": {"type": "string"}}}})],
    )
    session = make_runner(pipeline, model=model).get_or_create_session("s")
    with pytest.raises(SchemaError):
        session.run("hi")
    assert session.history == [] and model.requests == []


def test_a_dict_that_is_no_json_schema_or_a_wrong_type_fails_when_the_agent_is_built() -> None:
    with pytest.raises(SchemaError, match="not a valid JSON schema"):
        Agent(output_schema={"type": "no-such-type"})
    with pytest.raises(TypeError, match="pydantic BaseModel class or a JSON-schema dict"):
        Agent(output_schema=Sale(region="x", total=1))
    with pytest.raises(TypeError, match="pydantic BaseModel class or a JSON-schema dict"):
        Agent(input_schema="region")


def test_tool_choice_is_checked_when_the_agent_is_built() -> None:
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    assert Agent(tools=[add], tool_choice="add").tool_choice == "add"
    with pytest.raises(ValueError, match=r"'auto', 'required', 'none' or one of .*\['add'\]"):
        Agent(tools=[add], tool_choice="sub")
    with pytest.raises(ValueError, match="needs at least one tool"):
        Agent(tool_choice="required")
    with pytest.raises(TypeError, match="tool_choice must be"):
        Agent(tool_choice=None)  # type: ignore[arg-type]


def test_a_forced_tool_choice_holds_for_the_first_round_only(make_runner: RunnerFactory) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    model = ScriptedBackend([ToolCallChunk("add", {"a": 1, "b": 2}), "3"])
    agent = Agent(tools=[add], tool_choice="required")
    reply = make_runner(agent, model=model).get_or_create_session("s").run("1+2?")
    assert reply.text == "3"
    assert [r.tool_choice for r in model.requests] == ["required", "auto"]


def test_a_turns_tool_choice_and_schema_replace_the_agents_for_its_own_agent(
    make_runner: RunnerFactory,
) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    model = ScriptedBackend(['"yes"', "plain"])
    session = make_runner(Agent(tools=[add]), model=model).get_or_create_session("s")
    choice = {"enum": ["yes", "no"]}
    reply = session.run("?", turn_options=TurnOptions(output_schema=choice, tool_choice="none"))
    assert reply.parsed == "yes"
    assert model.requests[0].response_schema == choice
    assert model.requests[0].tool_choice == "none"
    later = session.run("?")  # the next turn is the agent's own again
    assert later.parsed is None and later.structured is None
    assert model.requests[1].response_schema is None and model.requests[1].tool_choice == "auto"


def test_parsed_belongs_to_the_agent_with_the_schema_in_a_pipeline(
    make_runner: RunnerFactory,
) -> None:
    model = ScriptedBackend([{"region": "North", "total": 1}, "North sold 1."])
    pipeline = SequentialAgent(
        "pipe", [Agent("planner", output_schema=REGION, output_key="plan"), Agent("writer")]
    )
    session = make_runner(pipeline, model=model).get_or_create_session("s")
    reply = session.run("?")
    assert reply.text == "North sold 1."
    assert reply.parsed == {"region": "North", "total": 1}
    assert reply.structured is not None and reply.structured.author == "planner"
    assert session.state["plan"] == {"region": "North", "total": 1}


class Lookup(pydantic.BaseModel):
    city: str = pydantic.Field(max_length=20)
    days: int = pydantic.Field(ge=1, le=7)


def _tool_turn(make_runner: RunnerFactory, call_args: dict[str, Any], *replies: Any) -> Any:
    model = ScriptedBackend([ToolCallChunk("forecaster", call_args), *replies])
    inner = Agent("forecaster", input_schema=Lookup, output_schema=REGION)
    root = Agent("root", tools=[AgentTool(inner)])
    session = make_runner(root, model=model).get_or_create_session("s")
    return model, session.run("weather?")


def test_an_agent_tools_input_schema_is_its_parameters_and_its_arguments_are_asked_as_json(
    make_runner: RunnerFactory,
) -> None:
    model, reply = _tool_turn(
        make_runner, {"city": "Paris", "days": 2}, {"region": "North", "total": 5}, "done"
    )
    assert model.requests[0].tools[0].parameters == Lookup.model_json_schema()
    assert "answers in JSON" in model.requests[0].tools[0].description
    assert json.loads(model.requests[1].contents[-1].text) == {"city": "Paris", "days": 2}
    [response] = [e for e in reply.events if type(e).__name__ == "FunctionResponse"]
    assert response.response == {"region": "North", "total": 5}  # ADK: the object itself
    assert reply.text == "done"
    assert reply.parsed is None  # the tool agent's value is the tool's result, not the turn's


def test_arguments_that_break_the_input_schema_go_back_to_the_model_as_an_error(
    make_runner: RunnerFactory,
) -> None:
    model, reply = _tool_turn(make_runner, {"city": "Paris", "days": 30}, "sorry")
    [response] = [e for e in reply.events if type(e).__name__ == "FunctionResponse"]
    assert "input schema" in response.response["error"] and "days" in response.response["error"]
    assert len(model.requests) == 2  # the inner agent was never asked
    assert reply.text == "sorry"


def test_a_cancelled_structured_turn_has_no_parsed_value(make_runner: RunnerFactory) -> None:
    model = ScriptedBackend(['{"region": "North", "total": 1}'], token_delay=0.5)
    session = make_runner(Agent(output_schema=REGION), model=model).get_or_create_session("s")
    stream = session.run_async("?")
    import time

    time.sleep(0.3)
    stream.cancel()
    reply = stream.result(timeout=5)
    assert reply.finish_reason == "cancelled" and reply.parsed is None
    assert any(isinstance(e, TurnComplete) for e in session.history)
