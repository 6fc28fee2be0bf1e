"""`Listeners`: who hears of a session's events as they are recorded (the widget).

A listener is called on the worker loop with each event (a turn's first `Waiting`
on the thread that started it, from the front door), and with None when
the history was reset (a rewind, a branch switch) or the session closed. A
broken listener is logged and skipped: it must never break the turn.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from .._core.types import Event

__all__ = ["Listener", "Listeners"]

log = logging.getLogger("agent_nb")

Listener = Callable[[Event | None], None]


class Listeners:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[tuple[Listener, Listener | None]] = []

    def subscribe(self, on_event: Listener, on_reset: Listener | None = None) -> Callable[[], None]:
        """Hear every event (and resets); returns the function that stops it."""
        entry = (on_event, on_reset)
        with self._lock:
            self._entries.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._entries:
                    self._entries.remove(entry)

        return unsubscribe

    def notify(self, event: Event | None) -> None:
        """Send ``event`` to the listeners (None: history was reset or the session closed)."""
        with self._lock:
            entries = list(self._entries)
        for on_event, on_reset in entries:
            callback = on_event if event is not None else on_reset
            if callback is None:
                continue
            try:
                callback(event)
            except Exception:  # a broken listener must not break the turn
                log.exception("agent_nb session listener failed")

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
