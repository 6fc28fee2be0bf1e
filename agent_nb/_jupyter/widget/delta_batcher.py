"""`DeltaBatcher`: a widget's streamed text, at most one ``delta`` message per interval.

A fast model on a fast machine streams hundreds of tokens a second; a comm
message per token would flood the front end. The batcher coalesces text per
(invocation, author) and sends it at most every `DELTA_INTERVAL_S`, whatever
the model's speed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from .protocol import DELTA_INTERVAL_S, DeltaMsg, FromPython

__all__ = ["DeltaBatcher", "Schedule", "schedule"]

Schedule = Callable[[float, Callable[[], None]], None]


def schedule(delay: float, fn: Callable[[], None]) -> None:
    """Run ``fn`` after ``delay`` s: on this thread's event loop when there is one
    (session callbacks run on the worker loop), else on a timer thread."""
    try:
        asyncio.get_running_loop().call_later(delay, fn)
    except RuntimeError:
        timer = threading.Timer(delay, fn)
        timer.daemon = True
        timer.start()


class DeltaBatcher:
    """Coalesces streamed text into at most one `DeltaMsg` per ``interval``.

    ``lock`` also orders the widget's other sends: callers flush under it
    before sending an entry, so a delta never overtakes its final text.
    """

    def __init__(
        self,
        send: Callable[[FromPython], None],
        *,
        interval: float = DELTA_INTERVAL_S,
        schedule: Schedule = schedule,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lock = threading.RLock()
        self._send = send
        self._interval = interval
        self._schedule = schedule
        self._clock = clock
        self._pending: list[str] = []
        self._invocation = ""
        self._author = ""
        self._last = float("-inf")
        self._timer_armed = False

    def add(self, invocation_id: str, text: str, author: str = "") -> None:
        with self.lock:
            if self._pending and (invocation_id, author) != (self._invocation, self._author):
                self._flush_now()
            self._invocation, self._author = invocation_id, author
            self._pending.append(text)
            self._maybe_flush()

    def flush(self) -> None:
        """Send what is pending now (end of a text block or turn)."""
        with self.lock:
            if self._pending:
                self._flush_now()

    def _maybe_flush(self) -> None:
        wait = self._last + self._interval - self._clock()
        if wait <= 0:
            self._flush_now()
        elif not self._timer_armed:
            self._timer_armed = True
            self._schedule(wait, self._on_timer)

    def _on_timer(self) -> None:
        with self.lock:
            self._timer_armed = False
            if self._pending:
                self._maybe_flush()

    def _flush_now(self) -> None:
        text, self._pending = "".join(self._pending), []
        self._last = self._clock()
        self._send(
            DeltaMsg(type="delta", invocation_id=self._invocation, author=self._author, text=text)
        )
