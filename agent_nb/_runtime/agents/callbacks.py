"""Callbacks with ADK's names and contract, and the contexts they are handed.

Each ``*_callback`` argument takes a function (sync or async) or a list of
them; they are called with keyword arguments of ADK's names, in order, and
the first that returns something other than None wins, and replaces (or
bypasses) what it wraps:

=====================  ======================================  ==========================
callback               called with                             a returned value
=====================  ======================================  ==========================
before_agent           callback_context                        skips the agent; its text
after_agent            callback_context                        an extra last message
before_model           callback_context, llm_request           replaces the model call
after_model            callback_context, llm_response          replaces the response
before_tool            tool, args, tool_context                skips the tool; its result
after_tool             tool, args, tool_context, tool_response replaces the result
=====================  ======================================  ==========================

A model response is a `Content` (text and ``function_call`` parts); a
callback may return a `Content` or a plain ``str``. State written through
``callback_context.state`` travels with the next event, as in ADK.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from ..._core.state import State, apply_delta
from ..._core.tools import ToolContext
from ..._core.types import Content, Event

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = [
    "AgentCallback",
    "CallbackContext",
    "ReadonlyContext",
    "call_first",
    "check_callbacks",
    "replacement_text",
]

AgentCallback: TypeAlias = Callable[..., Any]


class ReadonlyContext:
    """What an instruction provider sees: state (read only) and who is asking."""

    def __init__(self, ctx: InvocationContext, pending: Event | None = None) -> None:
        self._state = ctx.state_view()
        if pending is not None:  # the turn's own state_delta, not recorded yet
            apply_delta(self._state, pending.state_delta)
        self.agent_name = ctx.agent.name
        self.invocation_id = ctx.invocation_id
        self.session_id = ctx.session_id
        self.user_id = ctx.user_id
        self.user_content = ctx.turn.user_content

    @property
    def state(self) -> Mapping[str, Any]:
        import types

        return types.MappingProxyType(self._state)


class CallbackContext(ToolContext):
    """What an agent or model callback sees: a `ToolContext` (state read/write)."""

    @classmethod
    def of(cls, ctx: InvocationContext, state: State | None = None) -> CallbackContext:
        """The context of ``ctx``'s agent; writes go to ``state`` (default: a fresh delta)."""
        return cls(
            state=State(ctx.state_view(), {}) if state is None else state,
            session_id=ctx.session_id,
            invocation_id=ctx.invocation_id,
            user_id=ctx.user_id,
            app_name=ctx.app_name,
            agent_name=ctx.agent.name,
            user_content=ctx.turn.user_content,
        )


def check_callbacks(
    what: str, value: AgentCallback | Sequence[AgentCallback] | None
) -> tuple[AgentCallback, ...]:
    """A callback or a list of them, as a tuple; anything else is refused now."""
    if value is None:
        return ()
    callbacks = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    for callback in callbacks:
        if not callable(callback):
            raise TypeError(
                f"{what} must be a function or a list of functions, got {type(callback).__name__}"
            )
    return callbacks


async def call_first(callbacks: Sequence[AgentCallback], **kwargs: Any) -> Any:
    """Call ``callbacks`` in order, by keyword as ADK does (``callback_context=``,
    ``llm_request=``, ``tool=``...); the first non-None result (awaited if need be)."""
    for callback in callbacks:
        result = callback(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        if result is not None:
            return result
    return None


def replacement_text(value: object) -> str:
    """The text of a callback's replacement reply (`Content` or str)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Content):
        return value.text
    raise TypeError(
        f"a callback that replaces a reply must return a str or a Content, got "
        f"{type(value).__name__}"
    )
