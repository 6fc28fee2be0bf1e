"""Direct model access (`AgentRunner.generate_content_async`): stream, store nothing.

It runs through the same pieces as a session turn (a `ModelCall` on the worker
loop with the invocation's cancel token and, when asked, replay; the one
loop's `record`; and the same ending, `end_invocation`), minus the store and
the tool loop. Tool calls the model makes are reported as `FunctionCall`
events and not run: the caller owns the history, so it also decides what to
do with them.

A direct call has no session, so it has no trace to keep (``%agent trace``
and a widget's trace panel read a session's turns): the model's usage, a
replayed call's ``replayed_calls`` included, is on its `TurnComplete`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from .._core.aio import uncancel
from .._core.types import Event, FunctionCall, GenerateContentRequest, TextMessage
from ..backends import Backend
from .agent_memory import AgentMemory
from .agents import CodeAgent
from .agents.model_call import ModelCall
from .context import InvocationContext, Turn
from .engine import StreamSink, drive
from .invocation import Invocation
from .options import TurnOptions
from .replay import replay_for
from .stream import EventStream
from .turn import end_invocation
from .worker import Worker

__all__ = ["AUTHOR", "start_direct"]

#: The author of the model's events in direct access (there is no agent).
AUTHOR = "model"


def start_direct(
    worker: Worker, backend: Backend, request: GenerateContentRequest, *, replay: bool = False
) -> EventStream:
    """Start streaming ``request`` on ``backend``; returns the stream at once.

    ``replay``: answer it from the replay cache when the same request (same model,
    greedy or seeded) was answered before, and record it otherwise
    (`agent_nb._runtime.replay`)."""
    invocation = Invocation(worker)
    # Keys with ':' can never be session ids, so direct caches never collide.
    cache = f"direct:{request.session_id}" if request.session_id else None
    turn = Turn(
        invocation=invocation,
        options=TurnOptions(replay=replay),
        session_id="",
        user_id="",
        app_name="",
        session_agent=AUTHOR,
        tree=False,
        history=list,
        state={},
        backend_for=lambda _: backend,
        memory=AgentMemory(),
    )
    ctx = InvocationContext.root(turn, CodeAgent(AUTHOR, lambda _: None))
    sink = StreamSink(invocation.stream.push)

    async def answer() -> AsyncGenerator[Event, None]:
        call = ModelCall(
            backend,
            request,
            cache=cache,
            cancel=invocation.cancel_token,
            author=AUTHOR,
            invocation_id=invocation.invocation_id,
            replay=replay_for(None, ctx, request),
        )
        try:
            async for event in call.stream():
                yield event
        finally:
            turn.add_usage(call.usage, call.finish, request.config.max_tokens)
        if call.text:
            yield ctx.event(TextMessage, text=call.text, interrupted=call.finish == "cancelled")
        for chunk in call.calls:
            yield ctx.event(FunctionCall, name=chunk.name, args=chunk.args, call_id=chunk.call_id)

    async def body() -> None:
        invocation.task = asyncio.current_task()
        error: BaseException | None = None
        try:
            await drive(answer(), ctx, sink)
        except asyncio.CancelledError:
            turn.finish = "cancelled"
            uncancel(invocation.task)
        except Exception as exc:
            turn.finish, error = "error", exc
        sink.loose.calls.clear()  # reported calls are the caller's to answer
        await end_invocation(turn, ctx, sink, author=AUTHOR, error=error)

    return invocation.start(body())
