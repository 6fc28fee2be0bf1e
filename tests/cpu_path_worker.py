"""One MLX CPU path in a fresh process: the notebooks' prompts through the real magics.

Run as ``python -m tests.cpu_path_worker [--max-tokens N] [--story N] [--turns A,B]
[--missing-blas PATH --missing-blas-out DIR]``.
Which path it takes is whatever ``AGENT_NB_CPU_FAST`` / ``AGENT_NB_BLAS`` make of
this process: the BLAS is settled at the first ``mlx.core`` import, so each
path needs a process of its own. The last stdout line is ``RESULT {json}``:
each turn's greedy text and usage, the backend's ``memory()`` figures and the
resident memory. Used by ``tests/backends/test_cpu_fast_path.py`` (which asks
the same turns in its own process through `prepare` and `ask`) and
``benchmarks/bench_cpu.py``.

``--missing-blas PATH`` also forks, once the imports are done and before
anything imports ``mlx.core``, a child that decides its BLAS afresh with
``AGENT_NB_BLAS=PATH`` (and ``AGENT_NB_CPU_FAST`` unset): once the parent's turns
are done it loads the model twice and answers one question (`two_loads`), its
stdout and stderr going to ``DIR/stdout`` and ``DIR/stderr``; its exit status is
``missing_blas_exit`` in the parent's RESULT. A fresh interpreter for it would
only pay the imports again.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import traceback
from typing import Any

__all__ = [
    "RESULT_PREFIX",
    "TURNS",
    "ask",
    "main",
    "parse_result",
    "prepare",
    "sales_frame",
    "two_loads",
]

RESULT_PREFIX = "RESULT "
#: (label, %%agent line, cell): the questions of notebooks 01, 02 and 03, in order.
TURNS = [
    ("france", "demo", "What is the capital of France?"),
    ("italy", "demo", "And the capital of Italy?"),
    ("rhyme", "class", "Give me one word that rhymes with cat."),
    # The frame and its monthly revenue: a prompt of about 650 tokens.
    (
        "data",
        "sales --data sales growth --data-mode summary",
        "In one sentence: what does this table contain?",
    ),
    (
        "revenue",
        "sales",
        "Revenue by region is {totals}. The best region is {best}. "
        "Write one short sentence for a manager.",
    ),
]
STORY = ("story", "story", "Write a long story about a dog who learns to sail.")


def sales_frame() -> Any:
    """The DataFrame of ``notebooks/03_data_summary.ipynb``."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    months = pd.period_range("2026-01", periods=6, freq="M").astype(str)
    regions = ["North", "South", "East", "West"]
    sales = pd.DataFrame(
        [
            (m, r, int(rng.integers(80, 200)), round(float(rng.uniform(9.5, 12.5)), 2))
            for m in months
            for r in regions
        ],
        columns=["month", "region", "units", "unit_price"],
    )
    sales["revenue"] = sales.units * sales.unit_price
    return sales


