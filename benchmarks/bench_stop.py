"""Stop latency: from Stop to the cancelled turn recorded (target: under 0.5 s).

Run: ``python benchmarks/bench_stop.py [--reps 20]``

A `ScriptedBackend` streams a 500-word reply at 20 ms a word (10 s); once it
streams, Stop is pressed three ways: `ChatWidget.stop()` (what the widget's
Stop button sends), `session.cancel()` and `EventStream.cancel()`. Printed:
the median and worst time until the turn's `TurnComplete` is recorded, and
the median's ratio to the 0.5 s target. The tests only check that Stop ends
the turn early and records it as cancelled.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable

from agent_nb import AgentRunner, ChatWidget, TurnComplete
from agent_nb.backends import ScriptedBackend

__all__ = ["main"]

TARGET_S = 0.5
LONG = " ".join(["word"] * 500)


def one_stop(runner: AgentRunner, backend: ScriptedBackend, how: str, n: int) -> float:
    backend.enqueue(LONG)
    session = runner.get_or_create_session(f"{how}-{n}")
    recorded = threading.Event()
    asked = len(backend.requests)

    def on_event(event: object) -> None:
        if isinstance(event, TurnComplete):
            recorded.set()

    session.subscribe(on_event, lambda _: None)
    stop: Callable[[], None]
    if how == "widget":
        widget = ChatWidget(session, runner=runner)
        widget.send_message("long please")
        stop = widget.stop
    else:
        stream = session.run_async("long please")
        stop = session.cancel if how == "session" else stream.cancel
    while len(backend.requests) == asked:  # the model was asked: the reply streams
        time.sleep(0.005)
    time.sleep(0.2)  # well inside the 10 s reply
    started = time.perf_counter()
    stop()
    recorded.wait(30)
    elapsed = time.perf_counter() - started
    if how == "widget":
        widget.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    backend = ScriptedBackend(token_delay=0.02)
    runner = AgentRunner(model=backend)
    try:
        print(f"{'stop by':<16} {'median s':>9} {'worst s':>8} {'vs 0.5 s':>9}")
        for how in ("widget", "session", "stream"):
            times = [one_stop(runner, backend, how, n) for n in range(args.reps)]
            median = statistics.median(times)
            print(f"{how:<16} {median:>9.3f} {max(times):>8.3f} {median / TARGET_S:>8.2f}x")
    finally:
        runner.shutdown()


if __name__ == "__main__":
    main()
