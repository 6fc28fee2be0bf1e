"""`Reply`: what the sync helpers return, and how it shows in a notebook."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ._render import safe_markdown
from ._types import Event, FinishReason, TextMessage, Usage

__all__ = ["Reply", "final_texts", "is_final_text"]


def is_final_text(event: Event) -> bool:
    """A complete model message: not a partial chunk, not the user's text."""
    return isinstance(event, TextMessage) and not event.is_partial and event.author != "user"


def final_texts(events: Iterable[Event]) -> list[str]:
    """The model's complete messages among ``events``, in order."""
    return [e.text for e in events if isinstance(e, TextMessage) and is_final_text(e)]


@dataclasses.dataclass(frozen=True)
class Reply:
    """The outcome of one turn: final text, every event, usage."""

    text: str
    events: tuple[Event, ...]
    usage: Usage
    finish_reason: FinishReason
    session_id: str
    invocation_id: str

    @property
    def interrupted(self) -> bool:
        return self.finish_reason == "cancelled"

    @property
    def messages(self) -> list[str]:
        return final_texts(self.events)

    def __str__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        # Model output is untrusted: raw HTML is escaped before Markdown rendering.
        return safe_markdown(self.text) + ("\n\n*(interrupted)*" if self.interrupted else "")
