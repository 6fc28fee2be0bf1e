"""Stale answers: a ``%%agent`` turn whose inputs changed says so, in place.

An analyst filters a DataFrame and forgets which answers were about the old
one (marimo marks dependent cells stale; here it is per turn). Each turn
records what it read, with a `fingerprint` of each:

* the ``--data`` variables, and the variables its ``{name...}`` references
  start from;
* the cells it sent: ``--cells N`` and ``{In[n]}``, each by the Jupyter cell
  that ran as ``In [n]`` (its ``cellId``): when that cell is run again with
  other code, what the answer read is gone. Without cell ids (a terminal)
  cells are not watched.

After every cell (IPython's ``post_run_cell``) each watched turn's inputs are
fingerprinted again; a turn whose inputs changed gets one line at the end of
its output, rewritten in place through the output's display id, "⚠ `df`
changed since this answer — re-run the cell", and the line goes again if the
inputs come back. Open chat widgets on the session show the same line on the
turn (`StaleMarks`). A mark never runs anything. Re-running the cell replaces
its turn, and so its watch: the new answer starts unmarked. Only the latest
turn of each cell is watched, so the cost per cell is one fingerprint per
input of each ``%%agent`` cell (`fingerprint` says what that costs).
"""

from __future__ import annotations

import dataclasses
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .fingerprint import fingerprint

__all__ = ["STALE_MARKS", "Input", "StaleMarks", "Staleness", "stale_line"]

_MISSING = "<missing>"
_ROOT = re.compile(r"\{([^\W\d]\w*)")
_IN_CELL = re.compile(r"\{In\[(\d+)\]")


def stale_line(names: Iterable[str]) -> str:
    """The mark's one line: "⚠ `df` changed since this answer — re-run the cell"."""
    shown = ", ".join(f"`{n}`" for n in names)
    return f"⚠ {shown} changed since this answer — re-run the cell"


@dataclasses.dataclass(frozen=True)
class Input:
    """One thing a turn read: its label and how to fingerprint it now."""

    label: str  # "df", "In[3]"
    current: Callable[[], str]
    seen: str  # the fingerprint when the turn read it


@dataclasses.dataclass
class _Watch:
    session_id: str
    invocation_id: str
    inputs: tuple[Input, ...]
    show: Callable[[str], None]  # rewrites the turn's output with this line ("" clears it)
    shown: tuple[str, ...] = ()


