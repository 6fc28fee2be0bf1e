"""How long a token takes from the model to the cell: before and after the front door.

Each partial text event is stamped where the runtime makes it (on the worker
loop, as the MLX thread hands the token over); the cell's loop notes when it
has it in hand, ready to display. Two consumers read the same kind of turn:

* **before**: the path the magic used until issue 38 -- a helper thread runs
  its own ``asyncio.run`` over the `EventStream` and hands each event to the
  main thread through a ``SimpleQueue`` (4 threads, 3 queues per token);
* **after**: the main thread reads the stream itself with the blocking
  `EventStream.next_event` (3 threads, 2 queues).

Prints the median and 90th percentile latency per token, and their ratio,
for the ScriptedBackend (no model: the path alone) and, with ``--mlx``, the
embedded SmolLM2-135M on MLX (greedy, 32 tokens).

Run: ``python benchmarks/bench_token_path.py [--mlx]``
"""

from __future__ import annotations

import asyncio
import queue
import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from agent_nb import AgentRunner, TextMessage
from agent_nb._runtime.front_door import TurnRequest
from agent_nb._runtime.options import TurnOptions
from agent_nb._runtime.stream import EventStream
from agent_nb.backends import ScriptedBackend

_END = object()


def before(stream: EventStream) -> list[float]:
    """The old consumer: helper thread + its own loop + SimpleQueue."""
    out: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def pump() -> None:
        async def main() -> None:
            try:
                async for event in stream:
                    out.put(event)
            finally:
                out.put(_END)

        asyncio.run(main())

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    delays = []
    while True:
        try:
            item = out.get(timeout=0.1)
        except queue.Empty:
            continue
        if item is _END:
            break
        if isinstance(item, TextMessage) and item.is_partial:
            delays.append(time.time() - item.timestamp)
    thread.join()
    return delays


def after(stream: EventStream) -> list[float]:
    """The new consumer: the main thread reads the stream itself."""
    delays = []
    while True:
        try:
            item = stream.next_event(timeout=0.1)
        except StopIteration:
            break
        if isinstance(item, TextMessage) and item.is_partial:
            delays.append(time.time() - item.timestamp)
    return delays


def measure(
    runner: AgentRunner,
    consume: Callable[[EventStream], list[float]],
    turns: int,
    load: Callable[[], None],
) -> list[float]:
    delays: list[float] = []
    options = TurnOptions(overrides={"max_tokens": 32, "temperature": 0.0})
    for i in range(turns):
        load()
        stream = runner.start_turn(TurnRequest(f"Count to ten, take {i}.", None, options))
        delays += consume(stream)
    return delays


def report(name: str, runner: AgentRunner, turns: int, load: Callable[[], None]) -> None:
    measure(runner, after, 1, load)  # warm up (model load, first compile)
    results = {}
    for label, consume in (
        ("before", before),
        ("after", after),
        ("before", before),
        ("after", after),
    ):
        results.setdefault(label, []).extend(measure(runner, consume, turns, load))
    print(f"{name}: {len(results['after'])} tokens per consumer")
    for label, delays in results.items():
        ordered = sorted(delays)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        print(
            f"  {label:6s} median {statistics.median(delays) * 1e6:8.1f} µs   "
            f"p90 {p90 * 1e6:8.1f} µs   (model -> cell, per token)"
        )
    ratio = statistics.median(results["before"]) / statistics.median(results["after"])
    print(f"  before / after (medians): {ratio:.2f}x")


def main() -> None:
    reply = " ".join(f"w{i}" for i in range(32))
    scripted = ScriptedBackend(token_delay=0.002)
    runner = AgentRunner(model=scripted)
    try:
        report("ScriptedBackend, 2 ms per token", runner, 6, lambda: scripted.enqueue(reply))
    finally:
        runner.shutdown()
    if "--mlx" in sys.argv:
        runner = AgentRunner(model="mlx:smollm2-135m")
        try:
            report("MLX smollm2-135m, greedy", runner, 3, lambda: None)
        finally:
            runner.shutdown()


if __name__ == "__main__":
    main()
