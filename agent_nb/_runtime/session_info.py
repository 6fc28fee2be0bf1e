"""`SessionInfo`: one row of `AgentRunner.sessions()` (and of ``%agent sessions``)."""

from __future__ import annotations

import dataclasses

from ..stores import SessionRecord
from .session_core import SessionCore, estimate_history_bytes, history_totals

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
    stored_only: bool = False  # in the store, not open in this runner

    @classmethod
    def stored(cls, record: SessionRecord) -> SessionInfo:
        """A session the store holds but this runner has not opened."""
        turns, tokens, usage = history_totals(record.events)
        return cls(
            id=record.session_id,
            user_id=record.user_id,
            turns=turns,
            tokens=tokens,
            history_bytes=estimate_history_bytes(record.tree),
            kv_bytes=0,
            last_used=record.last_update_time,
            context_tokens=usage.context_tokens if usage else None,
            context_window=usage.context_window if usage else None,
            stored_only=True,
        )

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
