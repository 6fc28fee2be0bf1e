"""One turn: user message -> model <-> tools rounds -> final text -> TurnComplete.

Runs on the worker loop. Whatever happens (cancel, backend failure, a tool
loop that never ends), the turn finishes by recording a `TurnComplete`, so
history never holds a function call without its response and never loses the
user's message.
"""

from __future__ import annotations

import asyncio
import copy
from typing import TYPE_CHECKING, Any

from ._reply import Reply
from ._state import TEMP_PREFIX, State, render_instructions
from ._tools import ToolContext
from ._types import (
    Event,
    FinishReason,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    TextMessage,
    TurnComplete,
    Usage,
)
from .backends import Finish, TextDelta, ToolCallChunk
from .errors import AgentError, MaxTurnsExceededError

if TYPE_CHECKING:
    from ._agent import Agent
    from ._session import AgentSession, TurnOptions, _ActiveTurn
    from .backends import Backend
    from .stores import SessionRecord, SessionStore

__all__ = ["close_unfinished_turn", "run_turn", "tool_result_payload"]


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
        import json

        json.dumps(payload)
        return copy.deepcopy(payload)
    except (TypeError, ValueError):
        return {"result": repr(result)}


class _TurnRecorder:
    """Records events into the session and pushes them to stream and listeners."""

    def __init__(self, session: AgentSession, turn: _ActiveTurn, author: str) -> None:
        self.session = session
        self.turn = turn
        self.author = author
        self.events: list[Event] = []

    def emit(self, event: Event, *, store: bool = True) -> Event:
        if store:
            event = self.session._record_event(event)
            self.events.append(event)
        self.turn.stream.push(event)
        self.session._notify(event)
        return event


async def _one_model_call(
    backend: Backend,
    request: GenerateContentRequest,
    session: AgentSession,
    turn: _ActiveTurn,
    rec: _TurnRecorder,
    text: list[str],
    calls: list[ToolCallChunk],
) -> Finish:
    finish = Finish()
    cache = session.id if backend.supports_prompt_cache else None
    async for chunk in backend.stream(request, cache=cache, cancel=turn.cancel_token):
        if isinstance(chunk, TextDelta):
            if chunk.text:
                text.append(chunk.text)
                rec.emit(
                    TextMessage(
                        text=chunk.text,
                        is_partial=True,
                        author=rec.author,
                        invocation_id=turn.invocation_id,
                    ),
                    store=False,
                )
        elif isinstance(chunk, ToolCallChunk):
            calls.append(chunk)
        elif isinstance(chunk, Finish):
            finish = chunk
    return finish


def build_request(
    session: AgentSession, agent: Agent, options: TurnOptions, temp: dict[str, Any]
) -> GenerateContentRequest:
    from ._history import events_to_contents

    state = {**session.state, **temp}
    system = options.system if options.system is not None else agent.instructions
    return GenerateContentRequest(
        contents=events_to_contents(session._record.events),
        system_instruction=render_instructions(system, state),
        tools=[t.spec for t in agent.tools],
        config=options.config or agent.config,
        session_id=session.id,
    )


