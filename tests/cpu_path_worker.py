"""One MLX CPU path in a fresh process: the notebooks' prompts through the real magics.

Run as ``python -m tests.cpu_path_worker [--max-tokens N] [--story N] [--turns A,B]``.
Which path it takes is whatever ``AGENT_NB_CPU_FAST`` / ``AGENT_NB_BLAS`` make of
this process: the BLAS is settled at the first ``mlx.core`` import, so each
path needs a process of its own. The last stdout line is ``RESULT {json}``:
each turn's greedy text and usage, the backend's ``memory()`` figures and the
resident memory. Used by ``tests/backends/test_cpu_fast_path.py`` and
``benchmarks/bench_cpu.py``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
from typing import Any

__all__ = ["RESULT_PREFIX", "TURNS", "main", "parse_result", "sales_frame"]

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--story", type=int, default=0, help="also a STORY turn of N tokens")
    parser.add_argument("--turns", help="only these TURNS labels, comma-separated (default: all)")

    args = parser.parse_args(argv)

    from IPython.core.interactiveshell import InteractiveShell

    from agent_nb import get_runner

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "agent_nb")
    shell.run_line_magic("config", f"AgentMagics.max_tokens = {args.max_tokens}")
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

    turns: dict[str, Any] = {}
    wanted = set(args.turns.split(",")) if args.turns else {label for label, _, _ in TURNS}
    plan = [(*t, args.max_tokens) for t in TURNS if t[0] in wanted]
    if args.story:
        plan.append((*STORY, args.story))
    for label, line, cell, max_tokens in plan:
        shell.run_cell_magic("agent", f"{line} -o reply --max-tokens {max_tokens}", cell)
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
    runner = get_runner()
    (memory,) = runner.memory()["backends"].values()
    result = {"turns": turns, "memory": memory, "resident_bytes": _resident_bytes()}
    runner.shutdown()
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
