"""History events <-> the `Content` list a backend sees."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .types import (
    Content,
    Event,
    FunctionCall,
    FunctionResponse,
    Part,
    Role,
    TextMessage,
)

__all__ = ["contents_to_events", "events_to_contents"]


def events_to_contents(events: Iterable[Event], viewer: str | None = None) -> list[Content]:
    """The conversation as a model sees it.

    With ``viewer`` (an agent of a multi-agent turn), only that agent's own
    messages and tool calls are MODEL content; another agent's final text
    comes as USER context, ``[name] said: ...``, and its tool calls are left
    out (as ADK presents other agents' events). Empty messages (a step that
    only wrote state) are left out.
    """
    contents: list[Content] = []
    for event in events:
        mine = viewer is None or event.author == viewer
        if isinstance(event, TextMessage) and not event.is_partial:
            if not event.text:
                continue
            if event.author == "user":
                contents.append(Content(Role.USER, (Part(text=event.text),)))
            elif mine:
                contents.append(Content(Role.MODEL, (Part(text=event.text),)))
            else:
                said = f"[{event.author}] said: {event.text}"
                contents.append(Content(Role.USER, (Part(text=said),)))
        elif isinstance(event, FunctionCall) and mine:
            contents.append(Content(Role.MODEL, (Part(function_call=event),)))
        elif isinstance(event, FunctionResponse) and mine:
            contents.append(Content(Role.USER, (Part(function_response=event),)))
    return contents


def contents_to_events(
    contents: Sequence[Content], *, author: str, invocation_id: str
) -> list[Event]:
    """Turn caller-supplied history into events (stateless `chat` modes)."""
    events: list[Event] = []
    for content in contents:
        if not isinstance(content, Content):
            raise TypeError(
                f"history must be a list of Content, got an item of type {type(content).__name__}"
            )
        who = "user" if content.role is Role.USER else author
        for part in content.parts:
            if part.text is not None:
                events.append(TextMessage(text=part.text, author=who, invocation_id=invocation_id))
            elif part.function_call is not None:
                events.append(part.function_call)
            elif part.function_response is not None:
                events.append(part.function_response)
    return events
