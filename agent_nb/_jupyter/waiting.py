"""What a turn that waits for other sessions' turns says, in a cell and in a widget.

A local model answers one turn at a time, so a turn can sit behind another
session's long reply; the front door's `Waiting` events name the sessions
ahead, and both surfaces show the same words until the turn starts.
"""

from __future__ import annotations

from .._core.ids import is_single_turn_id
from .._core.types import Waiting

__all__ = ["waiting_note"]


def waiting_note(event: Waiting) -> str:
    """ "waiting for session 'a' to finish its turn on the model", or "" (none ahead)."""
    names = ["a --once turn" if is_single_turn_id(i) else repr(i) for i in event.sessions]
    if not names:
        return ""
    return f"waiting for session {', '.join(names)} to finish its turn on the model"
