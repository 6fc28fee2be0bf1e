"""Runtime costs on the ScriptedBackend: session churn, close() latency, idle memory.

Run: python benchmarks/bench_runtime.py
Prints medians; targets: close() median under 1 ms with a 10,000-event history,
create+delete cost flat whether 0 or 10,000 sessions are live.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc

from agent_nb import AgentRunner, TextMessage
from agent_nb.backends import ScriptedBackend


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def create_delete_cost(runner: AgentRunner, live: int, ops: int = 2000) -> float:
    for i in range(live):
        runner.get_or_create_session(f"live-{i}")
    samples = []
    for i in range(ops):
        t0 = time.perf_counter()
        runner.get_or_create_session(f"churn-{i}")
        runner.delete_session(f"churn-{i}")
        samples.append(time.perf_counter() - t0)
    return median_us(samples)


def bench_churn() -> None:
    empty = AgentRunner(model=ScriptedBackend())
    busy = AgentRunner(model=ScriptedBackend())
    try:
        cost_empty = create_delete_cost(empty, 0)
        cost_busy = create_delete_cost(busy, 10_000)
    finally:
        empty.shutdown()
        busy.shutdown()
    print(f"create+delete, 0 live sessions:      median {cost_empty:8.1f} us/op")
    print(f"create+delete, 10,000 live sessions: median {cost_busy:8.1f} us/op")
    print(f"  ratio (10,000 live / 0 live): {cost_busy / cost_empty:.2f}  (target ~1: O(1))")


def bench_close(history_events: int = 10_000, rounds: int = 7) -> None:
    runner = AgentRunner(model=ScriptedBackend())
    samples, finished = [], []
    try:
        for r in range(rounds):
            session = runner.get_or_create_session(f"big-{r}")
            # Seed through the store (the path turns use) rather than 3,000
            # real turns, each of which re-renders the growing history.
            for i in range(history_events - 3):
                author = "user" if i % 2 == 0 else "assistant"
                runner.store.append_event(
                    session._record, TextMessage(text=f"message {i}", author=author)
                )
            session.run("one real turn on top")
            assert len(session.history) == history_events
            t0 = time.perf_counter()
            session.close()
            samples.append(time.perf_counter() - t0)
            runner.get_or_create_session(f"big-{r}")  # waits for the background eviction
            finished.append(time.perf_counter() - t0)
    finally:
        runner.shutdown()
    close_ms, evicted_ms = median_us(samples) / 1000, median_us(finished) / 1000
    print(
        f"close() with a {history_events:,}-event history: median {close_ms:.3f} ms"
        f" (target < 1 ms); eviction done after median {evicted_ms:.2f} ms"
    )


def bench_idle_memory(sessions: int = 100, turns: int = 20) -> None:
    backend = ScriptedBackend()
    runner = AgentRunner(model=backend)
    try:
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(sessions):
            s = runner.get_or_create_session(f"idle-{i}")
            for t in range(turns):
                s.run(f"turn {t}: what does the data say about column {t}?")
                backend.requests.clear()  # the fake's own log is not session memory
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    finally:
        runner.shutdown()
    per = (after - before) / sessions
    print(f"memory per idle {turns}-turn session (history + state, no KV): {per / 1024:.1f} KiB")


if __name__ == "__main__":
    bench_churn()
    bench_close()
    bench_idle_memory()
