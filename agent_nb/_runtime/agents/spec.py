"""`ModelAgentSpec`: what building a request and running tools read of a model agent.

`Agent` satisfies it; the request and tool modules depend on this shape, not
on the `Agent` class, so the agent kinds sit above them.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from ..._core.schemas import Schema
from ..._core.tools import Tool
from ..._core.types import GenerationConfig
from ..._core.window import ContextPolicy

__all__ = ["ModelAgentSpec"]


class ModelAgentSpec(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def instructions(self) -> Any: ...
    @property
    def tools(self) -> tuple[Tool, ...]: ...
    @property
    def config(self) -> GenerationConfig: ...
    @property
    def context_policy(self) -> ContextPolicy: ...
    @property
    def include_contents(self) -> Literal["default", "none"]: ...
    @property
    def output_spec(self) -> Schema | None: ...
    @property
    def tool_choice(self) -> str: ...
    @property
    def before_tool_callback(self) -> tuple[Any, ...]: ...
    @property
    def after_tool_callback(self) -> tuple[Any, ...]: ...

    def tool(self, name: str) -> Tool | None: ...
