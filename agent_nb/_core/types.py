"""Value types shared by every layer: contents, requests, events, usage.

Everything here is a frozen dataclass so an event handed to a stream, a store
and a widget is the same immutable value. Mutable payloads (tool arguments and
results, state deltas) are deep-copied on the way in, so a caller that mutates
its own dict afterwards cannot rewrite history.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from .numbers import check_int, check_real, check_repeats

__all__ = [
    "MAX_TEMPERATURE",
    "Content",
    "Event",
    "FinishReason",
    "FunctionCall",
    "FunctionResponse",
    "GenerateContentRequest",
    "GenerationConfig",
    "Part",
    "PromptProgress",
    "Rewound",
    "Role",
    "TextMessage",
    "ToolSpec",
    "TurnComplete",
    "Usage",
    "Waiting",
    "check_tool_choice",
    "new_id",
]

#: ``repetition``: the reply started repeating one span over and over and was stopped
#: (`GenerationConfig.repetition_stop`). Rows stored before it existed hold one of the others.
FinishReason: TypeAlias = Literal["stop", "length", "cancelled", "error", "repetition"]

#: Temperatures above this sample noise; it is also the OpenAI API's upper bound.
MAX_TEMPERATURE = 2.0


def new_id() -> str:
    return uuid.uuid4().hex


def _frozen_copy(value: Mapping[str, Any] | None) -> dict[str, Any]:
    return copy.deepcopy(dict(value)) if value else {}


class Role(str, enum.Enum):
    """Who produced a `Content`: the person (or a tool result) or the model."""

    USER = "user"
    MODEL = "model"


@dataclass(frozen=True)
class Part:
    """One piece of a `Content`: text, a function call or a function response."""

    text: str | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None


@dataclass(frozen=True)
class Content:
    """A message in a caller-managed history (`generate_content_async`, `chat`)."""

    role: Role
    parts: tuple[Part, ...]

    def __init__(self, role: Role | str, parts: Iterable[Part] | str) -> None:
        object.__setattr__(self, "role", Role(role))
        if isinstance(parts, str):
            parts = (Part(text=parts),)
        object.__setattr__(self, "parts", tuple(parts))

    @classmethod
    def user(cls, text: str) -> Content:
        return cls(Role.USER, text)

    @classmethod
    def model(cls, text: str) -> Content:
        return cls(Role.MODEL, text)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if p.text)


@dataclass(frozen=True)
class GenerationConfig:
    """Sampling options; backends ignore what they cannot honour.

    ``repetition_stop``: end the reply (finish reason ``repetition``) once the
    same span of text has come this many times in a row; 0 never stops. The
    runtime watches every backend's stream for it (`agent_nb._core.repetition`).
    """

    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0
    max_tokens: int = 512
    seed: int | None = None
    repetition_penalty: float | None = None
    stop: tuple[str, ...] = ()
    repetition_stop: int = 3
    #: Prompt-lookup drafting where the backend has it (MLX, greedy decoding
    #: only): exact, so it changes speed, never the text. False turns it off.
    prompt_lookup: bool = True

    def __post_init__(self) -> None:
        # Every number is checked for finiteness too: NaN slips past `< 0`.
        checked = {
            "temperature": check_real("temperature", self.temperature, low=0, high=MAX_TEMPERATURE),
            "top_p": check_real("top_p", self.top_p, low=0, high=1, low_open=True),
            "top_k": check_int("top_k (0 disables it)", self.top_k, low=0),
            "max_tokens": check_int("max_tokens", self.max_tokens, low=1),
            "repetition_stop": check_repeats(self.repetition_stop),
        }
        if self.seed is not None:
            checked["seed"] = check_int("seed", self.seed, low=0, high=2**64 - 1)
        if self.repetition_penalty is not None:
            checked["repetition_penalty"] = check_real(
                "repetition_penalty", self.repetition_penalty, low=0, low_open=True
            )
        for key, value in checked.items():
            object.__setattr__(self, key, value)
        if isinstance(self.stop, str):
            object.__setattr__(self, "stop", (self.stop,))
        if not isinstance(self.prompt_lookup, bool):
            raise ValueError(f"prompt_lookup must be True or False, got {self.prompt_lookup!r}")


@dataclass(frozen=True)
class ToolSpec:
    """What a backend is told about a tool: the OpenAI function-calling shape."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(dict(self.parameters)),
            },
        }


