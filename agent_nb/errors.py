"""The errors agent_nb raises, one tree.

::

    AgentError
    ├── InvalidSessionIdError (also ValueError)  bad session id; the message states the rule
    ├── SessionBusyError                         a turn is already running on that session
    ├── SessionClosedError                       the session was closed or deleted
    ├── MaxTurnsExceededError                    too many model<->tool rounds in one turn
    ├── BackendError                             the model failed to load or answer
    │   └── ModelNotFoundError                   the model spec names nothing that exists
    └── StaleSessionError                        a persistent store was written by someone else

Foreign exceptions (mlx, openai, httpx, sqlite3) are translated where they are
caught, with ``raise ... from exc`` so the cause stays visible. Every message
says what the user can do next.
"""

from __future__ import annotations

__all__ = [
    "AgentError",
    "BackendError",
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
