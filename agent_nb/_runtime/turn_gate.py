"""`TurnGate`: one turn at a time per session, and none once it is closed.

The gate is touched from the kernel thread (a turn starts, a session closes)
and from the worker (a turn ends), so its two fields are guarded by one lock.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from ..errors import SessionBusyError, SessionClosedError
from .approval import waiting_refusal
from .invocation import Invocation
from .worker import Worker

__all__ = ["TurnGate"]


class TurnGate:
    def __init__(self, session_id: str) -> None:
        self._id = session_id
        self._lock = threading.Lock()
        self._active: Invocation | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def busy(self) -> bool:
        return self._active is not None

    @property
    def active(self) -> Invocation | None:
        """The running turn (a turn waiting for approval runs too)."""
        return self._active

    def check_open(self) -> None:
        if self._closed:
            raise SessionClosedError(
                f"session {self._id!r} is closed; call get_runner().get_or_create_session"
                f"({self._id!r}) for a fresh one"
            )

    def claim(self, worker: Worker) -> Invocation:
        """The new turn's invocation; `SessionBusyError` while another runs."""
        with self._lock:
            self.check_open()
            if self._active is not None:
                approvals = self._active.approvals
                if approvals is not None and approvals.shown:
                    raise SessionBusyError(waiting_refusal(self._id))
                raise SessionBusyError(
                    f"session {self._id!r} is already running a turn; wait for it, call "
                    "stream.aclose() / session.cancel(), or use another session"
                )
            self._active = Invocation(worker)
            return self._active

    def release(self, turn: Invocation) -> None:
        with self._lock:
            if self._active is turn:
                self._active = None

    @contextlib.contextmanager
    def idle(self, what: str) -> Iterator[None]:
        """Hold the gate shut while the session's path changes (a rewind, a switch)."""
        with self._lock:
            self.check_open()
            if self._active is not None:
                raise SessionBusyError(
                    f"session {self._id!r} is running a turn; cannot {what} now: wait for it "
                    "or stop it first"
                )
            yield

    def cancel(self) -> None:
        turn = self._active
        if turn is not None:
            turn.request_cancel()

    def close(self) -> Invocation | None:
        """Refuse new turns and cancel the running one; returns it on the first call."""
        with self._lock:
            already = self._closed
            self._closed = True
            turn = self._active
        if turn is not None:
            turn.request_cancel()
        return None if already else turn

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the running turn to finish recording."""
        turn = self._active
        if turn is not None:
            with contextlib.suppress(Exception):
                turn.future.result(timeout=timeout)
