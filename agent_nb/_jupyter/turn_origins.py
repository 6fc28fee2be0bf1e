"""Which notebook surface started a turn, for the re-run note ("1 from the chat widget").

The runtime records turns, not who asked for them; cells are known to the
magics by their cell map, and a `ChatWidget` notes its turns here. Kept per
kernel in memory only: after a restart a turn's origin is simply not named.
"""

from __future__ import annotations

import threading

__all__ = ["WIDGET", "note_origin", "origin_of"]

WIDGET = "the chat widget"
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
