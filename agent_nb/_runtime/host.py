"""`SessionHost`: the little a session and its turns need from the runner.

Sessions and turns sit below the runner and depend only on this interface,
which `AgentRunner` implements; they never read the runner's attributes, and
the runner reaches a session only through its methods. That keeps the
dependency one-way (runner -> session -> turn) and lets a session be tested
or hosted by anything that provides these few members (ADK hands its flows an
``InvocationContext`` for the same reason).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .._core.reply import Reply
    from .._core.types import GenerateContentRequest
    from ..backends import Backend
    from ..stores import SessionStore
    from .session import AgentSession
    from .stream import EventStream
    from .worker import Worker

__all__ = ["SessionHost"]


class SessionHost(Protocol):
    """What `AgentSession` and the turn engine call on their runner."""

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

    def session_closing(self, session: AgentSession) -> None:
        """``session.close()`` was called: unregister it and evict in the background."""
        ...

    def session_rewound(
        self, session: AgentSession, build: Callable[[], GenerateContentRequest]
    ) -> None:
        """History was cut back: trim the KV caches to the request ``build()`` makes."""
        ...

    def turn_finished(self, session: AgentSession) -> None:
        """A turn ended (a hidden single-turn session is removed now)."""
        ...
