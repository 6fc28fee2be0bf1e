"""`Agent`: a name, instructions (templated from state), tools and sampling."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from .numbers import check_int
from .tools import Tool, as_tool
from .types import GenerationConfig
from .window import ContextPolicy, check_policy

__all__ = ["Agent"]


@dataclasses.dataclass(frozen=True, init=False)
class Agent:
    """What answers in a session.

    ``instructions`` may reference state, e.g. ``"Reply in {user:language}"``;
    ``max_turns`` bounds model<->tool rounds in one turn. ``context_policy``
    says what happens when the history outgrows the model's window:
    ``"window"`` leaves the oldest whole turns out of what the model is shown
    (history keeps them), ``"error"`` raises `ContextWindowError` (see `agent_nb._core.window`).
    """

    name: str
    instructions: str
    tools: tuple[Tool, ...]
    max_turns: int
    config: GenerationConfig
    context_policy: ContextPolicy

    def __init__(
        self,
        name: str = "assistant",
        instructions: str = "",
        tools: Iterable[Callable[..., Any] | Tool] = (),
        max_turns: int = 10,
        config: GenerationConfig | None = None,
        context_policy: ContextPolicy = "window",
    ) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"agent name must be a Python identifier, got {name!r}")
        max_turns = check_int("max_turns", max_turns, low=1)
        built = tuple(as_tool(t) for t in tools)
        names = [t.name for t in built]
        if len(set(names)) != len(names):
            raise ValueError(f"tool names must be unique, got {names}")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "instructions", instructions)
        object.__setattr__(self, "tools", built)
        object.__setattr__(self, "max_turns", max_turns)
        object.__setattr__(self, "config", config or GenerationConfig())
        object.__setattr__(self, "context_policy", check_policy(context_policy))

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)
