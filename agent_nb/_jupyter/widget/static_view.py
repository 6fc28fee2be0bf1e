"""What a `ChatWidget` looks like where no widget can render.

An exported notebook (``jupyter nbconvert --to html``), GitHub's viewer or a
terminal shows a widget's output by its plain MIME types. So the widget's
bundle also carries the session id and the transcript so far, as text/plain
and as text/html (every character escaped: model text never acts as HTML).
A data answer shows its plan and result table as text, and its chart as the
SVG that vl-convert draws from the stored spec, where vl-convert is installed
(`data_view`).

A closed widget has no live view to show: its outputs become `closed_bundle`,
the transcript as it stood with the note that says the widget closed and how
to reopen the session (`ChatWidget.closed_note`), and a display of a closed
widget shows the same.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from ..._core.types import TextMessage
from ..export import transcript_entries
from .data_view import data_html, data_text

if TYPE_CHECKING:
    from ..._runtime.face import AgentSession

__all__ = ["closed_bundle", "static_bundle"]


def static_bundle(session: AgentSession | None) -> dict[str, str]:
    """text/plain and text/html for a widget on ``session`` (None: closed)."""
    if session is None:
        return {"text/plain": "ChatWidget(closed)", "text/html": "<p>ChatWidget (closed)</p>"}
    turns = session.turns
    title = f"ChatWidget: session {session.id!r} ({turns} turn{'s' * (turns != 1)})"
    plain, rows = [title], []
    for event in session.history:
        attached = event.attachments if isinstance(event, TextMessage) else {}
        shown = transcript_entries([event])
        if isinstance(event, TextMessage) and attached:  # its text; the bundle shows below
            shown = [(event.author, event.text)]
        for who, text in shown:
            plain.append(
                f"{who}: {text}".rstrip() + (f"\n{data_text(attached)}" if attached else "")
            )
            rows.append(
                f'<p><b>{html.escape(who)}:</b></p><div style="white-space: pre-wrap">'
                f"{html.escape(text)}</div>{data_html(attached) if attached else ''}"
            )
    page = f'<div class="agent-nb-static"><p><b>{html.escape(title)}</b></p>{"".join(rows)}</div>'
    return {"text/plain": "\n\n".join(plain), "text/html": page}


def closed_bundle(shown: dict[str, str], note: str) -> dict[str, str]:
    """``shown`` (a `static_bundle`) under ``note``, which says the widget closed."""
    plain = "\n\n".join(part for part in (note, shown.get("text/plain", "")) if part)
    page = (
        f'<div class="agent-nb-static"><p><i>{html.escape(note)}</i></p>'
        f"{shown.get('text/html', '')}</div>"
    )
    return {"text/plain": plain, "text/html": page}
