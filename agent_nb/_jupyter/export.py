"""A session's transcript as Markdown or JSON (``%agent export`` / ``history``).

Exports are documents for the user, not renderings: model text goes in as
written. They show the active branch's conversation and list the other
branches (each with the turns it does not share with the active one), so an
export never hides that a re-run replaced something. Anything that shows one
inside the notebook passes it through `agent_nb._core.render.safe_markdown`
(``%agent history``) or as plain text.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from .._core.approvals import call_line as approval_call_line
from .._core.codec import event_to_dict
from .._core.fences import close_open_fence
from .._core.history import says_nothing
from .._core.types import Event, FunctionCall, FunctionResponse, TextMessage, TurnComplete

if TYPE_CHECKING:
    from .._runtime.face import AgentSession

__all__ = [
    "EXPORT_FORMATS",
    "branches_lines",
    "call_entry",
    "interrupted_text",
    "response_line",
    "session_json",
    "session_markdown",
    "transcript_entries",
    "tree_markdown",
]

EXPORT_FORMATS = ("md", "json")


def call_entry(event: FunctionCall) -> str:
    """A call in a transcript or a cell: the approval prompt's one line
    (`agent_nb._core.approvals.call_line`) behind an arrow, so a call reads the
    same wherever it is shown."""
    return f"→ `{approval_call_line(event)}`"


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
    """(speaker, text) pairs: what a reader of the conversation wants to see.

    Every text comes with a fence it left open closed (a reply cut off by
    ``--max-tokens`` inside a code block): the entries are joined into one
    document, where an open fence would swallow the later turns and the
    branch list as code."""
    entries: list[tuple[str, str]] = []
    for event in events:
        if isinstance(event, TextMessage) and not event.is_partial:
            if says_nothing(event):
                continue  # a parallel agent's merge, a step that only wrote state
            if not event.text and isinstance(event.attachments.get("text/plain"), str):
                # A message that only shows something (the data agent's table and
                # chart): its bundle's text, as Jupyter shows a display bundle as text
                entries.append((event.author, event.attachments["text/plain"]))
            elif event.interrupted:
                entries.append((event.author, interrupted_text(event.text)))
            else:
                entries.append((event.author, close_open_fence(event.text)))
        elif isinstance(event, FunctionCall):
            entries.append((event.author, call_entry(event)))
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
    others = branches_lines(session)
    if len(others) > 1:
        lines += [f"{'#' * (level + 1)} Branches", "", *others, ""]
    return "\n".join(lines)


def _first_user_text(events: tuple[Event, ...] | list[Event], limit: int = 60) -> str:
    for event in events:
        if isinstance(event, TextMessage) and event.author == "user":
            text = " ".join(event.text.split())
            return text if len(text) <= limit else text[: limit - 1] + "…"
    return ""


def branches_lines(session: AgentSession) -> list[str]:
    """One Markdown list line per branch: number, turns, where it leaves the active one."""
    by_turn = {node.invocation_id: node for node in session.tree()}
    lines = []
    for branch in session.branches():
        turns = len(branch.turns)
        what = f"**branch {branch.number}**" + (" (active)" if branch.active else "")
        size = f"{turns} turn{'s' * (turns != 1)}"
        if branch.active:
            lines.append(f"- {what}: {size}")
            continue
        own = branch.own_turns
        where = f"after turn {branch.shared}" if branch.shared else "from the start"
        first = _first_user_text(by_turn[own[0]].events) if own else ""
        tail = f", starting “{first}”" if first else ""
        hint = f" — `%agent switch {session.id} {branch.number}`"
        lines.append(f"- {what}: {size}, {len(own)} not on the active one ({where}{tail}){hint}")
    return lines


def tree_markdown(session: AgentSession, *, level: int = 1) -> str:
    """Every turn of every branch (``%agent history ID --all``), in the order
    they began, each headed by its number and the branches that hold it."""
    nodes = session.tree()
    number = {node.invocation_id: i for i, node in enumerate(nodes, start=1)}
    lines = [f"{'#' * level} Session {session.id}: every branch", ""]
    for node in nodes:
        after = f"after turn {number[node.parent]}" if node.parent else "first turn"
        held = ", ".join(map(str, node.branches)) or "none"
        mark = " · active" if node.active else ""
        lines += [
            f"{'#' * (level + 1)} Turn {number[node.invocation_id]} ({after}; branch {held}{mark})",
            "",
        ]
        for speaker, text in transcript_entries(list(node.events)):
            lines += [f"**{speaker}:**", "", text, ""]
    lines += [f"{'#' * (level + 1)} Branches", "", *branches_lines(session), ""]
    return "\n".join(lines)


def session_json(session: AgentSession) -> str:
    """The active path's events, and every branch with the events it does not
    share with the active one (``events`` is empty for the active branch)."""
    by_turn = {node.invocation_id: node.events for node in session.tree()}
    payload: dict[str, Any] = {
        "format": "agent_nb.session/1",
        "exported_at": time.time(),
        "session_id": session.id,
        "user_id": session.user_id,
        "state": session.state,
        "events": [event_to_dict(e) for e in session.history],
        "active_branch": session.branch,
        "branches": [
            {
                "number": b.number,
                "active": b.active,
                "turns": list(b.turns),
                "shared_with_active": b.shared,
                "events": [
                    event_to_dict(e) for t in b.own_turns if not b.active for e in by_turn[t]
                ],
            }
            for b in session.branches()
        ],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False, default=repr)
