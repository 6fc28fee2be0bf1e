"""Schemas, questions and tools for the structured-output tests and benchmark.

Every string in a schema has a ``maxLength`` and every list a ``maxItems``:
a 135M model under a grammar always writes valid JSON, but it may take its
time inside a free string, and the tests keep generations short.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from agent_nb._core.types import Content, GenerateContentRequest, GenerationConfig, ToolSpec
from agent_nb.backends import Backend, CancelToken, Finish, TextDelta, ToolCallChunk

__all__ = [
    "SCHEMA_CASES",
    "TOOLS",
    "SchemaCase",
    "Streamed",
    "request",
    "stream_request",
]


@dataclass(frozen=True)
class SchemaCase:
    name: str
    question: str
    schema: dict[str, Any]
    max_tokens: int = 40


def _string(limit: int = 16) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit}


SALES = "Sales this year: North 11063, South 9120, East 7002, West 512."

SCHEMA_CASES = (
    SchemaCase(
        "enum_and_integer",
        f"{SALES} Which region sold the most, and how much?",
        {
            "type": "object",
            "properties": {
                "region": {"enum": ["North", "South", "East", "West"]},
                "total": {"type": "integer"},
            },
            "required": ["region", "total"],
        },
    ),
    SchemaCase(
        "nested_object",
        "Alice is 31 and lives in Paris. Describe her.",
        {
            "type": "object",
            "properties": {
                "person": {
                    "type": "object",
                    "properties": {
                        "name": _string(),
                        "age": {"type": "integer", "minimum": 0, "maximum": 120},
                        "home": {
                            "type": "object",
                            "properties": {"city": _string()},
                            "required": ["city"],
                        },
                    },
                    "required": ["name", "age", "home"],
                }
            },
            "required": ["person"],
        },
    ),
    SchemaCase(
        "bounded_integer",
        "Rate the film Casablanca from 1 to 5.",
        {
            "type": "object",
            "properties": {"rating": {"type": "integer", "minimum": 1, "maximum": 5}},
            "required": ["rating"],
        },
    ),
    SchemaCase(
        "list_of_enums",
        "Name the colours of the French flag.",
        {
            "type": "object",
            "properties": {
                "colours": {
                    "type": "array",
                    "items": {"enum": ["red", "white", "blue", "green", "yellow"]},
                    "minItems": 1,
                    "maxItems": 3,
                }
            },
            "required": ["colours"],
        },
    ),
    SchemaCase(
        "optional_field",
        "Give a title for a story about a lost cat.",
        {
            "type": "object",
            "properties": {"title": _string(24), "subtitle": _string(24)},
            "required": ["title"],
        },
    ),
    SchemaCase(
        "boolean",
        "Is Paris the capital of France?",
        {
            "type": "object",
            "properties": {"answer": {"type": "boolean"}},
            "required": ["answer"],
        },
        max_tokens=12,
    ),
    SchemaCase(
        "number",
        "Water boils at 100 degrees Celsius. At what temperature does water boil?",
        {
            "type": "object",
            "properties": {"celsius": {"type": "number", "minimum": -50, "maximum": 500}},
            "required": ["celsius"],
        },
    ),
    SchemaCase(
        "nullable",
        "What is the capital of France?",
        {
            "type": "object",
            "properties": {"capital": {"anyOf": [_string(12), {"type": "null"}]}},
            "required": ["capital"],
        },
    ),
    SchemaCase(
        "top_level_array",
        "Count from 1 to 3.",
        {
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 9},
            "minItems": 3,
            "maxItems": 3,
        },
    ),
)

TOOLS = (
    ToolSpec(
        "get_weather",
        "Get the current weather for a city.",
        {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 24}},
            "required": ["city"],
        },
    ),
    ToolSpec(
        "get_time",
        "Get the current time in a time zone.",
        {
            "type": "object",
            "properties": {"zone": {"enum": ["UTC", "Europe/Paris", "Asia/Tokyo"]}},
            "required": ["zone"],
        },
    ),
)


def request(
    question: str,
    *,
    max_tokens: int = 40,
    prompt_lookup: bool = True,
    **fields: Any,
) -> GenerateContentRequest:
    config = GenerationConfig(max_tokens=max_tokens, prompt_lookup=prompt_lookup)
    return GenerateContentRequest([Content.user(question)], config=config, **fields)


@dataclass
class Streamed:
    text: str = ""
    calls: list[ToolCallChunk] = field(default_factory=list)
    finish: Finish = field(default_factory=Finish)


def stream_request(
    backend: Backend, req: GenerateContentRequest, cache: str | None = None
) -> Streamed:
    """Run one request through ``backend.stream`` to its end, on a fresh event loop."""

    async def go() -> Streamed:
        out = Streamed()
        async for chunk in backend.stream(req, cache=cache, cancel=CancelToken()):
            if isinstance(chunk, TextDelta):
                out.text += chunk.text
            elif isinstance(chunk, ToolCallChunk):
                out.calls.append(chunk)
            elif isinstance(chunk, Finish):
                out.finish = chunk
        return out

    return asyncio.run(go())
