"""`ChatModes`: the runner's turns that keep no session of their own.

* `run_single_turn_async`: a hidden temporary session (``_st-<uuid>``),
  removed when the stream completes, errors or is closed;
* `generate_content_async`: direct model access, the caller supplies the
  whole history and nothing is stored;
* `chat`: one message in exactly one of the three state modes (a stored
  conversation, a registered agent with caller-supplied history, inline
  instructions and tools).

A service the runner owns (`AgentRunner` forwards these four calls): it uses
the runner's public calls (`ChatHost`) and is handed the three runtime-side
ones it needs, to open and discard a hidden session and to refuse a shut-down
runner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._core.contexts import ConversationReference, DataAgentContext, InlineContext, check_chat_mode
from .._core.reply import Reply
from .._core.types import Content, GenerateContentRequest
from .agents import Agent, BaseAgent
from .direct import start_direct
from .stream import EventStream

if TYPE_CHECKING:
    from ..backends import Backend
    from .session import AgentSession
    from .session_core import SessionCore
    from .worker import Worker

__all__ = ["ChatHost", "ChatModes"]


class ChatHost(Protocol):
    """What the chat modes use of the runner that owns them: its public calls."""

    @property
    def worker(self) -> Worker: ...
    def backend_for(self, model: str | Backend | None) -> Backend: ...
    def wait(self, stream: EventStream) -> Reply: ...
    def get_agent(self, name: str) -> BaseAgent: ...
    def get_or_create_session(
        self, session_id: str, *, agent: BaseAgent | str | None = None
    ) -> AgentSession: ...


class ChatModes:
    """`AgentRunner`'s sessionless turns (see the module docstring)."""

    def __init__(
        self,
        host: ChatHost,
        *,
        open_hidden: Callable[
            [BaseAgent | str | None, Sequence[Content]], tuple[AgentSession, SessionCore]
        ],
        discard_hidden: Callable[[SessionCore], None],
        check_running: Callable[[], None],
    ) -> None:
        self._host = host
        self._open_hidden = open_hidden
        self._discard_hidden = discard_hidden
        self._check_running = check_running

    def _run_hidden(
        self,
        content: str | Content,
        agent: BaseAgent | str | None = None,
        history: Sequence[Content] = (),
        **kwargs: Any,
    ) -> EventStream:
        session, core = self._open_hidden(agent, history)
        try:
            return session.run_async(content, **kwargs)
        except BaseException:
            self._discard_hidden(core)
            raise

    def run_single_turn_async(self, content: str | Content, **kwargs: Any) -> EventStream:
        """A turn on a hidden temporary session that is removed when the turn ends."""
        return self._run_hidden(content, **kwargs)

    def run_single_turn(self, content: str | Content, **kwargs: Any) -> Reply:
        return self._host.wait(self.run_single_turn_async(content, **kwargs))

    def generate_content_async(
        self, request: GenerateContentRequest, *, replay: bool = False
    ) -> EventStream:
        """Direct model access: the caller supplies all history; nothing is stored.

        ``replay=True`` answers a request identical to one answered before from
        the replay cache, loading no model (`agent_nb._runtime.replay`; off unless
        asked, as for Python turns)."""
        if not isinstance(request, GenerateContentRequest):
            raise TypeError(f"expected a GenerateContentRequest, got {type(request).__name__}")
        if not isinstance(replay, bool):
            raise TypeError(f"replay must be True or False, got {replay!r}")
        self._check_running()
        return start_direct(self._host.worker, self._host.backend_for(None), request, replay=replay)

    def chat(
        self,
        message: str | Content,
        *,
        conversation: ConversationReference | None = None,
        data_agent: DataAgentContext | None = None,
        inline: InlineContext | None = None,
        history: Sequence[Content] | None = None,
    ) -> EventStream:
        """One message in exactly one of three modes (docs/python-api.md lists them)."""
        check_chat_mode(conversation, data_agent, inline, history)
        if conversation is not None:
            return self._host.get_or_create_session(conversation.session_id).run_async(message)
        if data_agent is not None:
            agent: BaseAgent = self._host.get_agent(data_agent.agent_name)
        else:
            assert inline is not None
            agent = Agent(name="inline", instructions=inline.instructions, tools=inline.tools)
        return self._run_hidden(message, agent, history or ())
