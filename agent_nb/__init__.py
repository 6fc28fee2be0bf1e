"""agent_nb: talk to a local language model from a Jupyter notebook.

``%load_ext agent_nb`` adds the ``%%agent`` magic; `ChatWidget` is a chat UI;
both share the kernel-scoped runner from `get_runner()`. Importing this
package is cheap: mlx, openai, anywidget and IPython load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._core.contexts import ConversationReference, DataAgentContext, InlineContext
from ._core.reply import Reply
from ._core.tools import ToolContext, tool
from ._core.trace import AgentStep, InvocationTrace
from ._core.types import (
    Content,
    Event,
    FunctionCall,
    FunctionResponse,
    GenerateContentRequest,
    GenerationConfig,
    Part,
    Role,
    TextMessage,
    TurnComplete,
    Usage,
)
from ._runtime.agents import (
    Agent,
    AgentTool,
    BaseAgent,
    CallbackContext,
    CodeAgent,
    LoopAgent,
    ParallelAgent,
    ReadonlyContext,
    SequentialAgent,
    exit_loop,
)
from ._runtime.front_door import TurnRequest
from ._runtime.kernel_runner import get_runner, set_runner
from ._runtime.mcp import McpToolset
from ._runtime.runner import AgentRunner
from ._runtime.session import AgentSession
from ._runtime.session_info import SessionInfo
from ._runtime.stream import EventStream
from .data import DataAgent

if TYPE_CHECKING:
    from ._jupyter.widget.chat_widget import ChatWidget

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentRunner",
    "AgentSession",
    "AgentStep",
    "AgentTool",
    "BaseAgent",
    "CallbackContext",
    "ChatWidget",
    "CodeAgent",
    "Content",
    "ConversationReference",
    "DataAgent",
    "DataAgentContext",
    "Event",
    "EventStream",
    "FunctionCall",
    "FunctionResponse",
    "GenerateContentRequest",
    "GenerationConfig",
    "InlineContext",
    "InvocationTrace",
    "LoopAgent",
    "McpToolset",
    "ParallelAgent",
    "Part",
    "ReadonlyContext",
    "Reply",
    "Role",
    "SequentialAgent",
    "SessionInfo",
    "TextMessage",
    "ToolContext",
    "TurnComplete",
    "TurnRequest",
    "Usage",
    "exit_loop",
    "get_runner",
    "load_ipython_extension",
    "set_runner",
    "tool",
    "unload_ipython_extension",
]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))  # ChatWidget too, before it is loaded


def __getattr__(name: str) -> Any:
    if name == "ChatWidget":  # anywidget is imported only when the widget is used
        from ._jupyter.widget.chat_widget import ChatWidget

        return ChatWidget
    raise AttributeError(f"module 'agent_nb' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext agent_nb``: register ``%%agent`` / ``%agent`` on the kernel runner."""
    from ._jupyter.magics.agent_magics import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from ._jupyter.magics.agent_magics import unload_ipython_extension as unload

    unload(ipython)
