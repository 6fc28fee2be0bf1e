"""`SessionInfo`: one row of `AgentRunner.sessions()` (and of ``%agent sessions``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from ..stores import SessionRecord, SessionStore
from .record_keeper import estimate_history_bytes, history_totals
from .session_core import SessionCore

__all__ = ["SessionInfo", "describe", "stored_infos"]


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
        keeper = session.keeper
        usage = keeper.last_usage
        return cls(
            id=keeper.id,
            user_id=keeper.user_id,
            turns=keeper.turns,
            tokens=keeper.tokens,
            history_bytes=keeper.history_bytes(),
            kv_bytes=kv_bytes,
            last_used=keeper.last_used,
            closed=session.gate.closed,
            evicting=evicting,
            busy=session.gate.busy,
            context_tokens=usage.context_tokens if usage else None,
            context_window=usage.context_window if usage else None,
            holders=holders,
        )


def describe(
    live: list[SessionCore],
    evicting: list[SessionCore],
    include_hidden: bool,
    kv_bytes: Callable[[SessionCore], int],
    holders: Callable[[str], tuple[str, ...]],
) -> list[SessionInfo]:
    """Rows for live and evicting sessions (hidden single-turn ones on request)."""
    return [
        SessionInfo.of(
            s,
            kv_bytes=kv_bytes(s),
            evicting=s in evicting,
            holders=holders(s.id) if s in live else (),
        )
        for s in live + evicting
        if include_hidden or not s.ephemeral
    ]


def stored_infos(
    store: SessionStore, app_name: str, user_id: str, ids: Iterable[str], shown: set[str]
) -> list[SessionInfo]:
    """Rows for the stored sessions not open here (not ``shown``)."""
    infos = []
    for session_id in ids:
        if session_id in shown:
            continue
        record = store.get_session(app_name, user_id, session_id)
        if record is not None:  # not deleted in the meantime
            infos.append(SessionInfo.stored(record))
    return infos
