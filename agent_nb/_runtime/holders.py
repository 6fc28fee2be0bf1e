"""`Holders`: who, besides plain code, still uses a session (``%agent sessions``).

A surface that keeps a session open for a person -- ``%%agent`` cells, a chat
widget -- names itself here while it does. Nothing in the runtime acts on it;
a surface that is about to close a session asks whether someone else still
holds it, so one closing never loses another's conversation. Closing or
deleting the session forgets its holders: a fresh session under the same id
starts with none.
"""

from __future__ import annotations

import threading

__all__ = ["Holders"]


class Holders:
    """Holder names by session id (thread-safe; a name counts once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_session: dict[str, dict[str, None]] = {}

    def add(self, session_id: str, holder: str) -> None:
        with self._lock:
            self._by_session.setdefault(session_id, {})[holder] = None

    def remove(self, session_id: str, holder: str) -> tuple[str, ...]:
        """Forget ``holder``; returns the holders left."""
        with self._lock:
            names = self._by_session.get(session_id, {})
            names.pop(holder, None)
            if not names:
                self._by_session.pop(session_id, None)
            return tuple(names)

    def of(self, session_id: str) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._by_session.get(session_id, ()))

    def forget(self, session_id: str) -> None:
        with self._lock:
            self._by_session.pop(session_id, None)
