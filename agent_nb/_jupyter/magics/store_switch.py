"""Moving a runner's live sessions into another store (``AgentMagics.store``).

Setting a store installs a fresh runner, and the kernel's conversations must
not vanish from ``%agent sessions`` with the old one, so the live sessions
travel: each one's stored events are appended to the new store in the order
they happened (across sessions, so ``app:`` / ``user:`` state set by those turns
ends up as it was), which also rebuilds session state. Invocation ids are
kept, so re-running a cell still rewinds its own turn.

What cannot move is refused before anything is written, naming the sessions:
one that is running a turn, or an id the new store already holds (a SQLite
file from an earlier kernel) -- merging two histories would invent a
conversation nobody had.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from ...stores import SessionRecord, SessionStore

if TYPE_CHECKING:
    from ..._runtime.face import AgentRunner

__all__ = ["check_move", "move_sessions"]


def _live_ids(runner: AgentRunner) -> list[str]:
    return [s.id for s in runner.sessions() if not (s.closed or s.evicting)]


def _names(ids: list[str]) -> str:
    return ", ".join(repr(i) for i in ids)


def check_move(runner: AgentRunner, target: SessionStore) -> None:
    """`ValueError` naming the sessions that cannot move into ``target``."""
    busy = [s.id for s in runner.sessions() if s.busy]
    if busy:
        raise ValueError(
            f"session(s) {_names(busy)} are running a turn; wait for them or stop them, "
            "then set the store again"
        )
    taken = set(target.list_sessions(runner.app_name, runner.user_id))
    clash = [i for i in _live_ids(runner) if i in taken]
    if clash:
        raise ValueError(
            f"the new store already holds session(s) {_names(clash)}; delete them there or "
            "here (%agent delete ID), or use another store, then set it again"
        )


def move_sessions(runner: AgentRunner, target: SessionStore) -> list[str]:
    """Copy the runner's live sessions into ``target``; returns the ids moved."""
    check_move(runner, target)
    records: list[SessionRecord] = []
    for session_id in _live_ids(runner):
        record = runner.store.get_session(runner.app_name, runner.user_id, session_id)
        if record is not None:
            records.append(record)
    copies = {
        r.session_id: target.create_session(r.app_name, r.user_id, r.session_id) for r in records
    }
    # Merge by time, never reordering within a session.
    timeline = heapq.merge(
        *([(r.session_id, e) for e in r.events] for r in records),
        key=lambda item: item[1].timestamp,
    )
    for session_id, event in timeline:
        target.append_event(copies[session_id], event)
    return list(copies)
