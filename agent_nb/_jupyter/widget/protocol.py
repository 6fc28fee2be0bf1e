"""The messages between `ChatWidget` (Python) and its front end (``js/widget.js``).

Everything that crosses the comm is one of the `TypedDict` shapes below, tagged
by a ``type`` (custom messages) or ``kind`` (transcript entries) literal. The
JS side mirrors them as JSDoc typedefs in ``js/protocol.js``; keep the two in
step. Events are converted to entries here, in one place, from the event
codec's dicts (`agent_nb._core.codec`), so the widget, the stores, the JSON
export and a test agree on what an event holds.

Streaming text does not travel as entries: it goes as batched `DeltaMsg`
chunks (at most one per ``DELTA_INTERVAL_S``), and the final model entry that
follows carries the full text, so the front end can swap its live block for
the stored one without a visible jump.

Each message carries its agent (``author``), and a turn's entry carries its
trace (what each agent read and wrote in ``temp:``, session, ``user:`` and
``app:`` state), stored with the turn (`TurnComplete.trace`); the front end
shows it as a collapsed panel (``js/trace.js``) and, as all model and user
data, only as text.

A data agent's message (`DataEntry`) carries what its stored attachments
hold (`agent_nb.data.chart.view_bundle`): the plan line, the result table as
columns and rows of JSON values, and the Vega-Lite spec, which the front end
draws with the vega-embed bundle it asks for once per page (`ChartModuleMsg`:
nearly a megabyte, so a chat without charts never loads it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NotRequired, TypedDict, cast

from ..._core.branches import Fork
from ..._core.codec import event_to_dict
from ..._core.fences import close_open_fence
from ..._core.history import says_nothing
from ..._core.types import Event, TurnComplete
from ..._core.window import omitted_line
from .data_view import TableDict, data_entry_fields

__all__ = [
    "DELTA_INTERVAL_S",
    "ApprovalMsg",
    "CatchUpMsg",
    "ChartModuleMsg",
    "ChartModuleRequest",
    "DataEntry",
    "DeltaMsg",
    "Entry",
    "EntryMsg",
    "ErrorMsg",
    "ForkDict",
    "FromJs",
    "FromPython",
    "ModelEntry",
    "NewChatMsg",
    "ProgressMsg",
    "ScopeUseDict",
    "SendMsg",
    "SnapshotMsg",
    "StopMsg",
    "SwitchBranchMsg",
    "TableDict",
    "ToolCallEntry",
    "ToolResultEntry",
    "TraceDict",
    "TraceStepDict",
    "TurnCompleteMsg",
    "TurnEntry",
    "UsageDict",
    "UserEntry",
    "ViewEvent",
    "ViewMsg",
    "WaitingMsg",
    "entries_from_events",
    "entry_from_event",
    "fork_dicts",
    "parse_from_js",
    "turn_complete_msg",
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
    replayed_calls: int  # model calls answered from the replay cache ("↻ replayed")


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


class _ToolCallFields(TypedDict):
    kind: Literal["tool_call"]
    id: str
    invocation_id: str
    author: str  # the agent that called the tool
    name: str
    call_id: str
    args: dict[str, Any]
    #: The call waits for the user's approval until its result comes (Approve / Deny);
    #: there only when True, as in the codec's dict
    needs_approval: NotRequired[bool]


class ToolCallEntry(_ToolCallFields, total=False):
    server: str  # the MCP server the tool came from; absent for a Python tool


class ToolResultEntry(TypedDict):
    kind: Literal["tool_result"]
    id: str
    invocation_id: str
    author: str
    name: str
    call_id: str
    response: dict[str, Any]


class ScopeUseDict(TypedDict):
    read: list[str]  # state keys the agent read
    wrote: dict[str, str]  # key -> its value, shortened (`agent_nb._core.trace.VALUE_CHARS`)


class TraceStepDict(TypedDict):
    """One agent's part of an invocation (`agent_nb._core.trace.AgentStep`)."""

    agent: str
    kind: str  # "model", "code", "tool-agent", "merge"
    scopes: dict[str, ScopeUseDict]  # "temp", "session", "user", "app": only those it touched
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    error: str | None


class TraceDict(TypedDict):
    invocation_id: str
    steps: list[TraceStepDict]  # in the order the agents finished


class TurnEntry(TypedDict):
    kind: Literal["turn"]
    id: str
    invocation_id: str
    finish_reason: str
    interrupted: bool
    error: str | None
    max_tokens: int | None  # the limit that cut the reply (finish_reason "length")
    usage: UsageDict
    trace: TraceDict | None  # None: one agent that touched no state
    stale: str | None  # "⚠ `df` changed since this answer — re-run the cell" (staleness)


class DataEntry(TypedDict):
    """A message with attachments (the data agent's): its text, the plan line, the
    result table and the Vega-Lite spec made by Altair from the result (or None)."""

    kind: Literal["data"]
    id: str
    invocation_id: str
    author: str
    text: str
    plan: str
    table: TableDict | None
    chart: dict[str, Any] | None


