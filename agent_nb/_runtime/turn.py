"""One turn: user message -> the agent tree (model <-> tools rounds) -> TurnComplete.

Runs on the worker loop. Whatever happens (cancel, backend failure, a tool
loop that never ends), the turn finishes by recording a `TurnComplete`, so
history never holds a function call without its response and never loses the
user's message.
"""

from __future__ import annotations

from collections.abc import Callable

from .._core.agent import Agent
from .._core.reply import Reply
from .._core.trace import InvocationTrace
from .._core.types import (
    FunctionCall,
    FunctionResponse,
    TextMessage,
    TurnComplete,
)
from ..errors import ContextWindowError
from ..stores import SessionRecord, SessionStore
from .agents import AgentEnv, Scope, build_request, run_agent, tool_result_payload
from .context import InvocationContext
from .invocation import Progress, run_invocation

__all__ = [
    "build_request",
    "close_unfinished_turn",
    "run_turn",
    "tool_result_payload",
]


def close_unfinished_turn(store: SessionStore, record: SessionRecord) -> None:
    """Finish a stored turn that a dead kernel left open (persistent stores only).

    A kernel killed mid-turn leaves a prefix of that turn: maybe a function
    call without its response, and no `TurnComplete`. Recording the missing
    pieces keeps the rule that no call is ever left unanswered.
    """
    events = record.events
    if not events or isinstance(events[-1], TurnComplete):
        return
    invocation_id = events[-1].invocation_id
    answered = {e.call_id for e in events if isinstance(e, FunctionResponse)}
    reason = "the kernel stopped before this turn finished"
    for event in [e for e in events if e.invocation_id == invocation_id]:
        if isinstance(event, FunctionCall) and event.call_id not in answered:
            store.append_event(
                record,
                FunctionResponse(
                    name=event.name,
                    response={"error": reason},
                    call_id=event.call_id,
                    author=event.author,
                    invocation_id=invocation_id,
                ),
            )
    store.append_event(
        record,
        TurnComplete(
            finish_reason="error", interrupted=True, error=reason, invocation_id=invocation_id
        ),
    )


async def run_turn(
    ctx: InvocationContext,
    user_event: TextMessage,
    on_end: Callable[[], None],
    on_steps: Callable[[InvocationTrace], None] | None = None,
) -> Reply:
    """The turn on the worker: user message, then the agent tree (see `agents`).

    ``on_steps`` gets the turn's trace once every agent has finished, before
    the `TurnComplete` (which stores it when it shows anything) is recorded, so a listener that sees
    the turn end can already read its trace. ``on_end`` runs after the last
    event is recorded (the session frees its busy flag there).
    """
    agent, rec = ctx.agent, ctx.recorder
    ctx.keep_temp(user_event.state_delta)
    ctx.user_content = user_event.text
    tree = not isinstance(agent, Agent) or bool(agent.sub_agents)

    async def body(progress: Progress) -> None:
        env = AgentEnv(
            ctx, progress, ctx.steps, history=ctx.history, recorder=rec.as_author, tree=tree
        )
        try:
            backend = ctx.backend()
            env.window = await backend.resolve_context_window()
            if isinstance(agent, Agent):
                # Fit the request as if the message were recorded, and only then
                # record it, so a turn that cannot fit leaves history as it was.
                env.first = env.fit(agent, env.request(agent, ctx.state(), user_event))
        except ContextWindowError:
            raise  # nothing sent, nothing recorded
        except Exception:
            rec.emit(user_event)  # failed before the model was asked: keep the message
            progress.started = True
            raise
        rec.emit(user_event)
        progress.started = True
        try:
            await run_agent(agent, env, Scope(ctx))
        finally:
            trace = InvocationTrace(ctx.invocation_id, tuple(ctx.steps))
            progress.trace = trace.to_dict() if trace.shows_anything else None
            if on_steps is not None:
                on_steps(trace)

    return await run_invocation(rec, body, session_id=ctx.session_id, on_end=on_end)
