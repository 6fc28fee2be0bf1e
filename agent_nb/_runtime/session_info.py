"""`SessionInfo`: one row of `AgentRunner.sessions()` (and of ``%agent sessions``)."""

from __future__ import annotations

import dataclasses

from .session_core import SessionCore

__all__ = ["SessionInfo"]


@dataclasses.dataclass(frozen=True)
class SessionInfo:
    id: str
    user_id: str
    turns: int
    tokens: int
    history_bytes: int
    kv_bytes: int
    last_used: float
    closed: bool = False
    evicting: bool = False
    busy: bool = False
    context_tokens: int | None = None  # the latest call's prompt + generated tokens
    context_window: int | None = None  # the window it was fitted to (None: unknown)
    holders: tuple[str, ...] = ()  # surfaces using it: "%%agent cells", "ChatWidget 1a2b"

    @classmethod
    def of(
        cls,
        session: SessionCore,
        *,
        kv_bytes: int,
        evicting: bool,
        holders: tuple[str, ...] = (),
    ) -> SessionInfo:
        usage = session.last_usage
        return cls(
            id=session.id,
            user_id=session.user_id,
            turns=session.turns,
            tokens=session.tokens,
            history_bytes=session.history_bytes(),
            kv_bytes=kv_bytes,
            last_used=session.last_used,
            closed=session.closed,
            evicting=evicting,
            busy=session.busy,
            context_tokens=usage.context_tokens if usage else None,
            context_window=usage.context_window if usage else None,
            holders=holders,
        )
