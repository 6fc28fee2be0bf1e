"""`Reply`: what the sync helpers return, and how it shows in a notebook."""

from __future__ import annotations

import dataclasses

from ._types import Event, FinishReason, TextMessage, Usage

__all__ = ["Reply"]


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
        return [
            e.text
            for e in self.events
            if isinstance(e, TextMessage) and not e.is_partial and e.author != "user"
        ]

    def __str__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        # Model output is untrusted: raw HTML is escaped before Markdown rendering.
        from ._render import safe_markdown

        return safe_markdown(self.text) + ("\n\n*(interrupted)*" if self.interrupted else "")
