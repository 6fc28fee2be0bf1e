"""`SessionHost`: the resources a session and its turns take from the runner.

Sessions and turns sit below the runner and depend only on this interface
(plus the three `Lifecycle` notices handed to each `SessionCore`), which
`AgentRunner` implements; they never read the runner's attributes. That keeps
the dependency one-way (runner -> session -> turn), with no import back up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .._core.reply import Reply
    from ..backends import Backend
    from ..stores import SessionStore
    from .stream import EventStream
    from .worker import Worker

__all__ = ["SessionHost"]


class SessionHost(Protocol):
    """What a `SessionCore` and its turns take from their runner."""

    @property
    def app_name(self) -> str: ...

    @property
    def store(self) -> SessionStore: ...

    @property
    def worker(self) -> Worker:
        """The loop turns run on."""
        ...

    def backend_for(self, model: str | Backend | None) -> Backend:
        """The backend for a turn's ``model=`` (None: the runner's default)."""
        ...

    def wait(self, stream: EventStream) -> Reply:
        """Block the calling thread for a turn; Ctrl-C cancels it."""
        ...
