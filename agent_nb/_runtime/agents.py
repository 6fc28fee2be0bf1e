"""Running an agent tree inside one invocation.

Every agent of a turn shares the `InvocationContext`: one invocation id, one
cancel token, one ``temp:`` layer, one recorder (each agent writes as its own
``author``) and the turn's usage (each model call adds to it). What differs
per agent is an `_AgentEnv`-level view:

* **cache key**: the session's own agent (or a plain one-agent turn) keeps
  the session id, so a one-agent session behaves exactly as before; any other
  agent of a tree uses ``f"{session_id}/{agent.name}"`` (session ids cannot
  contain ``/``; agent names are unique within a tree). Each agent thus keeps
  its own KV prefix and turn N of a pipeline feeds only its new tokens. The
  session remembers the keys it used, so close/delete/rewind/trim reach them.
* **what it sees**: in a tree, another agent's text comes as USER context
  (``[name] said: ...``), see `events_to_contents`.
* **state scope**: a `Scope` is the state an agent reads and where its writes
  go. The root scope commits at once (``temp:`` into the invocation's layer,
  the rest recorded with the event that carries it). A `ParallelAgent` branch
  and an `AgentTool` run get a child scope: they see the parent's state plus
  their own writes, and their writes are handed up when they end, so the
  merge order is fixed (``sub_agents`` order), never the order they finished.

Each model-agent run closes its own loose ends (streamed text recorded as
interrupted, an open tool call answered) before an error or cancel leaves it,
so parallel branches never leave a function call without its response.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

from .._core.agent import Agent
from .._core.history import events_to_contents
from .._core.reply import final_texts
from .._core.state import TEMP_PREFIX, State, apply_delta, render_instructions, template_keys
from .._core.tools import ToolContext
from .._core.trace import AgentStep, short_value
from .._core.types import Event, GenerateContentRequest, TextMessage, Usage
from .._core.window import Window, WindowMemory, fit_window
from .._core.workflow import AnyAgent, CodeAgent, LoopAgent, ParallelAgent, SequentialAgent
from ..backends import ToolCallChunk
from ..errors import ContextWindowError, MaxTurnsExceededError
from .context import InvocationContext, TurnOptions
from .invocation import Progress, Recorder, stream_model

__all__ = ["AgentEnv", "Scope", "build_request", "run_agent", "tool_result_payload"]


def tool_result_payload(result: Any) -> dict[str, Any]:
    """Tool results travel as JSON objects; anything else is wrapped or stringified."""
    import copy
    import json

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
    viewer: str | None = None,
) -> GenerateContentRequest:
    """The whole history as a request; ``pending`` is appended as if already recorded."""
    delta = {} if pending is None else dict(pending.state_delta)  # applied when recorded
    system = options.system if options.system is not None else agent.instructions
    events = history if pending is None else [*history, pending]
    return GenerateContentRequest(
        contents=events_to_contents(events, viewer),
        system_instruction=render_instructions(system, apply_delta(dict(state), delta)),
        tools=[t.spec for t in agent.tools],
        config=options.config or agent.config,
        session_id=session_id,
    )


class Scope:
    """The state an agent reads, and where its writes go (see the module docstring)."""

    def __init__(self, ctx: InvocationContext, parent: Scope | None = None) -> None:
        self.ctx = ctx
        self.parent = parent
        self.writes: dict[str, Any] = {}

    def view(self) -> dict[str, Any]:
        base = self.parent.view() if self.parent is not None else self.ctx.state()
        return apply_delta(base, self.writes)  # a None write deletes the key

    def commit(self, delta: dict[str, Any]) -> dict[str, Any]:
        """Apply ``delta``; returns what the recorded event must carry (nothing when deferred)."""
        if not delta:
            return {}
        if self.parent is None:
            self.ctx.keep_temp(delta)
            return dict(delta)
        self.writes.update(delta)
        return {}

    def child(self) -> Scope:
        return Scope(self.ctx, self)


@dataclasses.dataclass
class AgentEnv:
    """Where a tree runs: the session's history and recorder, or an AgentTool's own."""

    ctx: InvocationContext
    total: Progress  # the invocation's usage and finish reason
    steps: list[AgentStep]  # the trace, in the order agents finished
    history: Callable[[], list[Event]]
    recorder: Callable[[str], Recorder]
    tree: bool  # more than one agent: per-agent views and cache keys
    window: int | None = None
    first: Window | None = None  # the root agent's first request, fitted before recording

    def cache_key(self, agent: Agent) -> str:
        if not self.tree:
            return self.ctx.session_id
        return self.ctx.cache_key_for(agent)

    def window_memory(self, agent: Agent) -> WindowMemory:
        return self.ctx.window_for(agent.name if self.tree else None)

    def request(
        self, agent: Agent, state: dict[str, Any], pending: Event | None = None
    ) -> GenerateContentRequest:
        options = self.ctx.options
        if self.tree and self.cache_key(agent) != self.ctx.session_id:
            options = dataclasses.replace(options, system=None)  # -s is the session agent's
        return build_request(
            history=self.history(),
            state=state,
            agent=agent,
            options=options,
            session_id=self.ctx.session_id,
            pending=pending,
            viewer=agent.name if self.tree else None,
        )

    def fit(self, agent: Agent, request: GenerateContentRequest) -> Window:
        memory = self.window_memory(agent)
        fitted = fit_window(
            request,
            count=self.ctx.backend().count_tokens,
            window=memory.effective(self.window),
            policy=self.ctx.options.context_policy or agent.context_policy,
            start=memory.start,
        )
        memory.start = fitted.omitted
        return fitted


async def run_agent(node: AnyAgent, env: AgentEnv, scope: Scope) -> bool:
    """Run ``node`` and its sub-agents; True when one escalated (stop the enclosing loop)."""
    if env.ctx.cancelled:
        env.total.finish = "cancelled"
        return False
    if isinstance(node, Agent):
        return await _run_model_agent(node, env, scope)
    if isinstance(node, CodeAgent):
        return await _run_code_agent(node, env, scope)
    if isinstance(node, LoopAgent):
        for _ in range(node.max_iterations):
            for sub in node.sub_agents:
                if await run_agent(sub, env, scope):
                    return False  # escalation ends this loop, not the ones around it
                if env.total.finish == "cancelled":
                    return False
        return False
    if isinstance(node, ParallelAgent):
        return await _run_parallel(node, env, scope)
    if isinstance(node, SequentialAgent):
        for sub in node.sub_agents:
            if await run_agent(sub, env, scope):
                return True
            if env.total.finish == "cancelled":
                return False
        return False
    raise TypeError(f"cannot run {type(node).__name__}")


async def _run_parallel(node: ParallelAgent, env: AgentEnv, scope: Scope) -> bool:
    branches = [scope.child() for _ in node.sub_agents]
    tasks = [
        asyncio.ensure_future(run_agent(sub, env, branch))
        for sub, branch in zip(node.sub_agents, branches, strict=True)
    ]
    try:
        await asyncio.gather(*tasks)
    except BaseException:  # the first failure ends the invocation: stop the other branches
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    merged: dict[str, Any] = {}
    for branch in branches:  # the documented order: sub_agents order, later wins
        merged.update(branch.writes)
    if merged:
        carried = scope.commit(merged)
        if any(not k.startswith(TEMP_PREFIX) for k in carried):
            env.recorder(node.name).text("", state_delta=carried)
        env.steps.append(AgentStep(node.name, "merge", writes=_shorts(merged)))
    return any(t.result() for t in tasks)


def _shorts(delta: dict[str, Any]) -> dict[str, str]:
    return {k: short_value(v) for k, v in delta.items()}


def _tool_context(env: AgentEnv, agent_name: str, state: State) -> ToolContext:
    ctx = env.ctx
    return ToolContext(
        state=state,
        session_id=ctx.session_id,
        invocation_id=ctx.invocation_id,
        user_id=ctx.user_id,
        app_name=ctx.app_name,
        agent_name=agent_name,
        user_content=ctx.user_content,
    )


async def _run_code_agent(node: CodeAgent, env: AgentEnv, scope: Scope) -> bool:
    delta: dict[str, Any] = {}
    reads: set[str] = set()
    context = _tool_context(env, node.name, State(scope.view(), delta, reads))
    error: str | None = None
    try:
        if inspect.iscoroutinefunction(node.fn):
            result = await node.fn(context)
        else:  # pandas on a big frame must not stall other sessions' streaming
            result = await asyncio.to_thread(node.fn, context)
        if result is not None and not isinstance(result, str):
            raise TypeError(
                f"CodeAgent {node.name!r}: fn must return a str (its message) or None, "
                f"got {type(result).__name__}"
            )
        carried = scope.commit(delta)
        if result or any(not k.startswith(TEMP_PREFIX) for k in carried):
            env.recorder(node.name).text(result or "", state_delta=carried)
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        env.steps.append(
            AgentStep(node.name, "code", tuple(sorted(reads)), _shorts(delta), error=error)
        )
    return context.escalated


async def _run_tool(
    env: AgentEnv, agent: Agent, scope: Scope, call: ToolCallChunk, reads: set[str]
) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """Run one tool; returns (response payload, state delta it wrote, escalated)."""
    if call.error is not None:
        return {"error": call.error}, {}, False
    tool = agent.tool(call.name)
    if tool is None:
        names = ", ".join(t.name for t in agent.tools) or "none"
        return {"error": f"unknown tool {call.name!r}; available tools: {names}"}, {}, False
    if tool.agent is not None:
        return await _run_agent_tool(tool.agent, env, scope, call)
    delta: dict[str, Any] = {}
    context = _tool_context(env, agent.name, State(scope.view(), delta, reads))
    try:
        result = await tool.call(call.args, context)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the model sees the failure and may recover
        return {"error": f"{type(exc).__name__}: {exc}"}, delta, context.escalated
    return tool_result_payload(result), delta, context.escalated


async def _run_agent_tool(
    sub: AnyAgent, env: AgentEnv, scope: Scope, call: ToolCallChunk
) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """An `AgentTool`: the agent answers ``request`` with the caller's state, off the record."""
    request = call.args.get("request")
    if not isinstance(request, str) or not request.strip():
        return {"error": "call this agent with {'request': 'what to ask'}"}, {}, False
    events: list[Event] = []
    question = TextMessage(text=request, author="user", invocation_id=env.ctx.invocation_id)
    root = env.ctx.recorder
    inner = dataclasses.replace(
        env,
        history=lambda: [question, *events],
        recorder=lambda name: root.detached(name, events),
        tree=True,
        first=None,
    )
    child = scope.child()
    escalated = await run_agent(sub, inner, child)
    texts = final_texts(events)
    return {"result": texts[-1] if texts else ""}, dict(child.writes), escalated


