"""One turn: user message -> the agent tree -> `TurnComplete`, through the one loop.

Runs on the worker loop. The root agent's first request is fitted to the
model's window before anything is recorded, so a turn that cannot fit leaves
history as it was. Whatever happens next (a stop, a backend failure, a tool
loop that never ends), the turn closes the same way: loose ends recorded
(`close_loose_ends`), then a `TurnComplete`, so history never holds a
function call without its response and never loses the user's message.
A turn may pause at a tool call that waits for approval (`approval`): its
reply then ends at the pause, and the rest comes as the answer's reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .._core.aio import uncancel
from .._core.reply import Reply
from .._core.trace import InvocationTrace
from .._core.types import FunctionCall, TextMessage, TurnComplete
from ..errors import ContextWindowError, SchemaError, ToolServerError
from .agents import Agent, BaseAgent, walk
from .agents.requests import check_schemas, fit, instructions_for, request_for
from .agents.toolset_listing import list_toolsets
from .approval import Approvals
from .context import InvocationContext, Turn
from .engine import Sink, close_loose_ends, drive, record
from .invocation import finish_invocation, nothing_sent, part_reply

__all__ = ["Prepare", "end_invocation", "run_turn"]

#: A step run on the worker before anything of the turn is recorded (`front_door`).
Prepare = Callable[[Turn], Awaitable[None]]


async def _prefit(agent: BaseAgent, ctx: InvocationContext, user_event: TextMessage) -> None:
    """List the tree's toolsets (`list_toolsets`), fit the root agent's first
    request as if the message were recorded, and check every model agent's
    schemas with the backend (`check_schemas`)."""
    turn = ctx.turn
    await list_toolsets(agent)
    turn.window = await turn.backend.resolve_context_window()
    for each in walk(agent):
        if isinstance(each, Agent):
            check_schemas(each, ctx.for_agent(each))
    # A before_agent callback may write the state the instructions read: the
    # agent then fits its first request itself, after the callback ran.
    if isinstance(agent, Agent) and not agent.before_agent_callback:
        own = ctx.for_agent(agent)
        text = await instructions_for(agent, own, user_event)
        turn.prefit = fit(
            agent, own, request_for(agent, own, pending=user_event, instructions=text)
        )


async def run_turn(
    turn: Turn,
    agent: BaseAgent,
    user_event: TextMessage,
    sink: Sink,
    on_end: Callable[[], None],
    on_steps: Callable[[InvocationTrace], None] | None = None,
    prepare: Prepare | None = None,
) -> Reply:
    """The turn on the worker (see the module docstring).

    ``on_steps`` gets the turn's trace once every agent has finished, before
    the `TurnComplete` (which stores it when it shows anything) is recorded,
    so a listener that sees the turn end can already read its trace.
    ``on_end`` runs after the last event is recorded (the session frees its
    busy flag there). ``prepare(turn)`` runs first; what it raises ends the turn
    with nothing recorded (a stop meanwhile is recorded as any stopped turn).
    """
    invocation = turn.invocation
    assert invocation is not None, "a turn runs in an invocation"
    invocation.task = asyncio.current_task()
    if prepare is not None:
        try:
            await prepare(turn)
        except asyncio.CancelledError:
            # Stopped early: recorded like any stopped turn (message, interrupted end).
            uncancel(invocation.task)
        except Exception as exc:  # refused: nothing was recorded, nothing will be
            turn.finish = "error"
            return finish_invocation(
                invocation,
                [],
                usage=turn.usage,
                finish="error",
                error=exc,
                session_id=turn.session_id,
                on_end=on_end,
            )

    def pause(waiting: tuple[FunctionCall, ...]) -> None:
        """Calls wait for approval: the part of the turn so far ends (`approval`)."""
        part = sink.events[invocation.part_start :]
        reply = part_reply(
            invocation,
            part,
            usage=turn.usage,
            finish="stop",
            session_id=turn.session_id,
            structured=turn.structured,
            awaiting=waiting,
        )
        invocation.pause(reply, len(sink.events))

    turn.approvals = invocation.approvals = Approvals(pause)
    ctx = InvocationContext.root(turn, agent)
    ctx.scope.apply(user_event.state_delta)  # its temp: keys reach the first request
    turn.user_content = user_event.text
    started = False
    error: BaseException | None = None
    try:
        try:
            await _prefit(agent, ctx, user_event)
        except (ContextWindowError, SchemaError, ToolServerError):
            raise  # nothing sent, nothing recorded (`nothing_sent`)
        except Exception:
            started = True  # failed before the model was asked: keep the message
            await record(user_event, ctx, sink)
            raise
        started = True
        await record(user_event, ctx, sink)
        await drive(agent.run_async(ctx), ctx, sink)
    except asyncio.CancelledError:
        turn.finish = "cancelled"
        uncancel(invocation.task)  # we cancelled our own task to stop the turn
    except Exception as exc:
        turn.finish, error = "error", exc
    if invocation.cancelled:
        turn.finish = "cancelled"
    trace = InvocationTrace(invocation.invocation_id, tuple(turn.steps))
    if on_steps is not None:
        on_steps(trace)
    return await end_invocation(
        turn,
        ctx,
        sink,
        author=agent.name,
        error=error,
        record_end=started or not nothing_sent(error),
        trace=trace,
        on_end=on_end,
    )


async def end_invocation(
    turn: Turn,
    ctx: InvocationContext,
    sink: Sink,
    *,
    author: str,
    error: BaseException | None,
    record_end: bool = True,
    trace: InvocationTrace | None = None,
    on_end: Callable[[], None] | None = None,
) -> Reply:
    """The one ending of every invocation, a session turn's and direct access's:
    loose ends recorded, then the `TurnComplete` (``record_end``: something was
    sent or recorded), then the stream and the result."""
    invocation = turn.invocation
    assert invocation is not None
    try:
        if record_end:
            await close_loose_ends(ctx, sink)
            finish = turn.finish
            await record(
                TurnComplete(
                    usage=turn.usage,
                    finish_reason=finish,
                    interrupted=finish == "cancelled",
                    error=None if error is None else f"{type(error).__name__}: {error}",
                    max_tokens=turn.max_tokens if finish == "length" else None,
                    trace=trace.to_dict() if trace is not None and trace.shows_anything else None,
                    author=author,
                    invocation_id=invocation.invocation_id,
                ),
                ctx,
                sink,
            )
    except Exception as exc:  # the store itself failed; report that, not a hang
        error = error or exc
    return finish_invocation(
        invocation,
        sink.events[invocation.part_start :],
        usage=turn.usage,
        finish=turn.finish,
        error=error,
        session_id=turn.session_id,
        on_end=on_end,
        structured=turn.structured,
    )
