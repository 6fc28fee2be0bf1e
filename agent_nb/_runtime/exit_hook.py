"""Every runner still alive at interpreter exit is shut down, so its worker
thread ends while Python can still run it (with or without ``shutdown()``)."""

from __future__ import annotations

import atexit
import contextlib
import weakref
from typing import Protocol

__all__ = ["shut_down_at_exit"]


class _Runner(Protocol):
    def shutdown(self) -> None: ...


#: Every runner not yet garbage-collected: all are shut down at interpreter exit.
_live: weakref.WeakSet[_Runner] = weakref.WeakSet()


def shut_down_at_exit(runner: _Runner) -> None:
    _live.add(runner)


@atexit.register
def _shutdown_at_exit() -> None:
    for runner in list(_live):
        with contextlib.suppress(Exception):  # one failing runner must not keep others alive
            runner.shutdown()
