"""`EventStream`: a turn's events, consumable from any event loop or plain thread.

The turn runs on the worker loop and pushes events from that thread; the
consumer may be a cell's event loop (top-level ``await``), the worker itself,
or a plain thread (a cell's magic, `AgentSession.run`). So the buffer is
guarded by a lock; an async consumer is woken with ``call_soon_threadsafe``
on its own loop, never on the producer's, and a blocking one
(``for event in stream``, `next_event`) by a condition on the same lock. A
blocking consumer on the kernel's main thread waits in short slices, so a
kernel interrupt reaches it at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from types import TracebackType
from typing import Any

from .._core.reply import Reply, is_final_text
from .._core.types import Event, TextMessage
from ..errors import StreamConsumedError

__all__ = ["EventStream", "wait_interruptibly"]


class EventStream:
    """Async iterator (and async context manager) over one turn's events.

    Leaving ``async with`` or calling `aclose` before the end cancels the turn;
    the history then records it as interrupted.
    """

    def __init__(
        self,
        done: concurrent.futures.Future[Any],
        cancel: Callable[[], None],
        invocation_id: str = "",
    ) -> None:
        #: The turn's id (its events' ``invocation_id``), known before it runs.
        self.invocation_id = invocation_id
        self._done = done
        self._cancel = cancel
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._buffer: deque[Event] = deque()
        self._finished = False
        self._error: BaseException | None = None
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None
        self._iterated = False

    # -- producer side (worker thread) -------------------------------------

    def _wake(self) -> None:
        self._arrived.notify_all()
        waiter, self._waiter = self._waiter, None
        if waiter is not None:
            loop, fut = waiter

            def resolve() -> None:
                if not fut.done():
                    fut.set_result(None)

            try:
                loop.call_soon_threadsafe(resolve)
            except RuntimeError:  # consumer loop closed: nobody is listening
                pass

    def push(self, event: Event) -> None:
        with self._lock:
            self._buffer.append(event)
            self._wake()

    def finish(self, error: BaseException | None = None) -> None:
        with self._lock:
            self._finished = True
            self._error = error
            self._wake()

    # -- consumer side -------------------------------------------------------

    def _claim(self) -> None:
        if self._iterated:
            raise StreamConsumedError("this EventStream was already iterated; start a new turn")
        self._iterated = True

    def __aiter__(self) -> EventStream:
        self._claim()
        return self

    def __iter__(self) -> Iterator[Event]:
        """Blocking iteration, for plain code: each event as it comes; the turn's
        error is raised at the end. Not in a coroutine (it would block the loop)."""
        self._claim()
        while True:
            try:
                event = self.next_event()
            except StopIteration:
                return
            if event is not None:
                yield event

    def next_event(self, timeout: float | None = None) -> Event | None:
        """The next event, blocking up to ``timeout`` seconds (None: until one comes);
        None if none came in time. At the end raises the turn's error, if it failed,
        and then `StopIteration`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                if self._buffer:
                    return self._buffer.popleft()
                if self._finished:
                    if self._error is not None:
                        error, self._error = self._error, None
                        raise error
                    raise StopIteration
                left = 0.1 if deadline is None else min(0.1, deadline - time.monotonic())
                if left <= 0:
                    return None
                # Short slices: a kernel interrupt (KeyboardInterrupt) lands between them.
                self._arrived.wait(left)

    async def __anext__(self) -> Event:
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                if self._buffer:
                    return self._buffer.popleft()
                if self._finished:
                    if self._error is not None:
                        error, self._error = self._error, None
                        raise error
                    raise StopAsyncIteration
                fut: asyncio.Future[None] = loop.create_future()
                self._waiter = (loop, fut)
            try:
                await fut
            except asyncio.CancelledError:
                # The consumer gave up (e.g. its cell was interrupted): stop the turn.
                self._cancel()
                raise

    async def text_tokens(self) -> AsyncIterator[str]:
        """Partial text chunks as they stream."""
        async for event in self:
            if isinstance(event, TextMessage) and event.is_partial:
                yield event.text

    async def text_messages(self) -> AsyncIterator[str]:
        """Final (complete) model texts."""
        async for event in self:
            if isinstance(event, TextMessage) and is_final_text(event):
                yield event.text

    @property
    def done(self) -> bool:
        return self._done.done()

    def result(self, timeout: float | None = None) -> Reply:
        """Block until the turn ends and return its `Reply` (re-raises its error).

        Blocking, for threads that are not the worker; in a coroutine iterate
        the stream instead.
        """
        return self._done.result(timeout)

    def add_done_callback(self, fn: Callable[[concurrent.futures.Future[Any]], None]) -> None:
        """Call ``fn(future)`` once the turn has ended (its reply or error is set)."""
        self._done.add_done_callback(fn)

    def cancel(self) -> None:
        """Ask the turn to stop; returns at once."""
        self._cancel()

    async def aclose(self) -> None:
        """Cancel the turn if it is still running and wait until it is recorded."""
        self._iterated = True
        if not self._done.done():
            self._cancel()
        if not self._done.done():
            await asyncio.shield(asyncio.wrap_future(self._done))
        with self._lock:
            self._buffer.clear()

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def wait_interruptibly(stream: EventStream) -> Reply:
    """Block for a turn from sync code; KeyboardInterrupt cancels it, waits for
    the record, and re-raises."""
    try:
        while True:
            # Short waits keep the main thread responsive to Ctrl-C / kernel interrupts.
            try:
                return stream.result(timeout=0.1)
            except concurrent.futures.TimeoutError:
                continue
    except KeyboardInterrupt:
        stream.cancel()
        with contextlib.suppress(Exception):
            stream.result(timeout=10)
        raise
