"""The backend seam: one streaming method plus capability flags.

A backend turns a `GenerateContentRequest` into an async stream of chunks
(`TextDelta`, `ToolCallChunk`, then exactly one `Finish`; a local model may
first report how far it has read a long prompt with `PrefillProgress`). Everything else
(history, tools, state, events) lives above it, so a new backend is one
method. Backends that keep a prompt (KV) cache per conversation get the cache
key in ``cache`` and manage the caches themselves; the runner only tells them
when a key is rewound or dropped.

Every backend also knows its context window (`context_window`, tokens, or
None when unknown) and counts a request's tokens (`count_tokens`: the real
tokenizer where the backend has one, else the documented estimate of
`agent_nb._core.tokens`),
so the turn can fit the history into the window before sending.

A backend that can keep its prompt caches on disk across processes (the MLX
backend's KV checkpoints) turns that on when the runner says the sessions
outlive the process (`configure_checkpoints`); the defaults do nothing, which
is right for a server that owns its cache.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, ClassVar, TypeAlias

from .._core.tokens import estimate_request_tokens
from .._core.types import FinishReason, GenerateContentRequest, Usage, new_id
from .structured import check_request

__all__ = [
    "Backend",
    "CancelToken",
    "Chunk",
    "Finish",
    "PrefillProgress",
    "TextDelta",
    "ToolCallChunk",
]


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallChunk:
    """A complete tool call (backends assemble streamed fragments first).

    ``error`` is set when the model named a tool but its arguments could not
    be read (not a JSON object): the tool does not run, and the model gets the
    error as the tool's result, so it can correct itself as with a tool that
    raised.
    """

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    call_id: str = field(default_factory=new_id)
    error: str | None = None


@dataclass(frozen=True)
class PrefillProgress:
    """``done`` of the prompt's ``total`` tokens are read (cached ones included).

    Reading a long prompt on a CPU takes minutes with nothing to show; a
    backend that prefills in chunks yields one of these between chunks.
    """

    done: int
    total: int


@dataclass(frozen=True)
class Finish:
    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason = "stop"


Chunk: TypeAlias = TextDelta | ToolCallChunk | PrefillProgress | Finish


class CancelToken:
    """A thread-safe flag: set from any thread, polled by the generating thread.

    MLX generation runs on its own thread and cannot be interrupted by asyncio
    task cancellation, so backends check this between tokens and between
    prefill chunks.
    """

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def __bool__(self) -> bool:
        return self.is_set()


class Backend(ABC):
    """A model. Subclasses implement `stream`; the rest has safe defaults."""

    supports_tools: ClassVar[bool] = False
    supports_prompt_cache: ClassVar[bool] = False
    #: Turns queue behind each other (a local model answers one at a time), so a
    #: new turn may wait for another session's; ``%%agent`` then says so.
    one_turn_at_a_time: bool = False

    #: The spec string this backend answers to, e.g. ``"mlx:smollm2-135m"``.
    spec: str = ""
    #: A window size given at construction (``context_window=N``); wins over discovery.
    _context_window: int | None = None

    @property
    def context_window(self) -> int | None:
        """The model's context window in tokens, or None when (not yet) known."""
        return self._context_window

    async def resolve_context_window(self) -> int | None:
        """`context_window`, after whatever discovery the backend needs (loading the
        model, asking the server); called by the turn before counting."""
        return self.context_window

    def replay_identity(self) -> str | None:
        """What names this model's answers for the replay cache (`agent_nb._runtime.replay`):
        the same identity and the same greedy request give the same reply. None (the
        default) means the backend is never replayed; MLX hashes its weights' files."""
        return None

    def count_tokens(self, request: GenerateContentRequest) -> int:
        """Prompt tokens ``request`` takes; by default the estimate (`agent_nb._core.tokens`)."""
        return estimate_request_tokens(request)

    def count_text_tokens(self, text: str) -> int | None:
        """Tokens ``text`` takes in this model, or None without a local tokenizer
        (callers then estimate: `agent_nb._core.tokens.text_counter`)."""
        return None

    @abstractmethod
    def stream(
        self,
        request: GenerateContentRequest,
        *,
        cache: str | None,
        cancel: CancelToken,
    ) -> AsyncIterator[Chunk]:
        """Yield text deltas and tool calls, then one `Finish`.

        ``cache`` is a key under which the backend may keep a prompt cache
        between calls (a session id), or None for no reuse. When ``cancel`` is
        set the backend stops promptly and yields ``Finish(finish_reason=
        "cancelled")``, leaving its cache consistent. Failures raise
        `agent_nb.errors.BackendError`.
        """

    def check_request(self, request: GenerateContentRequest) -> None:
        """Refuse what this backend cannot do before anything is sent or recorded:
        a ``response_schema`` or tool schema no grammar compiles from raises
        `agent_nb.errors.SchemaError` (llguidance's message), a ``tool_choice``
        the model cannot be held to a `BackendError`. The turn calls it first."""
        check_request(request)

    def rewind_cache(self, cache: str, request: GenerateContentRequest) -> None:  # noqa: B027
        """History under ``cache`` was cut back to ``request``: trim what no longer matches."""

    def drop_cache(self, cache: str) -> None:  # noqa: B027
        """Free everything kept under ``cache``."""

    def cache_bytes(self, cache: str) -> int:
        """Bytes held for ``cache`` (0 when the backend keeps nothing)."""
        return 0

    def trim_memory(self, keep: frozenset[str] = frozenset()) -> int:
        """Drop caches not in ``keep``; return the bytes freed."""
        return 0

    def memory(self) -> dict[str, Any]:
        """Backend-specific memory figures for `AgentRunner.memory()`."""
        return {}

    # -- prompt caches on disk (KV checkpoints) -------------------------------------

    def configure_checkpoints(
        self,
        *,
        store_identity: str,
        directory: str | PathLike[str] | None = None,
        disk_budget: int | None = None,
    ) -> bool:
        """Keep each cache key's prompt cache on disk after every turn, and resume
        from it in a later process; returns whether checkpoints are now on.

        ``store_identity`` names the session store (sessions of two stores
        never share a checkpoint). By default nothing happens and this
        returns False.
        """
        return False

    def checkpoints_off(self) -> None:  # noqa: B027
        """Stop writing checkpoints (queued ones are finished); files stay."""

    def delete_checkpoints(self, session_id: str) -> None:  # noqa: B027
        """Remove every checkpoint of ``session_id`` (its own and its agents' keys)."""

    def checkpoint_bytes(self) -> dict[str, int]:
        """Bytes on disk per session id (empty when checkpoints are off)."""
        return {}

    def close(self) -> None:  # noqa: B027
        """Release the model and every cache (interpreter exit, runner shutdown)."""
