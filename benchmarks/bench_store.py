"""Store benchmark: append latency per event, and resuming a 1,000-event session.

Run: ``python benchmarks/bench_store.py [--events 1000] [--appends 500]``

Appends are timed one event at a time (each is one transaction for SQLite),
with turn-shaped events: a user message carrying a state delta, a tool call,
a tool result of a few KB, the model's text and a `TurnComplete`. Resume is
what a restarted kernel does: open the file, load the session, and (through
`AgentRunner`) build the session object with its merged state.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent_nb import AgentRunner
from agent_nb._core.types import (
    Event,
    FunctionCall,
    FunctionResponse,
    TextMessage,
    TurnComplete,
    Usage,
)
from agent_nb.backends import ScriptedBackend
from agent_nb.stores import MemoryStore, SessionStore, SQLiteStore

__all__ = ["main"]

APP, USER = "agent_nb", "default"


def turn_event(i: int) -> Event:
    turn, step = divmod(i, 5)
    inv = f"inv{turn}"
    if step == 0:
        return TextMessage(
            text=f"question {turn}: " + "words " * 40,
            author="user",
            invocation_id=inv,
            state_delta={"turn": turn, "user:asked": turn},
        )
    if step == 1:
        return FunctionCall(name="lookup", args={"q": turn}, author="m", invocation_id=inv)
    if step == 2:
        return FunctionResponse(
            name="lookup", response={"rows": ["r" * 40] * 50}, author="m", invocation_id=inv
        )
    if step == 3:
        return TextMessage(text="answer " * 60, author="m", invocation_id=inv)
    return TurnComplete(usage=Usage(prompt_tokens=300, generated_tokens=60), invocation_id=inv)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_appends(store: SessionStore, n: int) -> list[float]:
    record = store.create_session(APP, USER, "bench")
    out = []
    for i in range(n):
        event = turn_event(i)
        start = time.perf_counter()
        store.append_event(record, event)
        out.append(time.perf_counter() - start)
    return out


def fill(store: SessionStore, session_id: str, n: int) -> None:
    record = store.create_session(APP, USER, session_id)
    for i in range(n):
        store.append_event(record, turn_event(i))


def best_of(repeats: int, fn: Callable[[], object]) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--appends", type=int, default=500)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"append latency per event ({args.appends} turn-shaped events, ms)")
        print(f"{'store':<28}{'median':>10}{'p95':>10}{'max':>10}")
        medians = {}
        stores: list[tuple[str, Callable[[], SessionStore]]] = [
            ("MemoryStore", MemoryStore),
            ("SQLiteStore durable=False", lambda: SQLiteStore(folder / "fast.db", durable=False)),
            ("SQLiteStore (default)", lambda: SQLiteStore(folder / "durable.db")),
        ]
        for name, make in stores:
            store = make()
            times = [t * 1e3 for t in time_appends(store, args.appends)]
            store.close()
            medians[name] = statistics.median(times)
            print(
                f"{name:<28}{medians[name]:>10.3f}{percentile(times, 0.95):>10.3f}"
                f"{max(times):>10.3f}"
            )

        db = folder / "resume.db"
        seed = SQLiteStore(db, durable=False)
        fill(seed, "big", args.events)
        seed.close()
        size_kb = sum(p.stat().st_size for p in folder.glob("resume.db*")) / 1024

        def store_resume() -> None:
            store = SQLiteStore(db)
            record = store.get_session(APP, USER, "big")
            assert record is not None and len(record.events) == args.events
            store.merged_state(record)
            store.close()

        def runner_resume() -> None:
            runner = AgentRunner(model=ScriptedBackend(), store=f"sqlite:///{db}")
            session = runner.get_or_create_session("big")
            assert len(session.history) == args.events
            _ = session.state
            runner.shutdown()

        print(f"\nresume a {args.events}-event session ({size_kb:.0f} KiB on disk), ms")
        for name, fn in (
            ("SQLiteStore open + get_session", store_resume),
            ("new AgentRunner + get_or_create", runner_resume),
        ):
            times = [t * 1e3 for t in best_of(args.repeats, fn)]
            print(f"{name:<34} median {statistics.median(times):8.2f}   min {min(times):8.2f}")

        mem = medians["MemoryStore"]
        print(
            "\nratios to MemoryStore append median: "
            + ", ".join(f"{k} x{v / mem:.0f}" for k, v in medians.items() if k != "MemoryStore")
        )


if __name__ == "__main__":
    main()
