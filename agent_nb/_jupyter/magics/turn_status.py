"""A ``%%agent`` cell that says so when its kernel restarts mid-turn.

A cell streams its reply into one output updated in place by display id
(`cell_output.DisplayOutput`). After Kernel → Restart the front end drops the
old kernel's messages, so nothing the kernel sends can end that output: it
would stay cut off, with its " …", and no word of why. Only code in the front
end can notice, so while a turn streams in a front end that renders widgets,
the reply's output *is* a tiny widget (``js/turn_status.js``): its view shows
the streaming reply (the same safe Markdown, with JupyterLab's own Markdown
styles) and, once its model loses its kernel (the widget manager's
``comm_live_update``, as the chat widget watches it), `CUT_OFF` below it.

The status and the reply are one output: while the turn streams its bundle
holds the widget view, and the turn's end replaces that bundle, through the
same display id, with the final Markdown. A saved notebook holds neither a
widget that could not render on reopening nor an emptied second output.

A turn cut off by a restart never gets that replacement, and its widget's
model dies with the page: saved and reopened, the output would read "Error
displaying widget: model not found" (JupyterLab's widget renderer falls back
to no other MIME type of the bundle, and saves widget state only where a
setting asks). So at the restart the view itself replaces its output, in the
notebook's model, with the reply so far and `CUT_OFF` as Markdown, which a
save keeps (``js/cut_off.js``; it finds that output by `TurnStatus.own_id`).

The widgets come from a kernel-wide pool: a turn takes an idle one and hands
it back, emptied, when its output is final, so the kernel makes one per
cell streaming at a time (usually one), each at the first turn that needs it
(the anywidget import, about 50 ms, once, while the model already reads the
prompt), and never closes them, so no view ever outlives its model. Only a
kernel with a front end that may render widgets gets them: never a terminal,
nbconvert or papermill (`agent_nb._jupyter.front_end`).
"""

from __future__ import annotations

import pathlib
import threading
from typing import Any

import anywidget
import traitlets

__all__ = ["CUT_OFF", "TurnStatus", "TurnWatch", "watch_turn"]

CUT_OFF = "⚠ the kernel restarted during this turn — the reply above is cut off; re-run the cell"
"""What the cell says below a reply whose kernel restarted (kept equal to js/cut_off.js)."""

_BUNDLE = pathlib.Path(__file__).parents[2] / "static" / "turn_status.js"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class TurnStatus(anywidget.AnyWidget):
    """A streaming cell's reply, drawn by the front end, with the kernel watch below it."""

    _esm = _BUNDLE if _BUNDLE.is_file() else "export default {};"
    #: A cell's turn streams now. A view left over from a page reloaded mid-turn
    #: (its output never got the kernel's replacement) stays quiet at a restart
    #: between turns.
    streaming = traitlets.Bool(False).tag(sync=True)
    #: The reply so far as the cell's Markdown (`cell_output.render_bundle`), made
    #: safe in the kernel; ``plain`` instead where the cell shows text (``--format text``).
    markdown = traitlets.Unicode("").tag(sync=True)
    plain = traitlets.Unicode("").tag(sync=True)
    #: The widget's own model id, as its output's widget-view bundle names it: the
    #: view cannot read its model's id, and needs it to find that output in the
    #: notebook when a restart cuts the turn off.
    own_id = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.own_id = self.model_id


_idle: list[TurnStatus] = []
_lock = threading.Lock()


def _take() -> TurnStatus:
    with _lock:
        while _idle:
            widget = _idle.pop()
            if widget.comm is not None:
                return widget
    return TurnStatus()


class TurnWatch:
    """One turn's reply while it streams: `bundle` makes the output's first bundle,
    `show` the updates (through the widget, so its view is not re-made), `end`
    hands the widget back once the output holds the final bundle."""

    def __init__(self, widget: TurnStatus) -> None:
        self._widget = widget
        widget.streaming = True

    def bundle(self, fallback: dict[str, str]) -> dict[str, Any]:
        """``fallback`` (what a front end without widgets shows) with the widget's view."""
        self.show(fallback)
        widget = self._widget
        data, _ = widget._repr_mimebundle_() or ({}, {})
        return {**fallback, WIDGET_VIEW: data[WIDGET_VIEW]}

    def show(self, bundle: dict[str, str]) -> None:
        markdown = bundle.get("text/markdown", "")
        with self._widget.hold_sync():
            self._widget.markdown = markdown
            self._widget.plain = "" if markdown else bundle.get("text/plain", "")

    def end(self) -> None:
        """The output holds the final bundle: the widget goes back to the pool, empty
        (the flag down first, so no view is left that a restart could wake)."""
        widget = self._widget
        with widget.hold_sync():
            widget.streaming = False
            widget.markdown = widget.plain = ""
        with _lock:
            _idle.append(widget)


def watch_turn() -> TurnWatch | None:
    """A widget for the turn's output; None where the bundle is not built (a source
    checkout before ``npm run build``: the cell works, unwatched)."""
    if not _BUNDLE.is_file():
        return None
    return TurnWatch(_take())
