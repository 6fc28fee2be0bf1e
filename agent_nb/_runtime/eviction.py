"""`Evictions`: closed sessions whose memory is being freed in the background.

``session.close()`` must return at once whatever the history size, yet the
same id asked for again must never get a half-evicted session. So a closed
session is registered here (under the runner's lock, in the same step that
unregisters it as live), its eviction runs on the worker loop after its turn
has recorded its end, and anyone who needs the id again waits on the future.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable

from .invocation import Invocation
from .session_core import SessionCore
from .worker import Worker

__all__ = ["Evictions"]


class Evictions:
    def __init__(self, worker: Worker, evict_now: Callable[[SessionCore], None]) -> None:
        self._worker = worker
        self._evict_now = evict_now
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[SessionCore, concurrent.futures.Future[None]]] = {}

    def add(self, session: SessionCore) -> concurrent.futures.Future[None]:
        """Register ``session`` as evicting; call `start` next, outside other locks."""
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        with self._lock:
            self._pending[session.id] = (session, done)
        return done

    def start(
        self,
        session: SessionCore,
        turn: Invocation | None,
        done: concurrent.futures.Future[None],
    ) -> None:
        """Evict once ``turn`` (if any) has finished; inline when the worker is gone."""
        try:
            self._worker.submit(self._evict(session, turn, done))
        except RuntimeError:  # worker gone (shutdown): evict inline
            self._evict_now(session)
            self._forget(session)
            done.set_result(None)

    async def _evict(
        self,
        session: SessionCore,
        turn: Invocation | None,
        done: concurrent.futures.Future[None],
    ) -> None:
        try:
            if turn is not None:
                await asyncio.wrap_future(turn.future)
        except BaseException:  # the turn's own failure was reported to its stream
            pass
        try:
            # Model work (freeing MLX buffers) must not stall other sessions'
            # streaming on this loop.
            await asyncio.to_thread(self._evict_now, session)
        finally:
            self._forget(session)
            done.set_result(None)

    def _forget(self, session: SessionCore) -> None:
        with self._lock:
            if self._pending.get(session.id, (None,))[0] is session:
                del self._pending[session.id]

    def wait(self, session_id: str) -> None:
        """Block until ``session_id``'s eviction (if any) is done (not on the worker)."""
        with self._lock:
            pending = self._pending.get(session_id)
        if pending is not None and not self._worker.in_worker():
            pending[1].result()

    def sessions(self) -> list[SessionCore]:
        with self._lock:
            return [session for session, _ in self._pending.values()]

    def ids(self) -> set[str]:
        with self._lock:
            return set(self._pending)
