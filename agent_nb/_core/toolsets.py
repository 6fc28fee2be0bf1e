"""`Toolset`: tools an agent gets from somewhere else, listed when a turn starts.

ADK's ``BaseToolset``. A Python tool is known when the agent is built; a
toolset's tools are only known once it has been asked (an MCP server lists
its tools after it has started). So an agent keeps its toolsets beside its
tools, and a turn lists every toolset of its tree (`Toolset.get_tools`,
async) before it builds the first request. From then on the listing is held
(`Toolset.tools`), and everything that reads an agent's tools -- the
request, the grammar, replay's purity rule, the tool lookup -- sees the same
`Tool` values as for Python functions.

``listed`` stays False until a listing succeeded: replay treats a toolset
not yet listed as impure (it cannot know what its tools do).
"""

from __future__ import annotations

import abc

from .tools import Tool

__all__ = ["Toolset"]


class Toolset(abc.ABC):
    """A named group of tools resolved at the start of each turn that uses it."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """What the user calls it (shown beside its tools in traces and the widget)."""

    @property
    @abc.abstractmethod
    def tools(self) -> tuple[Tool, ...]:
        """The tools of the latest listing (empty before the first)."""

    @property
    @abc.abstractmethod
    def listed(self) -> bool:
        """Whether `tools` holds a listing (see the module docstring)."""

    @abc.abstractmethod
    async def get_tools(self) -> tuple[Tool, ...]:
        """List the tools (starting whatever serves them, once); kept in `tools`."""

    def close(self) -> None:  # noqa: B027 - a toolset that holds nothing has nothing to close
        """Release what the toolset holds (a server process, a connection)."""
