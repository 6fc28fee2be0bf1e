"""ChatWidget lifecycle memory: MLX active memory + KV bytes over create -> turn -> clear output.

Each cycle makes ``ChatWidget()`` on the embedded MLX model, runs one short
turn through it and then does what clearing the cell's output does: its one
view reports ``destroyed`` (the front end's message, delivered the way a
kernel delivers it) and the grace period runs out. Printed side by side: the
same cycles with the views never told (the behaviour before the lifecycle:
every forgotten widget kept its KV cache). Target: ratio after/before <= 1.05.

    python benchmarks/bench_widget.py [--cycles 10]
"""

from __future__ import annotations

import argparse
import gc
import time

from agent_nb import AgentRunner, ChatWidget, GenerationConfig

CONFIG = GenerationConfig(max_tokens=4)
MIB = 1 << 20


def one_cycle(runner: AgentRunner, n: int, *, lifecycle: bool) -> ChatWidget:
    widget = ChatWidget(runner=runner, config=CONFIG)
    widget.close_grace_s = 0.05
    widget._views.grace_s = 0.05
    done = []
    widget.send_message(f"Say hi number {n}.")
    widget._turn.add_done_callback(lambda _: done.append(True))  # type: ignore[union-attr]
    while not done:
        time.sleep(0.01)
    if lifecycle:
        for event in ("attached", "destroyed"):
            widget._on_frontend_msg(
                widget,
                {"type": "view", "event": event, "page_id": "bench", "view_id": "v", "live": []},
                [],
            )
        while not widget.closed:
            time.sleep(0.01)
    return widget


def measure(runner: AgentRunner, cycles: int, *, lifecycle: bool) -> tuple[int, int]:
    import mlx.core as mx

    kept = [one_cycle(runner, n, lifecycle=lifecycle) for n in range(cycles)]
    while any(info.evicting for info in runner.sessions()):  # background evictions
        time.sleep(0.01)
    gc.collect()
    mx.clear_cache()
    total = mx.get_active_memory() + runner.memory()["kv_bytes_total"]
    live = len([s for s in runner.sessions() if not s.closed and not s.evicting])
    for widget in kept:
        widget.close()
    return total, live


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=10)
    args = parser.parse_args()
    runner = AgentRunner(model="mlx:smollm2-135m")
    try:
        one_cycle(runner, -1, lifecycle=True)  # load the model (before mlx is imported here)
        import mlx.core as mx

        gc.collect()
        mx.clear_cache()
        before = mx.get_active_memory() + runner.memory()["kv_bytes_total"]
        with_lc, live_lc = measure(runner, args.cycles, lifecycle=True)
        without, live_old = measure(runner, args.cycles, lifecycle=False)
    finally:
        runner.shutdown()
    print(f"{args.cycles} cycles of ChatWidget() -> one turn ({CONFIG.max_tokens} tokens) -> "
          "clear output, MLX active memory + KV bytes:")  # fmt: skip
    print(f" before:                      {before / MIB:8.2f} MiB")
    print(f" after, lifecycle close:      {with_lc / MIB:8.2f} MiB  ({live_lc} sessions live)")
    print(f" after, views never told:     {without / MIB:8.2f} MiB  ({live_old} sessions live)")
    print(f" ratio after/before: {with_lc / before:.3f} (target <= 1.05); "
          f"without the lifecycle {without / before:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
