"""Replay as the runtime uses it: one model call's lookup and record (`ModelCall`), and
the prompt counts a replayed turn needs (see `agent_nb._runtime.replay`)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._core.types import GenerateContentRequest
from ...backends import Backend
from .cache_file import Recording, ReplayCache, replay_cache
from .key import agent_is_pure, qualifies, request_key

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = ["Replayer", "counter_for", "replay_enabled", "replay_for"]


def replay_enabled() -> bool:
    """``$AGENT_NB_REPLAY``: unset or ``1`` (as each turn asks), or ``0`` (never)."""
    raw = os.environ.get("AGENT_NB_REPLAY", "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"AGENT_NB_REPLAY must be 0 or 1, got {raw!r}")
    return raw != "0"


class Replayer:
    """Replay for one model call: look its answer up, or record it."""

    def __init__(self, cache: ReplayCache, backend: Backend, request: GenerateContentRequest):
        self.cache = cache
        self.backend = backend
        self.request = request
        self.key: str | None = None
        self.identity: str | None = None

    async def lookup(self) -> Recording | None:
        """The recorded answer, or None (the call then goes to the model)."""
        try:
            self.identity = await asyncio.to_thread(self.backend.replay_identity)
        except Exception:  # a model that cannot say what it is is simply not replayed
            return None
        if self.identity is None:
            return None
        self.key = request_key(self.identity, self.request)
        return await asyncio.to_thread(self.cache.get, self.key)

    async def record(self, recording: Recording) -> None:
        if self.key is None or self.identity is None:
            return
        if recording.finish not in ("stop", "length"):
            return
        await asyncio.to_thread(self.cache.put, self.key, self.identity, recording)


def replay_for(
    agent: Any, ctx: InvocationContext, request: GenerateContentRequest
) -> Replayer | None:
    """A `Replayer` when this call may be replayed (see the module docstring), else None.

    ``agent`` None: direct model access, whose tool calls are reported to the
    caller and never run here, so no tool of ours runs again on a replay and
    there is nothing to be pure."""
    if not ctx.options.replay or not qualifies(request) or not replay_enabled():
        return None
    if agent is not None and not agent_is_pure(agent):
        return None
    return Replayer(replay_cache(), ctx.backend, request)


def counter_for(ctx: InvocationContext) -> Callable[[GenerateContentRequest], int]:
    """The backend's token count, remembered across kernels when the turn replays.

    A count depends on the tokenizer and the request alone, so any request may
    use it (sampling and tools do not matter); only the switches do.
    """
    count = ctx.backend.count_tokens
    if not ctx.options.replay or not replay_enabled():
        return count
    backend, cache = ctx.backend, replay_cache()

    def remembered(request: GenerateContentRequest) -> int:
        try:
            identity = backend.replay_identity()
        except Exception:  # a model that cannot say what it is: count as usual
            identity = None
        if identity is None:
            return count(request)
        key = "count:" + request_key(identity, request)
        found = cache.get_count(key)
        if found is None:
            found = count(request)
            cache.put_count(key, found)
        return found

    return remembered
