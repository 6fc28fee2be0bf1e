"""The three mutually exclusive context modes of `AgentRunner.chat`.

Borrowed from the Conversational Analytics API: a stateful conversation the
runner remembers, or a stateless call where the caller supplies the history
each time, either with a stored agent or with inline instructions and tools.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from .ids import check_session_id

__all__ = [
    "ConversationReference",
    "DataAgentContext",
    "InlineContext",
    "check_chat_mode",
]


@dataclasses.dataclass(frozen=True)
class ConversationReference:
    """Stateful: the runner keeps the history of ``session_id``."""

    session_id: str

    def __post_init__(self) -> None:
        check_session_id(self.session_id)


@dataclasses.dataclass(frozen=True)
class DataAgentContext:
    """Stateless with a stored agent (`AgentRunner.register_agent`)."""

    agent_name: str


@dataclasses.dataclass(frozen=True)
class InlineContext:
    """Stateless with instructions and tools given inline."""

    instructions: str = ""
    tools: tuple[Callable[..., Any], ...] = ()

    def __init__(self, instructions: str = "", tools: Iterable[Callable[..., Any]] = ()) -> None:
        object.__setattr__(self, "instructions", instructions)
        object.__setattr__(self, "tools", tuple(tools))


def check_chat_mode(
    conversation: ConversationReference | None,
    data_agent: DataAgentContext | None,
    inline: InlineContext | None,
    history: object | None,
) -> None:
    """Exactly one mode, and ``history=`` only with a stateless one."""
    modes = [m for m in (conversation, data_agent, inline) if m is not None]
    if len(modes) != 1:
        raise ValueError(
            "chat() needs exactly one of conversation=ConversationReference(session_id), "
            "data_agent=DataAgentContext(agent_name) or inline=InlineContext(...); "
            f"got {len(modes)}"
        )
    if conversation is not None and history is not None:
        raise ValueError(
            "history= is for the stateless modes; in conversation mode the runner keeps the history"
        )
