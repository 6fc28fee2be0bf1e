"""A slow store pauses no other session's stream (issue 28, item 3).

The one loop appends each final event to the store in a thread of the
worker loop's executor, one at a time and in order. With a store whose
``append_event`` takes 0.15 s (as a far-away database may), a second
session's stream on the same runner keeps its pace while the first session
writes, and the first session's turn is recorded whole, in order. The busy
turn's 12 writes follow each other with hardly a gap, so they cover the whole
1.2 s stream however slow the machine: a stream that waited for the store
would show no chunk inside any write.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from typing import Any

from agent_nb import Agent, FunctionCall, FunctionResponse, TextMessage, TurnComplete
from agent_nb.backends import ScriptedBackend, ToolCallChunk
from agent_nb.stores import MemoryStore
from tests.fixtures_runtime import RunnerFactory

WRITE_S = 0.15


class SlowStore(MemoryStore):
    """A memory store whose every append takes ``WRITE_S`` (a slow database)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[str, float, float]] = []  # session, start, end

    def append_event(self, record: Any, event: Any) -> Any:
        start = time.monotonic()
        time.sleep(WRITE_S)
        stored = super().append_event(record, event)
        self.writes.append((record.session_id, start, time.monotonic()))
        return stored


def note(i: int) -> str:
    """Write down a number."""
    return f"noted {i}"


def test_a_slow_store_pauses_no_other_sessions_stream(make_runner: RunnerFactory) -> None:
    store = SlowStore()
    writer_model = ScriptedBackend([*(ToolCallChunk("note", {"i": i}) for i in range(5)), "done"])
    runner = make_runner(Agent(tools=[note]), model=writer_model, store=store)
    busy, other = runner.get_or_create_session("busy"), runner.get_or_create_session("other")
    streamer = ScriptedBackend(["word " * 60], token_delay=0.02)

    replies: list[Any] = []
    writing = threading.Thread(target=lambda: replies.append(busy.run("note five numbers")))
    writing.start()
    while not any(s == "busy" for s, _, _ in store.writes):  # its first write is done
        time.sleep(0.01)

    async def chunk_times() -> list[float]:
        times = []
        async for event in other.run_async("talk", model=streamer):
            if isinstance(event, TextMessage) and event.is_partial:
                times.append(time.monotonic())
        return times

    times = asyncio.run(chunk_times())
    writing.join(30)
    gaps = [b - a for a, b in itertools.pairwise(times)]
    busy_writes = [(start, end) for s, start, end in store.writes if s == "busy"]
    # The busy session wrote while the other streamed: the test measured what it claims.
    assert any(start < times[-1] and end > times[0] for start, end in busy_writes)
    assert len(times) >= 60
    # No pause: chunks kept arriving while a write was in progress (a stream that
    # waited for the store would show none inside any write's WRITE_S).
    during = [t for t in times if any(start < t < end for start, end in busy_writes)]
    assert len(during) >= 3, (len(during), f"largest gap {max(gaps):.3f} s")

    # The busy turn is recorded whole, one event per write, in the order it streamed.
    (reply,) = replies
    recorded = [e for e in busy.history if e.invocation_id == reply.invocation_id]
    assert [e.id for e in recorded] == [e.id for e in reply.events]
    assert isinstance(recorded[-1], TurnComplete) and recorded[-1].finish_reason == "stop"
    calls = [e.call_id for e in recorded if isinstance(e, FunctionCall)]
    answers = [e.call_id for e in recorded if isinstance(e, FunctionResponse)]
    assert calls == answers and len(calls) == 5
    assert len(busy_writes) == len(recorded)  # one write (one transaction) per event
