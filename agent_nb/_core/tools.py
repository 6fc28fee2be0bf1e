"""Tools: plain functions whose JSON schema comes from type hints and docstring.

A parameter annotated `ToolContext`, or named ``tool_context`` as ADK's
function tools name it (annotated or not), is filled in by the runner (state
and session id) and hidden from the model. The docstring's first paragraph is the
description; an ``Args:`` section (Google style) describes the parameters.

``@tool(pure=True)`` marks a function whose result depends only on its
arguments and which changes nothing (no files, no state writes, no network).
Replay (`agent_nb._runtime.replay`) answers a model call from its recorded
reply only when every tool the agent offers is pure: tool calls replayed
from the cache then run again, and a pure tool gives the same result, so the
turn is the one the model would have produced. The mark is the user's
promise; nothing checks it.

``@tool(confirm=True)`` marks a function that needs the user's approval before
it runs (ADK's ``require_confirmation``): the turn pauses at its call until the
user approves or denies it (see ``agent_nb._runtime.approval``). A tool that
needs approval is never pure.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, overload

from .state import State
from .types import ToolSpec

__all__ = ["Tool", "ToolContext", "as_tool", "tool"]

_PURE = "__agent_nb_pure__"
_CONFIRM = "__agent_nb_confirm__"


@dataclasses.dataclass
class ToolContext:
    """What a tool (or a `CodeAgent`'s function) sees of its turn: scoped state
    (read/write, ``temp:`` included), who called, and the text of the message
    that started the turn (``user_content``, as ADK's).

    ``escalate()`` asks the enclosing `LoopAgent` to stop after this agent
    (ADK's ``actions.escalate``): the agent still finishes its run (a model
    agent is asked once more and gives its answer), then the loop stops.
    ``skip_summarization = True`` (ADK's ``actions.skip_summarization``, set
    by `exit_loop`) ends a model agent's run after this tool's response,
    with no further model call.
    """

    state: State
    session_id: str
    invocation_id: str
    user_id: str = "default"
    app_name: str = "agent_nb"
    agent_name: str = ""
    user_content: str = ""
    escalated: bool = False
    skip_summarization: bool = False

    def escalate(self) -> None:
        self.escalated = True


_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _schema(annotation: Any) -> dict[str, Any]:
    if annotation in _SIMPLE:
        return {"type": _SIMPLE[annotation]}
    if annotation is type(None):
        return {"type": "null"}
    if annotation in (Any, inspect.Parameter.empty):
        return {}
    if inspect.isclass(annotation) and issubclass(annotation, enum.Enum):
        return {"enum": [m.value for m in annotation]}
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return _schema(options[0])
        return {"anyOf": [_schema(a) for a in options]}
    if origin in (list, tuple, set, frozenset, typing.Sequence, typing.Iterable) or annotation in (
        list,
        tuple,
    ):
        item = _schema(args[0]) if args else {}
        return {"type": "array", "items": item} if item else {"type": "array"}
    if origin in (dict, Mapping) or annotation is dict:
        return {"type": "object"}
    return {}


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    doc = inspect.cleandoc(doc or "")
    parts = re.split(r"\n\s*(?:Args|Arguments|Parameters):\s*\n", doc, maxsplit=1)
    description = parts[0].split("\n\n")[0].replace("\n", " ").strip()
    params: dict[str, str] = {}
    if len(parts) == 2:
        current = None
        for line in parts[1].splitlines():
            if re.match(r"^\s*(Returns|Raises|Yields|Examples?):", line):
                break
            m = re.match(r"^\s*(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", line)
            if m:
                current = m.group(1)
                params[current] = m.group(3).strip()
            elif current and line.strip():
                params[current] += " " + line.strip()
    return description, params


@dataclasses.dataclass(frozen=True)
class Tool:
    """A callable the model may use, with its schema worked out once."""

    func: Callable[..., Any]
    spec: ToolSpec
    context_param: str | None
    agent: Any = None  # an `AgentTool`'s agent: the turn engine runs it instead of ``func``
    pure: bool = False  # ``@tool(pure=True)``: same arguments, same result, no side effects
    confirm: bool = False  # ``@tool(confirm=True)``: needs the user's approval before it runs
    server: str | None = None  # the toolset it came from (an MCP server's name), shown beside it

    def __post_init__(self) -> None:
        if self.pure and self.confirm:
            raise ValueError(
                f"tool {self.spec.name!r} cannot be both pure and confirm: one that needs "
                "approval acts"
            )

    @property
    def name(self) -> str:
        return self.spec.name

    async def call(self, args: Mapping[str, Any], context: ToolContext) -> Any:
        kwargs = dict(args)
        if self.context_param:
            kwargs[self.context_param] = context
        if inspect.iscoroutinefunction(self.func):
            return await self.func(**kwargs)
        # Sync tools run off the worker loop so a slow pandas call cannot
        # stall other sessions' streaming.
        return await asyncio.to_thread(self.func, **kwargs)


F = TypeVar("F", bound=Callable[..., Any])


@overload
def tool(func: F, /) -> F: ...
@overload
def tool(*, pure: bool = False, confirm: bool = False) -> Callable[[F], F]: ...
def tool(
    func: F | None = None, /, *, pure: bool = False, confirm: bool = False
) -> F | Callable[[F], F]:
    """Mark a function as a tool: ``@tool``, ``@tool(pure=True)`` or
    ``@tool(confirm=True)`` (see the module docstring). The function stays a
    plain function you can call yourself."""
    if not isinstance(pure, bool):
        raise TypeError(f"pure must be True or False, got {pure!r}")
    if not isinstance(confirm, bool):
        raise TypeError(f"confirm must be True or False, got {confirm!r}")
    if pure and confirm:
        raise ValueError(
            "a tool cannot be both pure=True and confirm=True: one that needs approval acts"
        )

    def mark(fn: F) -> F:
        if not callable(fn):
            raise TypeError(f"@tool needs a function, got {type(fn).__name__}")
        setattr(fn, _PURE, pure)
        setattr(fn, _CONFIRM, confirm)
        return fn

    return mark(func) if func is not None else mark


def as_tool(func: Callable[..., Any] | Tool) -> Tool:
    """Build a `Tool` from a function (a `Tool` passes through)."""
    if isinstance(func, Tool):
        return func
    if not callable(func):
        raise TypeError(f"a tool must be a function, got {type(func).__name__}")
    name = getattr(func, "__name__", "")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]{0,63}", name):
        raise ValueError(f"tool name {name!r} must match [A-Za-z_][A-Za-z0-9_-]{{0,63}}")
    hints = typing.get_type_hints(func)
    description, param_docs = _parse_docstring(func.__doc__ or "")
    properties: dict[str, Any] = {}
    required: list[str] = []
    context_param = None
    for pname, param in inspect.signature(func).parameters.items():
        annotation = hints.get(pname, param.annotation)
        if annotation is ToolContext or pname == "tool_context":
            context_param = pname
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        schema = _schema(annotation)
        if pname in param_docs:
            schema["description"] = param_docs[pname]
        if param.default is param.empty:
            required.append(pname)
        properties[pname] = schema
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    spec = ToolSpec(name=name, description=description or name, parameters=parameters)
    pure = getattr(func, _PURE, False) is True
    confirm = getattr(func, _CONFIRM, False) is True
    return Tool(func=func, spec=spec, context_param=context_param, pure=pure, confirm=confirm)
