"""A ``%%agent`` cell that says so when its kernel restarts mid-turn.

A cell streams its reply into one output updated in place by display id
(`stream.DisplayOutput`). After Kernel → Restart the front end drops the old
kernel's messages, so nothing the kernel sends can end that output: it would
stay cut off, with its " …", and no word of why. Only code in the front end
can notice, so while a turn streams the cell also shows a tiny widget below
the reply (``js/turn_status.js``). Its views draw nothing until their model
loses its kernel (the widget manager's ``comm_live_update``, as the chat
widget watches it), then they say `CUT_OFF`.

When the turn ends the kernel replaces that output, through its own display
id, with an empty one: a saved notebook holds no widget that could not render
on reopening. One widget per kernel serves every cell, made at the first
turn in a front end (the anywidget import, about 50 ms, once, while the model
already reads the prompt) and never closed, so no view of it ever outlives
its model. Only a kernel with a front end that may render widgets gets it:
never a terminal, nbconvert or papermill (`agent_nb._jupyter.front_end`).
"""

from __future__ import annotations

import pathlib
import threading
from typing import Any

import anywidget
import traitlets

__all__ = ["CUT_OFF", "TurnStatus", "TurnWatch", "watch_turn"]

CUT_OFF = "⚠ the kernel restarted during this turn — the reply above is cut off; re-run the cell"
"""What the cell says below a reply whose kernel restarted (kept equal to js/turn_status.js)."""

_BUNDLE = pathlib.Path(__file__).parents[2] / "static" / "turn_status.js"
_EMPTY = {"text/plain": ""}


class TurnStatus(anywidget.AnyWidget):
    """The kernel-wide widget behind every streaming cell's status output."""

    _esm = _BUNDLE if _BUNDLE.is_file() else "export default {};"
    #: A cell's turn streams now. A view left over from a page reloaded mid-turn
    #: (its output never got the kernel's replacement) stays quiet at a restart
    #: between turns.
    streaming = traitlets.Bool(False).tag(sync=True)

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        # Where no widget renders (classic Notebook without widgets) it shows nothing.
        data, metadata = super()._repr_mimebundle_(**kwargs) or ({}, {})
        return {**data, "text/plain": ""}, metadata


_shared: TurnStatus | None = None
_lock = threading.Lock()


def _widget() -> TurnStatus:
    global _shared
    with _lock:
        if _shared is None or _shared.comm is None:
            _shared = TurnStatus()
        return _shared


class TurnWatch:
    """One turn's status output: shown by `watch_turn`, emptied by `end`."""

    def __init__(self, widget: TurnStatus) -> None:
        from IPython.display import display

        self._widget = widget
        widget.streaming = True
        data, metadata = widget._repr_mimebundle_()
        self._handle = display(data, metadata=metadata, raw=True, display_id=True)

    def end(self) -> None:
        """The turn ended: the output becomes empty (before the flag goes down,
        so no view is left that a restart could wake)."""
        self._handle.update(_EMPTY, raw=True)
        self._widget.streaming = False


def watch_turn() -> TurnWatch | None:
    """Show the status output below the reply; None where the bundle is not built
    (a source checkout before ``npm run build``: the cell works, unwatched)."""
    if not _BUNDLE.is_file():
        return None
    return TurnWatch(_widget())
