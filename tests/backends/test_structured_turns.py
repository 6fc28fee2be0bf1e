"""Structured output through whole turns on the embedded model (greedy, short): an
`Agent`'s ``output_schema`` gives `Reply.parsed`, ``--choice`` in a real IPython shell,
and ``tool_choice`` with tools. The grammar itself is tested in test_structured.py; here
each value goes through `session.run` (or a cell) and is validated again by the test."""

from __future__ import annotations

from typing import Any, Literal

import jsonschema
import pydantic
import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import (
    Agent,
    AgentRunner,
    FunctionCall,
    FunctionResponse,
    GenerationConfig,
    ToolContext,
)
from agent_nb.backends.json_bounds import DEFAULT_BOUNDS
from agent_nb.backends.mlx import MLXBackend
from tests.backends.structured_cases import SALES, SCHEMA_CASES, SchemaCase
from tests.fixtures_magics import final_bundle, run

pytestmark = pytest.mark.mlx

#: Eight shapes: nested objects, an enum with an integer, a bounded integer, a list,
#: an optional field, a boolean, a nullable string and a top-level array.
CASES = [
    c
    for c in SCHEMA_CASES
    if c.name
    in (
        "nested_object", "enum_and_integer", "bounded_integer", "list_of_enums",
        "optional_field", "boolean", "nullable", "top_level_array",
    )
]  # fmt: skip


@pytest.fixture
def backend(mlx_backend: MLXBackend) -> MLXBackend:
    """The `shell` fixture's model: the embedded one."""
    return mlx_backend


def test_eight_schemas_are_named_here() -> None:
    assert len(CASES) == 8


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_schema_parses_through_a_turn(mlx_runner: AgentRunner, case: SchemaCase) -> None:
    agent = Agent(output_schema=case.schema, config=GenerationConfig(max_tokens=case.max_tokens))
    reply = mlx_runner.get_or_create_session(case.name).run(case.question, agent=agent)
    assert reply.finish_reason == "stop", reply.text
    assert reply.parsed is not None or case.name == "nullable", reply.text
    jsonschema.validate(reply.parsed, case.schema)
    assert reply.note == ""


class Sale(pydantic.BaseModel):
    region: Literal["North", "South", "East", "West"]
    total: int


def test_an_enum_question_whose_answer_is_in_the_prompt(mlx_runner: AgentRunner) -> None:
    agent = Agent(output_schema=Sale, output_key="sale", config=GenerationConfig(max_tokens=30))
    session = mlx_runner.get_or_create_session("sales")
    reply = session.run(f"{SALES} Which region sold the most, and how much?", agent=agent)
    assert reply.parsed == Sale(region="North", total=11063), reply.text
    assert session.state["sale"] == {"region": "North", "total": 11063}


def test_choice_in_a_real_ipython_shell(shell: InteractiveShell) -> None:
    result, cap = run(
        shell,
        '%%agent --choice "yes|no|unsure" -o verdict --max-tokens 8\n'
        "Is Paris the capital of France?",
    )
    assert result.error_in_exec is None, cap.stderr
    verdict = shell.user_ns["verdict"]
    assert verdict.finish_reason == "stop"
    assert verdict.parsed in ("yes", "no", "unsure"), verdict.text
    assert verdict.text == verdict.parsed  # the string, not its JSON
    assert final_bundle(cap)["text/plain"] == verdict.parsed


def test_a_number_schema_ends_within_its_digit_bound(shell: InteractiveShell) -> None:
    """Greedy, the model writes 0.333... until the token limit without a bound on
    the digits; the grammar's default bound (six after the point) closes it."""
    result, cap = run(
        shell,
        '%%agent --schema \'{"type": "number"}\' -o n --max-tokens 16\n'
        "What is one third, as a decimal number?",
    )
    assert result.error_in_exec is None, cap.stderr
    reply = shell.user_ns["n"]
    assert reply.finish_reason == "stop", reply.text
    assert isinstance(reply.parsed, (int, float)), reply.text
    assert len(reply.text.partition(".")[2]) <= DEFAULT_BOUNDS.fraction_digits


def _weather(calls: list[dict[str, Any]]) -> Any:
    def get_weather(city: str, tool_context: ToolContext) -> dict[str, Any]:
        """Get the current weather for a city."""
        calls.append({"city": city})
        tool_context.escalate()  # the model is not asked again: one call, one model round
        return {"city": city, "sky": "sunny"}

    return get_weather


def test_a_required_tool_call_has_arguments_that_validate(mlx_runner: AgentRunner) -> None:
    calls: list[dict[str, Any]] = []
    agent = Agent(
        tools=[_weather(calls)], tool_choice="required", config=GenerationConfig(max_tokens=30)
    )
    reply = mlx_runner.get_or_create_session("tools").run(
        "What is the weather in Paris?", agent=agent
    )
    [call] = [e for e in reply.events if isinstance(e, FunctionCall)]
    assert call.name == "get_weather"
    jsonschema.validate(dict(call.args), agent.tools[0].spec.parameters)
    assert calls == [dict(call.args)]
    [response] = [e for e in reply.events if isinstance(e, FunctionResponse)]
    assert response.response == {"city": call.args["city"], "sky": "sunny"}


def test_an_auto_turn_may_answer_in_text(mlx_runner: AgentRunner) -> None:
    calls: list[dict[str, Any]] = []
    agent = Agent(tools=[_weather(calls)], config=GenerationConfig(max_tokens=12))
    reply = mlx_runner.get_or_create_session("auto").run("Say hello to me.", agent=agent)
    assert reply.finish_reason in ("stop", "length")
    made = [e for e in reply.events if isinstance(e, FunctionCall)]
    for call in made:  # a call, if the model makes one, is well-formed
        jsonschema.validate(dict(call.args), agent.tools[0].spec.parameters)
    assert made or reply.text.strip()
