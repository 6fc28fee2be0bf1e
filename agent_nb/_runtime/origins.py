"""Who started each turn, for the re-run note ("1 from the chat widget", "2 from
another kernel").

The store records turns, not who asked for them. The front door
(`AgentRunner.start_turn`) notes each turn's `TurnRequest.holder` here; turns
that another kernel on the same store wrote are noted as `OTHER_KERNEL` when
`follow_store` reloads them (every surface that shows a session or starts a
turn on it calls that first). Kept per process in memory only: after a
restart a turn's origin is simply not named.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .session import AgentSession

__all__ = ["OTHER_KERNEL", "follow_store", "note_origin", "origin_of"]

OTHER_KERNEL = "another kernel"
_MAX = 10_000  # a long-lived kernel must not grow without bound

_lock = threading.Lock()
_origins: dict[str, str] = {}


def note_origin(invocation_id: str, origin: str) -> None:
    with _lock:
        if len(_origins) >= _MAX:
            _origins.pop(next(iter(_origins)))
        _origins[invocation_id] = origin


def origin_of(invocation_id: str) -> str | None:
    with _lock:
        return _origins.get(invocation_id)


def follow_store(session: AgentSession) -> bool:
    """Reload ``session`` if another kernel moved it (`AgentSession.refresh`); the
    turns that came with the reload are noted as `OTHER_KERNEL`'s. True if it did."""
    if session.closed:
        return False
    known = {node.invocation_id for node in session.tree()}
    if not session.refresh():
        return False
    for node in session.tree():
        if node.invocation_id not in known:
            note_origin(node.invocation_id, OTHER_KERNEL)
    return True
