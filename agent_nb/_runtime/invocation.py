"""`Invocation`: one running turn or direct call, as its caller and the worker see it.

It holds the invocation id, the cancel token, the result future and the
event stream. Session turns (`turn`) and direct model access (`direct`) end
it the same way (`finish_invocation`), whatever happened.

Stopping: the backend sees the cancel token at once; a tool or an HTTP wait
that ignores it is cancelled as an asyncio task `CANCEL_GRACE_S` later.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from .._core.reply import Reply, Structured, last_structured, reply_text
from .._core.types import Event, FinishReason, Usage, new_id
from ..backends import CancelToken
from ..errors import ContextWindowError, SchemaError, ToolServerError
from .stream import EventStream
from .worker import Worker

__all__ = ["CANCEL_GRACE_S", "Invocation", "finish_invocation", "nothing_sent"]

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
    """
    value = last_structured(events, structured or {})
    reply = Reply(
        text=reply_text(events, value),
        events=tuple(events),
        usage=usage,
        finish_reason=finish,
        session_id=session_id,
        invocation_id=invocation.invocation_id,
        structured=value,
    )
    if on_end is not None:
        on_end()
    invocation.stream.finish(error)
    if error is not None:
        invocation.future.set_exception(error)
    else:
        invocation.future.set_result(reply)
    return reply


def nothing_sent(error: BaseException | None) -> bool:
    """A request refused before it was sent leaves no trace: one too big for the
    window, one whose schema no grammar compiles from (`Backend.check_request`),
    or one whose tool servers could not list their tools (`list_toolsets`: a
    tool call's failure is the tool's result, never raised)."""
    if isinstance(error, ContextWindowError):
        return not error.sent
    return isinstance(error, SchemaError | ToolServerError)
