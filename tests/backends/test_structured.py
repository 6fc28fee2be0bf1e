"""Structured output and tool calls under a grammar on the embedded model (greedy, short).

Each reply is parsed with ``json.loads`` and validated against its schema
(``jsonschema``; a pydantic model where one is given). A 135M model is not
asked to be right, only well-formed, except where the answer is in the prompt.
"""

from __future__ import annotations

import dataclasses
import json

import jsonschema
import pydantic
import pytest

from agent_nb.backends import resolve_backend
from agent_nb.backends.mlx import MLXBackend
from agent_nb.backends.mlx.chat import render_prompt
from agent_nb.backends.mlx.grammar import grammars_for
from agent_nb.backends.structured import schema_grammar
from agent_nb.errors import BackendError, SchemaError
from tests.backends.structured_cases import (
    SALES,
    SCHEMA_CASES,
    TOOLS,
    SchemaCase,
    request,
    stream_request,
)
from tests.fixtures_mlx import cache_info
from tests.fixtures_server import MlxServer

pytestmark = pytest.mark.mlx


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=lambda c: c.name)
def test_every_reply_parses_and_validates(mlx_backend: MLXBackend, case: SchemaCase) -> None:
    out = stream_request(
        mlx_backend, request(case.question, max_tokens=case.max_tokens, response_schema=case.schema)
    )
    assert out.finish.finish_reason == "stop", out.text
    jsonschema.validate(json.loads(out.text), case.schema)


def test_an_enum_question_whose_answer_is_in_the_prompt(mlx_backend: MLXBackend) -> None:
    case = SCHEMA_CASES[0]
    out = stream_request(mlx_backend, request(case.question, response_schema=case.schema))
    assert json.loads(out.text) == {"region": "North", "total": 11063}


class City(pydantic.BaseModel):
    name: str = pydantic.Field(max_length=16)
    country: str = pydantic.Field(max_length=16)


class Answer(pydantic.BaseModel):
    city: City
    visitors_millions: int = pydantic.Field(ge=0, le=100)


def test_a_pydantic_models_schema_with_defs(mlx_backend: MLXBackend) -> None:
    schema = Answer.model_json_schema()
    assert "$defs" in schema
    out = stream_request(
        mlx_backend,
        request("Paris, in France, gets 30 million visitors a year.", response_schema=schema),
    )
    answer = Answer.model_validate_json(out.text)
    assert answer.city.name == "Paris", out.text


def test_lookup_on_and_off_give_the_same_reply_under_a_schema(mlx_backend: MLXBackend) -> None:
    """The prompt holds JSON of the same shape, so drafts come from it; the one
    that runs into ``Central``, which the enum forbids, is cut where the grammar
    stops allowing it, before it is verified (4 tokens drafted, 1 kept, on the
    project machine)."""
    case = SCHEMA_CASES[0]
    question = (
        f'{SALES} Last year: {{"region": "Central", "total": 11063}}. '
        "Which region sold the most this year?"
    )
    runs = {
        lookup: stream_request(
            mlx_backend, request(question, prompt_lookup=lookup, response_schema=case.schema)
        )
        for lookup in (True, False)
    }
    assert runs[True].text == runs[False].text
    assert runs[True].finish.usage.drafted_tokens > 0  # lookup did run
    assert runs[True].finish.usage.accepted_tokens > 0
    assert runs[False].finish.usage.drafted_tokens == 0
    jsonschema.validate(json.loads(runs[True].text), case.schema)


def test_a_reply_cut_by_max_tokens_inside_the_json_finishes_with_length(
    mlx_backend: MLXBackend,
) -> None:
    case = SCHEMA_CASES[1]
    out = stream_request(
        mlx_backend, request(case.question, max_tokens=6, response_schema=case.schema)
    )
    assert out.finish.finish_reason == "length"
    assert out.text.startswith('{"person": {')
    with pytest.raises(ValueError):
        json.loads(out.text)


@pytest.mark.parametrize("lookup", [True, False])
def test_a_reply_longer_than_max_tokens_is_closed_at_its_last_token(
    mlx_backend: MLXBackend, lookup: bool
) -> None:
    """Left alone the model tags the photo ``["cat", "red sofa", ...]``; with 12
    tokens it still ends as whole JSON the schema allows, on the 12th token
    (end of text), with or without prompt lookup."""
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "size": {"type": "integer"},
        },
        "required": ["tags", "size"],
    }
    question = "Tag this photo of a cat on a red sofa."
    req = request(question, max_tokens=12, prompt_lookup=lookup, response_schema=schema)
    out = stream_request(mlx_backend, req)
    assert out.finish.finish_reason == "stop", out.text
    assert out.finish.usage.generated_tokens == 12
    jsonschema.validate(json.loads(out.text), schema)


