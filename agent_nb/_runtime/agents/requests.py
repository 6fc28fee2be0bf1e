"""What a model agent sends: one `request_for`, one `cache_key`, one `fit`.

Turns, rewinds and branch switches all build an agent's request here, so the
request a KV cache is trimmed to after a rewind is the very one the next turn
sends (same system text, same view of history, same window cut).

* **cache key**: the session's own agent (or a plain one-agent turn) keeps
  the session id; any other agent of a tree uses ``f"{session_id}/{name}"``
  (session ids cannot contain ``/``; names are unique within a tree), so each
  agent keeps its own KV prefix and turn N of a pipeline feeds only its new
  tokens.
* **what it sees**: in a tree, another agent's events come as USER context in
  ADK's wording, and a parallel branch sees no sibling's events
  (`events_to_contents`); ``include_contents="none"`` shows only the current
  turn.
* **system text**: the turn's ``-s`` replaces the instructions of the session's
  own agent only; string instructions are filled from state, an instruction
  provider's result is used as it is (ADK).
* **structure**: the agent's ``output_schema`` becomes the request's
  ``response_schema`` and its ``tool_choice`` the request's; a turn's own
  ``output_schema`` / ``tool_choice`` (the cell's ``--schema``, ``--choice``)
  replace them for the session's own agent only, as ``-s`` does. A forced
  choice (``"required"`` or a name) holds for the first round only: once tools
  have answered, the model may reply in text (OpenAI Agents SDK's
  ``reset_tool_choice``), else it would call tools until ``max_turns``.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from ..._core.history import current_turn_events, events_to_contents
from ..._core.schemas import Schema, as_schema
from ..._core.state import apply_delta, render_instructions
from ..._core.types import Event, GenerateContentRequest
from ..._core.window import Window, fit_window, shown
from ..replay import counter_for
from .callbacks import ReadonlyContext
from .spec import ModelAgentSpec

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = [
    "cache_key",
    "check_schemas",
    "fit",
    "instructions_for",
    "output_schema_for",
    "request_for",
    "shown_request",
]


def cache_key(session_id: str, agent_name: str, session_agent: str, tree: bool) -> str:
    """The KV-cache key of one agent's model calls (see the module docstring)."""
    if not tree or agent_name == session_agent:
        return session_id
    return f"{session_id}/{agent_name}"


def agent_cache_key(agent: ModelAgentSpec, ctx: InvocationContext) -> str:
    turn = ctx.turn
    key = cache_key(turn.session_id, agent.name, turn.session_agent, turn.tree)
    if key != turn.session_id:
        turn.memory.caches[key] = agent  # a rewind or a close reaches it
    return key


def _own(agent: ModelAgentSpec, ctx: InvocationContext) -> bool:
    return agent_cache_key(agent, ctx) == ctx.session_id


async def instructions_for(
    agent: ModelAgentSpec, ctx: InvocationContext, pending: Event | None = None
) -> str | None:
    """An instruction provider's text for this call (None: string instructions);
    ``pending``'s state delta is shown as if recorded."""
    if isinstance(agent.instructions, str):
        return None
    text = agent.instructions(ReadonlyContext(ctx, pending))
    if inspect.isawaitable(text):
        text = await text
    return _checked(agent, text)


def _checked(agent: ModelAgentSpec, text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(
            f"agent {agent.name!r}: the instructions function must return a str, got "
            f"{type(text).__name__}"
        )
    return text


def _system(agent: ModelAgentSpec, ctx: InvocationContext, state: dict[str, Any]) -> str:
    system = ctx.options.system
    if system is not None and _own(agent, ctx):
        return render_instructions(system, state)
    if isinstance(agent.instructions, str):
        return render_instructions(agent.instructions, state)
    text = agent.instructions(ReadonlyContext(ctx))
    if inspect.isawaitable(text):  # outside a turn (a rewind): cannot be awaited here
        close = getattr(text, "close", None)
        if close is not None:
            close()
        raise TypeError("an async instructions function is only called inside a turn")
    return _checked(agent, text)


def output_schema_for(agent: ModelAgentSpec, ctx: InvocationContext) -> Schema | None:
    """The schema ``agent``'s reply must match in this turn (see the module docstring)."""
    turn_schema = ctx.options.output_schema
    if turn_schema is not None and _own(agent, ctx):
        return as_schema("output_schema", turn_schema)
    return agent.output_spec


def _tool_choice(agent: ModelAgentSpec, ctx: InvocationContext, after_tools: bool) -> str:
    choice = ctx.options.tool_choice
    if choice is None or not _own(agent, ctx):
        choice = agent.tool_choice
    if after_tools and choice != "none":
        return "auto"
    return choice


def request_for(
    agent: ModelAgentSpec,
    ctx: InvocationContext,
    *,
    pending: Event | None = None,
    instructions: str | None = None,
    after_tools: bool = False,
) -> GenerateContentRequest:
    """``agent``'s whole request; ``pending`` is shown as if already recorded.

    ``instructions`` is an instruction provider's text already awaited for
    this call (`instructions_for`); ``after_tools``: a round after tools ran
    (a forced ``tool_choice`` no longer holds).
    """
    state = ctx.state_view()
    if pending is not None:
        apply_delta(state, pending.state_delta)  # applied when it is recorded
    events = ctx.history()
    if pending is not None:
        events = [*events, pending]
    tree = ctx.turn.tree
    viewer = agent.name if tree else None
    if agent.include_contents == "none":
        events = current_turn_events(events, agent.name)
    if instructions is not None and not (ctx.options.system is not None and _own(agent, ctx)):
        system = instructions
    else:
        system = _system(agent, ctx, state)
    schema = output_schema_for(agent, ctx)
    return GenerateContentRequest(
        contents=events_to_contents(events, viewer, ctx.branch),
        system_instruction=system,
        tools=[t.spec for t in agent.tools],
        config=ctx.options.config_for(agent.config),
        session_id=ctx.session_id,
        response_schema=None if schema is None else schema.json_schema,
        tool_choice=_tool_choice(agent, ctx, after_tools),
    )


def check_schemas(agent: ModelAgentSpec, ctx: InvocationContext) -> None:
    """Have the backend check ``agent``'s schemas (its reply schema, its tools'
    parameters, its tool choice) before the turn records anything: a
    `SchemaError` there leaves history as it was. The turn checks every model
    agent of its tree this way."""
    schema = output_schema_for(agent, ctx)
    if schema is None and not agent.tools:
        return
    ctx.backend.check_request(
        GenerateContentRequest(
            (),
            tools=[t.spec for t in agent.tools],
            response_schema=None if schema is None else schema.json_schema,
            tool_choice=_tool_choice(agent, ctx, after_tools=False),
        )
    )


def fit(agent: ModelAgentSpec, ctx: InvocationContext, request: GenerateContentRequest) -> Window:
    """Fit ``request`` into the model's window, with the agent's sticky cut."""
    memory = ctx.turn.memory.window_for(agent.name if ctx.turn.tree else None)
    fitted = fit_window(
        request,
        count=counter_for(ctx),
        window=memory.effective(ctx.window),
        policy=ctx.options.context_policy or agent.context_policy,
        start=memory.start,
    )
    memory.start = fitted.omitted
    return fitted


def shown_request(agent: ModelAgentSpec, ctx: InvocationContext) -> GenerateContentRequest:
    """What the next turn would send (a rewind trims a KV cache to it)."""
    memory = ctx.turn.memory.window_for(agent.name if ctx.turn.tree else None)
    return shown(request_for(agent, ctx), memory.start)
