"""The errors agent_nb raises, one tree.

::

    AgentError
    ├── InvalidSessionIdError (also ValueError)  bad session id; the message states the rule
    ├── SessionBusyError                         a turn is already running on that session
    ├── SessionClosedError                       the session was closed or deleted
    ├── MaxTurnsExceededError                    too many model<->tool rounds in one turn
    ├── BackendError                             the model failed to load or answer
    │   └── ModelNotFoundError                   the model spec names nothing that exists
    ├── ContextWindowError                       a request cannot fit the model's context window
    └── StaleSessionError                        a persistent store was written by someone else

Foreign exceptions (mlx, openai, httpx, sqlite3) are translated where they are
caught, with ``raise ... from exc`` so the cause stays visible. Every message
says what the user can do next.
"""

from __future__ import annotations

__all__ = [
    "AgentError",
    "BackendError",
    "ContextWindowError",
    "InvalidSessionIdError",
    "MaxTurnsExceededError",
    "ModelNotFoundError",
    "SessionBusyError",
    "SessionClosedError",
    "StaleSessionError",
]


class AgentError(Exception):
    """Base class of every agent_nb error."""


class InvalidSessionIdError(AgentError, ValueError):
    """A session id broke the rule in `agent_nb._ids.SESSION_ID_RULE`."""


class SessionBusyError(AgentError):
    """A second turn was started while one is still running on the session."""


class SessionClosedError(AgentError):
    """The session was closed or deleted; ask the runner for it again."""


class MaxTurnsExceededError(AgentError):
    """The model kept calling tools past the agent's ``max_turns``."""


class BackendError(AgentError):
    """The model failed to load or to answer; the message says what to try."""


class ModelNotFoundError(BackendError):
    """A model spec names no model that exists; the message lists what does."""


class StaleSessionError(AgentError):
    """A persistent session changed under this writer (revision mismatch)."""


class ContextWindowError(AgentError):
    """A request cannot fit the model's context window.

    Raised by the turn before anything is sent or recorded (``context_policy=
    "error"``, or a current message that alone does not fit), and by a backend
    whose server refused a request for its length. ``overshoot`` is by how many
    tokens it did not fit, when known; the next turn of the same session then
    shrinks its window by that much. ``sent`` is True for a server's refusal
    (the turn was recorded, with this error), False when nothing was sent.
    """

    def __init__(
        self,
        message: str,
        *,
        tokens: int | None = None,
        window: int | None = None,
        overshoot: int | None = None,
        sent: bool = False,
    ) -> None:
        super().__init__(message)
        self.sent = sent
        self.tokens = tokens
        self.window = window
        self.overshoot = overshoot
