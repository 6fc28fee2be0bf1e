"""`SessionServices`: what a session and its turns take from their runner.

The runner hands each session this private object, not itself: the store
and its leases, the worker loop, how to resolve a model, how to wait for a
turn, and the four notices a session gives back (closing, deleting, rewound,
turn finished). Sessions and turns sit below the runner and depend only on
this, so the dependency stays one-way (runner -> session -> turn).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._core.reply import Reply
    from .._core.types import GenerateContentRequest
    from ..backends import Backend
    from ..stores import SessionStore
    from .leases import TurnLeases
    from .stream import EventStream
    from .worker import Worker

__all__ = ["SessionServices"]


@dataclasses.dataclass(frozen=True)
class SessionServices:
    app_name: str
    store: SessionStore
    leases: TurnLeases
    worker: Worker
    backend_for: Callable[[str | Backend | None], Backend]
    wait: Callable[[EventStream], Reply]  # block the calling thread; Ctrl-C cancels
    # Each notice gets the `SessionCore` (typed Any: the core sits above this module).
    closing: Callable[[Any], None]
    deleting: Callable[[Any], None]
    rewound: Callable[[Any, Callable[[], GenerateContentRequest]], None]
    turn_finished: Callable[[Any], None]
    owner: Any = None  # the `AgentRunner`, for `AgentSession.runner` only
    # A turn's agent tree, given as the turn starts: the runner closes the
    # toolsets (MCP servers) its turns used when it shuts down.
    toolsets_used: Callable[[Any], None] | None = None
    #: The runner's approval policy now (`agent_nb._runtime.approval`)
    approve_tools: Callable[[], str] = lambda: "ask"
