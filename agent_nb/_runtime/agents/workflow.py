"""Workflow agents (ADK's): several agents in one turn, with no model of their own.

* `SequentialAgent` runs its sub-agents in order.
* `ParallelAgent` runs them at once, each on its own branch
  (``ctx.for_branch``): every event of a branch carries ``branch``
  (``"par.a"``), a branch's model never sees a sibling's events, and it reads
  the state as it was when the branch started plus its own writes. When all
  have ended, their writes merge **in ``sub_agents`` order** (on a conflict
  the later-listed branch wins, whatever finished first), carried by one
  event of the parallel agent.
* `LoopAgent` repeats them until an event escalates (``exit_loop``,
  ``tool_context.escalate()``) or ``max_iterations`` rounds have run
  (None: until an escalation, as ADK). As in ADK the check is on the events
  passing through, so the sub-agent that escalated finishes first, and an
  escalation inside a nested loop ends the loops around it too.

Branch events reach the one loop through a queue: each branch waits until the
loop has recorded its event before it goes on (ADK's ``_merge_agent_run``),
so a branch reads its own writes and the recorded order is the one streamed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Iterable
from typing import TYPE_CHECKING, Any

from ..._core.numbers import check_int
from ..._core.trace import AgentStep
from ..._core.types import Event, TextMessage
from .base import BaseAgent
from .callbacks import AgentCallback

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = ["LoopAgent", "ParallelAgent", "SequentialAgent"]


class _Workflow(BaseAgent):
    def __init__(
        self,
        name: str,
        sub_agents: Iterable[BaseAgent],
        description: str = "",
        *,
        before_agent_callback: AgentCallback | list[AgentCallback] | None = None,
        after_agent_callback: AgentCallback | list[AgentCallback] | None = None,
    ) -> None:
        kind = type(self).__name__
        if isinstance(sub_agents, (str, bytes)) or not isinstance(sub_agents, Iterable):
            raise TypeError(f"{kind} sub_agents must be a list of agents")
        subs = tuple(sub_agents)
        if not subs:
            raise ValueError(f"{kind} {name!r} needs at least one sub-agent")
        for sub in subs:
            if not isinstance(sub, BaseAgent):
                raise TypeError(
                    f"{kind} {name!r}: sub_agents must be Agent, SequentialAgent, ParallelAgent, "
                    f"LoopAgent, CodeAgent or DataAgent values, got {type(sub).__name__}"
                )
        super().__init__(
            name,
            description=description,
            sub_agents=subs,
            before_agent_callback=before_agent_callback,
            after_agent_callback=after_agent_callback,
        )
        from .base import check_agent

        check_agent(self)


class SequentialAgent(_Workflow):
    """Run ``sub_agents`` one after another in the same invocation."""

    async def run(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for sub in self.sub_agents:
            async with contextlib.aclosing(sub.run_async(ctx)) as events:
                async for event in events:
                    yield event
            if ctx.cancelled:
                return


class LoopAgent(_Workflow):
    """Run ``sub_agents`` in order, again and again, until an event escalates
    or ``max_iterations`` rounds have run (None: no limit)."""

    max_iterations: int | None

    def __init__(
        self,
        name: str,
        sub_agents: Iterable[BaseAgent],
        max_iterations: int | None = 10,
        description: str = "",
        **callbacks: Any,
    ) -> None:
        if max_iterations is not None:
            max_iterations = check_int(f"LoopAgent {name!r} max_iterations", max_iterations, low=1)
        super().__init__(name, sub_agents, description, **callbacks)
        self._set("max_iterations", max_iterations)

    async def run(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        done = 0
        while self.max_iterations is None or done < self.max_iterations:
            for sub in self.sub_agents:
                escalated = False
                async with contextlib.aclosing(sub.run_async(ctx)) as events:
                    async for event in events:
                        yield event
                        escalated = escalated or event.escalate
                if escalated or ctx.cancelled:
                    return
            done += 1


class ParallelAgent(_Workflow):
    """Run ``sub_agents`` concurrently, each on its own branch; their state
    writes merge in list order."""

    async def run(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        branches = [ctx.for_branch(f"{self.name}.{sub.name}") for sub in self.sub_agents]
        queue: asyncio.Queue[tuple[Event, asyncio.Future[None]] | None] = asyncio.Queue()

        async def run_branch(sub: BaseAgent, branch: InvocationContext) -> None:
            loop = asyncio.get_running_loop()
            try:
                async with contextlib.aclosing(sub.run_async(branch)) as events:
                    async for event in events:
                        recorded = loop.create_future()
                        await queue.put((event, recorded))
                        await recorded  # the loop has applied and stored it
            finally:
                await queue.put(None)

        tasks = [
            asyncio.ensure_future(run_branch(sub, branch))
            for sub, branch in zip(self.sub_agents, branches, strict=True)
        ]
        try:
            running = len(tasks)
            while running:
                item = await queue.get()
                if item is None:
                    running -= 1
                    for task in tasks:
                        if task.done() and not task.cancelled() and task.exception() is not None:
                            raise task.exception()  # type: ignore[misc]
                    continue
                event, recorded = item
                yield event
                recorded.set_result(None)
        finally:  # a failure, a stop or a closed generator: no branch keeps running
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        merged: dict[str, Any] = {}
        for branch in branches:  # the documented order: sub_agents order, later wins
            merged.update(branch.scope.writes)
        if merged:
            ctx.turn.steps.append(AgentStep.of(self.name, "merge", writes=merged))
            yield ctx.event(TextMessage, text="", state_delta=merged)