class StaleMarks:
    """The marks of every watched turn, for chat widgets: invocation id -> line."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._marks: dict[str, tuple[str, str]] = {}  # invocation id -> (session, line)
        self._listeners: list[weakref.WeakMethod[Callable[[], None]]] = []

    def of_session(self, session_id: str) -> dict[str, str]:
        with self._lock:
            return {i: line for i, (s, line) in self._marks.items() if s == session_id}

    def subscribe(self, listener: Callable[[], None]) -> None:
        """``listener`` (a bound method, held weakly) is called when marks change."""
        with self._lock:
            self._listeners.append(weakref.WeakMethod(listener))

    def set(self, session_id: str, invocation_id: str, line: str) -> None:
        with self._lock:
            if line:
                self._marks[invocation_id] = (session_id, line)
            elif self._marks.pop(invocation_id, None) is None:
                return
        self._notify()

    def _notify(self) -> None:
        with self._lock:
            self._listeners = [ref for ref in self._listeners if ref() is not None]
            listeners = [ref() for ref in self._listeners]
        for listener in listeners:
            if listener is not None:
                listener()


STALE_MARKS = StaleMarks()


class Staleness:
    """One shell's watched turns (see the module docstring)."""

    def __init__(self, shell: Any, marks: StaleMarks = STALE_MARKS) -> None:
        self.shell = shell
        self.marks = marks
        self._watches: dict[str, _Watch] = {}  # cellId (or invocation id) -> watch
        self._cell_of_count: dict[int, str] = {}  # execution count -> cellId
        self._source: dict[str, str] = {}  # cellId -> the code it last ran

    # -- IPython events ---------------------------------------------------------------

    def pre_run_cell(self, info: Any) -> None:
        cell_id = getattr(info, "cell_id", None)
        if isinstance(cell_id, str) and cell_id:
            # the number it runs as: its index in the input history (not yet stored)
            self._cell_of_count[len(self.shell.history_manager.input_hist_raw)] = cell_id
            self._source[cell_id] = getattr(info, "raw_cell", "") or ""

    def post_run_cell(self, _result: Any = None) -> None:
        """Fingerprint every watched input again; rewrite the marks that changed."""
        for watch in list(self._watches.values()):
            changed = tuple(i.label for i in watch.inputs if i.current() != i.seen)
            if changed == watch.shown:
                continue
            watch.shown = changed
            line = stale_line(changed) if changed else ""
            try:
                watch.show(line)
            except Exception:  # an output that is gone cannot be marked; the rest still are
                pass
            self.marks.set(watch.session_id, watch.invocation_id, line)

    # -- what a turn read ---------------------------------------------------------------

    def inputs(
        self,
        *,
        names: Iterable[str] = (),
        references: Iterable[str] = (),
        cells: Iterable[int] = (),
    ) -> tuple[Input, ...]:
        """The inputs of a turn about to run: ``names`` (``--data``), the interpolated
        ``references`` as typed (``{df.shape}``, ``{In[3]}``) and ``cells`` (``--cells``)."""
        wanted = list(names)
        counts = list(cells)
        for ref in references:
            cell = _IN_CELL.match(ref)
            if cell is not None:
                counts.append(int(cell[1]))
                continue
            root = _ROOT.match(ref)
            if root is not None and root[1] not in ("In", "Out"):
                wanted.append(root[1])
        found: list[Input] = []
        ns: Mapping[str, Any] = self.shell.user_ns
        for name in dict.fromkeys(wanted):
            current = _variable(ns, name)
            found.append(Input(name, current, current()))
        for count in dict.fromkeys(counts):
            cell_id = self._cell_of_count.get(count)
            if cell_id is not None:
                current = _cell(self._source, cell_id)
                found.append(Input(f"In[{count}]", current, current()))
        return tuple(found)

    def watch(
        self,
        cell_id: str | None,
        session_id: str,
        invocation_id: str,
        inputs: tuple[Input, ...],
        show: Callable[[str], None],
    ) -> None:
        """Watch a finished turn; a cell's earlier turn is no longer watched."""
        key = cell_id or invocation_id
        earlier = self._watches.pop(key, None)
        if earlier is not None and earlier.shown:
            self.marks.set(earlier.session_id, earlier.invocation_id, "")
        if inputs:
            self._watches[key] = _Watch(session_id, invocation_id, inputs, show)

    def close(self) -> None:
        """Stop watching (the extension is unloaded): every mark this shell set goes."""
        for watch in self._watches.values():
            if watch.shown:
                self.marks.set(watch.session_id, watch.invocation_id, "")
        self._watches.clear()

    def stale(self) -> dict[str, tuple[str, ...]]:
        """Invocation id -> the labels shown as changed (for tests and tools)."""
        return {w.invocation_id: w.shown for w in self._watches.values() if w.shown}


_SUBSCRIPT = re.compile(r"^([A-Za-z_]\w*)\[(['\"]?)(.+?)\2\]$")


def _variable(ns: Mapping[str, Any], name: str) -> Callable[[], str]:
    """A name's fingerprint now; ``df["col"]`` (as ``--data`` takes it) is that column
    of ``df``, read as a subscript of a known variable, never evaluated."""
    sub = _SUBSCRIPT.match(name)

    def current() -> str:
        if sub is not None and name not in ns:
            base = ns.get(sub.group(1), _MISSING)
            try:
                return fingerprint(base[sub.group(3)]) if base is not _MISSING else _MISSING
            except (KeyError, TypeError, IndexError):
                return _MISSING
        if name not in ns:
            return _MISSING
        try:
            return fingerprint(ns[name])
        except Exception:  # a value that cannot be read is not called changed
            return "<unreadable>"

    return current


def _cell(sources: Mapping[str, str], cell_id: str) -> Callable[[], str]:
    return lambda: fingerprint(sources.get(cell_id, _MISSING))
