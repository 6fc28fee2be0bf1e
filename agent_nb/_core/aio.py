"""Small asyncio idioms used by the turn engine and the backends.

A turn is stopped by cancelling its own task (when a tool or an HTTP read
ignores the cancel token). The task then records the turn as cancelled and
ends normally, so it must take back the cancellation it asked for, or the
``asyncio.timeout`` / ``TaskGroup`` machinery above it would see a pending one.
"""

from __future__ import annotations

import asyncio

__all__ = ["uncancel"]


def uncancel(task: asyncio.Task[object] | None) -> None:
    """Withdraw one pending cancellation request of ``task`` (Python >= 3.11; no-op before)."""
    undo = getattr(task, "uncancel", None)
    if undo is not None:
        undo()
