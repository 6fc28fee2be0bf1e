"""When a chat widget is gone for good: the seed's ViewModel lifecycle on a notebook.

An Android ViewModel survives configuration changes (the Activity is
destroyed and re-created) and is cleared only when its owner is destroyed
for good. In a notebook the widget is the ViewModel and its views are the
Activities. The front end tells the kernel what happens to each view
(`ViewMsg`):

* ``attached``: a view rendered (first display, a page reload re-rendering
  it from the kernel's widget state, a second view, a re-attached cell);
* ``detached``: a view was removed together with the whole notebook panel
  (the notebook's tab closed while the kernel runs) -- a configuration
  change: the person can open the notebook again;
* ``destroyed``: a view was removed while its notebook stays open (output
  cleared, cell deleted, cell re-run so a new output replaced it);
* ``page_gone``: the page unloads (reload, browser tab closed); its views
  will not send anything again;
* ``connected``: a page's front end made the widget's model (anywidget's
  ``initialize``): a notebook connected to the kernel restores every live
  widget from it, whether or not its saved outputs still show this one.

Each message also lists the page's live views of the widget, which replace
what the kernel knew of that page: a closing notebook drops its kernel
connection before its views go, so their own messages are lost, and the
reopened notebook's first view sets the page's count right.

Two things start the grace timer: ``destroyed`` leaving no live view
anywhere, and ``connected`` finding none for a widget that had views before
(the front end came back, e.g. a reload of an unsaved notebook, whose cell
no longer holds the view: nothing will ever show this widget again). Any view
attaching before the timer fires cancels it; a reload of a saved notebook
re-renders its views within a second. A page going away alone never closes
a widget: the kernel runs on and a new page re-renders it; nor does a model
made for a widget never displayed yet (``chat = ChatWidget()``, shown later).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

__all__ = ["CLOSE_GRACE_S", "ViewTracker"]

CLOSE_GRACE_S = 5.0
"""Seconds between the last view being destroyed and the widget closing.

Long enough for what re-renders an output without meaning to drop it: a cell
moved (cut and pasted, dragged), an undo of a deleted cell, a windowed
notebook re-attaching a cell; all of those attach a new view within a
second or a few. Short enough that re-running a widget cell in a loop keeps
at most a couple of conversations' KV caches alive at once."""


class ViewTracker:
    """Live views by page; calls ``on_expire`` once no view is left after a
    ``destroyed`` view, the grace period passed and nothing re-attached."""

    def __init__(self, on_expire: Callable[[], None], *, grace_s: float = CLOSE_GRACE_S) -> None:
        self._on_expire = on_expire
        self.grace_s = grace_s
        self._lock = threading.Lock()
        self._views: dict[str, set[str]] = {}  # page id -> view ids
        self._timer: threading.Timer | None = None
        self._generation = 0  # bumped by every change: a stale timer does nothing
        self._shown = False  # some view attached once

    @property
    def live(self) -> int:
        with self._lock:
            return sum(map(len, self._views.values()))

    @property
    def closing(self) -> bool:
        """The grace timer runs."""
        with self._lock:
            return self._timer is not None

    def attached(self, page_id: str, view_id: str, live: Iterable[str] = ()) -> None:
        with self._lock:
            self._views[page_id] = {*live, view_id}
            self._shown = True
            self._cancel_locked()

    def connected(self, page_id: str, live: Iterable[str] = ()) -> None:
        """A page's front end made the model; its views, if any, attach next."""
        with self._lock:
            if live:
                self._views[page_id] = set(live)
            if self._shown and not self._views and self._timer is None:
                self._arm_locked()

    def detached(
        self, page_id: str, view_id: str, live: Iterable[str] = (), *, destroyed: bool
    ) -> None:
        with self._lock:
            views = set(live) - {view_id}
            if views:
                self._views[page_id] = views
            else:
                self._views.pop(page_id, None)
            if destroyed and not self._views and self._timer is None:
                self._arm_locked()

    def page_gone(self, page_id: str) -> None:
        with self._lock:
            self._views.pop(page_id, None)

    def cancel(self) -> None:
        with self._lock:
            self._cancel_locked()

    def _arm_locked(self) -> None:
        self._generation += 1
        generation = self._generation
        timer = threading.Timer(self.grace_s, self._expired, args=(generation,))
        timer.daemon = True  # never keeps a shutting-down kernel alive
        self._timer = timer
        timer.start()

    def _cancel_locked(self) -> None:
        self._generation += 1
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation or self._views:
                return
            self._timer = None
        self._on_expire()
