"""The messages between `ChatWidget` (Python) and its front end (``js/widget.js``).

Everything that crosses the comm is one of the `TypedDict` shapes below, tagged
by a ``type`` (custom messages) or ``kind`` (transcript entries) literal. The
JS side mirrors them as JSDoc typedefs in ``js/protocol.js``; keep the two in
step. Events are converted to entries here, in one place, so the widget and a
test agree on what the front end sees.

Streaming text does not travel as entries: it goes as batched `DeltaMsg`
chunks (at most one per ``DELTA_INTERVAL_S``), and the final model entry that
follows carries the full text, so the front end can swap its live block for
the stored one without a visible jump.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypedDict

from ..._core.types import Event, FunctionCall, FunctionResponse, TextMessage, TurnComplete, Usage
from ..._core.window import omitted_line

__all__ = [
    "DELTA_INTERVAL_S",
    "CatchUpMsg",
    "DeltaMsg",
    "Entry",
    "EntryMsg",
    "ErrorMsg",
    "FromJs",
    "FromPython",
    "ModelEntry",
    "NewChatMsg",
    "SendMsg",
    "SnapshotMsg",
    "StopMsg",
    "ToolCallEntry",
    "ToolResultEntry",
    "TurnCompleteMsg",
    "TurnEntry",
    "UsageDict",
    "UserEntry",
    "entries_from_events",
    "entry_from_event",
    "parse_from_js",
    "usage_dict",
]

DELTA_INTERVAL_S = 0.03
"""Minimum seconds between two `DeltaMsg` sends: ~33 messages/s at most, so a
fast model cannot flood the kernel's iopub channel or the browser."""


# -- transcript entries (the ``transcript`` trait and `EntryMsg`) -------------


class UsageDict(TypedDict):
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    time_to_first_token_s: float | None
    tokens_per_s: float | None
    context_tokens: int | None
    context_window: int | None
    window_note: str | None  # "3 oldest turns no longer fit ..." when turns were left out


class UserEntry(TypedDict):
    kind: Literal["user"]
    id: str
    invocation_id: str
    text: str


class ModelEntry(TypedDict):
    kind: Literal["model"]
    id: str
    invocation_id: str
    author: str
    text: str
    interrupted: bool


class ToolCallEntry(TypedDict):
    kind: Literal["tool_call"]
    id: str
    invocation_id: str
    name: str
    call_id: str
    args: dict[str, Any]


class ToolResultEntry(TypedDict):
    kind: Literal["tool_result"]
    id: str
    invocation_id: str
    name: str
    call_id: str
    response: dict[str, Any]


class TurnEntry(TypedDict):
    kind: Literal["turn"]
    id: str
    invocation_id: str
    finish_reason: str
    interrupted: bool
    error: str | None
    max_tokens: int | None  # the limit that cut the reply (finish_reason "length")
    usage: UsageDict


Entry = UserEntry | ModelEntry | ToolCallEntry | ToolResultEntry | TurnEntry


# -- custom messages, Python -> JS ---------------------------------------------


class DeltaMsg(TypedDict):
    """Text streamed since the previous delta of the same turn."""

    type: Literal["delta"]
    invocation_id: str
    text: str


class EntryMsg(TypedDict):
    """A stored event of a running turn (user message, tool call, final text)."""

    type: Literal["entry"]
    entry: Entry


class TurnCompleteMsg(TypedDict):
    type: Literal["turn_complete"]
    invocation_id: str
    finish_reason: str
    interrupted: bool
    error: str | None
    max_tokens: int | None  # the limit that cut the reply (finish_reason "length")
    usage: UsageDict


class ErrorMsg(TypedDict):
    """A request from the front end that could not be carried out."""

    type: Literal["error"]
    message: str


class SnapshotMsg(TypedDict):
    """All text streamed so far in the running turn. It replaces (never extends)
    a view's live text, so views that already had it are unchanged."""

    type: Literal["snapshot"]
    invocation_id: str
    text: str


FromPython = DeltaMsg | EntryMsg | TurnCompleteMsg | ErrorMsg | SnapshotMsg


# -- custom messages, JS -> Python ---------------------------------------------


class SendMsg(TypedDict):
    type: Literal["send"]
    text: str


class StopMsg(TypedDict):
    type: Literal["stop"]


class NewChatMsg(TypedDict):
    type: Literal["new_chat"]


class CatchUpMsg(TypedDict):
    """A view opened while a turn runs asks for what it missed."""

    type: Literal["catch_up"]


FromJs = SendMsg | StopMsg | NewChatMsg | CatchUpMsg


def parse_from_js(content: object) -> FromJs:
    """Validate a message from the front end; `ValueError` says what is allowed."""
    if not isinstance(content, Mapping):
        raise ValueError(f"widget message must be an object, got {type(content).__name__}")
    kind = content.get("type")
    if kind == "send":
        text = content.get("text")
        if not isinstance(text, str):
            raise ValueError("a 'send' message needs a string 'text'")
        return SendMsg(type="send", text=text)
    if kind == "stop":
        return StopMsg(type="stop")
    if kind == "new_chat":
        return NewChatMsg(type="new_chat")
    if kind == "catch_up":
        return CatchUpMsg(type="catch_up")
    raise ValueError(
        f"unknown widget message type {kind!r}; expected 'send', 'stop', 'new_chat' or 'catch_up'"
    )


# -- events -> entries -----------------------------------------------------------


def usage_dict(usage: Usage) -> UsageDict:
    return UsageDict(
        prompt_tokens=usage.prompt_tokens,
        cached_tokens=usage.cached_tokens,
        generated_tokens=usage.generated_tokens,
        time_to_first_token_s=usage.time_to_first_token_s,
        tokens_per_s=usage.tokens_per_s,
        context_tokens=usage.context_tokens,
        context_window=usage.context_window,
        window_note=(
            omitted_line(usage.omitted_turns, usage.context_window) if usage.omitted_turns else None
        ),
    )


def entry_from_event(event: Event) -> Entry | None:
    """The transcript entry for a stored event (None for partial text)."""
    if isinstance(event, TextMessage):
        if event.is_partial:
            return None
        if event.author == "user":
            return UserEntry(
                kind="user", id=event.id, invocation_id=event.invocation_id, text=event.text
            )
        return ModelEntry(
            kind="model",
            author=event.author,
            text=event.text,
            interrupted=event.interrupted,
            id=event.id,
            invocation_id=event.invocation_id,
        )
    if isinstance(event, FunctionCall):
        return ToolCallEntry(
            kind="tool_call",
            name=event.name,
            call_id=event.call_id,
            args=dict(event.args),
            id=event.id,
            invocation_id=event.invocation_id,
        )
    if isinstance(event, FunctionResponse):
        return ToolResultEntry(
            kind="tool_result",
            name=event.name,
            call_id=event.call_id,
            response=dict(event.response),
            id=event.id,
            invocation_id=event.invocation_id,
        )
    if isinstance(event, TurnComplete):
        return TurnEntry(
            kind="turn",
            finish_reason=event.finish_reason,
            interrupted=event.interrupted,
            error=event.error,
            max_tokens=event.max_tokens,
            usage=usage_dict(event.usage),
            id=event.id,
            invocation_id=event.invocation_id,
        )
    return None


def entries_from_events(events: Iterable[Event]) -> list[Entry]:
    return [e for e in map(entry_from_event, events) if e is not None]
