"""One model call: the backend's chunks as partial events, and what came back.

`ModelCall.stream` yields partial `TextMessage` chunks and throttled
`PromptProgress` events while the backend streams; when it ends, the call's
``text``, ``calls``, ``usage`` and ``finish`` hold the response. A reply that
loops (`RepetitionWatch`) is stopped through the call's own cancel token and
ends with finish reason ``repetition``, unless it must be one JSON value: a
loop there is ended by the grammar's bounds, never by cutting the value. The
call's usage is kept even when it is cut short by a cancelled task: the text
chunks seen so far count as generated tokens (a backend's own count replaces
that when its `Finish` arrives).

With a `Replayer` (`agent_nb._runtime.replay`) the call first looks its
answer up: a recorded one streams again in place of the backend's chunks,
through the same code, so the events are those of a call the model answered;
a call the model answers is recorded when it ends normally.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator

from ..._core.repetition import RepetitionWatch
from ..._core.types import (
    Event,
    FinishReason,
    GenerateContentRequest,
    PromptProgress,
    TextMessage,
    Usage,
)
from ...backends import (
    Backend,
    CancelToken,
    Chunk,
    Finish,
    PrefillProgress,
    TextDelta,
    ToolCallChunk,
)
from ..replay import Recorder, Replayer

__all__ = ["PROGRESS_INTERVAL_S", "CallCancel", "ModelCall"]

#: At most this often a "reading the prompt" progress event goes out.
PROGRESS_INTERVAL_S = 0.25


def _json_only(request: GenerateContentRequest) -> bool:
    """A reply that must be one JSON value (or a forced tool call): the repetition
    stop would cut it mid-value, so a loop is ended by the grammar's bounds
    (`agent_nb.backends.json_bounds`) instead, or by ``max_tokens``."""
    return request.response_schema is not None or request.forces_tool


class CallCancel(CancelToken):
    """The token one model call sees: the invocation's, or this call's own stop
    (the repetition stop), so the backend stops generating either way."""

    def __init__(self, parent: CancelToken) -> None:
        super().__init__()
        self._parent = parent

    def is_set(self) -> bool:
        return self._parent.is_set() or super().is_set()


class ModelCall:
    """One request to one backend, streamed (see the module docstring)."""

    def __init__(
        self,
        backend: Backend,
        request: GenerateContentRequest,
        *,
        cache: str | None,
        cancel: CancelToken,
        author: str,
        invocation_id: str,
        branch: str | None = None,
        replay: Replayer | None = None,
    ) -> None:
        self.backend = backend
        self.request = request
        self._cache = cache if backend.supports_prompt_cache else None
        self._parent = cancel
        self._author, self._invocation_id, self._branch = author, invocation_id, branch
        self.text = ""
        self.calls: list[ToolCallChunk] = []
        self.usage = Usage()
        self.finish: FinishReason = "stop"
        self._replay = replay

    async def _chunks(self, cancel: CancelToken, recorder: Recorder | None) -> AsyncIterator[Chunk]:
        """The backend's chunks, or the recorded ones of the same request."""
        if self._replay is not None:
            started = time.perf_counter()
            recording = await self._replay.lookup()
            if recording is not None:
                for chunk in recording.chunks(started):
                    yield chunk
                return
        async for chunk in self.backend.stream(self.request, cache=self._cache, cancel=cancel):
            if recorder is not None:
                recorder.add(chunk)
            yield chunk

    async def stream(self) -> AsyncGenerator[Event, None]:
        finish: Finish | None = None
        cancel = CallCancel(self._parent)
        watch = RepetitionWatch(
            0 if _json_only(self.request) else self.request.config.repetition_stop
        )
        pieces: list[str] = []
        seen = 0  # text chunks: the generated count if no Finish comes
        reported = 0.0  # when prompt progress was last sent
        recorder = Recorder() if self._replay is not None else None
        try:
            async for chunk in self._chunks(cancel, recorder):
                if isinstance(chunk, TextDelta):
                    seen += 1
                    if chunk.text and not watch.span:
                        pieces.append(chunk.text)
                        self.text = "".join(pieces)
                        yield TextMessage(
                            text=chunk.text,
                            is_partial=True,
                            author=self._author,
                            invocation_id=self._invocation_id,
                            branch=self._branch,
                        )
                        if watch.feed(chunk.text):
                            cancel.set()  # the backend stops; its Finish still counts usage
                elif isinstance(chunk, PrefillProgress):
                    now = time.monotonic()
                    if seen == 0 and now - reported >= PROGRESS_INTERVAL_S:
                        reported = now
                        yield PromptProgress(
                            done=chunk.done,
                            total=chunk.total,
                            author=self._author,
                            invocation_id=self._invocation_id,
                            branch=self._branch,
                        )
                elif isinstance(chunk, ToolCallChunk):
                    self.calls.append(chunk)
                elif isinstance(chunk, Finish):
                    finish = chunk
        finally:
            self.usage = finish.usage if finish is not None else Usage(generated_tokens=seen)
        if self._parent.is_set():
            self.finish = "cancelled"
        elif watch.span:
            self.text = watch.kept()  # the loop shows once
            self.finish = "repetition"
        else:
            self.finish = finish.finish_reason if finish is not None else "stop"
            if recorder is not None and self._replay is not None and not self.usage.replayed_calls:
                await self._replay.record(recorder.recording(self.usage, self.finish))
