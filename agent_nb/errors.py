"""The errors agent_nb raises, one tree.

::

    AgentError
    ├── InvalidSessionIdError (also ValueError)    bad session id; the message states the rule
    ├── SessionBusyError                           a turn is already running on that session
    ├── SessionClosedError                         the session was closed or deleted
    ├── MaxTurnsExceededError                      too many model<->tool rounds in one turn
    ├── MissingStateKeyError (also KeyError)       instructions name a state key nobody set
    ├── UnknownAgentError (also KeyError)          no agent registered under that name
    ├── RunnerShutDownError (also RuntimeError)    the runner was shut down
    ├── StreamConsumedError (also RuntimeError)    an EventStream was iterated twice
    ├── FrontendNotBuiltError (also RuntimeError)  the ChatWidget's JS bundle is missing
    ├── BackendError                               the model failed to load or answer
    │   └── ModelNotFoundError                     the model spec names nothing that exists
    ├── SchemaError (also ValueError)              a reply or tool schema no grammar compiles from
    ├── UnitError (also ValueError)                an unknown unit, or two that do not convert
    ├── ContextWindowError                         a request cannot fit the model's context window
    ├── TurnInterruptedError                       a %%agent cell's turn was interrupted (a note)
    ├── ToolServerError                            an MCP server would not start, answer or stay up
    │   └── ToolServerTimeoutError (also TimeoutError)  it did not answer in time
    └── StoreError                                 the session store failed
        ├── StaleSessionError                      a persistent store was written by someone else
        ├── SessionExistsError                     create_session on an id the store already holds
        ├── StoreURLError (also ValueError)        a store URL agent_nb cannot use
        ├── StoreLockedError (also TimeoutError)   another writer held the lock too long
        ├── StoreFormatError (also ValueError)     the file is not an agent_nb session database
        ├── StoreClosedError (also RuntimeError)   the store was closed
        ├── StoreVersionError (also RuntimeError)  the file's schema is newer than this agent_nb
        └── StoreIOError (also OSError)            the file cannot be opened, read or written
            ├── StoreNotFoundError (also FileNotFoundError)
            ├── StoreIsADirectoryError (also IsADirectoryError)
            ├── StorePermissionError (also PermissionError)   also: a read-only store
            └── StoreConnectionError (also ConnectionError)  server unreachable or login refused

Every error agent_nb raises on purpose is an `AgentError`. Where agent_nb
raised a builtin before, the class also inherits that builtin, as httpx does,
so an existing ``except KeyError`` / ``except TimeoutError`` keeps working.
Arguments of the wrong type or out of range are the caller's bug and stay
plain `TypeError` / `ValueError`, as in the standard library.

Foreign exceptions (mlx, openai, httpx, sqlite3) are translated where they are
caught, with ``raise ... from exc`` so the cause stays visible. Every message
says what the user can do next.
"""

from __future__ import annotations

__all__ = [
    "AgentError",
    "BackendError",
    "ContextWindowError",
    "FrontendNotBuiltError",
    "InvalidSessionIdError",
    "MaxTurnsExceededError",
    "MissingStateKeyError",
    "ModelNotFoundError",
    "RunnerShutDownError",
    "SchemaError",
    "SessionBusyError",
    "SessionClosedError",
    "SessionExistsError",
    "StaleSessionError",
    "StoreClosedError",
    "StoreConnectionError",
    "StoreError",
    "StoreFormatError",
    "StoreIOError",
    "StoreIsADirectoryError",
    "StoreLockedError",
    "StoreNotFoundError",
    "StorePermissionError",
    "StoreURLError",
    "StoreVersionError",
    "StreamConsumedError",
    "ToolServerError",
    "ToolServerTimeoutError",
    "TurnInterruptedError",
    "UnitError",
    "UnknownAgentError",
]


class AgentError(Exception):
    """Base class of every agent_nb error."""


class InvalidSessionIdError(AgentError, ValueError):
    """A session id broke the rule in `agent_nb._core.ids.SESSION_ID_RULE`."""


class SessionBusyError(AgentError):
    """A second turn was started while one is still running on the session."""


class SessionClosedError(AgentError):
    """The session was closed or deleted; ask the runner for it again."""


class MaxTurnsExceededError(AgentError):
    """The model kept calling tools past the agent's ``max_turns``."""


class MissingStateKeyError(AgentError, KeyError):
    """Agent instructions use ``{key}`` but the session state has no such key."""

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


class UnknownAgentError(AgentError, KeyError):
    """No agent is registered under the name asked for."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class RunnerShutDownError(AgentError, RuntimeError):
    """The runner was shut down; `get_runner()` makes a new one."""


class StreamConsumedError(AgentError, RuntimeError):
    """An `EventStream` can be iterated once; start a new turn for another."""


class FrontendNotBuiltError(AgentError, RuntimeError):
    """The ChatWidget's JavaScript bundle was not built (``npm run build``)."""


class BackendError(AgentError):
    """The model failed to load or to answer; the message says what to try."""


class ModelNotFoundError(BackendError):
    """A model spec names no model that exists; the message lists what does."""


class SchemaError(AgentError, ValueError):
    """A JSON schema (a ``response_schema`` or a tool's parameters) that the grammar
    engine cannot compile; raised before anything is generated, with its message."""


class UnitError(AgentError, ValueError):
    """A unit pint does not know, or a conversion between units of different dimensions
    (kilograms to metres); the message names both dimensions or the unknown unit."""


class StoreError(AgentError):
    """The session store failed; the message names the store and the next step."""


class StaleSessionError(StoreError):
    """A persistent session changed under this writer (revision mismatch)."""


class SessionExistsError(StoreError):
    """``create_session`` on an id the store already holds (ADK's ``AlreadyExistsError``)."""


class StoreURLError(StoreError, ValueError):
    """A store URL names no store agent_nb can open; the message lists the forms."""


class StoreLockedError(StoreError, TimeoutError):
    """Another process held the store's write lock longer than the timeout."""


class StoreFormatError(StoreError, ValueError):
    """The file is not a session database agent_nb can use."""


class StoreClosedError(StoreError, RuntimeError):
    """The store was closed; open a new one on the same path."""


class StoreVersionError(StoreError, RuntimeError):
    """The file's schema is newer than this agent_nb knows, or has no migration."""


class StoreIOError(StoreError, OSError):
    """The store's file cannot be opened, read or written."""


class StoreNotFoundError(StoreIOError, FileNotFoundError):
    """The store's directory does not exist."""


class StoreIsADirectoryError(StoreIOError, IsADirectoryError):
    """The store path names a directory, not a file."""


class StorePermissionError(StoreIOError, PermissionError):
    """The store's file or directory is not writable, or the store was opened read-only."""


class StoreConnectionError(StoreIOError, ConnectionError):
    """The database server cannot be reached or refused the login (host named, password never)."""


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


class TurnInterruptedError(AgentError):
    """A ``%%agent`` cell's turn was interrupted; the partial reply is kept.

    Not a mistake of the user's, so IPython shows it as the plain note it is
    (`_render_traceback_`: no "UsageError:" label, no traceback), yet the cell
    still fails, so "Run all" stops there.
    """

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


class ToolServerError(AgentError):
    """An MCP server (`agent_nb.McpToolset`) could not start, answer or stay up.

    The message names the server (``server``), says what failed in one line,
    and what to try next.
    """

    def __init__(self, message: str, *, server: str = "") -> None:
        super().__init__(message)
        self.server = server


class ToolServerTimeoutError(ToolServerError, TimeoutError):
    """An MCP server did not answer within its ``timeout``."""
