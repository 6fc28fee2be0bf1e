"""agent_nb: talk to a local language model from a Jupyter notebook.

``%load_ext agent_nb`` adds the ``%%agent`` magic; `ChatWidget` is a chat UI;
both share the kernel-scoped runner from `get_runner()`. Importing this
package is cheap: mlx, openai, anywidget and IPython load only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._agent import Agent
from ._contexts import ConversationReference, DataAgentContext, InlineContext
from ._kernel_runner import get_runner, set_runner
from ._reply import Reply
from ._runner import AgentRunner
from ._session import AgentSession
from ._session_info import SessionInfo
from ._stream import EventStream
from ._tools import ToolContext
from ._types import (
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

if TYPE_CHECKING:
    from ._jupyter.widget import ChatWidget

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "AgentRunner",
    "AgentSession",
    "ChatWidget",
    "Content",
    "ConversationReference",
    "DataAgentContext",
    "Event",
    "EventStream",
    "FunctionCall",
    "FunctionResponse",
    "GenerateContentRequest",
    "GenerationConfig",
    "InlineContext",
    "Part",
    "Reply",
    "Role",
    "SessionInfo",
    "TextMessage",
    "ToolContext",
    "TurnComplete",
    "Usage",
    "get_runner",
    "load_ipython_extension",
    "set_runner",
    "unload_ipython_extension",
]


def __getattr__(name: str) -> Any:
    if name == "ChatWidget":  # anywidget is imported only when the widget is used
        from ._jupyter.widget import ChatWidget

        return ChatWidget
    raise AttributeError(f"module 'agent_nb' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext agent_nb``: register ``%%agent`` / ``%agent`` on the kernel runner."""
    from ._jupyter.magics import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from ._jupyter.magics import unload_ipython_extension as unload

    unload(ipython)
