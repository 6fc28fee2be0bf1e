"""Direct model access (`AgentRunner.generate_content_async`): stream, store nothing.

Tool calls the model makes are reported as `FunctionCall` events and not run:
the caller owns the history, so it also decides what to do with them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from typing import TYPE_CHECKING

from ._reply import Reply
from ._stream import EventStream
from ._types import (
    Event,
    FinishReason,
    FunctionCall,
    GenerateContentRequest,
    TextMessage,
    TurnComplete,
    Usage,
    new_id,
)
from .backends import CancelToken, Finish, TextDelta, ToolCallChunk

if TYPE_CHECKING:
    from ._runner import AgentRunner

__all__ = ["start_direct"]

AUTHOR = "model"


def start_direct(runner: AgentRunner, request: GenerateContentRequest) -> EventStream:
    backend = runner._backend()
    token = CancelToken()
    done: concurrent.futures.Future[Reply] = concurrent.futures.Future()
    task_box: list[asyncio.Task[None]] = []

    def cancel() -> None:
        token.set()

        def cancel_task() -> None:
            if task_box and not task_box[0].done():
                task_box[0].cancel()

        with contextlib.suppress(RuntimeError):
            runner._worker.loop.call_soon_threadsafe(
                runner._worker.loop.call_later, 0.25, cancel_task
            )

    stream = EventStream(done, cancel)
    invocation_id = new_id()
    # Keys with ':' can never be session ids, so direct caches never collide.
    cache = f"direct:{request.session_id}" if request.session_id else None

    async def run() -> None:
        current = asyncio.current_task()
        assert current is not None
        task_box.append(current)
        events: list[Event] = []
        text: list[str] = []
        finish: FinishReason = "stop"
        usage = Usage()
        error: BaseException | None = None

        def emit(event: Event) -> None:
            if not (isinstance(event, TextMessage) and event.is_partial):
                events.append(event)
            stream.push(event)

        try:
            use_cache = cache if backend.supports_prompt_cache else None
            async for chunk in backend.stream(request, cache=use_cache, cancel=token):
                if isinstance(chunk, TextDelta) and chunk.text:
                    text.append(chunk.text)
                    emit(TextMessage(text=chunk.text, is_partial=True, author=AUTHOR,
                                     invocation_id=invocation_id))
                elif isinstance(chunk, ToolCallChunk):
                    emit(FunctionCall(name=chunk.name, args=chunk.args, call_id=chunk.call_id,
                                      author=AUTHOR, invocation_id=invocation_id))
                elif isinstance(chunk, Finish):
                    usage, finish = chunk.usage, chunk.finish_reason
            if token.is_set():
                finish = "cancelled"
        except asyncio.CancelledError:
            finish = "cancelled"
            uncancel = getattr(current, "uncancel", None)  # Python >= 3.11
            if uncancel is not None:
                uncancel()
        except Exception as exc:
            finish, error = "error", exc
        if text:
            emit(TextMessage(text="".join(text), author=AUTHOR, invocation_id=invocation_id,
                             interrupted=finish == "cancelled"))
        emit(TurnComplete(usage=usage, finish_reason=finish, interrupted=finish == "cancelled",
                          error=None if error is None else str(error), author=AUTHOR,
                          max_tokens=request.config.max_tokens if finish == "length" else None,
                          invocation_id=invocation_id))
        stream.finish(error)
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(Reply("".join(text), tuple(events), usage, finish, "", invocation_id))

    runner._worker.submit(run())
    return stream