async def _run_model_agent(agent: Agent, env: AgentEnv, scope: Scope) -> bool:
    ctx = env.ctx
    rec = env.recorder(agent.name)
    progress = Progress()
    reads: set[str] = set()
    writes: dict[str, Any] = {}
    escalated = False
    error: str | None = None
    backend = ctx.backend()
    fitted, env.first = env.first, None
    try:
        for _ in range(agent.max_turns):
            state = scope.view()
            reads.update(k for k in template_keys(agent.instructions) if k in state)
            if fitted is None:
                fitted = env.fit(agent, env.request(agent, state))
            calls: list[ToolCallChunk] = []
            try:
                await stream_model(
                    backend, fitted.request, cache=env.cache_key(agent), rec=rec,
                    progress=progress, on_call=calls.append,
                )  # fmt: skip
            except ContextWindowError as exc:
                if exc.sent:  # the server counted more than we did: fit tighter next turn
                    env.window_memory(agent).learn(exc, env.window)
                raise
            finally:  # an interrupted call too: what the model saw is what it read and wrote
                progress.usage = _windowed(progress.usage, fitted, progress.call_generated)
            fitted = None
            cancelled = progress.finish == "cancelled"
            if cancelled or not calls:
                text = "".join(progress.text)
                key = agent.output_key
                delta: dict[str, Any] = {key: text} if key and text and not cancelled else {}
                writes.update(delta)
                progress.flush_text(rec, interrupted=cancelled, state_delta=scope.commit(delta))
                return escalated
            progress.flush_text(rec, interrupted=False)
            for call in calls:
                progress.open_call = rec.call(call)
                response, wrote, esc = await _run_tool(env, agent, scope, call, reads)
                escalated = escalated or esc
                writes.update(wrote)
                rec.response(call, response, scope.commit(wrote))
                progress.open_call = None
                if ctx.cancelled:
                    progress.finish = "cancelled"
                    return escalated
        raise MaxTurnsExceededError(
            f"agent {agent.name!r} called tools for {agent.max_turns} rounds without a "
            "final answer; raise Agent(max_turns=...) or make the tools' results clearer"
        )
    except BaseException as exc:
        error = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, asyncio.CancelledError):
            progress.finish = "cancelled"
        # Close this agent's loose ends here: a sibling branch may still be running.
        progress.flush_text(rec, interrupted=True)
        if progress.open_call is not None:
            rec.response(progress.open_call, {"error": "cancelled before the tool finished"})
            progress.open_call = None
        raise
    finally:
        env.total.usage = env.total.usage + progress.usage
        env.total.max_tokens = progress.max_tokens
        if env.total.finish != "cancelled":
            env.total.finish = progress.finish
        env.steps.append(
            AgentStep(
                agent.name, "model", tuple(sorted(reads)), _shorts(writes), progress.usage, error
            )
        )


def _windowed(usage: Usage, fitted: Window, generated: int) -> Usage:
    """The context figure is the prompt plus what the model wrote after it."""
    return dataclasses.replace(
        usage,
        context_tokens=fitted.tokens + generated,
        context_window=fitted.window,
        omitted_turns=fitted.omitted,
    )