Entry = UserEntry | ModelEntry | ToolCallEntry | ToolResultEntry | TurnEntry | DataEntry


# -- custom messages, Python -> JS ---------------------------------------------


class DeltaMsg(TypedDict):
    """Text streamed since the previous delta of the same turn and agent."""

    type: Literal["delta"]
    invocation_id: str
    author: str  # the agent writing it (several agents may speak in one turn)
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
    author: str
    text: str


class ProgressMsg(TypedDict):
    """How far the model has read a long prompt (before the first token; throttled)."""

    type: Literal["progress"]
    invocation_id: str
    done: int
    total: int


class WaitingMsg(TypedDict):
    """The turn waits for other sessions' turns on a model that answers one turn at a
    time: the cell's words for it (`agent_nb._jupyter.waiting.waiting_note`), or ""
    once none is ahead. The turn's first text, progress or entry replaces it."""

    type: Literal["waiting"]
    invocation_id: str
    note: str


class ChartModuleMsg(TypedDict):
    """The answer to a `ChartModuleRequest`: the vega-embed bundle's source (an ES
    module, ``agent_nb/static/vega.js``), or why there is none."""

    type: Literal["chart_module"]
    id: str
    source: str
    error: str | None


FromPython = (
    DeltaMsg
    | EntryMsg
    | TurnCompleteMsg
    | ErrorMsg
    | SnapshotMsg
    | ProgressMsg
    | WaitingMsg
    | ChartModuleMsg
)


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


class ChartModuleRequest(TypedDict):
    """A view has a chart to draw and no chart module yet (answered by ``id``)."""

    type: Literal["chart_module"]
    id: str


ViewEvent = Literal["attached", "detached", "destroyed", "page_gone", "connected"]
VIEW_EVENTS: tuple[ViewEvent, ...] = ("attached", "detached", "destroyed", "page_gone", "connected")


class ViewMsg(TypedDict):
    """What happened to one view (see `lifecycle`); ``view_id`` is "" for ``page_gone``
    and ``connected`` (a page's front end made this widget's model: it connected).
    The ids are the front end's own: one per page load, one per rendered view;
    ``live`` is every view of this widget still live in that page."""

    type: Literal["view"]
    event: ViewEvent
    page_id: str
    view_id: str
    live: list[str]


class SwitchBranchMsg(TypedDict):
    """A fork's ‹ › arrow: make that branch the active conversation."""

    type: Literal["switch_branch"]
    branch: int


class ApprovalMsg(TypedDict):
    """The Approve or Deny button of a call waiting for approval."""

    type: Literal["approval"]
    call_id: str
    approved: bool


FromJs = (
    SendMsg
    | StopMsg
    | NewChatMsg
    | CatchUpMsg
    | ViewMsg
    | SwitchBranchMsg
    | ChartModuleRequest
    | ApprovalMsg
)


# -- the ``forks`` trait -----------------------------------------------------------


class ForkDict(TypedDict):
    """A fork on the active path (`agent_nb._core.branches.Fork`), drawn as
    "‹ 1 of 2 versions ›"."""

    invocation_id: str
    position: int
    count: int
    prev_branch: int | None
    next_branch: int | None


def fork_dicts(forks: Iterable[Fork]) -> list[ForkDict]:
    return [
        ForkDict(
            invocation_id=f.invocation_id,
            position=f.position,
            count=f.count,
            prev_branch=f.prev_branch,
            next_branch=f.next_branch,
        )
        for f in forks
    ]


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
    if kind == "view":
        return _parse_view(content)
    if kind == "switch_branch":
        branch = content.get("branch")
        if isinstance(branch, bool) or not isinstance(branch, int):
            raise ValueError("a 'switch_branch' message needs an integer 'branch'")
        return SwitchBranchMsg(type="switch_branch", branch=branch)
    if kind == "chart_module":
        request_id = content.get("id")
        if not isinstance(request_id, str):
            raise ValueError("a 'chart_module' message needs a string 'id'")
        return ChartModuleRequest(type="chart_module", id=request_id)
    if kind == "approval":
        call_id, approved = content.get("call_id"), content.get("approved")
        if not isinstance(call_id, str) or not call_id or not isinstance(approved, bool):
            raise ValueError("an 'approval' message needs a string 'call_id' and a bool 'approved'")
        return ApprovalMsg(type="approval", call_id=call_id, approved=approved)
    raise ValueError(
        f"unknown widget message type {kind!r}; expected 'send', 'stop', 'new_chat', "
        "'catch_up', 'view', 'switch_branch', 'chart_module' or 'approval'"
    )


