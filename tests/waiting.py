"""The one way tests wait for something another thread does: poll with a deadline.

A loop without a deadline hangs the suite when the awaited thing never
happens; a bare ``sleep`` is either too short on a loaded machine or wastes
time. `wait_until` returns the predicate's first truthy value, or fails with a
message saying what never happened.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

__all__ = ["async_wait_until", "wait_until"]

T = TypeVar("T")


def _attempts(predicate: Callable[[], T], timeout: float, what: str) -> Iterator[T | None]:
    """The predicate's value at each attempt (None: not yet), until the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            yield value
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout} s waiting for {what or predicate}")
        yield None


def wait_until(
    predicate: Callable[[], T], *, timeout: float = 10.0, interval: float = 0.01, what: str = ""
) -> T:
    for value in _attempts(predicate, timeout, what):
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("unreachable")


async def async_wait_until(
    predicate: Callable[[], T], *, timeout: float = 10.0, interval: float = 0.01, what: str = ""
) -> T:
    for value in _attempts(predicate, timeout, what):
        if value:
            return value
        await asyncio.sleep(interval)
    raise AssertionError("unreachable")
