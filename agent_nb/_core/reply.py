"""`Reply`: what the sync helpers return, and how it shows in a notebook.

A turn whose agent has an ``output_schema`` also gives `Reply.parsed`: the
validated value of that agent's last final message (`Structured`), or None
when the reply was cut short or does not match, never a half object.
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Iterable, Mapping
from typing import Any

from .approvals import call_line
from .fences import fence_markdown
from .render import safe_markdown
from .repetition import repetition_note
from .types import Event, FinishReason, FunctionCall, TextMessage, TurnComplete, Usage

__all__ = [
    "Reply",
    "Structured",
    "cut_off_note",
    "empty_note",
    "final_texts",
    "is_final_text",
    "last_structured",
    "plain_markdown",
    "reply_text",
    "shown_text",
]


def is_final_text(event: Event) -> bool:
    """A complete model message: not a partial chunk, not the user's text."""
    return isinstance(event, TextMessage) and not event.is_partial and event.author != "user"


def final_texts(events: Iterable[Event]) -> list[str]:
    """The model's complete messages among ``events``, in order."""
    return [e.text for e in events if isinstance(e, TextMessage) and is_final_text(e) and e.text]


@dataclasses.dataclass(frozen=True)
class Structured:
    """One final message that had to be a JSON value of a schema.

    ``value`` is the validated value (the model's instance for a pydantic
    model, else the JSON value) and ``data`` the same as plain JSON; both
    are None, and ``error`` says why, when the message was cut short or does
    not match the schema. ``pretty`` is the value as indented JSON text.
    """

    event_id: str
    author: str
    value: Any = None
    data: Any = None
    pretty: str = ""
    error: str | None = None


def last_structured(
    events: Iterable[Event], structured: Mapping[str, Structured]
) -> Structured | None:
    """The `Structured` of the last of ``events`` that has one (``structured`` is keyed
    by event id), so the value belongs to a message that was recorded."""
    found = None
    for event in events:
        found = structured.get(event.id, found)
    return found


def reply_text(events: Iterable[Event], structured: Structured | None) -> str:
    """A reply's text: its last final message, but the string itself when that
    message is a structured string value (``--choice "yes|no"`` gives ``yes``,
    not the JSON ``"yes"``; `Reply.parsed` is the value either way)."""
    finals = [e for e in events if isinstance(e, TextMessage) and is_final_text(e) and e.text]
    if not finals:
        return ""
    last = finals[-1]
    if (
        structured is not None
        and structured.event_id == last.id
        and structured.error is None
        and isinstance(structured.data, str)
    ):
        return structured.data
    return last.text


@dataclasses.dataclass(frozen=True)
class Reply:
    """The outcome of one turn: final text, every event, usage; with an
    ``output_schema``, `parsed` (see the module docstring). A turn that paused
    for approval gives the part up to the pause, with `awaiting_approval`."""

    text: str
    events: tuple[Event, ...]
    usage: Usage
    finish_reason: FinishReason
    session_id: str
    invocation_id: str
    structured: Structured | None = None

    @property
    def parsed(self) -> Any:
        """The validated value of the structured reply; None when there is none, it
        was cut short (``finish_reason`` other than ``stop``) or it does not match."""
        if self.structured is None or self.structured.error is not None:
            return None
        return self.structured.value

    #: What a feature computed beside the text, by name (the data agent: ``"data"``,
    #: the result DataFrame, and ``"chart"``, its Altair chart). Not stored.
    attachments: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)

    #: The tool calls this turn waits on (``@tool(confirm=True)``): the turn paused at
    #: them, and ``session.approve()`` / ``session.deny()`` resume it, returning the rest
    #: of it as a `Reply`. Empty for a turn that ended.
    awaiting_approval: tuple[FunctionCall, ...] = ()

    @property
    def data(self) -> Any:
        """The data agent's result table (``attachments["data"]``), else None."""
        return self.attachments.get("data")

    @property
    def chart(self) -> Any:
        """The data agent's chart (``attachments["chart"]``), else None."""
        return self.attachments.get("chart")

    @property
    def answer(self) -> Any:
        """The data agent's typed answer (``attachments["answer"]``): a bool, a number,
        a string or a list; None when there is none (no data, or a word of the question
        that would change it was not applied)."""
        return self.attachments.get("answer")

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
        if self.awaiting_approval:
            calls = "; ".join(call_line(c) for c in self.awaiting_approval)
            return (
                f"(waiting for approval: {calls}; answer with session.approve() or session.deny())"
            )
        if self.interrupted:
            return "(interrupted)"
        if self.finish_reason == "length":
            return cut_off_note(self.truncated_at, structured=self.structured is not None)
        if self.finish_reason == "repetition":
            return repetition_note()
        if self.finish_reason == "error":
            return ""
        if not self.text.strip() and not any(isinstance(e, FunctionCall) for e in self.events):
            return empty_note(self.finish_reason)
        if self.structured is not None and self.structured.error is not None:
            return f"(the reply does not match its schema: {self.structured.error}; parsed is None)"
        return ""

    @property
    def messages(self) -> list[str]:
        return final_texts(self.events)

    def __str__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        # Model output is untrusted: raw HTML is escaped before Markdown rendering.
        note = self.note
        if self.awaiting_approval:  # it quotes the model's arguments: untrusted too
            return safe_markdown(shown_text(self.text, self.structured) + "\n\n" + note)
        return safe_markdown(shown_text(self.text, self.structured)) + (
            f"\n\n*{note}*" if note else ""
        )


def shown_text(text: str, structured: Structured | None) -> str:
    """What a reply shows, as Markdown source for `safe_markdown`: a parsed
    structured value as indented JSON in a fenced block (a lone string, such
    as a ``--choice``, as plain text: `plain_markdown`), else the text as it came."""
    if structured is None or structured.error is not None:
        return text
    if isinstance(structured.data, str):
        return plain_markdown(structured.data)
    return fence_markdown(structured.pretty.split("\n"), "json")


#: What `plain_markdown` backslash-escapes: CommonMark's ASCII punctuation but
#: ``&`` and ``<``, which `safe_markdown` turns into entities itself.
_MARKUP = frozenset(string.punctuation) - {"&", "<"}


def plain_markdown(text: str) -> str:
    """Markdown that shows ``text`` as the characters it is: a value is data, so
    ``# Big`` is no heading and ``**bold**`` not bold. Every punctuation mark
    is backslash-escaped (CommonMark's way of saying "this character"), and
    each line break is a hard one."""
    escaped = "".join(f"\\{c}" if c in _MARKUP else c for c in text)
    return "\\\n".join(escaped.split("\n"))


def cut_off_note(limit: int | None, *, structured: bool = False) -> str:
    """The one wording for a reply stopped by its token limit (cell, Reply, export);
    ``structured``: the reply was a JSON value, now incomplete."""
    at = f"the {limit}-token limit" if limit else "the token limit"
    if structured:
        return (
            f"(cut off at {at}: the JSON object is incomplete, so parsed is None; raise "
            "--max-tokens / GenerationConfig.max_tokens for more)"
        )
    return f"(cut off at {at}; raise --max-tokens / GenerationConfig.max_tokens for more)"


def empty_note(finish_reason: str) -> str:
    """A turn that produced no text and called no tool (e.g. end-of-text at once)."""
    return f"(the model returned an empty reply; finish reason: {finish_reason})"