async def _run_tool(
    session: AgentSession,
    agent: Agent,
    turn: _ActiveTurn,
    call: ToolCallChunk,
    temp: dict[str, Any],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run one tool; returns (response payload, state delta it wrote)."""
    if call.error is not None:
        return {"error": call.error}, {}
    tool = agent.tool(call.name)
    if tool is None:
        names = ", ".join(t.name for t in agent.tools) or "none"
        return {"error": f"unknown tool {call.name!r}; available tools: {names}"}, {}
    delta: dict[str, Any] = {}
    state = State({**session.state, **temp}, delta)
    context = ToolContext(
        state=state,
        session_id=session.id,
        invocation_id=turn.invocation_id,
        user_id=session.user_id,
        app_name=session.runner.app_name,
    )
    try:
        result = await tool.call(call.args, context)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the model sees the failure and may recover
        return {"error": f"{type(exc).__name__}: {exc}"}, delta
    return tool_result_payload(result), delta


async def run_turn(
    session: AgentSession, turn: _ActiveTurn, user_event: TextMessage, options: TurnOptions
) -> Reply:
    turn.task = asyncio.current_task()
    session.last_options = options
    agent = options.agent or session.agent
    rec = _TurnRecorder(session, turn, agent.name)
    usage = Usage()
    finish: FinishReason = "stop"
    error: BaseException | None = None
    text: list[str] = []
    open_call: FunctionCall | None = None
    temp: dict[str, Any] = {
        k: v for k, v in user_event.state_delta.items() if k.startswith(TEMP_PREFIX)
    }
    try:
        rec.emit(user_event)
        backend = session._backend_for(options)
        for _ in range(agent.max_turns):
            text = []
            calls: list[ToolCallChunk] = []
            request = build_request(session, agent, options, temp)
            result = await _one_model_call(backend, request, session, turn, rec, text, calls)
            usage = usage + result.usage
            finish = result.finish_reason
            if turn.cancel_token.is_set():
                finish = "cancelled"
            if text:
                rec.emit(
                    TextMessage(
                        text="".join(text),
                        author=agent.name,
                        invocation_id=turn.invocation_id,
                        interrupted=finish == "cancelled",
                    )
                )
                text = []
            if finish == "cancelled" or not calls:
                break
            for call in calls:
                open_call = FunctionCall(
                    name=call.name,
                    args=call.args,
                    call_id=call.call_id,
                    author=agent.name,
                    invocation_id=turn.invocation_id,
                )
                rec.emit(open_call)
                response, delta = await _run_tool(session, agent, turn, call, temp)
                temp.update({k: v for k, v in delta.items() if k.startswith(TEMP_PREFIX)})
                rec.emit(
                    FunctionResponse(
                        name=call.name,
                        response=response,
                        call_id=call.call_id,
                        author=agent.name,
                        invocation_id=turn.invocation_id,
                        state_delta=delta,
                    )
                )
                open_call = None
                if turn.cancel_token.is_set():
                    finish = "cancelled"
                    break
            if finish == "cancelled":
                break
        else:
            raise MaxTurnsExceededError(
                f"agent {agent.name!r} called tools for {agent.max_turns} rounds without a "
                "final answer; raise Agent(max_turns=...) or make the tools' results clearer"
            )
    except asyncio.CancelledError:
        finish = "cancelled"
        # We cancelled our own task to stop the turn; the turn ends normally.
        uncancel = getattr(asyncio.current_task(), "uncancel", None)  # Python >= 3.11
        if uncancel is not None:
            uncancel()
    except (AgentError, KeyError, ValueError, TypeError) as exc:
        finish, error = "error", exc
    except Exception as exc:
        finish, error = "error", exc
    try:
        if text:  # cut off mid-stream: keep what the user already saw
            rec.emit(
                TextMessage(
                    text="".join(text),
                    author=agent.name,
                    invocation_id=turn.invocation_id,
                    interrupted=True,
                )
            )
        if open_call is not None:
            rec.emit(
                FunctionResponse(
                    name=open_call.name,
                    response={"error": "cancelled before the tool finished"},
                    call_id=open_call.call_id,
                    author=agent.name,
                    invocation_id=turn.invocation_id,
                )
            )
        rec.emit(
            TurnComplete(
                usage=usage,
                finish_reason=finish,
                interrupted=finish == "cancelled",
                error=None if error is None else f"{type(error).__name__}: {error}",
                max_tokens=(options.config or agent.config).max_tokens
                if finish == "length"
                else None,
                author=agent.name,
                invocation_id=turn.invocation_id,
            )
        )
    except Exception as exc:  # the store itself failed; report that, not a hang
        error = error or exc
    final = [e for e in rec.events if isinstance(e, TextMessage) and e.author != "user"]
    reply = Reply(
        text=final[-1].text if final else "",
        events=tuple(rec.events),
        usage=usage,
        finish_reason=finish,
        session_id=session.id,
        invocation_id=turn.invocation_id,
    )
    session._finish_turn(turn)
    if session.ephemeral:
        session.runner._discard_ephemeral(session)
    turn.stream.finish(error)
    if error is not None:
        turn.future.set_exception(error)
    else:
        turn.future.set_result(reply)
    return reply
