"""`AgentMemory`: what a session remembers about its agents between turns.

* each agent's sticky window cut (`WindowMemory`): the session's own agent's
  is restored from the stored history; other agents' restart from it;
* the KV-cache keys its turns used other than the session id
  (``session/agent``), with the agent, so a rewind trims and a close drops
  every one of them;
* the traces of its latest turns in this process (``%agent trace``), with
  full usage; older ones come from the `TurnComplete` that stores them.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable
from typing import Any

from .._core.trace import InvocationTrace
from .._core.types import Event
from .._core.window import WindowMemory

__all__ = ["TRACES_KEPT", "AgentMemory"]

#: How many invocations' traces a session keeps in memory (``%agent trace``).
TRACES_KEPT = 20


@dataclasses.dataclass
class AgentMemory:
    own: WindowMemory = dataclasses.field(default_factory=WindowMemory)
    windows: dict[str, WindowMemory] = dataclasses.field(default_factory=dict)
    caches: dict[str, Any] = dataclasses.field(default_factory=dict)  # key -> agent
    traces: dict[str, InvocationTrace] = dataclasses.field(default_factory=dict)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, repr=False)

    def window_for(self, agent_name: str | None) -> WindowMemory:
        """The sticky cut of one agent (None: the session's own)."""
        if agent_name is None:
            return self.own
        return self.windows.setdefault(agent_name, WindowMemory())

    def follow(self, events: Iterable[Event]) -> None:
        """The cuts of the active path (at load, after a rewind or switch)."""
        window = WindowMemory.from_history(events)
        window.shrink, window.learned = self.own.shrink, self.own.learned
        self.own = window
        # Other agents' cuts are not stored: they restart from the path's like the
        # session's own (a shorter path after a rewind must not keep a longer cut).
        for name, other in self.windows.items():
            self.windows[name] = WindowMemory(
                start=min(other.start, window.start), shrink=other.shrink, learned=other.learned
            )

    def cache_keys(self, session_id: str) -> list[str]:
        """Every KV-cache key the session's turns used (its own id first)."""
        return [session_id, *dict(self.caches)]

    def keep_trace(self, trace: InvocationTrace) -> None:
        with self._lock:
            self.traces[trace.invocation_id] = trace
            while len(self.traces) > TRACES_KEPT:
                del self.traces[next(iter(self.traces))]

    def kept_trace(self, invocation_id: str) -> InvocationTrace | None:
        with self._lock:
            return self.traces.get(invocation_id)
