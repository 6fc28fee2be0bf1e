"""The one loop that consumes a turn's events (ADK's ``Runner.run_async``).

Agents only yield events. `drive` iterates an agent's event generator and
hands every event to `record`, the one place where an event takes effect:

1. its state delta is applied to the scope it was made in (``temp:`` keys to
   the invocation's layer, a parallel branch's writes to its branch);
2. a final event is appended to the store, **off the worker loop** (a thread
   of the loop's executor: a slow database pauses no other session's stream),
   one event at a time and in order, and the stored copy goes on;
3. it is streamed to the turn's `EventStream` and the session's listeners.

Partial text chunks and prompt progress are only streamed. An event that
carries nothing but ``temp:`` state is applied and not kept (``temp:`` is
never stored, so a stored copy would be an empty message).

`record` also keeps the turn's loose ends (`LooseEnds`): text streamed but
not yet final, and tool calls not yet answered, per agent and branch. When a
turn is stopped or fails, `close_loose_ends` records them (the text marked
interrupted, each open call answered with an error), so history never holds a
function call without its response, whichever branch was cut off.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING

from .._core.approvals import STOPPED_WAITING
from .._core.state import TEMP_PREFIX
from .._core.types import Event, FunctionCall, FunctionResponse, PromptProgress, TextMessage

if TYPE_CHECKING:
    from .context import InvocationContext

__all__ = ["Collect", "LooseEnds", "Sink", "StreamSink", "close_loose_ends", "drive", "record"]


class LooseEnds:
    """What a stopped turn must still record (see the module docstring)."""

    def __init__(self) -> None:
        self.text: dict[tuple[str, str | None], list[str]] = {}
        self.calls: dict[str, FunctionCall] = {}

    def track(self, event: Event) -> None:
        key = (event.author, event.branch)
        if isinstance(event, TextMessage):
            if event.is_partial:
                self.text.setdefault(key, []).append(event.text)
            else:
                self.text.pop(key, None)
        elif isinstance(event, FunctionCall):
            self.text.pop(key, None)
            self.calls[event.call_id] = event
        elif isinstance(event, FunctionResponse):
            self.calls.pop(event.call_id, None)


class Sink:
    """Where a loop's events go: a store and a stream, or just a list.

    ``persist`` may block (a store's append): `record` runs it off the loop
    when ``blocking`` is set.
    """

    blocking = False

    def __init__(self) -> None:
        self.loose = LooseEnds()
        self.events: list[Event] = []  # the final events, as stored

    def persist(self, event: Event) -> Event:
        return event

    def publish(self, event: Event) -> None:
        pass


class Collect(Sink):
    """A loop of its own whose events are only kept in ``events`` (an `AgentTool` run)."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events


class StreamSink(Sink):
    """Events to a stream and listeners; ``store`` (blocking) keeps final ones."""

    def __init__(
        self,
        push: Callable[[Event], None],
        *,
        store: Callable[[Event], Event] | None = None,
        notify: Callable[[Event], None] | None = None,
    ) -> None:
        super().__init__()
        self._push = push
        self._store = store
        self._notify = notify
        self.blocking = store is not None

    def persist(self, event: Event) -> Event:
        return event if self._store is None else self._store(event)

    def publish(self, event: Event) -> None:
        self._push(event)
        if self._notify is not None:
            self._notify(event)


def _only_temp(event: Event) -> bool:
    return (
        isinstance(event, TextMessage)
        and not event.text
        and not event.attachments  # a data answer's table and chart are kept
        and not event.escalate
        and bool(event.state_delta)
        and all(k.startswith(TEMP_PREFIX) for k in event.state_delta)
    )


async def _off_loop(fn: Callable[[Event], Event], event: Event) -> Event:
    """Run a blocking store call in a thread; a stop never leaves it half-done
    behind the next write (the write is waited for, then the stop goes on)."""
    try:
        future = asyncio.get_running_loop().run_in_executor(None, fn, event)
    except RuntimeError:
        # The interpreter is exiting (its executors take no more work): the turns a
        # runner stops at exit (a kernel restart) still record how they ended.
        return fn(event)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await future
        raise


async def record(event: Event, ctx: InvocationContext, sink: Sink) -> Event:
    """Apply, keep and stream one event (see the module docstring)."""
    if isinstance(event, PromptProgress) or (isinstance(event, TextMessage) and event.is_partial):
        sink.loose.track(event)
        sink.publish(event)
        return event
    scope = ctx.layers.get(event.branch) or ctx.layers[None]
    scope.apply(dict(event.state_delta))
    if _only_temp(event):
        return event
    stored = await _off_loop(sink.persist, event) if sink.blocking else sink.persist(event)
    sink.loose.track(stored)
    sink.events.append(stored)
    sink.publish(stored)
    return stored


async def drive(events: AsyncGenerator[Event, None], ctx: InvocationContext, sink: Sink) -> None:
    """Consume an agent's events to the end, recording each (the one loop)."""
    async with contextlib.aclosing(events) as agen:
        async for event in agen:
            await record(event, ctx, sink)


async def close_loose_ends(ctx: InvocationContext, sink: Sink) -> None:
    """Record what a stopped or failed turn left open (see the module docstring)."""
    loose = sink.loose
    for (author, branch), pieces in list(loose.text.items()):
        text = "".join(pieces)
        if text:
            await record(
                TextMessage(
                    text=text,
                    interrupted=True,
                    author=author,
                    branch=branch,
                    invocation_id=ctx.invocation_id,
                ),
                ctx,
                sink,
            )
    loose.text.clear()
    approvals = ctx.turn.approvals
    for call in list(loose.calls.values()):
        waited = approvals is not None and approvals.unanswered(call.call_id)
        response = STOPPED_WAITING if waited else {"error": "cancelled before the tool finished"}
        await record(
            FunctionResponse(
                name=call.name,
                response=response,
                call_id=call.call_id,
                author=call.author,
                branch=call.branch,
                invocation_id=ctx.invocation_id,
            ),
            ctx,
            sink,
        )
