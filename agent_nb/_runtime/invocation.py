"""`Invocation`: one running turn or direct call, as its caller and the worker see it.

It holds the invocation id, the cancel token, the result future and the
event stream. Session turns (`turn`) and direct model access (`direct`) end
it the same way (`finish_invocation`), whatever happened.

Stopping: the backend sees the cancel token at once; a tool or an HTTP wait
that ignores it is cancelled as an asyncio task `CANCEL_GRACE_S` later.

A turn that pauses for approval (`agent_nb._runtime.approval`) comes in
parts: `pause` ends the current part's stream and future with a `Reply` and
puts fresh ones in their place, which the answer hands out. The task, the id
and the cancel token stay the same for the whole turn.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from .._core.reply import Reply, Structured, last_structured, reply_text
from .._core.types import Event, FinishReason, FunctionCall, Usage, new_id
from ..backends import CancelToken
from ..errors import ContextWindowError, SchemaError, ToolServerError
from .stream import EventStream
from .worker import Worker

if TYPE_CHECKING:
    from .approval import Approvals

__all__ = ["CANCEL_GRACE_S", "Invocation", "finish_invocation", "nothing_sent", "part_reply"]

#: How long a stopped turn may take to notice its cancel token before its task is cancelled.
CANCEL_GRACE_S = 0.25


class Invocation:
    """One running turn or direct call, as the caller and the worker both see it."""

    def __init__(self, worker: Worker) -> None:
        self.invocation_id = new_id()
        self.cancel_token = CancelToken()
        self.future: concurrent.futures.Future[Reply] = concurrent.futures.Future()
        self.task: asyncio.Task[Any] | None = None  # set once it runs on the worker
        self.stream = EventStream(self.future, self.request_cancel, self.invocation_id)
        self._worker = worker
        #: Where the current part's events start among the turn's recorded events.
        self.part_start = 0
        #: A session turn's calls waiting for approval (None: a direct call).
        self.approvals: Approvals | None = None

    def push(self, event: Event) -> None:
        """Stream ``event`` to the current part's consumer."""
        self.stream.push(event)

    def pause(self, reply: Reply, next_start: int) -> None:
        """End the current part with ``reply``; later events go to a fresh stream
        and future (see the module docstring). Worker thread only."""
        future, stream = self.future, self.stream
        # The new pair is in place before the old one resolves: a thread that
        # reads ``future`` in between sees one that is not done.
        self.future = concurrent.futures.Future()
        self.stream = EventStream(self.future, self.request_cancel, self.invocation_id)
        self.part_start = next_start
        stream.finish(None)
        future.set_result(reply)

    @property
    def cancelled(self) -> bool:
        return self.cancel_token.is_set()

    def request_cancel(self) -> None:
        """Stop the invocation; returns at once (see the module docstring)."""
        if self.future.done():
            return
        self.cancel_token.set()

        def cancel_task() -> None:
            if self.task is not None and not self.task.done():
                self.task.cancel()

        try:
            loop = self._worker.loop
            loop.call_soon_threadsafe(loop.call_later, CANCEL_GRACE_S, cancel_task)
        except RuntimeError:  # worker already stopped
            pass

    def start(self, body: Coroutine[Any, Any, Any]) -> EventStream:
        """Run ``body`` (a `run_invocation` coroutine) on the worker; returns the stream."""
        self._worker.submit(body)
        return self.stream


def finish_invocation(
    invocation: Invocation,
    events: list[Event],
    *,
    usage: Usage,
    finish: FinishReason,
    error: BaseException | None,
    session_id: str = "",
    on_end: Callable[[], None] | None = None,
    structured: Mapping[str, Structured] | None = None,
) -> Reply:
    """End the invocation's stream and future the same way whatever happened.

    ``on_end`` runs after the last event was recorded, before the stream ends
    (the session frees its busy flag there). ``structured``: the structured
    messages of the invocation by event id; the reply's is the last recorded one.
    ``events``: the current part's (a turn that paused gave the earlier parts).
    """
    reply = part_reply(
        invocation, events, usage=usage, finish=finish, session_id=session_id, structured=structured
    )
    if on_end is not None:
        on_end()
    invocation.stream.finish(error)
    if error is not None:
        invocation.future.set_exception(error)
    else:
        invocation.future.set_result(reply)
    return reply


def part_reply(
    invocation: Invocation,
    events: list[Event],
    *,
    usage: Usage,
    finish: FinishReason,
    session_id: str,
    structured: Mapping[str, Structured] | None,
    awaiting: tuple[FunctionCall, ...] = (),
) -> Reply:
    """The `Reply` of a turn, or of the part of it that ``events`` are."""
    value = last_structured(events, structured or {})
    return Reply(
        text=reply_text(events, value),
        events=tuple(events),
        usage=usage,
        finish_reason=finish,
        session_id=session_id,
        invocation_id=invocation.invocation_id,
        structured=value,
        awaiting_approval=awaiting,
    )


def nothing_sent(error: BaseException | None) -> bool:
    """A request refused before it was sent leaves no trace: one too big for the
    window, one whose schema no grammar compiles from (`Backend.check_request`),
    or one whose tool servers could not list their tools (`list_toolsets`: a
    tool call's failure is the tool's result, never raised)."""
    if isinstance(error, ContextWindowError):
        return not error.sent
    return isinstance(error, SchemaError | ToolServerError)
