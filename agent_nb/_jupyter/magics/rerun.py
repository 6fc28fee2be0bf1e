"""Which turn a notebook cell made, so re-running the cell can replace it.

A notebook is edited and re-run, not appended to like a chat log, so the
second run of a cell replaces the turn its first run made. Cells are known by
the Jupyter ``cellId`` that the front end puts in the execute request, which
IPython hands to ``pre_run_cell`` listeners (older ipykernels: the request
metadata). Without one (a terminal, old front ends) there is nothing to
match, and turns are appended.

`CellTurns` keeps the map ``cellId -> (session id, invocation id)`` and says
which earlier turn a new one replaces; `rerun_note` words what a rewind
moved, naming the turns that came from a widget or another kernel.
"""

from __future__ import annotations

from typing import Any

from ..._core.render import safe_markdown
from ..._runtime.face import OTHER_KERNEL, origin_of
from ..holder_names import WIDGET, origin_words

__all__ = ["CellTurns", "rerun_note"]


class CellTurns:
    """The latest turn of each cell, and the cell that runs now."""

    def __init__(self) -> None:
        # cellId -> (session id, invocation id of the cell's latest turn)
        self.cells: dict[str, tuple[str, str]] = {}
        self.cell_id: str | None = None
        self._run = 0
        self._cell_run: dict[str, int] = {}

    def started(self, info: Any, shell: Any) -> None:
        """A cell starts running (``pre_run_cell``)."""
        self._run += 1
        self.cell_id = getattr(info, "cell_id", None) or _parent_cell_id(shell)

    def ended(self) -> None:
        """The cell ended: a later call from outside any cell (a widget callback) is
        no cell's turn."""
        self.cell_id = None

    def earlier_turn(self, session_id: str) -> str | None:
        """The invocation a turn of the running cell on ``session_id`` replaces, or None."""
        cell = self.cell_id
        if cell is None or self._cell_run.get(cell) == self._run:
            return None  # a second %%agent call within one cell execution appends
        previous = self.cells.get(cell)
        if previous is None or previous[0] != session_id:
            return None  # the cell now talks to another session: leave the old one alone
        return previous[1]

    def remember(self, session_id: str, invocation_id: str) -> None:
        """The running cell's turn (its first in this execution) is ``invocation_id``."""
        cell = self.cell_id
        if cell is None or self._cell_run.get(cell) == self._run:
            return
        self.cells[cell] = (session_id, invocation_id)
        self._cell_run[cell] = self._run


def _parent_cell_id(shell: Any) -> str | None:
    """ipykernel without ``cell_id`` support: read the request metadata."""
    kernel = getattr(shell, "kernel", None)
    try:
        cell_id = kernel.get_parent()["metadata"].get("cellId")  # type: ignore[union-attr]
    except Exception:
        return None
    return cell_id if isinstance(cell_id, str) else None


def rerun_note(
    session_id: str, later: list[str], branch: int, shared_writes: bool
) -> dict[str, str]:
    """ "↺ re-run: this cell's turn and 2 later turns (1 from the chat widget) moved to ..."

    A bundle, not a print: a stream output shows Markdown's backticks as they
    are and breaks long lines mid-word; Markdown wraps between words.
    """
    moved = "this cell's turn"
    if later:
        moved += f" and {len(later)} later turn{'s' * (len(later) != 1)}"
        origins = [origin_words(origin_of(t)) for t in later]
        named = [f"{origins.count(o)} from {o}" for o in (WIDGET, OTHER_KERNEL) if o in origins]
        if named:
            moved += f" ({', '.join(named)})"
    command = f"%agent switch {session_id} {branch}"
    head = f"↺ re-run: {moved} moved to branch {branch}"
    plain = f"{head}; {command} brings them back"
    markdown = f"{safe_markdown(head)}; `{command}` brings them back"
    if shared_writes:
        shared = (
            "(their user:/app: state changes stay: that state is shared with other "
            "sessions, so a branch does not own it)"
        )
        plain += f"\n  {shared}"
        markdown += f"  \n{safe_markdown(shared)}"
    return {"text/markdown": markdown, "text/plain": plain}
