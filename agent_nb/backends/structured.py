"""Structured output and constrained tool calls, the backend-neutral half.

A request asks for structure in two ways (`GenerateContentRequest`):
``response_schema`` (the reply is one JSON value of that schema) and
``tool_choice`` (OpenAI's ``"auto" | "required" | "none" | NAME``). A local
model honours them by decoding under a grammar (llguidance), so the greedy
choice among the tokens the grammar allows is always valid; a server gets
``response_format`` and ``tool_choice`` and its answer is checked here.

This module writes the grammars (llguidance's Lark dialect with ``%json``
islands) and checks that they compile, without a tokenizer; the MLX backend
compiles them against its tokenizer and masks the logits
(`agent_nb.backends.mlx.grammar`). Tool calls follow the JSON format of
mlx-lm's ``json_tools`` parser (Hermes, Qwen, SmolLM2-1.7B)::

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

A schema is compiled **as given**, never rewritten stricter (closing its
objects would make valid ``allOf`` schemas unsatisfiable), leniently: what
the grammar cannot hold is left to the check afterwards against the schema
as given (`agent_nb._core.schemas.Schema.validate`). The one exception is
the default bounds on strings, arrays and numbers (`json_bounds`), so a
looping model still closes its JSON. A schema that does not compile is
refused with a pointer into it (`schema_errors`).

JSON is written with ``", "`` and ``": "`` and no other whitespace: what small
models saw most in training, and no room to loop on blank lines. A schema's
own ``"x-guidance"`` options win. llguidance is imported on first use only.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core.schemas import Schema, as_schema
from .._core.types import GenerateContentRequest, ToolSpec
from ..errors import BackendError
from .json_bounds import bounded, bounds_of, without_bounds
from .schema_errors import compile_error

__all__ = [
    "JSON_OPTIONS",
    "ToolCallFormat",
    "check_request",
    "check_schema",
    "checked_schema",
    "parse_json_reply",
    "request_grammar",
    "schema_grammar",
    "tool_call_grammar",
]

#: llguidance JSON options used unless the schema's ``"x-guidance"`` says otherwise.
#: ``lenient`` and ``coerce_one_of`` compile what the grammar cannot hold exactly
#: (an unknown ``format``, ``not``, ``dependencies``; ``oneOf`` as ``anyOf``)
#: loosely: every reply is validated against the schema as given afterwards.
JSON_OPTIONS: dict[str, Any] = {
    "whitespace_flexible": False,
    "item_separator": ", ",
    "key_separator": ": ",
    "lenient": True,
    "coerce_one_of": True,
}


@dataclass(frozen=True)
class ToolCallFormat:
    """How a model writes a tool call: the markup around one JSON object."""

    start: str = "<tool_call>"
    end: str = "</tool_call>"
    #: Between the start marker and the JSON, and between the JSON and the end marker.
    pad: str = "\n"


def _with_options(schema: Mapping[str, Any]) -> dict[str, Any]:
    out = without_bounds(schema)
    out["x-guidance"] = {**JSON_OPTIONS, **dict(schema.get("x-guidance") or {})}
    return out


def _compiles(schema: Any) -> bool:
    from llguidance import LLMatcher

    if not isinstance(schema, Mapping):
        schema = {} if schema is True else {"not": {}}
    return not LLMatcher.validate_grammar(_lark("start: answer", _json_rule(schema)), None)


@functools.lru_cache(maxsize=256)
def _answer_schema(text: str) -> str:
    """The schema (JSON text) a reply's grammar holds: the bounded one
    (`json_bounds.bounded`) when it compiles, else without the bound on an
    object's keys, else the schema as given (a bound that clashes with the
    schema's own keywords is no reason to refuse it)."""
    schema = json.loads(text)
    tight = _with_options(bounded(schema))
    try:
        import llguidance  # noqa: F401
    except ImportError:
        return json.dumps(tight)
    for candidate in (tight, _with_options(bounded(schema, objects=False))):
        if _compiles(candidate):
            return json.dumps(candidate)
    return json.dumps(_with_options(schema))


def _lark_string(text: str) -> str:
    return json.dumps(text)


def schema_grammar(schema: Mapping[str, Any]) -> str:
    """The llguidance grammar of one JSON value of ``schema``, as given (never
    stricter) but for the default bounds (`agent_nb.backends.json_bounds`)."""
    return _lark("start: answer", _answer_rule(schema))


def _answer_rule(schema: Mapping[str, Any]) -> str:
    return f"answer: %json {_answer_schema(json.dumps(schema))}"


def _json_rule(schema: Mapping[str, Any]) -> str:
    return f"answer: %json {json.dumps(_with_options(schema))}"


def _lark(*rules: str) -> str:
    return "%llguidance {}\n" + "\n".join(rules) + "\n"


