"""`CodeAgent`: a step with no model (ADK's custom agent, as one function).

``fn(ctx)`` (sync or async) gets a `ToolContext`: it reads and writes
``ctx.state`` (``temp:`` included), may call ``ctx.escalate()``, and may
return text, recorded as this agent's message with the state it wrote. A
sync function runs off the worker loop: pandas on a big frame must not stall
other sessions' streams.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

from ..._core.state import State
from ..._core.trace import AgentStep
from ..._core.types import Event, TextMessage
from .base import BaseAgent
from .callbacks import AgentCallback
from .tool_calls import tool_context

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = ["CodeAgent"]


class CodeAgent(BaseAgent):
    """A step with no model: ``fn(ctx)`` reads and writes ``ctx.state`` and may
    return text, recorded as this agent's message."""

    fn: Callable[..., Any]

    def __init__(
        self,
        name: str,
        fn: Callable[..., Any],
        description: str = "",
        *,
        before_agent_callback: AgentCallback | list[AgentCallback] | None = None,
        after_agent_callback: AgentCallback | list[AgentCallback] | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"CodeAgent fn must be a function fn(ctx), got {type(fn).__name__}")
        super().__init__(
            name,
            description=description,
            before_agent_callback=before_agent_callback,
            after_agent_callback=after_agent_callback,
        )
        self._set("fn", fn)

    async def run(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        delta: dict[str, Any] = {}
        reads: set[str] = set()
        context = tool_context(ctx, State(ctx.state_view(), delta, reads))
        error: str | None = None
        try:
            if inspect.iscoroutinefunction(self.fn):
                result = await self.fn(context)
            else:
                result = await asyncio.to_thread(self.fn, context)
            if result is not None and not isinstance(result, str):
                raise TypeError(
                    f"CodeAgent {self.name!r}: fn must return a str (its message) or None, "
                    f"got {type(result).__name__}"
                )
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            ctx.turn.steps.append(AgentStep.of(self.name, "code", reads, delta, error=error))
        if result or delta or context.escalated:
            yield ctx.event(
                TextMessage, text=result or "", state_delta=delta, escalate=context.escalated
            )
