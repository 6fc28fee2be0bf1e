"""Interrupt the main thread the moment a test means, not after a guessed delay.

A timer that fires "soon" lands wherever the main thread happens to be; on a
loaded machine that is often before the code under test has reached the wait
that should turn Ctrl-C into a cancelled turn (or after the turn has ended).
`interrupt_main_when` fires once the turn has got far enough (``ready``) and
the main thread is blocked in a wait inside the named function, so the
interrupt lands exactly where a user's Ctrl-C / kernel interrupt is meant to.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tests.waiting import wait_until

__all__ = ["blocked_inside", "interrupt_main_when"]


def blocked_inside(function: str) -> bool:
    """Whether the main thread is blocked in a `threading` wait called from ``function``."""
    frame = sys._current_frames().get(threading.main_thread().ident or -1)
    if frame is None or frame.f_code.co_name != "wait":  # Condition.wait / Event.wait
        return False
    while frame is not None:
        if frame.f_code.co_name == function:
            return True
        frame = frame.f_back
    return False


@contextmanager
def interrupt_main_when(
    ready: Callable[[], object], inside: str, send: Callable[[], None]
) -> Iterator[None]:
    """Run the block while a helper thread calls ``send()`` (which interrupts the main
    thread) once, as soon as ``ready()`` holds and the main thread waits inside the
    function named ``inside``. Fails if that never happened (a hang guard only)."""
    failures: list[BaseException] = []

    def interrupter() -> None:
        try:
            wait_until(
                lambda: ready() and blocked_inside(inside),
                timeout=60,
                interval=0.002,
                what=f"the main thread to wait in {inside}() with the turn ready",
            )
        except AssertionError as exc:
            failures.append(exc)
            return
        send()

    thread = threading.Thread(target=interrupter, name="interrupter", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join(60)
    if failures:
        raise failures[0]