@dataclass(frozen=True)
class GenerateContentRequest:
    """One model call: the whole history, the system text, tools and sampling.

    ``session_id`` is only a cache-affinity key: backends that keep a prompt
    (KV) cache reuse it across calls with the same key. It never adds history.

    ``response_schema`` (a JSON-schema dict; a pydantic model's
    ``model_json_schema()``) asks for a reply that is one JSON value of that
    schema: decoded under its grammar on MLX, ``response_format`` on
    OpenAI-compatible servers. ``tool_choice`` takes OpenAI's names:
    ``"auto"`` (text or tool calls), ``"required"`` (only tool calls),
    ``"none"`` (only text) or the name of one of ``tools`` (a call of that tool).
    """

    contents: tuple[Content, ...]
    system_instruction: str = ""
    tools: tuple[ToolSpec, ...] = ()
    config: GenerationConfig = field(default_factory=GenerationConfig)
    session_id: str | None = None
    response_schema: Mapping[str, Any] | None = None
    tool_choice: str = "auto"

    def __init__(
        self,
        contents: Iterable[Content],
        system_instruction: str = "",
        tools: Iterable[ToolSpec] = (),
        config: GenerationConfig | None = None,
        session_id: str | None = None,
        *,
        response_schema: Mapping[str, Any] | None = None,
        tool_choice: str = "auto",
    ) -> None:
        contents = tuple(contents)
        for item in contents:
            if not isinstance(item, Content):
                raise TypeError(f"contents must be Content objects, got {type(item).__name__}")
        object.__setattr__(self, "contents", contents)
        object.__setattr__(self, "system_instruction", system_instruction)
        object.__setattr__(self, "tools", tuple(tools))
        object.__setattr__(self, "config", config or GenerationConfig())
        object.__setattr__(self, "session_id", session_id)
        object.__setattr__(self, "response_schema", _check_schema(response_schema))
        object.__setattr__(
            self, "tool_choice", check_tool_choice(tool_choice, [tool.name for tool in self.tools])
        )

    # The one reading of ``tool_choice`` against ``tools``: the chat template, the
    # grammar and the repetition stop all ask these, so they cannot disagree.
    @property
    def offers_tools(self) -> bool:
        """The model is shown the tools and may call them: there are some, and
        ``tool_choice`` is not ``"none"``."""
        return bool(self.tools) and self.tool_choice != "none"

    @property
    def forces_tool(self) -> bool:
        """The reply must be a tool call: ``"required"`` or a tool's name, with tools."""
        return self.offers_tools and self.tool_choice != "auto"


_TOOL_CHOICES = ("auto", "required", "none")


