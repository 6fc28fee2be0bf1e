"""A session's transcript as Markdown or JSON (``%agent export`` / ``history``).

Exports are documents for the user, not renderings: model text goes in as
written. Anything that shows one inside the notebook passes it through
`agent_nb._core.render.safe_markdown` (``%agent history``) or as plain text.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from .._core.codec import event_to_dict
from .._core.types import Event, FunctionCall, FunctionResponse, TextMessage, TurnComplete
from .code_blocks import close_open_fence

if TYPE_CHECKING:
    from .._runtime.session import AgentSession

__all__ = [
    "EXPORT_FORMATS",
    "call_line",
    "interrupted_text",
    "response_line",
    "session_json",
    "session_markdown",
    "transcript_entries",
]

EXPORT_FORMATS = ("md", "json")


def call_line(event: FunctionCall) -> str:
    args = json.dumps(dict(event.args), ensure_ascii=False, default=repr)
    return f"→ `{event.name}({args})`"


def response_line(event: FunctionResponse, limit: int = 2000) -> str:
    result = json.dumps(dict(event.response), ensure_ascii=False, default=repr)
    return f"← `{event.name}`: `{result[:limit]}`"


def interrupted_text(text: str) -> str:
    """``text`` with the interrupted mark after it, never inside a code block: a
    fence the reply left open is closed first, and after a fence line the mark
    goes on a line of its own (on the fence's line it would keep the block open)."""
    closed = close_open_fence(text)
    last = closed.rstrip("\n").rsplit("\n", 1)[-1].strip(" >")
    sep = "\n\n" if last.startswith(("```", "~~~")) else " "
    return f"{closed}{sep}*(interrupted)*"


def transcript_entries(events: list[Event]) -> list[tuple[str, str]]:
    """(speaker, text) pairs: what a reader of the conversation wants to see."""
    entries: list[tuple[str, str]] = []
    for event in events:
        if isinstance(event, TextMessage) and not event.is_partial:
            if event.interrupted:
                entries.append((event.author, interrupted_text(event.text)))
            else:
                entries.append((event.author, event.text))
        elif isinstance(event, FunctionCall):
            entries.append((event.author, call_line(event)))
        elif isinstance(event, FunctionResponse):
            entries.append(("tool", response_line(event)))
        elif isinstance(event, TurnComplete) and event.error:
            entries.append(("error", event.error))
    return entries


def session_markdown(session: AgentSession, *, level: int = 1) -> str:
    """The conversation as Markdown; ``level`` is the title's heading level
    (1 for an exported file, smaller headings inside a notebook output)."""
    lines = [f"{'#' * level} Session {session.id}", ""]
    for speaker, text in transcript_entries(session.history):
        lines += [f"**{speaker}:**", "", text, ""]
    state = session.state
    if state:
        dumped = json.dumps(state, indent=2, default=repr)
        lines += [f"{'#' * (level + 1)} State", "", "```json", dumped, "```", ""]
    return "\n".join(lines)


def session_json(session: AgentSession) -> str:
    payload: dict[str, Any] = {
        "format": "agent_nb.session/1",
        "exported_at": time.time(),
        "session_id": session.id,
        "user_id": session.user_id,
        "state": session.state,
        "events": [event_to_dict(e) for e in session.history],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False, default=repr)
