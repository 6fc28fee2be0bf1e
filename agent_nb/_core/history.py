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

__all__ = [
    "contents_to_events",
    "current_turn_events",
    "events_to_contents",
    "says_nothing",
    "visible_in",
]


def says_nothing(event: Event) -> bool:
    """A message that only carries state or an escalation (a `ParallelAgent`'s
    merge, a step that only wrote state): transcripts leave it out, as a model
    never sees it."""
    return (
        isinstance(event, TextMessage)
        and not event.text
        and not event.attachments
        and not event.interrupted
        and not event.is_partial
        and (bool(event.state_delta) or event.escalate)
    )


def visible_in(event_branch: str | None, branch: str | None) -> bool:
    """Whether an event of ``event_branch`` is context for an agent in ``branch``.

    Events outside any branch are shared, and a branch never sees a sibling's
    events while they run side by side. A branch is a path of
    ``parallel.child`` pairs (``par.a``, nested ``par.a.inner.b``), so two
    paths are siblings where they first part at a *child* of one parallel
    agent (``par.a`` and ``par.b``). Where they part at the parallel agent
    itself (``p1.alice`` and ``p2.david``), the earlier one has joined before
    the later one started, and its outputs are seen (ADK's
    ``test_sequential_parallels``: the agents after a parallel step see what
    its branches said). A branch also sees its ancestors' events and those of
    branches nested in it that have ended.
    """
    if branch is None or event_branch is None:
        return True
    theirs, ours = event_branch.split("."), branch.split(".")
    for depth, (a, b) in enumerate(zip(theirs, ours, strict=False)):
        if a != b:
            return depth % 2 == 0  # parted at a parallel agent: it has joined
    return True


def _for_context(event: Event) -> str | None:
    """Another agent's event in ADK's wording (``_present_other_agent_message``)."""
    if isinstance(event, TextMessage):
        return f"[{event.author}] said: {event.text}" if event.text else None
    if isinstance(event, FunctionCall):
        return f"[{event.author}] called tool `{event.name}` with parameters: {dict(event.args)}"
    if isinstance(event, FunctionResponse):
        return f"[{event.author}] `{event.name}` tool returned result: {dict(event.response)}"
    return None


def _same_response(previous: Event | None, event: Event) -> bool:
    """Whether ``event`` (a tool call) came in the same model response as
    ``previous`` (its text or an earlier call of that response): ADK holds a
    response's text and calls in one event, so they are one context content."""
    return (
        isinstance(event, FunctionCall)
        and isinstance(previous, (TextMessage, FunctionCall))
        and previous.author == event.author
        and previous.invocation_id == event.invocation_id
        and previous.branch == event.branch
    )


def events_to_contents(
    events: Iterable[Event], viewer: str | None = None, branch: str | None = None
) -> list[Content]:
    """The conversation as a model sees it.

    With ``viewer`` (an agent of a multi-agent turn), only that agent's own
    messages and tool calls are MODEL content; another agent's text, tool
    calls and tool results come as USER context in ADK's layout: one USER
    content per message of that agent, its parts ``"For context:"`` then
    ``[name] said: ...``, ``[name] called tool `x` with parameters: ...``
    (a model's text and the calls it made in the same response are one
    content, as ADK's one event), or ``[name] `x` tool returned result: ...``.
    With ``branch``, a parallel branch's view: siblings' events are left out
    (`visible_in`). Empty messages (a step that only wrote state) are left out.
    """
    contents: list[Content] = []
    foreign: Event | None = None  # the last event shown as context, to group a response
    for event in events:
        if not visible_in(event.branch, branch):
            continue
        if isinstance(event, TextMessage) and (event.is_partial or not event.text):
            continue
        shown_as = foreign
        foreign = None
        if event.author == "user" and isinstance(event, TextMessage):
            contents.append(Content(Role.USER, (Part(text=event.text),)))
        elif viewer is not None and event.author != viewer:
            said = _for_context(event)
            if said is None:
                continue
            if _same_response(shown_as, event):
                last = contents[-1]
                contents[-1] = Content(last.role, (*last.parts, Part(text=said)))
            else:
                contents.append(Content(Role.USER, (Part(text="For context:"), Part(text=said))))
            foreign = event
        elif isinstance(event, TextMessage):
            contents.append(Content(Role.MODEL, (Part(text=event.text),)))
        elif isinstance(event, FunctionCall):
            contents.append(Content(Role.MODEL, (Part(function_call=event),)))
        elif isinstance(event, FunctionResponse):
            contents.append(Content(Role.USER, (Part(function_response=event),)))
    return contents


def current_turn_events(events: Sequence[Event], viewer: str) -> list[Event]:
    """``include_contents="none"``: from the latest message of the user or of
    another agent on (ADK's ``_get_current_turn_contents``)."""
    for i in range(len(events) - 1, -1, -1):
        author = events[i].author
        if author == "user" or author != viewer:
            return list(events[i:])
    return []


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