def _check_schema(schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A deep copy of a JSON-schema dict; grammar compilation is the backend's check."""
    if schema is None:
        return None
    if not isinstance(schema, Mapping):
        raise TypeError(
            "response_schema must be a JSON-schema dict (for a pydantic model pass "
            f"Model.model_json_schema()), got {type(schema).__name__}"
        )
    try:
        json.dumps(schema, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"response_schema must be JSON-serialisable: {exc}") from None
    return copy.deepcopy(dict(schema))


def check_tool_choice(choice: object, names: Sequence[str] | None) -> str:
    """A ``tool_choice``: OpenAI's ``"auto"``, ``"required"``, ``"none"``, or the name
    of one of the tools ``names`` (None: the tools are not known yet, as for
    `TurnOptions`: any string passes until the agent's are)."""
    listed = "a tool's name" if names is None else f"one of the tool names {list(names)}"
    allowed = f"'auto', 'required', 'none' or {listed}"
    if not isinstance(choice, str):
        raise TypeError(f"tool_choice must be a string: {allowed}; got {type(choice).__name__}")
    if names is None:
        return choice
    if choice == "required" and not names:
        raise ValueError("tool_choice='required' needs at least one tool in tools")
    if choice not in _TOOL_CHOICES and choice not in names:
        raise ValueError(f"tool_choice must be {allowed}, got {choice!r}")
    return choice


@dataclass(frozen=True)
class Usage:
    """Token counts and speed of one turn (summed over its model calls)."""

    prompt_tokens: int = 0  # tokens actually fed through the model (prefill)
    cached_tokens: int = 0  # prompt tokens reused from the KV cache
    generated_tokens: int = 0
    time_to_first_token_s: float | None = None
    tokens_per_s: float | None = None
    peak_memory_bytes: int | None = None
    # The context window as the model saw it (latest model call of the turn):
    context_tokens: int | None = None  # the request's tokens (counted before sending) + generated
    context_window: int | None = None  # the model's window in tokens (None: unknown)
    omitted_turns: int = 0  # oldest whole turns left out so the request fits
    # Prompt-lookup decoding: tokens drafted from the prompt and checked by the
    # model, and how many of them it accepted (each accepted one saved a step).
    drafted_tokens: int = 0
    accepted_tokens: int = 0
    # Model calls answered from the replay cache (`agent_nb._runtime.replay`): an
    # identical greedy request answered before, its recorded reply streamed again.
    replayed_calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            generated_tokens=self.generated_tokens + other.generated_tokens,
            time_to_first_token_s=(
                self.time_to_first_token_s
                if self.time_to_first_token_s is not None
                else other.time_to_first_token_s
            ),
            tokens_per_s=(
                other.tokens_per_s if other.tokens_per_s is not None else self.tokens_per_s
            ),
            peak_memory_bytes=max(
                (m for m in (self.peak_memory_bytes, other.peak_memory_bytes) if m is not None),
                default=None,
            ),
            context_tokens=(
                other.context_tokens if other.context_tokens is not None else self.context_tokens
            ),
            context_window=(
                other.context_window if other.context_window is not None else self.context_window
            ),
            omitted_turns=max(self.omitted_turns, other.omitted_turns),
            drafted_tokens=self.drafted_tokens + other.drafted_tokens,
            accepted_tokens=self.accepted_tokens + other.accepted_tokens,
            replayed_calls=self.replayed_calls + other.replayed_calls,
        )

    def as_dict(self) -> dict[str, Any]:
        # ``replayed_calls`` only when set: rows written before it existed stay byte for byte
        extra = {"replayed_calls": self.replayed_calls} if self.replayed_calls else {}
        return {
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "generated_tokens": self.generated_tokens,
            "time_to_first_token_s": self.time_to_first_token_s,
            "tokens_per_s": self.tokens_per_s,
            "peak_memory_bytes": self.peak_memory_bytes,
            "context_tokens": self.context_tokens,
            "context_window": self.context_window,
            "omitted_turns": self.omitted_turns,
            "drafted_tokens": self.drafted_tokens,
            "accepted_tokens": self.accepted_tokens,
            **extra,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Usage:
        """The inverse of `as_dict`; rows written before a field existed get its default,
        and fields this version does not know are ignored (a newer writer's rows)."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in (data or {}).items() if k in known})


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of every event. ``state_delta`` is the state change the event carries.

    ``branch`` is ADK's: the path of parallel agents the event was made in
    (``"par.a"``; None outside any), not a session's numbered branch.
    ``escalate`` is ADK's ``actions.escalate``: the agent asks the enclosing
    `LoopAgent` to stop (a tool's ``tool_context.escalate()``, ``exit_loop``).
    """

    id: str = field(default_factory=new_id)
    invocation_id: str = ""
    author: str = ""
    timestamp: float = field(default_factory=time.time)
    state_delta: Mapping[str, Any] = field(default_factory=dict)
    branch: str | None = None
    escalate: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "state_delta", _frozen_copy(self.state_delta))


