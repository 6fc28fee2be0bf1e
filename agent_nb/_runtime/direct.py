"""Direct model access (`AgentRunner.generate_content_async`): stream, store nothing.

It runs through the same turn engine as a session turn (`invocation`), minus
the store and the tool loop. Tool calls the model makes are reported as
`FunctionCall` events and not run: the caller owns the history, so it also
decides what to do with them.
"""

from __future__ import annotations

from .._core.types import GenerateContentRequest
from ..backends import Backend
from .invocation import Invocation, Progress, Recorder, run_invocation, stream_model
from .stream import EventStream
from .worker import Worker

__all__ = ["AUTHOR", "start_direct"]

#: The author of the model's events in direct access (there is no agent).
AUTHOR = "model"


def start_direct(worker: Worker, backend: Backend, request: GenerateContentRequest) -> EventStream:
    """Start streaming ``request`` on ``backend``; returns the stream at once."""
    invocation = Invocation(worker)
    rec = Recorder(invocation, AUTHOR)
    # Keys with ':' can never be session ids, so direct caches never collide.
    cache = f"direct:{request.session_id}" if request.session_id else None

    async def body(progress: Progress) -> None:
        await stream_model(
            backend, request, cache=cache, rec=rec, progress=progress, on_call=rec.call
        )
        progress.flush_text(rec, interrupted=progress.finish == "cancelled")

    return invocation.start(run_invocation(rec, body))