def test_the_grammar_and_a_repetition_penalty_are_one_chain_of_processors(
    mlx_backend: MLXBackend,
) -> None:
    """One decode loop: the penalty, then the grammar's mask, over the same logits
    (the penalty cannot push the choice outside the grammar)."""
    case = SCHEMA_CASES[0]
    req = request(case.question, max_tokens=case.max_tokens, response_schema=case.schema)
    config = dataclasses.replace(req.config, repetition_penalty=1.3)
    out = stream_request(mlx_backend, dataclasses.replace(req, config=config))
    assert out.finish.finish_reason == "stop", out.text
    jsonschema.validate(json.loads(out.text), case.schema)


def test_a_schema_that_does_not_compile_is_refused_before_anything_runs(
    mlx_backend: MLXBackend,
) -> None:
    bad = {"type": "object", "properties": {"a": {"type": "string", "pattern": "(?=a)"}}}
    req = request("Hi.", response_schema=bad)
    with pytest.raises(SchemaError, match=r"output_schema .* at #/properties/a/pattern: regex"):
        mlx_backend.check_request(req)
    with pytest.raises(SchemaError):
        stream_request(mlx_backend, req, cache="refused")
    assert cache_info(mlx_backend, "refused")["tokens"] == 0  # nothing was fed


def test_grammars_are_compiled_once_per_schema(mlx_backend: MLXBackend) -> None:
    grammars = grammars_for(mlx_backend.tokenizer)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 7}}}
    before = grammars.compiles
    first = grammars.compile(schema_grammar(schema))
    assert grammars.compile(schema_grammar(dict(schema))) is first
    assert grammars.compiles == before + 1


def test_a_required_tool_call_names_a_listed_tool_with_valid_arguments(
    mlx_backend: MLXBackend,
) -> None:
    out = stream_request(
        mlx_backend,
        request("What is the weather in Paris?", tools=TOOLS, tool_choice="required"),
    )
    assert out.text == "" and len(out.calls) == 1
    call = out.calls[0]
    tool = next(t for t in TOOLS if t.name == call.name)
    jsonschema.validate(call.args, dict(tool.parameters))
    assert call.error is None and out.finish.finish_reason == "stop"


def test_a_named_tool_choice_forces_that_tool(mlx_backend: MLXBackend) -> None:
    out = stream_request(
        mlx_backend, request("What is the weather in Paris?", tools=TOOLS, tool_choice="get_time")
    )
    assert [c.name for c in out.calls] == ["get_time"]
    jsonschema.validate(out.calls[0].args, dict(TOOLS[1].parameters))


def test_an_auto_turn_may_answer_in_text(mlx_backend: MLXBackend) -> None:
    """SmolLM2's template shows no tools, so they go in its system message
    (Hermes format); the model is free to answer in words."""
    req = request("Say hello.", tools=TOOLS, max_tokens=16)
    prompt = mlx_backend.tokenizer.decode(render_prompt(mlx_backend.tokenizer, req))
    assert "<tools>" in prompt and '"get_weather"' in prompt
    out = stream_request(mlx_backend, req)
    for call in out.calls:  # a call, if the model makes one, is a well-formed one
        tool = next(t for t in TOOLS if t.name == call.name)
        jsonschema.validate(call.args, dict(tool.parameters))
    assert out.text.strip() or out.calls
    assert "<tool_call>" not in out.text


def test_tool_choice_none_shows_no_tools(mlx_backend: MLXBackend) -> None:
    req = request("Say hello.", tools=TOOLS, tool_choice="none", max_tokens=4)
    prompt = mlx_backend.tokenizer.decode(render_prompt(mlx_backend.tokenizer, req))
    assert "<tools>" not in prompt
    assert render_prompt(mlx_backend.tokenizer, req) == render_prompt(
        mlx_backend.tokenizer, request("Say hello.")
    )


def test_a_real_mlx_lm_server_ignores_response_format_and_we_say_so(
    mlx_server: MlxServer,
) -> None:
    """``mlx_lm.server`` accepts ``response_format`` and ignores it: the embedded
    model answers in prose, which the backend refuses rather than hand on."""
    backend = resolve_backend(mlx_server.spec())
    schema = SCHEMA_CASES[2].schema
    with pytest.raises(BackendError) as info:
        stream_request(backend, request("Say hello to Ada.", max_tokens=12, response_schema=schema))
    message = str(info.value)
    assert mlx_server.base_url in message and "response_format" in message
    # the first bytes of what it said are shown
    assert "answered '" in message or 'answered "' in message
