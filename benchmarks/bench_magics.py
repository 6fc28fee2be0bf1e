"""What the ``%%agent`` cell costs on top of the turn itself.

Prints medians: a scripted 100-token turn through ``session.run`` and through
a ``%%agent`` cell (real IPython shell, rich display captured), their ratio,
the display updates per second while streaming, and `safe_markdown` on
replies of growing size (it runs on every update).

Run: ``python benchmarks/bench_magics.py``
"""

from __future__ import annotations

import statistics
import time

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from agent_nb import AgentRunner, set_runner
from agent_nb._core.render import safe_markdown
from agent_nb.backends import ScriptedBackend

REPLY = " ".join(f"word{i}" for i in range(100))


def median_ms(fn: object, repeat: int = 15) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    backend = ScriptedBackend()
    runner = AgentRunner(model=backend)
    set_runner(runner)
    shell = InteractiveShell.instance()
    shell.extension_manager.load_extension("agent_nb")
    session = runner.get_or_create_session("bench")

    def direct() -> None:
        backend.enqueue(REPLY)
        session.run("go")

    def cell() -> None:
        backend.enqueue(REPLY)
        with capture_output():
            shell.run_cell("%%agent bench2\ngo")

    direct_ms, cell_ms = median_ms(direct), median_ms(cell)
    print(f"session.run, 100 tokens:   {direct_ms:7.2f} ms (median)")
    print(f"%%agent cell, 100 tokens:  {cell_ms:7.2f} ms (median)")
    print(f"cell / run ratio:          {cell_ms / direct_ms:7.2f}")

    backend.token_delay = 0.01  # 100 tokens over about a second
    backend.enqueue(REPLY)
    started = time.perf_counter()
    with capture_output() as cap:
        shell.run_cell("%%agent bench3\ngo")
    elapsed = time.perf_counter() - started
    streaming = len(cap.outputs) - 2  # not the placeholder, not the final render
    print(f"display updates/s while streaming (limit 20): {streaming / elapsed:5.1f}")

    for size in (1_000, 4_000, 16_000):
        text = ("Some prose with <b>tags</b> & `code` here.\n```py\nx = 1 < 2\n```\n" * 200)[:size]
        ms = median_ms(lambda text=text: safe_markdown(text), repeat=30)
        print(f"safe_markdown, {size:6d} chars: {ms:6.2f} ms (median)")
    runner.shutdown()


if __name__ == "__main__":
    main()