def _resident_bytes() -> int:
    """Resident memory now (Linux), else the peak ``getrusage`` reports."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def prepare(shell: Any, max_tokens: int) -> None:
    """The worker's settings and the notebooks' variables, in a shell with agent_nb loaded."""
    shell.run_line_magic("config", f"AgentMagics.max_tokens = {max_tokens}")
    # --data budgets are counted with the model's tokenizer: 900 tokens for the two
    # summaries make the data turn the 600+ token prompt the comparison is about.
    shell.run_line_magic("config", "AgentMagics.data_budget = 900")
    sales = sales_frame()
    totals = sales.groupby("region")["revenue"].sum().sort_values(ascending=False)
    totals = {region: round(float(value), 2) for region, value in totals.items()}
    growth = sales.groupby("month").revenue.sum()
    shell.user_ns.update(
        sales=sales, growth=growth, totals=totals, best=max(totals, key=totals.get)
    )


def ask(
    shell: Any, labels: set[str] | None = None, max_tokens: int = 16, story: int = 0
) -> dict[str, Any]:
    """The `TURNS` labelled ``labels`` (default: all) through ``%%agent``, in order."""
    turns: dict[str, Any] = {}
    wanted = labels if labels is not None else {label for label, _, _ in TURNS}
    plan = [(*t, max_tokens) for t in TURNS if t[0] in wanted]
    if story:
        plan.append((*STORY, story))
    for label, line, cell, tokens in plan:
        shell.run_cell_magic("agent", f"{line} -o reply --max-tokens {tokens}", cell)
        reply = shell.user_ns.pop("reply")
        usage = reply.usage
        turns[label] = {
            "text": reply.text,
            "finish_reason": reply.finish_reason,
            "prompt_tokens": usage.prompt_tokens,
            "cached_tokens": usage.cached_tokens,
            "generated_tokens": usage.generated_tokens,
            "ttft_s": usage.time_to_first_token_s,
            "tokens_per_s": usage.tokens_per_s,
        }
    return turns


def two_loads() -> None:
    """The model loaded twice (the second from the first's folder), one short greedy
    answer from the second; prints ``RESULT blas weights 'text'``."""
    from agent_nb import AgentRunner, GenerationConfig
    from agent_nb.backends.mlx import MLXBackend

    first = MLXBackend("smollm2-135m", progress=False)
    second = MLXBackend(first.load().path, progress=False)  # a second model load, same files
    runner = AgentRunner(model=second)
    reply = runner.run_single_turn(
        "What is the capital of France?", config=GenerationConfig(max_tokens=8)
    )
    memory = second.memory()
    print(RESULT_PREFIX + f"{memory['cpu_blas']} {memory['weights']} {reply.text!r}", flush=True)
    runner.shutdown()


def _fork_missing_blas(path: str, out: str) -> tuple[int, int]:
    """`two_loads` in a forked child on ``AGENT_NB_BLAS=path``, held back until the
    parent writes to (or closes) the returned pipe end: both decode on the slow BLAS,
    and two of them at once on a small machine would only slow each other down.
    Returns the child's pid and that pipe end."""
    # No thread runs yet and mlx.core is not imported: the child decides its BLAS anew.
    assert "mlx.core" not in sys.modules, "mlx.core imported before the fork"
    sys.stdout.flush()
    sys.stderr.flush()
    gate, go = os.pipe()
    pid = os.fork()
    if pid:
        os.close(gate)
        return pid, go
    os.close(go)
    code = 1
    try:
        os.read(gate, 1)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            target = os.open(os.path.join(out, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(target, fd)
            os.close(target)
        os.environ.pop("AGENT_NB_CPU_FAST", None)
        os.environ["AGENT_NB_BLAS"] = path
        two_loads()
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--story", type=int, default=0, help="also a STORY turn of N tokens")
    parser.add_argument("--turns", help="only these TURNS labels, comma-separated (default: all)")
    parser.add_argument("--missing-blas", help="also fork `two_loads` on AGENT_NB_BLAS=this")
    parser.add_argument("--missing-blas-out", help="the folder for that child's output")

    args = parser.parse_args(argv)

    # What both sides of the fork need, imported once (none of it imports mlx.core).
    import transformers  # noqa: F401
    from IPython.core.interactiveshell import InteractiveShell

    from agent_nb import get_runner
    from agent_nb.backends.mlx import MLXBackend  # noqa: F401

    child = None
    if args.missing_blas:
        child, go = _fork_missing_blas(args.missing_blas, args.missing_blas_out)

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "agent_nb")
    prepare(shell, args.max_tokens)
    labels = set(args.turns.split(",")) if args.turns else None
    turns = ask(shell, labels, args.max_tokens, args.story)
    runner = get_runner()
    (memory,) = runner.memory()["backends"].values()
    result = {"turns": turns, "memory": memory, "resident_bytes": _resident_bytes()}
    runner.shutdown()
    if child is not None:
        os.close(go)  # the child's turn now
        result["missing_blas_exit"] = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    print(RESULT_PREFIX + json.dumps(result), flush=True)


def parse_result(stdout: str) -> dict[str, Any]:
    """The JSON of a worker's ``RESULT`` line."""
    lines = [ln for ln in stdout.splitlines() if ln.startswith(RESULT_PREFIX)]
    if not lines:
        raise ValueError(f"the worker printed no {RESULT_PREFIX.strip()} line:\n{stdout[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1][len(RESULT_PREFIX) :])
    return result


if __name__ == "__main__":
    main()
