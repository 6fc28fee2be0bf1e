"""The turn engine: one invocation of a model, from first chunk to `TurnComplete`.

Session turns (`turn`) and direct model access (`direct`) run through the
same code: an `Invocation` (id, cancel token, result future, event stream),
a `Recorder` that builds every event of the invocation in one place, the
chunk loop `stream_model`, and `run_invocation`, which turns whatever happens
(a normal end, a cancel, a failure) into the same closing steps. Only what
differs is passed in: whether events are stored, and the body that decides
what to do with the model's output (run tools, or report their calls).

Stopping: the backend sees the cancel token at once; a tool or an HTTP wait
that ignores it is cancelled as an asyncio task `CANCEL_GRACE_S` later.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypedDict

from .._core.aio import uncancel
from .._core.repetition import RepetitionWatch
from .._core.reply import Reply, final_texts
from .._core.types import (
    Event,
    FinishReason,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    PromptProgress,
    TextMessage,
    TurnComplete,
    Usage,
    new_id,
)
from ..backends import Backend, CancelToken, Finish, PrefillProgress, TextDelta, ToolCallChunk
from ..errors import ContextWindowError
from .stream import EventStream
from .worker import Worker

__all__ = [
    "CANCEL_GRACE_S",
    "Invocation",
    "Progress",
    "Recorder",
    "run_invocation",
    "stream_model",
]

#: How long a stopped turn may take to notice its cancel token before its task is cancelled.
CANCEL_GRACE_S = 0.25
#: At most this often a "reading the prompt" progress event goes out.
PROGRESS_INTERVAL_S = 0.25


class Invocation:
    """One running turn or direct call, as the caller and the worker both see it."""

    def __init__(self, worker: Worker) -> None:
        self.invocation_id = new_id()
        self.cancel_token = CancelToken()
        self.future: concurrent.futures.Future[Reply] = concurrent.futures.Future()
        self.task: asyncio.Task[Any] | None = None  # set once it runs on the worker
        self.stream = EventStream(self.future, self.request_cancel, self.invocation_id)
        self._worker = worker

    @property
    def cancelled(self) -> bool:
        return self.cancel_token.is_set()

    def request_cancel(self) -> None:
        """Stop the invocation; returns at once (see the module docstring)."""
        if self.future.done():
            return
        self.cancel_token.set()

        def cancel_task() -> None:
            if self.task is not None and not self.task.done():
                self.task.cancel()

        try:
            loop = self._worker.loop
            loop.call_soon_threadsafe(loop.call_later, CANCEL_GRACE_S, cancel_task)
        except RuntimeError:  # worker already stopped
            pass

    def start(self, body: Coroutine[Any, Any, Reply]) -> EventStream:
        """Run ``body`` (a `run_invocation` coroutine) on the worker; returns the stream."""
        self._worker.submit(body)
        return self.stream


class _Ids(TypedDict):
    author: str
    invocation_id: str


class Recorder:
    """Builds the invocation's events and sends each to the stream and listeners.

    ``store`` records a final event (returning the stored copy); None keeps
    final events only in `events` (direct access). Partial text chunks are
    never stored.
    """

    def __init__(
        self,
        invocation: Invocation,
        author: str,
        *,
        store: Callable[[Event], Event] | None = None,
        notify: Callable[[Event], None] | None = None,
        events: list[Event] | None = None,
        quiet: bool = False,
    ) -> None:
        self.invocation = invocation
        self.author = author
        self.events: list[Event] = [] if events is None else events
        self._store = store
        self._notify = notify
        self._quiet = quiet  # True: keep events here only (an agent run as a tool)

    def as_author(self, author: str) -> Recorder:
        """The same recorder (same store, stream and event list) for another agent."""
        return Recorder(
            self.invocation, author, store=self._store, notify=self._notify,
            events=self.events, quiet=self._quiet,
        )  # fmt: skip

    def detached(self, author: str, events: list[Event]) -> Recorder:
        """A recorder whose events go only to ``events``: not stored, not streamed."""
        return Recorder(self.invocation, author, events=events, quiet=True)

    def emit(self, event: Event) -> Event:
        transient = isinstance(event, PromptProgress)
        final = not (isinstance(event, TextMessage) and event.is_partial) and not transient
        if final:
            if self._store is not None:
                event = self._store(event)
            self.events.append(event)
        if self._quiet:
            return event
        self.invocation.stream.push(event)
        if self._notify is not None:
            self._notify(event)
        return event

    def _ids(self) -> _Ids:
        return {"author": self.author, "invocation_id": self.invocation.invocation_id}

    def partial(self, text: str) -> None:
        self.emit(TextMessage(text=text, is_partial=True, **self._ids()))

    def prompt_progress(self, done: int, total: int) -> None:
        self.emit(PromptProgress(done=done, total=total, **self._ids()))

    def text(
        self, text: str, *, interrupted: bool = False, state_delta: dict[str, Any] | None = None
    ) -> None:
        self.emit(
            TextMessage(
                text=text, interrupted=interrupted, state_delta=state_delta or {}, **self._ids()
            )
        )

    def call(self, chunk: ToolCallChunk) -> FunctionCall:
        event = FunctionCall(name=chunk.name, args=chunk.args, call_id=chunk.call_id, **self._ids())
        self.emit(event)
        return event

    def response(
        self,
        call: FunctionCall | ToolCallChunk,
        response: dict[str, Any],
        state_delta: dict[str, Any] | None = None,
    ) -> None:
        self.emit(
            FunctionResponse(
                name=call.name,
                response=response,
                call_id=call.call_id,
                state_delta=state_delta or {},
                **self._ids(),
            )
        )

    def complete(self, progress: Progress, error: BaseException | None) -> None:
        finish = progress.finish
        self.emit(
            TurnComplete(
                usage=progress.usage,
                finish_reason=finish,
                interrupted=finish == "cancelled",
                error=None if error is None else f"{type(error).__name__}: {error}",
                max_tokens=progress.max_tokens if finish == "length" else None,
                trace=progress.trace,
                **self._ids(),
            )
        )


@dataclasses.dataclass
class Progress:
    """What the body of an invocation has got so far; read by the closing steps."""

    usage: Usage = dataclasses.field(default_factory=Usage)
    finish: FinishReason = "stop"
    text: list[str] = dataclasses.field(default_factory=list)  # streamed, not yet recorded
    open_call: FunctionCall | None = None  # a tool that is running
    max_tokens: int | None = None  # the latest model call's limit (names a "length" finish)
    call_generated: int = 0  # tokens the latest model call generated (context = prompt + these)
    started: bool = False  # the user message is recorded: the turn must end with TurnComplete
    trace: dict[str, Any] | None = None  # stored with the TurnComplete (`InvocationTrace`)

    def flush_text(
        self, rec: Recorder, *, interrupted: bool, state_delta: dict[str, Any] | None = None
    ) -> None:
        """Record the streamed text as one final message (if any) and start afresh."""
        if self.text:
            rec.text("".join(self.text), interrupted=interrupted, state_delta=state_delta)
            self.text = []


class _CallCancel(CancelToken):
    """The token one model call sees: the invocation's, or this call's own stop
    (the repetition stop), so the backend stops generating either way."""

    def __init__(self, parent: CancelToken) -> None:
        super().__init__()
        self._parent = parent

    def is_set(self) -> bool:
        return self._parent.is_set() or super().is_set()


async def stream_model(
    backend: Backend,
    request: GenerateContentRequest,
    *,
    cache: str | None,
    rec: Recorder,
    progress: Progress,
    on_call: Callable[[ToolCallChunk], object],
) -> None:
    """One model call: partial text goes out as it comes, tool calls to ``on_call``.

    A reply that loops (`RepetitionWatch`) is stopped through the call's cancel
    token and ends with finish reason ``repetition``. The call's usage is
    recorded even when the call is cut short by a cancelled task: the text
    chunks seen so far count as generated tokens (a backend's own count
    replaces that when its `Finish` arrives).
    """
    finish: Finish | None = None
    invocation = rec.invocation
    key = cache if backend.supports_prompt_cache else None
    cancel = _CallCancel(invocation.cancel_token)
    watch = RepetitionWatch(request.config.repetition_stop)
    start = len(progress.text)
    seen = 0  # text chunks: the generated count if no Finish comes
    reported = 0.0  # when prompt progress was last sent
    progress.max_tokens = request.config.max_tokens
    try:
        async for chunk in backend.stream(request, cache=key, cancel=cancel):
            if isinstance(chunk, TextDelta):
                seen += 1
                if chunk.text and not watch.span:
                    progress.text.append(chunk.text)
                    rec.partial(chunk.text)
                    if watch.feed(chunk.text):
                        cancel.set()  # the backend stops; its Finish still counts usage
            elif isinstance(chunk, PrefillProgress):
                now = time.monotonic()
                if seen == 0 and now - reported >= PROGRESS_INTERVAL_S:
                    reported = now
                    rec.prompt_progress(chunk.done, chunk.total)
            elif isinstance(chunk, ToolCallChunk):
                on_call(chunk)
            elif isinstance(chunk, Finish):
                finish = chunk
    finally:
        usage = finish.usage if finish is not None else Usage(generated_tokens=seen)
        progress.call_generated = usage.generated_tokens
        progress.usage = progress.usage + usage
    if invocation.cancelled:
        progress.finish = "cancelled"
    elif watch.span:
        progress.text[start:] = [watch.kept()]  # the loop shows once
        progress.finish = "repetition"
    else:
        progress.finish = finish.finish_reason if finish is not None else "stop"


def _nothing_sent(error: BaseException | None) -> bool:
    """A request refused before it was sent (too big for the window) leaves no trace."""
    return isinstance(error, ContextWindowError) and not error.sent


async def run_invocation(
    rec: Recorder,
    body: Callable[[Progress], Awaitable[None]],
    *,
    session_id: str = "",
    on_end: Callable[[], None] | None = None,
) -> Reply:
    """Run ``body`` and close the invocation the same way whatever happened.

    A cancel keeps the partial text (marked interrupted) and answers a tool
    call left open; a failure is recorded in the `TurnComplete` and raised to
    the stream's consumer (a request that did not fit the context window and
    was never sent is only raised: the body recorded nothing). ``on_end``
    runs after the last event, before the stream ends (the session frees its
    busy flag there).
    """
    invocation = rec.invocation
    invocation.task = asyncio.current_task()
    progress = Progress()
    error: BaseException | None = None
    try:
        await body(progress)
    except asyncio.CancelledError:
        progress.finish = "cancelled"
        # We cancelled our own task to stop the turn; the turn ends normally.
        uncancel(invocation.task)
    except Exception as exc:
        progress.finish, error = "error", exc
    try:
        if progress.started or not _nothing_sent(error):
            progress.flush_text(rec, interrupted=True)  # cut off mid-stream: keep what was seen
            if progress.open_call is not None:
                rec.response(progress.open_call, {"error": "cancelled before the tool finished"})
            rec.complete(progress, error)
    except Exception as exc:  # the store itself failed; report that, not a hang
        error = error or exc
    texts = final_texts(rec.events)
    reply = Reply(
        text=texts[-1] if texts else "",
        events=tuple(rec.events),
        usage=progress.usage,
        finish_reason=progress.finish,
        session_id=session_id,
        invocation_id=invocation.invocation_id,
    )
    if on_end is not None:
        on_end()
    invocation.stream.finish(error)
    if error is not None:
        invocation.future.set_exception(error)
    else:
        invocation.future.set_result(reply)
    return reply
