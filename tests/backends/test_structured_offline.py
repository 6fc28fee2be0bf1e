"""Structured output without a model: the request fields, the grammars, the
scripted backend's refused and truncated paths, and the OpenAI wire format
against a fake server (the real ``mlx_lm.server`` is in test_structured)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from llguidance import LLMatcher, LLTokenizer

from agent_nb import Agent, AgentRunner, AgentTool
from agent_nb._core.types import Content, GenerateContentRequest, ToolSpec
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.backends.json_bounds import DEFAULT_BOUNDS
from agent_nb.backends.openai import OpenAIBackend
from agent_nb.backends.structured import (
    ToolCallFormat,
    check_request,
    check_schema,
    parse_json_reply,
    request_grammar,
    schema_grammar,
    tool_call_grammar,
)
from agent_nb.errors import AgentError, BackendError, SchemaError
from tests.backends.structured_cases import SCHEMA_CASES, TOOLS, request, stream_request
from tests.fixtures_server import FakeOpenAIServer, Reply

#: No grammar holds a look-around (and llguidance does not fake one).
BAD_SCHEMA = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(?!x)a$"}}}

# -- the request fields ------------------------------------------------------------


def test_request_defaults_and_a_copied_schema() -> None:
    req = GenerateContentRequest([Content.user("x")])
    assert req.response_schema is None and req.tool_choice == "auto"
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    req = GenerateContentRequest([Content.user("x")], response_schema=schema)
    schema["properties"]["a"]["type"] = "string"  # the caller's dict, changed later
    assert req.response_schema == {"type": "object", "properties": {"a": {"type": "integer"}}}


@pytest.mark.parametrize(
    ("fields", "error", "match"),
    [
        ({"response_schema": "{}"}, TypeError, "JSON-schema dict .*model_json_schema"),
        ({"response_schema": {"default": {1, 2}}}, TypeError, "JSON-serialisable"),
        ({"tool_choice": "required"}, ValueError, "needs at least one tool"),
        ({"tool_choice": "get_time"}, ValueError, r"one of the tool names \[\]"),
        ({"tool_choice": "nope", "tools": TOOLS}, ValueError, "'get_weather', 'get_time'"),
        ({"tool_choice": None}, TypeError, "tool_choice must be a string"),
    ],
)
def test_bad_fields_say_what_is_allowed(fields: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        GenerateContentRequest([Content.user("x")], **fields)


@pytest.mark.slow  # a fresh interpreter
def test_import_agent_nb_does_not_import_llguidance() -> None:
    code = "import sys, agent_nb; assert 'llguidance' not in sys.modules, 'llguidance imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- the grammars ---------------------------------------------------------------


@pytest.fixture(scope="module")
def byte_tokenizer() -> LLTokenizer:
    """A tokenizer with one token per byte: what a grammar allows, byte for byte."""
    vocab = {f"<0x{i:02X}>": i for i in range(256)}
    vocab["</s>"] = 256
    spec = {
        "version": "1.0",
        "added_tokens": [{"id": 256, "content": "</s>", "special": True, "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": False}],
        "model": {"type": "BPE", "vocab": vocab, "merges": [], "byte_fallback": True},
        "decoder": {"type": "ByteFallback"},
    }  # fmt: skip
    return LLTokenizer(json.dumps(spec), eos_token=256)


def _accepts(tok: LLTokenizer, grammar: str, text: str) -> bool:
    matcher = LLMatcher(tok, grammar, log_level=0)
    return matcher.consume_tokens(list(text.encode())) and matcher.is_accepting()


def test_schema_grammar_writes_spaced_json_as_the_schema_allows(
    byte_tokenizer: LLTokenizer,
) -> None:
    grammar = schema_grammar(SCHEMA_CASES[0].schema)
    assert _accepts(byte_tokenizer, grammar, '{"region": "North", "total": 11063}')
    assert not _accepts(byte_tokenizer, grammar, '{"region":"North","total":11063}')
    assert not _accepts(byte_tokenizer, grammar, '{"region": "Middle", "total": 1}')
    # a key the model invents after those asked for is a bound (x-bounds lifts it) ...
    extra = '{"region": "North", "total": 1, "x": 2}'
    assert not _accepts(byte_tokenizer, grammar, extra)
    lifted = {**SCHEMA_CASES[0].schema, "x-bounds": {"extra_properties": 1}}
    assert _accepts(byte_tokenizer, schema_grammar(lifted), extra)
    assert not _accepts(byte_tokenizer, schema_grammar(lifted), extra[:-1] + ', "y": 3}')
    # ... and a map's keys are bounded as an array's items
    labels = {"type": "object", "additionalProperties": {"type": "string"}}
    four = json.dumps({f"k{i}": "v" for i in range(DEFAULT_BOUNDS.max_items)})
    assert _accepts(byte_tokenizer, schema_grammar(labels), four)
    assert not _accepts(byte_tokenizer, schema_grammar(labels), four[:-1] + ', "k9": "v"}')


#: Valid, and unsatisfiable once every object is closed (each branch forbids
#: the other's key): what JSONSchemaBench's GitHub schemas do.
ALL_OF = {
    "allOf": [
        {"type": "object", "properties": {"cat": {"type": "string", "maxLength": 8}}},
        {"properties": {"dog": {"type": "string", "maxLength": 8}}, "required": ["dog"]},
    ]
}


@pytest.mark.parametrize(
    ("schema", "text"),
    [
        (ALL_OF, '{"cat": "Tom", "dog": "Rex"}'),
        ({"type": "string", "format": "topic"}, '"news"'),  # an unknown format: an annotation
        ({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}, "true"),
        ({"not": {"type": "string"}}, "1"),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "dependencies": {"a": ["b"]},
            },
            '{"a": 1, "b": 2}',
        ),
    ],
    ids=["allOf", "unknown-format", "oneOf", "not", "dependencies"],
)
def test_valid_schemas_compile_as_given(
    byte_tokenizer: LLTokenizer, schema: dict, text: str
) -> None:
    check_schema(schema)
    assert _accepts(byte_tokenizer, schema_grammar(schema), text)


def test_default_bounds_close_what_the_schema_leaves_open(byte_tokenizer: LLTokenizer) -> None:
    schema = {
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "l": {"type": "array", "items": {"type": "integer"}},
            "x": {"type": "number"},
        },
        "required": ["s", "l", "x"],
    }
    grammar = schema_grammar(schema)
    long, ok = "a" * (DEFAULT_BOUNDS.max_length + 1), "a" * DEFAULT_BOUNDS.max_length

    def value(s: str = "a", items: int = 1, x: str = "1.5") -> str:
        return json.dumps({"s": s, "l": list(range(items))})[:-1] + f', "x": {x}}}'

    assert _accepts(byte_tokenizer, grammar, value(ok, DEFAULT_BOUNDS.max_items, "0.123456"))
    assert not _accepts(byte_tokenizer, grammar, value(s=long))
    assert not _accepts(byte_tokenizer, grammar, value(items=DEFAULT_BOUNDS.max_items + 1))
    assert not _accepts(byte_tokenizer, grammar, value(x="1.1111111111111111222222"))
    assert not _accepts(byte_tokenizer, grammar, value(x="1" * 13))
    # the schema's own bounds win, and "x-bounds" moves (or lifts) the defaults
    own = {
        **schema,
        "properties": {**schema["properties"], "s": {"type": "string", "maxLength": 80}},
    }
    assert _accepts(byte_tokenizer, schema_grammar(own), value(s=long))
    lifted = {**schema, "x-bounds": {"max_length": None, "max_items": 10}}
    assert _accepts(byte_tokenizer, schema_grammar(lifted), value(s="a" * 500, items=10))
    # a bound never leaves a pattern or a format with nothing to match
    wide = {"type": "string", "pattern": "^[0-9]{100}$"}
    assert _accepts(byte_tokenizer, schema_grammar(wide), json.dumps("7" * 100))
    with pytest.raises(SchemaError, match='"x-bounds" must be an object with any of'):
        check_schema({"type": "string", "x-bounds": {"max_lenght": 10}})


def test_tool_grammars(byte_tokenizer: LLTokenizer) -> None:
    fmt = ToolCallFormat()
    call = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call>'
    weather = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    auto = tool_call_grammar(TOOLS, "auto", fmt)
    assert _accepts(byte_tokenizer, auto, "Just text, no call.")
    assert _accepts(byte_tokenizer, auto, "Let me look. " + call)
    assert not _accepts(byte_tokenizer, auto, "Let me look. <tool_call>\nnot json")
    assert not _accepts(byte_tokenizer, auto, call + "\n" + call)  # one call per reply
    required = tool_call_grammar(TOOLS, "required", fmt)
    assert _accepts(byte_tokenizer, required, call) and _accepts(byte_tokenizer, required, weather)
    assert not _accepts(byte_tokenizer, required, "Just text.")
    extra = call.replace('"UTC"}', '"UTC", "x": 1}')
    assert not _accepts(byte_tokenizer, required, extra)  # an argument the tool does not take
    named = tool_call_grammar(TOOLS, "get_weather", fmt)
    assert _accepts(byte_tokenizer, named, weather) and not _accepts(byte_tokenizer, named, call)
    with_schema = tool_call_grammar(TOOLS, "auto", fmt, SCHEMA_CASES[2].schema)
    assert _accepts(byte_tokenizer, with_schema, '{"rating": 4}')
    assert _accepts(byte_tokenizer, with_schema, call)
    assert not _accepts(byte_tokenizer, with_schema, "Four.")


def test_an_agent_tool_call_under_required_asks_something(byte_tokenizer: LLTokenizer) -> None:
    spec = AgentTool(Agent("helper", description="Answers questions.")).tool().spec
    grammar = tool_call_grammar([spec], "required", ToolCallFormat())

    def call(request: str) -> str:
        arguments = json.dumps({"request": request})
        return f'<tool_call>\n{{"name": "helper", "arguments": {arguments}}}\n</tool_call>'

    assert _accepts(byte_tokenizer, grammar, call("What is 2 + 2?"))
    assert not _accepts(byte_tokenizer, grammar, call(""))
    assert not _accepts(byte_tokenizer, grammar, call("   "))


def test_request_grammar_is_none_where_nothing_is_asked() -> None:
    fmt = ToolCallFormat()
    assert request_grammar(request("x"), fmt) is None
    assert request_grammar(request("x", tools=TOOLS, tool_choice="none"), fmt) is None
    # a model whose tool calls are not JSON: "auto" reads them unconstrained ...
    assert request_grammar(request("x", tools=TOOLS), None) is None
    # ... and a choice it cannot be held to is refused
    with pytest.raises(BackendError, match="tool_choice='required' needs a model"):
        request_grammar(request("x", tools=TOOLS, tool_choice="required"), None)


def test_check_request_names_what_does_not_compile() -> None:
    with pytest.raises(SchemaError, match="output_schema cannot be compiled") as info:
        check_request(request("x", response_schema=BAD_SCHEMA))
    assert isinstance(info.value, ValueError) and isinstance(info.value, AgentError)
    lines = str(info.value).splitlines()
    assert len(lines) == 2  # where and why; then what to do
    assert "at #/properties/a/pattern: regex parse error" in lines[0]
    assert "look-around" in lines[0] and "%llguidance" not in str(info.value)
    bad_tool = ToolSpec("odd", "", {"type": "object", "properties": {"p": {"type": "strin"}}})
    with pytest.raises(
        SchemaError, match=r"tool 'odd' .* at #/properties/p/type: Invalid type: strin"
    ):
        check_request(request("x", tools=(bad_tool,)))
    check_request(request("x", tools=(bad_tool,), tool_choice="none"))  # not shown: not checked


def test_refused_schemas_point_into_the_users_schema_and_say_what_to_do() -> None:
    remote = {"type": "object", "properties": {"when": {"$ref": "https://example.com/t.json"}}}
    with pytest.raises(SchemaError) as info:
        check_schema(remote)
    assert "at #/properties/when/$ref" in str(info.value)
    assert 'put the referenced schema under "$defs"' in str(info.value)
    strict = {"type": "string", "format": "topic", "x-guidance": {"lenient": False}}
    with pytest.raises(
        SchemaError, match=r"(?s)at #/format: Unknown format: topic.*drop it to opt in"
    ):
        check_schema(strict)


def test_parse_json_reply() -> None:
    assert parse_json_reply('{"a": 1}', "S") == {"a": 1}
    with pytest.raises(BackendError, match=r"S was asked for JSON .* answered 'Hello there'"):
        parse_json_reply("Hello there", "S")
    assert parse_json_reply('{"a": ', "S", cut=True) is None  # cut short: no error here
    with pytest.raises(BackendError, match="does not begin as JSON"):
        parse_json_reply("Sure! Here", "S", cut=True)


# -- the scripted backend ---------------------------------------------------------


def test_scripted_refuses_a_schema_before_recording_the_request() -> None:
    backend = ScriptedBackend(['{"a": 1}'])
    with pytest.raises(SchemaError):
        stream_request(backend, request("x", response_schema=BAD_SCHEMA))
    assert backend.requests == [] and backend.pending == 1


def test_scripted_schema_replies_whole_and_truncated() -> None:
    schema = SCHEMA_CASES[0].schema
    backend = ScriptedBackend([{"region": "North", "total": 11063}, '{"region": "North", "to'])
    whole = stream_request(backend, request("x", response_schema=schema))
    assert json.loads(whole.text) == {"region": "North", "total": 11063}
    assert whole.finish.finish_reason == "stop"
    cut = stream_request(backend, request("x", max_tokens=2, response_schema=schema))
    assert cut.finish.finish_reason == "length" and cut.text == '{"region": "North",'
    assert backend.requests[0].response_schema == schema


def test_scripted_lists_are_json_unless_they_are_tool_calls() -> None:
    call = ToolCallChunk("get_time", {"zone": "UTC"})
    backend = ScriptedBackend([[1, 2, 3], [call], []])
    assert stream_request(backend, request("x")).text == "[1, 2, 3]"
    assert stream_request(backend, request("x")).calls == [call]
    empty = stream_request(backend, request("x"))
    assert empty.calls == [] and empty.text == ""


# -- the OpenAI wire format, against a fake server -------------------------------------


@pytest.fixture
def fake_backend(fake_openai: FakeOpenAIServer) -> OpenAIBackend:
    return OpenAIBackend("fake-model", base_url=fake_openai.base_url, timeout=5, max_retries=0)


def test_openai_sends_response_format_and_tool_choice(
    fake_openai: FakeOpenAIServer, fake_backend: OpenAIBackend
) -> None:
    schema = {"title": "Sales", **SCHEMA_CASES[0].schema}
    fake_openai.enqueue(Reply(pieces=('{"region": ', '"North", "total": 11063}')))
    out = stream_request(fake_backend, request("x", response_schema=schema))
    assert json.loads(out.text) == {"region": "North", "total": 11063}
    sent = fake_openai.requests[-1]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Sales", "schema": schema, "strict": True},
    }
    assert "tool_choice" not in sent  # no tools
    for choice, wire in [
        ("required", "required"),
        ("none", "none"),
        ("get_time", {"type": "function", "function": {"name": "get_time"}}),
    ]:
        stream_request(fake_backend, request("x", tools=TOOLS, tool_choice=choice))
        assert fake_openai.requests[-1]["tool_choice"] == wire
    stream_request(fake_backend, request("x", tools=TOOLS))
    assert "tool_choice" not in fake_openai.requests[-1]  # "auto": the default, not sent
    fake_openai.enqueue(Reply(pieces=("{}",)))
    stream_request(fake_backend, request("x", response_schema={"title": "no spaces!"}))
    assert fake_openai.requests[-1]["response_format"]["json_schema"]["name"] == "response"


def test_openai_gets_the_schema_as_given_less_x_bounds(
    fake_openai: FakeOpenAIServer, fake_backend: OpenAIBackend
) -> None:
    schema = {**SCHEMA_CASES[0].schema, "x-bounds": {"max_length": 200}}
    fake_openai.enqueue(Reply(pieces=('{"region": "North", "total": 1}',)))
    stream_request(fake_backend, request("x", response_schema=schema))
    sent = fake_openai.requests[-1]["response_format"]["json_schema"]["schema"]
    assert sent == SCHEMA_CASES[0].schema  # no bounds, no closing: as given


def test_openai_invalid_json_for_a_schema_is_a_clear_error(
    fake_openai: FakeOpenAIServer, fake_backend: OpenAIBackend
) -> None:
    schema = SCHEMA_CASES[0].schema
    fake_openai.enqueue(Reply(pieces=('{"region": "North", ', '"total": }')))
    with pytest.raises(BackendError) as info:
        stream_request(fake_backend, request("x", response_schema=schema))
    message = str(info.value)
    assert fake_openai.base_url in message and '{"region": "North", "total": }' in message
    # without a schema the same text is just text
    fake_openai.enqueue(Reply(pieces=('{"region": "North", ', '"total": }')))
    assert stream_request(fake_backend, request("x")).text == '{"region": "North", "total": }'


# -- refused when built, checked afterwards ------------------------------------------------


def test_an_agent_whose_schema_no_grammar_compiles_is_refused_when_built() -> None:
    with pytest.raises(SchemaError) as info:
        Agent(output_schema=BAD_SCHEMA)
    message = str(info.value)
    assert message.startswith(
        "output_schema cannot be compiled into a grammar at #/properties/a/pattern"
    )
    assert "response_schema" not in message and len(message.splitlines()) == 2
    with pytest.raises(SchemaError, match="input_schema cannot be compiled"):
        Agent(input_schema=BAD_SCHEMA)


@pytest.mark.parametrize(
    ("schema", "reply", "why"),
    [
        ({"type": "string", "format": "date"}, "yesterday", "is not a 'date'"),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1, "is valid under each of"),
        (
            {
                "$schema": "http://json-schema.org/draft-04/schema#",
                "type": "integer",
                "maximum": 3,
                "exclusiveMaximum": True,
            },
            3,
            "greater than or equal to the maximum of 3",
        ),
    ],
    ids=["format", "oneOf", "draft-04"],
)
def test_what_the_grammar_holds_loosely_is_checked_afterwards(
    schema: dict, reply: Any, why: str
) -> None:
    runner = AgentRunner(model=ScriptedBackend([json.dumps(reply)]))
    try:
        out = runner.get_or_create_session("s").run("x", agent=Agent(output_schema=schema))
    finally:
        runner.shutdown()
    assert out.finish_reason == "stop" and out.parsed is None
    assert why in out.note and len(out.note.splitlines()) == 1, out.note
