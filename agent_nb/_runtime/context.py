"""`InvocationContext`: everything one turn works on, made when the turn starts.

The turn engine (`turn`, `invocation`) is handed this object and never reads a
session's attributes (the model: adk-python's ``invocation_context.py``). It
holds the invocation (id, cancel token, stream), the agent, the turn's
options, the recorder every event goes through, the window memory, and the
``temp:`` layer, which lives exactly as long as the invocation: every agent
and tool of the turn sees it, nothing stores it.

Reading history and state goes through callables the session supplies, so a
tool round sees what the previous round recorded, and the context never holds
a second copy of a session's data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from .._core.agent import Agent
from .._core.state import TEMP_PREFIX, apply_delta
from .._core.trace import AgentStep
from .._core.types import Event, GenerationConfig
from .._core.window import ContextPolicy, WindowMemory
from .._core.workflow import AnyAgent
from ..backends import Backend, CancelToken
from .invocation import Invocation, Recorder

__all__ = ["InvocationContext", "TurnOptions"]


@dataclasses.dataclass(frozen=True)
class TurnOptions:
    """Per-turn overrides (the magic's ``-m``, ``-s``, ``-t``, ``--max-tokens``)."""

    model: str | Backend | None = None
    system: str | None = None
    config: GenerationConfig | None = None
    agent: AnyAgent | None = None
    context_policy: ContextPolicy | None = None  # None: the agent's


class InvocationContext:
    """One turn's working set (see the module docstring)."""

    def __init__(
        self,
        invocation: Invocation,
        *,
        agent: AnyAgent,
        options: TurnOptions,
        recorder: Recorder,
        window: WindowMemory,
        session_id: str,
        user_id: str,
        app_name: str,
        history: Callable[[], list[Event]],
        session_state: Callable[[], dict[str, Any]],
        backend_for: Callable[[str | Backend | None], Backend],
        temp: dict[str, Any] | None = None,
        cache_key_for: Callable[[Agent], str] | None = None,
        windows: dict[str, WindowMemory] | None = None,
    ) -> None:
        self.invocation = invocation
        self.agent = agent
        self.options = options
        self.recorder = recorder
        self.window = window
        self.session_id = session_id
        self.user_id = user_id
        self.app_name = app_name
        self.temp: dict[str, Any] = dict(temp or {})
        self._history = history
        self._session_state = session_state
        self._backend_for = backend_for
        self._backend: Backend | None = None
        self._cache_key_for = cache_key_for
        self._windows = windows if windows is not None else {}
        #: What each agent read and wrote, in the order they finished (`InvocationTrace`).
        self.steps: list[AgentStep] = []
        #: The text of the message that started the turn (ADK's ``user_content``);
        #: `run_turn` sets it. Code agents and tools read it through `ToolContext`.
        self.user_content = ""

    def cache_key_for(self, agent: Agent) -> str:
        """The KV-cache key of ``agent`` in a multi-agent turn (see `agents`)."""
        if self._cache_key_for is not None:
            return self._cache_key_for(agent)
        own = agent.name == self.agent.name
        return self.session_id if own else f"{self.session_id}/{agent.name}"

    def window_for(self, agent_name: str | None) -> WindowMemory:
        """The sticky window cut of one agent (None: the session's own)."""
        if agent_name is None:
            return self.window
        return self._windows.setdefault(agent_name, WindowMemory())

    @property
    def invocation_id(self) -> str:
        return self.invocation.invocation_id

    @property
    def cancel_token(self) -> CancelToken:
        return self.invocation.cancel_token

    @property
    def cancelled(self) -> bool:
        return self.invocation.cancelled

    def backend(self) -> Backend:
        """The turn's backend, resolved on first use (a bad spec fails inside the turn)."""
        if self._backend is None:
            self._backend = self._backend_for(self.options.model)
        return self._backend

    def history(self) -> list[Event]:
        """The session's recorded events (this turn's so far included)."""
        return self._history()

    def state(self) -> dict[str, Any]:
        """Stored state with the ``temp:`` layer on top (a fresh dict)."""
        return apply_delta(dict(self._session_state()), self.temp)  # a None deletes

    def keep_temp(self, delta: Mapping[str, Any]) -> None:
        """Carry the ``temp:`` keys of a state delta for the rest of the invocation."""
        self.temp.update({k: v for k, v in delta.items() if k.startswith(TEMP_PREFIX)})
