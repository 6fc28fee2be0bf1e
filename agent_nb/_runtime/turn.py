"""One turn: user message -> model <-> tools rounds -> final text -> TurnComplete.

Runs on the worker loop. Whatever happens (cancel, backend failure, a tool
loop that never ends), the turn finishes by recording a `TurnComplete`, so
history never holds a function call without its response and never loses the
user's message.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from collections.abc import Callable
from typing import Any

from .._core.agent import Agent
from .._core.history import events_to_contents
from .._core.reply import Reply
from .._core.state import State, apply_delta, render_instructions
from .._core.tools import ToolContext
from .._core.types import (
    Event,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    TextMessage,
    TurnComplete,
    Usage,
)
from .._core.window import Window, fit_window
from ..backends import ToolCallChunk
from ..errors import ContextWindowError, MaxTurnsExceededError
from ..stores import SessionRecord, SessionStore
from .context import InvocationContext, TurnOptions
from .invocation import Progress, run_invocation, stream_model

__all__ = [
    "build_request",
    "close_unfinished_turn",
    "context_request",
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


def tool_result_payload(result: Any) -> dict[str, Any]:
    """Tool results travel as JSON objects; anything else is wrapped or stringified."""
    payload = result if isinstance(result, dict) else {"result": result}
    try:
        json.dumps(payload)
        return copy.deepcopy(payload)
    except (TypeError, ValueError):
        return {"result": repr(result)}


def build_request(
    *,
    history: list[Event],
    state: dict[str, Any],
    agent: Agent,
    options: TurnOptions,
    session_id: str,
    pending: Event | None = None,
) -> GenerateContentRequest:
    """The whole history as a request; ``pending`` is appended as if already recorded."""
    delta = {} if pending is None else dict(pending.state_delta)  # applied when recorded
    system = options.system if options.system is not None else agent.instructions
    events = history if pending is None else [*history, pending]
    return GenerateContentRequest(
        contents=events_to_contents(events),
        system_instruction=render_instructions(system, apply_delta(dict(state), delta)),
        tools=[t.spec for t in agent.tools],
        config=options.config or agent.config,
        session_id=session_id,
    )


def context_request(ctx: InvocationContext, pending: Event | None = None) -> GenerateContentRequest:
    """`build_request` for the running turn: its history, state (``temp:`` on top), agent."""
    return build_request(
        history=ctx.history(),
        state=ctx.state(),
        agent=ctx.agent,
        options=ctx.options,
        session_id=ctx.session_id,
        pending=pending,
    )


async def _run_tool(
    ctx: InvocationContext, call: ToolCallChunk
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run one tool; returns (response payload, state delta it wrote)."""
    if call.error is not None:
        return {"error": call.error}, {}
    tool = ctx.agent.tool(call.name)
    if tool is None:
        names = ", ".join(t.name for t in ctx.agent.tools) or "none"
        return {"error": f"unknown tool {call.name!r}; available tools: {names}"}, {}
    delta: dict[str, Any] = {}
    context = ToolContext(
        state=State(ctx.state(), delta),
        session_id=ctx.session_id,
        invocation_id=ctx.invocation_id,
        user_id=ctx.user_id,
        app_name=ctx.app_name,
    )
    try:
        result = await tool.call(call.args, context)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the model sees the failure and may recover
        return {"error": f"{type(exc).__name__}: {exc}"}, delta
    return tool_result_payload(result), delta


# -- context window ---------------------------------------------------


def _fit(ctx: InvocationContext, request: GenerateContentRequest, window: int | None) -> Window:
    """Fit ``request`` to the window with the session's sticky cut (see `_core.window`)."""
    fitted = fit_window(
        request,
        count=ctx.backend().count_tokens,
        window=ctx.window.effective(window),
        policy=ctx.policy,
        start=ctx.window.start,
    )
    ctx.window.start = fitted.omitted
    return fitted


def _windowed(usage: Usage, fitted: Window, generated: int) -> Usage:
    """The context figure is the prompt plus what the model wrote after it."""
    return dataclasses.replace(
        usage,
        context_tokens=fitted.tokens + generated,
        context_window=fitted.window,
        omitted_turns=fitted.omitted,
    )


async def run_turn(
    ctx: InvocationContext, user_event: TextMessage, on_end: Callable[[], None]
) -> Reply:
    """The turn on the worker: user message, model <-> tool rounds, final text.

    ``on_end`` runs after the last event is recorded (the session frees its
    busy flag there).
    """
    agent, rec = ctx.agent, ctx.recorder
    ctx.keep_temp(user_event.state_delta)

    async def body(progress: Progress) -> None:
        try:
            backend = ctx.backend()
            window = await backend.resolve_context_window()
            # Fit the request as if the message were recorded, and only then
            # record it, so a turn that cannot fit leaves history as it was.
            fitted: Window | None = _fit(ctx, context_request(ctx, user_event), window)
        except ContextWindowError:
            raise  # nothing sent, nothing recorded
        except Exception:
            rec.emit(user_event)  # failed before the model was asked: keep the message
            raise
        rec.emit(user_event)
        for _ in range(agent.max_turns):
            calls: list[ToolCallChunk] = []
            if fitted is None:  # a later tool round: the request grew
                fitted = _fit(ctx, context_request(ctx), window)
            try:
                await stream_model(
                    backend, fitted.request, cache=ctx.session_id, rec=rec, progress=progress,
                    on_call=calls.append,
                )  # fmt: skip
            except ContextWindowError as exc:
                if exc.sent:  # the server counted more than we did: fit tighter next turn
                    ctx.window.learn(exc, window)
                raise
            finally:  # an interrupted call too: what the model saw is what it read and wrote
                progress.usage = _windowed(progress.usage, fitted, progress.call_generated)
            fitted = None
            progress.flush_text(rec, interrupted=progress.finish == "cancelled")
            if progress.finish == "cancelled" or not calls:
                return
            for call in calls:
                progress.open_call = rec.call(call)
                response, delta = await _run_tool(ctx, call)
                ctx.keep_temp(delta)
                rec.response(call, response, delta)
                progress.open_call = None
                if ctx.cancelled:
                    progress.finish = "cancelled"
                    return
        raise MaxTurnsExceededError(
            f"agent {agent.name!r} called tools for {agent.max_turns} rounds without a "
            "final answer; raise Agent(max_turns=...) or make the tools' results clearer"
        )

    return await run_invocation(rec, body, session_id=ctx.session_id, on_end=on_end)
