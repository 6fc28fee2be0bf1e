"""Structured output without a model: the request fields, the grammars, the
scripted backend's refused and truncated paths, and the OpenAI wire format
against a fake server (the real ``mlx_lm.server`` is in test_structured)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from llguidance import LLMatcher, LLTokenizer

from agent_nb._core.types import Content, GenerateContentRequest, ToolSpec
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.backends.openai import OpenAIBackend
from agent_nb.backends.structured import (
    ToolCallFormat,
    check_request,
    parse_json_reply,
    request_grammar,
    schema_grammar,
    tool_call_grammar,
)
from agent_nb.errors import AgentError, BackendError, SchemaError
from tests.backends.structured_cases import SCHEMA_CASES, TOOLS, request, stream_request
from tests.fixtures_server import FakeOpenAIServer, Reply

BAD_SCHEMA = {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}

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


def test_schema_grammar_writes_spaced_json_and_closes_objects(byte_tokenizer: LLTokenizer) -> None:
    grammar = schema_grammar(SCHEMA_CASES[0].schema)
    assert _accepts(byte_tokenizer, grammar, '{"region": "North", "total": 11063}')
    assert not _accepts(byte_tokenizer, grammar, '{"region":"North","total":11063}')
    # no keys beyond the schema's: a small model keeps inventing them otherwise
    assert not _accepts(byte_tokenizer, grammar, '{"region": "North", "total": 1, "x": 2}')
    assert not _accepts(byte_tokenizer, grammar, '{"region": "Middle", "total": 1}')


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
    with pytest.raises(SchemaError, match="response_schema cannot be compiled") as info:
        check_request(request("x", response_schema=BAD_SCHEMA))
    assert isinstance(info.value, ValueError) and isinstance(info.value, AgentError)
    assert 'Unimplemented keys: ["not"]' in str(info.value)
    bad_tool = ToolSpec("odd", "", {"type": "object", "properties": {"p": {"type": "strin"}}})
    with pytest.raises(SchemaError, match=r"tool 'odd' .*Invalid type: strin"):
        check_request(request("x", tools=(bad_tool,)))
    check_request(request("x", tools=(bad_tool,), tool_choice="none"))  # not shown: not checked


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