def _arguments(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's parameters as the grammar sees them: no arguments it does not take
    (the call would fail on them), unless its schema says otherwise. Only the
    arguments themselves are closed; what a value holds is as given."""
    out = dict(parameters) or {"type": "object"}
    if out.get("type") == "object" and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _call_schema(tools: Sequence[ToolSpec]) -> dict[str, Any]:
    options = [
        {
            "type": "object",
            "properties": {"name": {"const": tool.name}, "arguments": _arguments(tool.parameters)},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    return _with_options(options[0] if len(options) == 1 else {"anyOf": options})


def tool_call_grammar(
    tools: Sequence[ToolSpec],
    choice: str,
    fmt: ToolCallFormat,
    schema: Mapping[str, Any] | None = None,
) -> str:
    """The grammar of a reply under ``tool_choice=choice``.

    ``"auto"``: free text (or, with ``schema``, the JSON answer), or text
    followed by a well-formed call; once the start marker appears the call
    must be whole (a lazy lexeme ends the text there). ``"required"``: only a
    call. A tool name: only a call of that tool. One call per reply, and
    nothing after it: the model stops and the tool runs (the next round may
    call again); a small model otherwise repeats its call until ``max_tokens``.
    """
    if choice not in ("auto", "required"):
        tools = [t for t in tools if t.name == choice]
    body = (
        f"body: {_lark_string(fmt.pad)} %json {json.dumps(_call_schema(tools))} "
        f"{_lark_string(fmt.pad + fmt.end)}"
    )
    call = f"call: {_lark_string(fmt.start)} body"
    if choice != "auto":
        return _lark("start: call", call, body)
    if schema is not None:
        return _lark("start: answer | call", _answer_rule(schema), call, body)
    return _lark(
        "start: TEXT | pre_call body",
        f"pre_call[lazy]: TEXT {_lark_string(fmt.start)}",
        body,
        r"TEXT: /(.|\n)*/",
    )


def request_grammar(request: GenerateContentRequest, fmt: ToolCallFormat | None) -> str | None:
    """The grammar ``request`` decodes under, or None for plain decoding.

    ``fmt`` is the model's tool-call format (None: it has none we can
    constrain). Plain decoding is kept wherever nothing is asked: no schema,
    and no tools or ``tool_choice="none"``.
    """
    schema = request.response_schema
    calls = request.offers_tools
    if calls and fmt is None:
        if request.tool_choice == "auto":
            calls = False  # the model's own parser reads its calls, unconstrained
        else:
            raise BackendError(
                f"tool_choice={request.tool_choice!r} needs a model that writes JSON tool "
                "calls (<tool_call>{...}</tool_call>); this model's tool-call format cannot "
                "be constrained. Use tool_choice='auto' or another model."
            )
    if calls:
        assert fmt is not None
        return tool_call_grammar(request.tools, request.tool_choice, fmt, schema)
    if schema is not None:
        return schema_grammar(schema)
    return None


def check_schema(schema: Mapping[str, Any], what: str = "output_schema") -> None:
    """Raise `SchemaError` when no grammar compiles from ``schema`` (JSON-schema
    data): a few lines naming ``what``, a JSON pointer into ``schema`` and what
    to do (`schema_errors.compile_error`). A bad ``"x-bounds"`` is refused too.
    Without llguidance there is nothing to compile: a server checks."""
    bounds_of(schema)
    try:
        from llguidance import LLMatcher
    except ImportError:
        return
    message = LLMatcher.validate_grammar(_lark("start: answer", _json_rule(schema)), None)
    if message:
        raise compile_error(what, without_bounds(schema), message, _compiles)


def checked_schema(what: str, value: object) -> Schema | None:
    """`as_schema` that also refuses, there and then, a schema no grammar
    compiles from (`check_schema`): an ``Agent`` with one is never built."""
    spec = as_schema(what, value)
    if spec is not None:
        check_schema(spec.json_schema, what)
    return spec


def check_request(request: GenerateContentRequest) -> None:
    """Check the request's schemas compile, without a tokenizer (cheap, cached
    by nobody). Each tool is checked alone so the error names it. Without
    llguidance installed there is nothing to check against: a server checks."""
    try:
        import llguidance  # noqa: F401
    except ImportError:
        return
    if request.response_schema is not None:
        check_schema(request.response_schema)
    if request.offers_tools:
        for tool in request.tools:
            check_schema(_arguments(tool.parameters), f"the parameters of tool {tool.name!r}")


_JSON_STARTS = tuple('{["-0123456789tfn')


def parse_json_reply(text: str, source: str, *, cut: bool = False) -> Any:
    """The JSON value of a whole reply; a `BackendError` naming ``source`` and
    showing the first bytes when it is not one (never a half object).

    A reply ``cut`` short by ``max_tokens`` cannot parse, and is no error (its
    finish reason says what happened), unless it does not even begin as JSON:
    then the server ignored the schema. Returns None for a cut reply.
    """
    if cut:
        head = text.lstrip()
        if head and not head.startswith(_JSON_STARTS):
            raise _not_json(text, source, "it does not begin as JSON")
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise _not_json(text, source, str(exc)) from None


def _not_json(text: str, source: str, why: str) -> BackendError:
    head = text[:80] + ("..." if len(text) > 80 else "")
    return BackendError(
        f"{source} was asked for JSON matching the response schema but answered "
        f"{head!r} ({why}). The server may ignore response_format: use one that "
        "honours it (vLLM, llama.cpp server, Ollama) or the local MLX backend."
    )
