"""`ScriptedBackend`: the one fake, shipped in the library.

Replies come out in the order they were enqueued, word by word, with an
optional delay per token so that cancellation and streaming can be tested and
demonstrated offline. With nothing enqueued it echoes the last user message,
which keeps teaching notebooks deterministic without a model.

Structured output is scripted too: a request whose schema no grammar compiles
from is refused (`SchemaError`) before it is even recorded, as on MLX; a dict
(or list) reply streams as its JSON text; a string reply streams as written,
so a reply that breaks its schema, or JSON cut off by ``max_tokens``
(``finish_reason == "length"``), is one ``enqueue`` away.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeAlias

from .._core.types import GenerateContentRequest, Role, Usage
from ..errors import BackendError
from ._base import Backend, CancelToken, Chunk, Finish, PrefillProgress, TextDelta, ToolCallChunk

__all__ = ["ScriptedBackend", "ScriptedReply"]

ScriptedReply: TypeAlias = (
    "str | Mapping[str, Any] | list[Any] | ToolCallChunk | Sequence[ToolCallChunk] | BaseException"
)

_TOKEN = re.compile(r"\s*\S+|\s+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _all_calls(reply: list[Any]) -> bool:
    return all(isinstance(item, ToolCallChunk) for item in reply)


def _count_prompt_tokens(request: GenerateContentRequest) -> int:
    words = len(_tokens(request.system_instruction))
    for content in request.contents:
        for part in content.parts:
            if part.text:
                words += len(_tokens(part.text))
            elif part.function_call or part.function_response:
                words += 1
    return words


class ScriptedBackend(Backend):
    """A deterministic model: enqueue replies, tool calls or errors in order.

    >>> backend = ScriptedBackend(["Hello there."])
    >>> backend.enqueue(ToolCallChunk("add", {"a": 1, "b": 2}), "The sum is 3.")

    ``token_delay`` seconds pass between streamed tokens. Every request the
    backend receives is kept in ``requests`` for inspection. ``context_window``
    gives it a window, in the tokens it counts: one per whitespace-separated
    word of the request (and one per tool call or result), as its usage does.
    With ``one_turn_at_a_time=True`` replies queue behind each other, as on a
    local model. ``prefill_chunk=N`` reads the prompt N (counted) tokens at a
    time, ``token_delay`` each, reporting `PrefillProgress` as a local model does.

    Its replies come from the queue, not from the request, so it is replayed
    (`agent_nb._runtime.replay`) only when given ``replay_identity``: a test or
    an offline demo naming the "model" whose answers a replay may stand for.
    """

    supports_tools: ClassVar[bool] = True
    supports_prompt_cache: ClassVar[bool] = False
    spec = "scripted"

    def __init__(
        self,
        replies: Iterable[ScriptedReply] = (),
        *,
        token_delay: float = 0.0,
        context_window: int | None = None,
        one_turn_at_a_time: bool = False,
        prefill_chunk: int = 0,
        replay_identity: str | None = None,
    ) -> None:
        if context_window is not None and context_window < 1:
            raise ValueError(f"context_window must be >= 1 token, got {context_window}")
        self._context_window = context_window
        self._queue: deque[ScriptedReply] = deque(replies)
        self.token_delay = token_delay
        self.prefill_chunk = prefill_chunk
        self.one_turn_at_a_time = one_turn_at_a_time
        self._one_at_a_time: asyncio.Lock | None = None
        self.requests: list[GenerateContentRequest] = []
        self._replay_identity = replay_identity

    def replay_identity(self) -> str | None:
        return None if self._replay_identity is None else f"scripted:{self._replay_identity}"

    def enqueue(self, *replies: ScriptedReply) -> None:
        self._queue.extend(replies)

    def count_tokens(self, request: GenerateContentRequest) -> int:
        return _count_prompt_tokens(request)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def _next_reply(self, request: GenerateContentRequest) -> ScriptedReply:
        if self._queue:
            return self._queue.popleft()
        last_user = next(
            (c.text for c in reversed(request.contents) if c.role is Role.USER and c.text), ""
        )
        return f"You said: {last_user}"

    async def stream(
        self, request: GenerateContentRequest, *, cache: str | None, cancel: CancelToken
    ) -> AsyncIterator[Chunk]:
        if not self.one_turn_at_a_time:
            async for chunk in self._reply(request, cancel):
                yield chunk
            return
        if self._one_at_a_time is None:  # made on the worker loop that uses it
            self._one_at_a_time = asyncio.Lock()
        async with self._one_at_a_time:
            async for chunk in self._reply(request, cancel):
                yield chunk

    async def _reply(
        self, request: GenerateContentRequest, cancel: CancelToken
    ) -> AsyncIterator[Chunk]:
        self.check_request(request)
        self.requests.append(request)
        reply = self._next_reply(request)
        if isinstance(reply, Mapping) or (isinstance(reply, list) and not _all_calls(reply)):
            # a JSON value; an empty list stays what it was: no tool calls
            reply = json.dumps(reply, ensure_ascii=False)
        prompt_tokens = _count_prompt_tokens(request)
        started = time.perf_counter()
        if self.prefill_chunk > 0:
            for done in range(self.prefill_chunk, prompt_tokens, self.prefill_chunk):
                if cancel.is_set():
                    yield Finish(Usage(prompt_tokens=done), finish_reason="cancelled")
                    return
                await asyncio.sleep(self.token_delay)
                yield PrefillProgress(done, prompt_tokens)
        if isinstance(reply, BaseException):
            raise BackendError(f"scripted failure: {reply}") from reply
        if isinstance(reply, ToolCallChunk):
            reply = [reply]
        if not isinstance(reply, str):
            for call in reply:
                yield call
            yield Finish(Usage(prompt_tokens=prompt_tokens, generated_tokens=len(reply)))
            return
        generated = 0
        first: float | None = None
        finish: str = "stop"
        for token in _tokens(reply):
            if generated >= request.config.max_tokens:
                finish = "length"
                break
            if cancel.is_set():
                finish = "cancelled"
                break
            if self.token_delay:
                await asyncio.sleep(self.token_delay)
                if cancel.is_set():
                    finish = "cancelled"
                    break
            if first is None:
                first = time.perf_counter() - started
            generated += 1
            yield TextDelta(token)
        elapsed = time.perf_counter() - started
        yield Finish(
            Usage(
                prompt_tokens=prompt_tokens,
                generated_tokens=generated,
                time_to_first_token_s=first,
                tokens_per_s=generated / elapsed if elapsed > 0 and generated else None,
            ),
            finish_reason=finish,  # type: ignore[arg-type]
        )
