"""The words of tool approval, shared by the runtime, the cell and the widget.

A call that waits for approval is a `FunctionCall` with ``needs_approval``
and no `FunctionResponse` yet. What a denied or never-answered call gives
the model is fixed here, once, so history reads the same whoever answered.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from .types import Event, FunctionCall, FunctionResponse

__all__ = [
    "DENIED",
    "READ_ONLY_DENIED",
    "STOPPED_WAITING",
    "call_line",
    "waiting_calls",
    "waiting_line",
]

#: The tool's result when the user denies the call (ADK: "This tool call is rejected.").
DENIED = {"error": "denied by the user: the tool did not run"}
#: The tool's result under ``approve_tools="read-only"``: it is not run, nobody is asked.
READ_ONLY_DENIED = {
    "error": "not run: approve_tools is 'read-only', so tools that need approval do not run"
}
#: The result of a call still waiting when its turn was stopped (Stop, a restart, a close).
STOPPED_WAITING = {"error": "not run: the turn was stopped while this call waited for approval"}

_ARG_CHARS = 60


def call_line(call: FunctionCall) -> str:
    """``write_file(path="notes.txt", text="hello")``: one line, each value shortened."""
    args = []
    for key, value in call.args.items():
        shown = json.dumps(value, ensure_ascii=False, default=repr)
        if len(shown) > _ARG_CHARS:
            shown = shown[: _ARG_CHARS - 1] + "…"
        args.append(f"{key}={shown}")
    return f"{call.name}({', '.join(args)})"


def waiting_line(session_id: str, calls: Sequence[FunctionCall]) -> str:
    """What a cell prints when it cannot ask: what waits and how to answer."""
    what = "; ".join(call_line(c) for c in calls)
    noun = "call waits" if len(calls) == 1 else f"{len(calls)} calls wait"
    return (
        f"‖ tool {noun} for approval: {what} — answer with "
        f"%agent approve {session_id} or %agent deny {session_id}"
    )


def waiting_calls(events: Iterable[Event]) -> list[FunctionCall]:
    """The calls among ``events`` that wait for approval (no response recorded yet)."""
    calls: dict[str, FunctionCall] = {}
    for event in events:
        if isinstance(event, FunctionCall) and event.needs_approval:
            calls[event.call_id] = event
        elif isinstance(event, FunctionResponse):
            calls.pop(event.call_id, None)
    return list(calls.values())