@dataclass(frozen=True, kw_only=True)
class TextMessage(Event):
    """Text from the user (``author == "user"``) or the model.

    Partial chunks stream with ``is_partial=True`` and are never stored; the
    final message holds the full text. ``interrupted`` marks text cut short by
    a cancelled turn.
    """

    text: str
    is_partial: bool = False
    interrupted: bool = False
    #: What the message shows besides its text, as a display bundle (MIME type ->
    #: JSON value): the data agent's result table and Vega-Lite chart
    #: (`agent_nb.data.chart.view_bundle`). Stored with the message, so every view
    #: of the transcript (a reloaded widget, another kernel) shows it; the model
    #: never reads it. Empty for every other message (and rows stored before it).
    attachments: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.attachments:
            object.__setattr__(self, "attachments", _json_bundle(self.attachments))


def _json_bundle(bundle: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a display bundle, checked: string keys, JSON values (no NaN)."""
    if not isinstance(bundle, Mapping) or not all(isinstance(k, str) for k in bundle):
        raise TypeError("attachments must be a dict of MIME type -> JSON value")
    try:
        json.dumps(bundle, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"attachments must be JSON-serialisable: {exc}") from None
    return copy.deepcopy(dict(bundle))


@dataclass(frozen=True, kw_only=True)
class PromptProgress(Event):
    """How far the model has read the prompt: ``done`` of ``total`` tokens.

    Sent while a long prompt is prefilled, before the first token (throttled);
    like partial text it is never stored.
    """

    done: int
    total: int


@dataclass(frozen=True, kw_only=True)
class Waiting(Event):
    """The turn waits for other sessions' turns on a model that answers one turn at
    a time (`Backend.one_turn_at_a_time`): their session ids, in the order they
    started; empty once none is ahead any more. Sent by the front door
    (`AgentRunner.start_turn`) before the first token; never stored."""

    sessions: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Rewound(Event):
    """Before the turn: re-running a cell moved its earlier turn (``turns[0]``)
    and the later ones to the session's numbered branch ``moved_to``
    (`AgentSession.rewind`).
    ``shared_state``: some of them wrote ``user:`` / ``app:`` state, which is
    shared with other sessions and stays. Sent by the front door
    (`TurnRequest.replaces`); never stored."""

    moved_to: int
    turns: tuple[str, ...]
    shared_state: bool = False


@dataclass(frozen=True, kw_only=True)
class FunctionCall(Event):
    """The model asked for a tool; emitted just before the tool runs.

    ``server`` names the toolset the tool came from (an MCP server, see
    `agent_nb.McpToolset`); None for a Python tool.
    ``needs_approval``: the tool waits for the user's approval before it runs
    (``@tool(confirm=True)`` under ``approve_tools="ask"``); until its
    `FunctionResponse` is recorded the call is awaiting approval
    (`agent_nb._runtime.approval`).
    """

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    call_id: str = field(default_factory=new_id)
    server: str | None = None
    needs_approval: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "args", _frozen_copy(self.args))


@dataclass(frozen=True, kw_only=True)
class FunctionResponse(Event):
    """A tool's result; a tool that raised gives ``{"error": "..."}``."""

    name: str
    response: Mapping[str, Any] = field(default_factory=dict)
    call_id: str = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "response", _frozen_copy(self.response))


@dataclass(frozen=True, kw_only=True)
class TurnComplete(Event):
    """Last event of every turn, stored so history knows where turns end."""

    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason = "stop"
    interrupted: bool = False
    error: str | None = None
    #: With ``finish_reason == "length"``: the ``max_tokens`` limit that cut the reply.
    max_tokens: int | None = None
    #: What each agent read and wrote (``InvocationTrace.to_dict``), stored with the
    #: turn so ``%agent trace`` and the widget's panel outlive the kernel and follow
    #: branches; None for one agent that touched no state.
    trace: Mapping[str, Any] | None = None
