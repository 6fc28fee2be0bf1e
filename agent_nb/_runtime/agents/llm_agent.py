"""`Agent`: a model agent (ADK's ``LlmAgent``): instructions, tools, sampling.

Its `run` is ADK's flow: rounds of one model call and the tools it asks
for, until the model answers in text, a tool ends the run
(``skip_summarization``, as `exit_loop` does), or ``max_turns`` rounds have
run (`MaxTurnsExceededError`). Each round yields the model's
partial text, then its final message or its function calls and their
responses. The model callbacks wrap each call and the tool callbacks each
tool (`callbacks`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ..._core.numbers import check_int
from ..._core.reply import Structured
from ..._core.schemas import Schema
from ..._core.state import check_state_key, template_keys
from ..._core.tools import Tool, as_tool
from ..._core.toolsets import Toolset
from ..._core.trace import AgentStep, tool_label
from ..._core.types import (
    Content,
    Event,
    FunctionCall,
    FunctionResponse,
    GenerationConfig,
    TextMessage,
    Usage,
    check_tool_choice,
)
from ..._core.window import ContextPolicy, Window, check_policy
from ...backends import ToolCallChunk
from ...backends.structured import checked_schema
from ...errors import ContextWindowError, MaxTurnsExceededError
from ..replay import replay_for
from .agent_tool import AgentTool
from .base import BaseAgent
from .callbacks import AgentCallback, CallbackContext, call_first, check_callbacks, replacement_text
from .model_call import ModelCall
from .requests import agent_cache_key, fit, instructions_for, output_schema_for, request_for
from .tool_calls import approval_for, run_tool

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = ["Agent", "IncludeContents"]

IncludeContents: TypeAlias = Literal["default", "none"]
Instructions: TypeAlias = "str | Callable[..., Any]"
_Callbacks: TypeAlias = "AgentCallback | list[AgentCallback] | None"


class Agent(BaseAgent):
    """What answers in a session.

    ``instructions`` is a string that may reference state (``"Reply in
    {user:language}"``), or a function of a `ReadonlyContext` returning the
    text (sync or async; its text is used as it is). ``max_turns`` bounds
    model<->tool rounds in one turn. ``context_policy`` says what happens
    when the history outgrows the model's window: ``"window"`` leaves the
    oldest whole turns out of what the model is shown (history keeps them),
    ``"error"`` raises `ContextWindowError`. ``include_contents="none"``
    shows the model only the current turn (ADK).

    ``output_schema`` (a pydantic model class or a JSON-schema dict) makes
    the reply one JSON value of that schema (decoded under its grammar on
    MLX, ``response_format`` on a server); `Reply.parsed` is the validated
    value and ``output_key`` stores its JSON. ``tool_choice`` is OpenAI's
    ``"auto" | "required" | "none" | NAME``; a forced one holds for the first
    round of a turn. ``input_schema`` is what an `AgentTool` of this agent
    takes as its arguments (ADK).
    """

    instructions: Instructions
    toolsets: tuple[Toolset, ...]
    _own_tools: tuple[Tool, ...]
    max_turns: int
    config: GenerationConfig
    context_policy: ContextPolicy
    output_key: str | None
    include_contents: IncludeContents
    output_schema: Any  # as given: a pydantic model class, a JSON-schema dict or None
    input_schema: Any
    output_spec: Schema | None  # output_schema as a Schema
    input_spec: Schema | None
    tool_choice: str
    before_model_callback: tuple[AgentCallback, ...]
    after_model_callback: tuple[AgentCallback, ...]
    before_tool_callback: tuple[AgentCallback, ...]
    after_tool_callback: tuple[AgentCallback, ...]

    def __init__(
        self,
        name: str = "assistant",
        instructions: Instructions = "",
        tools: Iterable[Callable[..., Any] | Tool | AgentTool | Toolset] = (),
        max_turns: int = 10,
        config: GenerationConfig | None = None,
        context_policy: ContextPolicy = "window",
        output_key: str | None = None,
        *,
        description: str = "",
        include_contents: IncludeContents = "default",
        output_schema: Any = None,
        input_schema: Any = None,
        tool_choice: str = "auto",
        before_agent_callback: _Callbacks = None,
        after_agent_callback: _Callbacks = None,
        before_model_callback: _Callbacks = None,
        after_model_callback: _Callbacks = None,
        before_tool_callback: _Callbacks = None,
        after_tool_callback: _Callbacks = None,
    ) -> None:
        if not isinstance(instructions, str) and not callable(instructions):
            raise TypeError(
                "instructions must be a str (it may use {state} keys) or a function of the "
                f"context returning one, got {type(instructions).__name__}"
            )
        if config is not None and not isinstance(config, GenerationConfig):
            raise TypeError(f"config must be a GenerationConfig, got {type(config).__name__}")
        if include_contents not in ("default", "none"):
            raise ValueError(
                f"include_contents must be 'default' or 'none', got {include_contents!r}"
            )
        if output_key is not None:
            check_state_key("output_key", output_key)
        given = list(tools)
        toolsets = tuple(t for t in given if isinstance(t, Toolset))
        built = tuple(
            t.tool() if isinstance(t, AgentTool) else as_tool(t)
            for t in given
            if not isinstance(t, Toolset)
        )
        names = [t.name for t in built]
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique, got {names}")
        super().__init__(
            name,
            description=description,
            sub_agents=tuple(t.agent for t in built if t.agent is not None),
            before_agent_callback=before_agent_callback,
            after_agent_callback=after_agent_callback,
        )
        self._set("instructions", instructions)
        self._set("_own_tools", built)
        self._set("toolsets", toolsets)
        self._set("max_turns", check_int("max_turns", max_turns, low=1))
        self._set("config", config or GenerationConfig())
        self._set("context_policy", check_policy(context_policy))
        self._set("output_key", output_key)
        self._set("include_contents", include_contents)
        self._set("output_schema", output_schema)
        self._set("input_schema", input_schema)
        self._set("output_spec", checked_schema("output_schema", output_schema))
        self._set("input_spec", checked_schema("input_schema", input_schema))
        # A toolset's tools are known once a turn lists them (`list_toolsets` checks then).
        self._set("tool_choice", check_tool_choice(tool_choice, None if toolsets else names))
        for what, value in (
            ("before_model_callback", before_model_callback),
            ("after_model_callback", after_model_callback),
            ("before_tool_callback", before_tool_callback),
            ("after_tool_callback", after_tool_callback),
        ):
            self._set(what, check_callbacks(what, value))

    @property
    def tools(self) -> tuple[Tool, ...]:
        """Its Python tools, then each toolset's latest listing (`list_toolsets`)."""
        listed = tuple(t for toolset in self.toolsets for t in toolset.tools)
        return self._own_tools + listed if listed else self._own_tools

    def with_tools(self, tools: Iterable[Callable[..., Any] | Tool | Toolset]) -> Agent:
        """This agent with ``tools`` added for one turn (``%%agent --tools``,
        ``ChatWidget(tools=...)``): the same name, instructions, settings and
        callbacks, so the same KV cache and the same history view."""
        extra = list(tools)
        if not extra:
            return self
        toolsets = tuple(t for t in extra if isinstance(t, Toolset))
        built = tuple(as_tool(t) for t in extra if not isinstance(t, Toolset))
        own = self._own_tools + built
        names = [t.name for t in own]
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique, got {names}")
        more = tuple(t for t in toolsets if all(t is not have for have in self.toolsets))
        turn = copy.copy(self)  # an agent is immutable: the copy shares the rest
        object.__setattr__(turn, "_own_tools", own)
        object.__setattr__(turn, "toolsets", self.toolsets + more)
        return turn

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    async def run(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        reads: set[str] = set()
        writes: dict[str, Any] = {}
        called: list[str] = []
        usage = Usage()
        error: str | None = None
        try:
            for round_number in range(self.max_turns):
                if isinstance(self.instructions, str):
                    reads.update(
                        k for k in template_keys(self.instructions) if k in ctx.state_view()
                    )
                fitted, ctx.turn.prefit = ctx.turn.prefit, None
                if fitted is None:
                    text = await instructions_for(self, ctx)
                    request = request_for(
                        self, ctx, instructions=text, after_tools=round_number > 0
                    )
                    fitted = fit(self, ctx, request)
                answer = _ModelResponse()
                try:
                    async for event in self._answer(ctx, fitted, answer):
                        yield event
                finally:
                    usage = usage + answer.usage
                if answer.finish == "cancelled" or not answer.calls:
                    final = self._final(ctx, answer)
                    if final is not None:
                        writes.update(final.state_delta)
                        yield final
                    return
                if answer.text:
                    yield ctx.event(TextMessage, text=answer.text)
                stop = False
                for call in answer.calls:
                    tool = self.tool(call.name)
                    server = None if tool is None else tool.server
                    called.append(tool_label(call.name, server))
                    decision = approval_for(self, ctx, call)
                    asked = ctx.event(
                        FunctionCall,
                        name=call.name,
                        args=call.args,
                        call_id=call.call_id,
                        server=server,
                        needs_approval=decision == "ask",
                    )
                    approvals = ctx.turn.approvals
                    if decision == "ask" and approvals is not None:
                        approvals.expect(asked)  # a click may come before run_tool asks
                    yield asked  # recorded before the call waits: a reload sees it waiting
                    outcome = await run_tool(self, ctx, call, reads, decision, asked)
                    writes.update(outcome.delta)
                    stop = stop or outcome.skip_summarization
                    yield ctx.event(
                        FunctionResponse,
                        name=call.name,
                        response=outcome.response,
                        call_id=call.call_id,
                        state_delta=outcome.delta,
                        escalate=outcome.escalate,
                    )
                    if ctx.cancelled:
                        ctx.turn.finish = "cancelled"
                        return
                if stop:
                    return  # ADK's skip_summarization (exit_loop): not asked again
            raise MaxTurnsExceededError(
                f"agent {self.name!r} called tools for {self.max_turns} rounds without a "
                "final answer; raise Agent(max_turns=...) or make the tools' results clearer"
            )
        except BaseException as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            step = AgentStep.of(self.name, "model", reads, writes, usage, error, tools=called)
            ctx.turn.steps.append(step)

    def _final(self, ctx: InvocationContext, answer: _ModelResponse) -> TextMessage | None:
        """The round's final message, carrying what it writes to ``output_key``
        (with ``output_schema``: the JSON value, and nothing when there is none)."""
        schema = output_schema_for(self, ctx)
        value = None if schema is None else _value(schema, answer)
        delta: dict[str, Any] = {}
        if self.output_key and answer.finish != "cancelled":
            if value is not None and value.error is None:
                delta = {self.output_key: value.data}  # the JSON, not the text
            elif schema is None and answer.text:
                delta = {self.output_key: answer.text}
        if not (answer.text or delta):
            return None
        final = ctx.event(
            TextMessage,
            text=answer.text,
            interrupted=answer.finish == "cancelled",
            state_delta=delta,
        )
        if value is not None:
            ctx.turn.structured[final.id] = dataclasses.replace(
                value, event_id=final.id, author=self.name
            )
        return final

    async def _answer(
        self, ctx: InvocationContext, fitted: Window, answer: _ModelResponse
    ) -> AsyncGenerator[Event, None]:
        """One model call (or what a callback gave instead), into ``answer``."""
        request = fitted.request
        replaced = None
        if self.before_model_callback:
            context = CallbackContext.of(ctx)
            replaced = await call_first(
                self.before_model_callback, callback_context=context, llm_request=request
            )
            if context.state.delta:  # the loop applies it before anything else runs
                yield ctx.event(TextMessage, text="", state_delta=dict(context.state.delta))
        if replaced is not None:
            answer.take(replaced)
        else:
            call = ModelCall(
                ctx.backend,
                request,
                cache=agent_cache_key(self, ctx),
                cancel=ctx.cancel,
                author=self.name,
                invocation_id=ctx.invocation_id,
                branch=ctx.branch,
                replay=replay_for(self, ctx, request),
            )
            try:
                async for event in call.stream():
                    yield event
            except ContextWindowError as exc:
                if exc.sent:  # the server counted more than we did: fit tighter next turn
                    memory = ctx.turn.memory.window_for(self.name if ctx.turn.tree else None)
                    memory.learn(exc, ctx.window)
                raise
            finally:  # an interrupted call too: what the model saw is what it read and wrote
                answer.usage = _windowed(call.usage, fitted, call.usage.generated_tokens)
                ctx.turn.add_usage(answer.usage, call.finish, request.config.max_tokens)
            answer.text, answer.calls, answer.finish = call.text, call.calls, call.finish
        if self.after_model_callback and answer.finish != "cancelled":
            context = CallbackContext.of(ctx)
            value = await call_first(
                self.after_model_callback, callback_context=context, llm_response=answer.content()
            )
            if context.state.delta:
                yield ctx.event(TextMessage, text="", state_delta=dict(context.state.delta))
            if value is not None:
                answer.take(value)
                if ctx.turn.finish in ("length", "repetition"):
                    ctx.turn.finish = "stop"  # the callback's reply is whole: not cut off


class _ModelResponse:
    """The model's response to one call: text, tool calls, finish, usage."""

    def __init__(self) -> None:
        self.text = ""
        self.calls: list[ToolCallChunk] = []
        self.finish: Any = "stop"
        self.usage = Usage()

    def content(self) -> Content:
        from ..._core.types import Part, Role

        parts = [Part(text=self.text)] if self.text else []
        parts += [
            Part(function_call=FunctionCall(name=c.name, args=c.args, call_id=c.call_id))
            for c in self.calls
        ]
        return Content(Role.MODEL, parts)

    def take(self, value: object) -> None:
        """A callback's response replaces the model's."""
        if isinstance(value, Content):
            self.text = value.text
            self.calls = [
                ToolCallChunk(
                    p.function_call.name, dict(p.function_call.args), p.function_call.call_id
                )
                for p in value.parts
                if p.function_call is not None
            ]
        else:
            self.text = replacement_text(value)
            self.calls = []
        self.finish = "stop"


def _windowed(usage: Usage, fitted: Window, generated: int) -> Usage:
    """The context figure is the prompt plus what the model wrote after it."""
    return dataclasses.replace(
        usage,
        context_tokens=fitted.tokens + generated,
        context_window=fitted.window,
        omitted_turns=fitted.omitted,
    )


_CUT_SHORT = {
    "length": "the reply was cut off at its token limit before the JSON value was complete",
    "cancelled": "the reply was interrupted",
    "repetition": "the reply was stopped because it repeated itself",
    "error": "the model call failed",
}


def _value(schema: Schema, answer: _ModelResponse) -> Structured:
    """The final answer checked against ``schema``: never a half object (the
    event id and author are filled in once the message exists)."""
    if answer.finish != "stop":
        return Structured("", "", error=_CUT_SHORT.get(answer.finish, str(answer.finish)))
    try:
        value = schema.parse(answer.text)
    except ValueError as exc:
        return Structured("", "", error=str(exc))
    return Structured("", "", value, schema.to_json(value), schema.pretty(value))
