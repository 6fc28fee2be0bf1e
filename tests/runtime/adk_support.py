"""Helpers for the tests that re-express ADK's unit tests in agent_nb's API.

`simplify` is ADK's ``testing_utils.simplify_events``: the turn's events as
``(author, text)`` or ``(author, (kind, name, payload))``, without the user's
message, state-only messages and the closing `TurnComplete`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_nb import (
    Content,
    Event,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    Role,
    TextMessage,
)

__all__ = ["context_parts", "parts_texts", "request_texts", "simplify", "turn_events"]


def turn_events(history: Iterable[Event], invocation_id: str) -> list[Event]:
    return [e for e in history if e.invocation_id == invocation_id]


def simplify(events: Iterable[Event]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for event in events:
        if event.author == "user":
            continue
        if isinstance(event, TextMessage) and event.text and not event.is_partial:
            out.append((event.author, event.text))
        elif isinstance(event, FunctionCall):
            out.append((event.author, ("call", event.name, dict(event.args))))
        elif isinstance(event, FunctionResponse):
            out.append((event.author, ("response", event.name, dict(event.response))))
    return out


def parts_texts(content: Content) -> list[str | None]:
    return [p.text for p in content.parts]


def request_texts(request: GenerateContentRequest) -> str:
    """Every text the model was shown in ``request`` (its contents, its system text)."""
    texts = [request.system_instruction]
    for content in request.contents:
        for part in content.parts:
            if part.text:
                texts.append(part.text)
            if part.function_call is not None:
                texts.append(f"{part.function_call.name} {dict(part.function_call.args)}")
            if part.function_response is not None:
                texts.append(
                    f"{part.function_response.name} {dict(part.function_response.response)}"
                )
    return "\n".join(texts)


def context_parts(request: GenerateContentRequest) -> list[list[str | None]]:
    """The parts of each ``For context:`` USER content, in order (ADK's foreign events)."""
    return [
        parts_texts(c)
        for c in request.contents
        if c.role is Role.USER and c.parts and c.parts[0].text == "For context:"
    ]