def _parse_view(content: Mapping[str, Any]) -> ViewMsg:
    event, page_id, view_id = (content.get(k) for k in ("event", "page_id", "view_id"))
    if event not in VIEW_EVENTS:
        raise ValueError(f"a 'view' message needs an 'event' in {list(VIEW_EVENTS)}, got {event!r}")
    if not isinstance(page_id, str) or not page_id or not isinstance(view_id, str):
        raise ValueError("a 'view' message needs a non-empty string 'page_id' and a 'view_id'")
    live = content.get("live", [])
    if not isinstance(live, list) or not all(isinstance(v, str) for v in live):
        raise ValueError("a 'view' message's 'live' must be a list of view id strings")
    return ViewMsg(type="view", event=event, page_id=page_id, view_id=view_id, live=list(live))


# -- events -> entries -----------------------------------------------------------
#
# Entries are read off the event codec's dict (`agent_nb._core.codec`), the one
# place that turns events into dicts; the widget only renames the kind for its
# view (user / model / tool_call / ...) and adds view fields (``window_note``).


def usage_dict(usage: Mapping[str, Any]) -> UsageDict:
    """The wire usage for the codec's usage dict (``event_to_dict(e)["usage"]``)."""
    omitted = usage.get("omitted_turns") or 0
    return UsageDict(
        prompt_tokens=usage["prompt_tokens"],
        cached_tokens=usage["cached_tokens"],
        generated_tokens=usage["generated_tokens"],
        time_to_first_token_s=usage["time_to_first_token_s"],
        tokens_per_s=usage["tokens_per_s"],
        context_tokens=usage["context_tokens"],
        context_window=usage["context_window"],
        window_note=omitted_line(omitted, usage["context_window"]) if omitted else None,
        replayed_calls=usage.get("replayed_calls") or 0,
    )


def turn_complete_msg(event: TurnComplete) -> TurnCompleteMsg:
    """The message that ends a turn in the front end."""
    data = event_to_dict(event)
    return TurnCompleteMsg(
        type="turn_complete",
        invocation_id=data["invocation_id"],
        finish_reason=data["finish_reason"],
        interrupted=data["interrupted"],
        error=data["error"],
        max_tokens=data["max_tokens"],
        usage=usage_dict(data["usage"]),
    )


def entry_from_event(event: Event, marks: Mapping[str, str] | None = None) -> Entry | None:
    """The transcript entry for a stored event (None for partial text); a turn's
    entry carries the trace stored with it (`TurnComplete.trace`) and its stale
    mark from ``marks`` (invocation id -> line, `agent_nb._jupyter.staleness`)."""
    if says_nothing(event):
        return None  # a step that only wrote state has no bubble
    data = event_to_dict(event)
    kind, event_id, invocation_id = data["kind"], data["id"], data["invocation_id"]
    if kind == "text":
        if data["is_partial"]:
            return None
        if data.get("attachments") and data["author"] != "user":
            return DataEntry(
                kind="data",
                id=event_id,
                invocation_id=invocation_id,
                author=data["author"],
                text=close_open_fence(data["text"]),
                **data_entry_fields(data["attachments"]),
            )
        if data["author"] == "user":
            return UserEntry(
                kind="user", id=event_id, invocation_id=invocation_id, text=data["text"]
            )
        # A fence the reply left open is closed: the bubble's code ends with the
        # reply, and the text is the one `%agent history` and exports show.
        return ModelEntry(
            kind="model",
            id=event_id,
            invocation_id=invocation_id,
            author=data["author"],
            text=close_open_fence(data["text"]),
            interrupted=data["interrupted"],
        )
    if kind == "function_call":
        call = ToolCallEntry(
            kind="tool_call",
            id=event_id,
            invocation_id=invocation_id,
            author=data["author"],
            name=data["name"],
            call_id=data["call_id"],
            args=data["args"],
        )
        if data.get("server"):
            call["server"] = data["server"]
        if data.get("needs_approval"):
            call["needs_approval"] = True
        return call
    if kind == "function_response":
        return ToolResultEntry(
            kind="tool_result",
            id=event_id,
            invocation_id=invocation_id,
            author=data["author"],
            name=data["name"],
            call_id=data["call_id"],
            response=data["response"],
        )
    if kind == "turn_complete":
        # Stored as `InvocationTrace.to_dict` wrote it: the panel's TraceDict.
        trace = cast(TraceDict | None, data["trace"])
        return TurnEntry(
            kind="turn",
            id=event_id,
            invocation_id=invocation_id,
            finish_reason=data["finish_reason"],
            interrupted=data["interrupted"],
            error=data["error"],
            max_tokens=data["max_tokens"],
            usage=usage_dict(data["usage"]),
            trace=trace,
            stale=(marks or {}).get(invocation_id),
        )
    return None


def entries_from_events(
    events: Iterable[Event], marks: Mapping[str, str] | None = None
) -> list[Entry]:
    entries = (entry_from_event(event, marks) for event in events)
    return [e for e in entries if e is not None]
