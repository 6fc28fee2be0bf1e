"""`Reply`: what the sync helpers return, and how it shows in a notebook."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from .render import safe_markdown
from .repetition import repetition_note
from .types import Event, FinishReason, FunctionCall, TextMessage, TurnComplete, Usage

__all__ = ["Reply", "cut_off_note", "empty_note", "final_texts", "is_final_text"]


def is_final_text(event: Event) -> bool:
    """A complete model message: not a partial chunk, not the user's text."""
    return isinstance(event, TextMessage) and not event.is_partial and event.author != "user"


def final_texts(events: Iterable[Event]) -> list[str]:
    """The model's complete messages among ``events``, in order."""
    return [e.text for e in events if isinstance(e, TextMessage) and is_final_text(e) and e.text]


@dataclasses.dataclass(frozen=True)
class Reply:
    """The outcome of one turn: final text, every event, usage."""

    text: str
    events: tuple[Event, ...]
    usage: Usage
    finish_reason: FinishReason
    session_id: str
    invocation_id: str
    #: What a feature computed beside the text, by name (the data agent: ``"data"``,
    #: the result DataFrame, and ``"chart"``, its Altair chart). Not stored.
    attachments: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)

    @property
    def data(self) -> Any:
        """The data agent's result table (``attachments["data"]``), else None."""
        return self.attachments.get("data")

    @property
    def chart(self) -> Any:
        """The data agent's chart (``attachments["chart"]``), else None."""
        return self.attachments.get("chart")

    @property
    def interrupted(self) -> bool:
        return self.finish_reason == "cancelled"

    @property
    def truncated_at(self) -> int | None:
        """The ``max_tokens`` limit that cut this reply off (``finish_reason == "length"``)."""
        if self.finish_reason != "length":
            return None
        ends = [e for e in self.events if isinstance(e, TurnComplete)]
        return ends[-1].max_tokens if ends else None

    @property
    def note(self) -> str:
        """What a reader should know beyond the text: interrupted, cut off at a limit,
        stopped in a loop, or nothing at all came back (so silence is never all)."""
        if self.interrupted:
            return "(interrupted)"
        if self.finish_reason == "length":
            return cut_off_note(self.truncated_at)
        if self.finish_reason == "repetition":
            return repetition_note()
        if self.finish_reason == "error":
            return ""
        if not self.text.strip() and not any(isinstance(e, FunctionCall) for e in self.events):
            return empty_note(self.finish_reason)
        return ""

    @property
    def messages(self) -> list[str]:
        return final_texts(self.events)

    def __str__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        # Model output is untrusted: raw HTML is escaped before Markdown rendering.
        return safe_markdown(self.text) + (f"\n\n*{self.note}*" if self.note else "")


def cut_off_note(limit: int | None) -> str:
    """The one wording for a reply stopped by its token limit (cell, Reply, export)."""
    at = f"the {limit}-token limit" if limit else "the token limit"
    return f"(cut off at {at}; raise --max-tokens / GenerationConfig.max_tokens for more)"


def empty_note(finish_reason: str) -> str:
    """A turn that produced no text and called no tool (e.g. end-of-text at once)."""
    return f"(the model returned an empty reply; finish reason: {finish_reason})"
