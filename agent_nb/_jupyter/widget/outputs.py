"""Where a `ChatWidget` is shown, so that a close can say so there.

A widget's view lives only as long as its model: once the comm closes, an
output that showed it goes blank, and one brought back later (an undo of a
deleted cell, a saved notebook reopened) reads "Error displaying widget:
model not found". So:

* the widget shows itself through display ids (`Outputs.show`), never as a
  cell's ``Out[n]``, which nothing can update; closing replaces each of those
  outputs with a static note (`Outputs.replace`), which a saved notebook keeps;
* a widget closed by its lifecycle (no view left for the grace period: a
  deleted cell, a cleared output) keeps its model, emptied, as a *closed
  shell* (`keep_closed`): a view that comes back (undo) renders from it and
  says the widget closed and how to reopen the session. Only the last
  `KEEP_CLOSED` shells are kept; older ones close their comm.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["KEEP_CLOSED", "Outputs", "keep_closed"]

KEEP_CLOSED = 16
"""Closed shells kept per kernel: each is a few traits (the transcript emptied),
enough for the undos a person makes; a loop re-running a widget cell keeps no more."""


class Outputs:
    """The display handles of one widget's outputs made by this kernel."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handles: list[Any] = []

    def show(self, data: dict[str, Any], metadata: dict[str, Any], *, live: bool) -> None:
        """Display ``data``; a live view gets a display id that `replace` reaches."""
        from IPython.display import display

        handle = display(data, metadata=metadata, raw=True, display_id=live)
        if live and handle is not None:
            with self._lock:
                self._handles.append(handle)

    def replace(self, bundle: dict[str, str]) -> None:
        """Every live output becomes ``bundle`` (once: the handles are dropped)."""
        with self._lock:
            handles, self._handles = self._handles, []
        for handle in handles:
            handle.update(bundle, raw=True)


_shells: collections.deque[Callable[[], None]] = collections.deque()
_shells_lock = threading.Lock()


def keep_closed(close_comm: Callable[[], None]) -> None:
    """Keep a closed widget's model; ``close_comm`` ends the oldest beyond `KEEP_CLOSED`."""
    with _shells_lock:
        _shells.append(close_comm)
        old = [_shells.popleft() for _ in range(len(_shells) - KEEP_CLOSED)]
    for close in old:
        close()
