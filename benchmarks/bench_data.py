"""The data agent's plan path vs the summary mode, on the embedded model, side by side.

For every question of ``tests/data/questions.py`` (real tables from PyPI
packages, truths computed with pandas), one turn each way:

* **plan**: ``DataAgent(...).pipeline(writer)``: the plan's result is all the
  writer reads, and its sentence is checked (`check_reply`), replaced by the
  template sentence when a number or a name is wrong;
* **summary**: the question plus ``--data-mode summary``'s text (shape, dtypes,
  head, describe) to a plain writer: the peers' way.

A reply is strictly correct when it names the truth's group (if it has one)
and states the truth's number as rounded where written (if it has one); a
"columns" question is correct when the reply lists the table's columns. A
"wrong number" is a stated number that matches no number of the plan's
result. Greedy, 48 new tokens.

Run: ``python benchmarks/bench_data.py [--limit N]``

``--speed [RUNS]`` times plan and compute alone (no model) on a 10⁶-row table,
per question, median of RUNS. Target ≤ 1 s.

``--ttft [RUNS]`` measures instead the time to first token of a data question
on a 10⁵-row table on the CPU fast path, as a widget or ``%%agent --data``
user waits for it: from the question to the writer's first text token, with
the plan, the pandas compute and the chart (spec and table stored with the
turn) before it. A fresh session per run, so no KV cache is reused; the first
run (the kernel's first chart: Altair's import) is reported apart. Target ≤ 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from agent_nb import Agent, AgentRunner, DataAgent, GenerationConfig, TurnComplete
from agent_nb._jupyter.prompts.data_summary import summarize
from agent_nb.backends.mlx import MLXBackend
from agent_nb.data.agent import check_reply
from agent_nb.data.answer import ask
from agent_nb.data.evidence import REPLACED, _matches, _stated
from tests.data.questions import QUESTIONS, Question

SHORT = GenerationConfig(max_tokens=48)


def strictly_correct(text: str, q: Question) -> bool:
    name, number = q.truth(q.frame())
    low = text.lower()
    if q.op == "columns":
        return sum(str(c).lower() in low for c in q.frame().columns) >= 3
    if name is not None and str(name).lower() not in low:
        return False
    if number is not None:
        return any(_matches(abs(v), d, abs(number)) for v, d in _stated(text))
    return True


def wrong_number(text: str, allowed: list[float]) -> bool:
    return any(not any(_matches(abs(v), d, r) for r in allowed) for v, d in _stated(text))


def ttft(runs: int) -> None:
    """The ``--ttft`` figure (see the module docstring)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 100_000
    frame = pd.DataFrame({
        "region": rng.choice(["North", "South", "East", "West", "Central"], n),
        "product": rng.choice([f"p{i}" for i in range(40)], n),
        "units": rng.integers(1, 50, n),
        "revenue": rng.uniform(5, 500, n).round(2),
    })  # fmt: skip
    backend = MLXBackend("smollm2-135m", progress=False)
    backend.load()
    runner = AgentRunner(Agent("writer", config=SHORT), model=backend)
    question = "Which region has the highest total revenue?"

    async def one(i: int) -> tuple[float, float | None]:
        agent = DataAgent(data={"sales": frame}).pipeline()
        session = runner.get_or_create_session(f"ttft-{i}")
        start = time.perf_counter()
        first = None
        async with session.run_async(question, agent=agent) as stream:
            async for _ in stream.text_tokens():
                first = first or time.perf_counter() - start
        done = session.history[-1]
        assert isinstance(done, TurnComplete)
        return first or float("nan"), done.usage.time_to_first_token_s

    times = [asyncio.run(one(i)) for i in range(runs + 1)]
    first, rest = times[0], times[1:]
    print(f"TTFT, data question on {n:,} rows, CPU fast path ({runs} runs after a first):")
    print(f"  first run (the model's and Altair's first use): {first[0]:.2f} s")
    print(f"  median: {statistics.median(t for t, _ in rest):.2f} s "
          f"(runs: {', '.join(f'{t:.2f}' for t, _ in rest)}); the model's own TTFT "
          f"{statistics.median(m for _, m in rest if m is not None):.2f} s")  # fmt: skip


def speed(runs: int) -> None:
    """Plan and compute (profile, read, candidates, pandas) on 10⁶ rows: target ≤ 1 s."""
    import numpy as np
    import pandas as pd

    n = 1_000_000
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({
        "date": pd.date_range("2000-01-01", periods=n, freq="h"),
        "store": rng.choice([f"s{i}" for i in range(500)], n),
        "region": rng.choice(["North", "South", "East", "West"], n),
        "sales": rng.random(n),
    })  # fmt: skip
    questions = (
        "How did sales change over time?", "Which store has the most sales?",
        "What is the total sales in the North region?", "Are there more North than South rows?",
        "How many rows have sales above 0.9?", "List the 3 stores with the highest total sales.",
    )  # fmt: skip
    print(f"plan + compute on {n:,} rows, median of {runs} runs (target <= 1 s):")
    for question in questions:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            ask({"t": frame}, question)
            times.append(time.perf_counter() - started)
        print(f"  {statistics.median(times):6.3f} s  {question}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--ttft", type=int, nargs="?", const=5, default=0, metavar="RUNS")
    parser.add_argument("--speed", type=int, nargs="?", const=3, default=0, metavar="RUNS")
    parsed = parser.parse_args()
    if parsed.ttft:
        ttft(parsed.ttft)
        return
    if parsed.speed:
        speed(parsed.speed)
        return
    limit = parsed.limit
    backend = MLXBackend("smollm2-135m", progress=False)
    backend.load()
    runner = AgentRunner(Agent("writer", config=SHORT), model=backend)
    questions = QUESTIONS[:limit] if limit else QUESTIONS
    plan_ok = summary_ok = replaced = plan_wrong = summary_wrong = 0
    started = time.perf_counter()
    for i, q in enumerate(questions):
        frames = {q.table: q.frame()}
        said: list[str] = []

        def keep_and_check(
            callback_context: object, llm_response: object, said: list[str] = said
        ) -> str | None:
            said.append(getattr(llm_response, "text", ""))  # the model's own wording
            return check_reply(callback_context, llm_response)

        writer = Agent(
            "writer", DataAgent.WRITER_INSTRUCTIONS, config=SHORT,
            after_model_callback=keep_and_check,
        )  # fmt: skip
        reply = runner.run_single_turn(q.text, agent=DataAgent(data=frames).pipeline(writer))
        text = reply.text.split("\n\n*(")[0]
        allowed = ask(frames, q.text).reference["allowed"]
        was_replaced = REPLACED.split("{")[0] in reply.text
        summary = runner.run_single_turn(f"{q.text}\n\n{summarize(q.table, q.frame())}")
        p, s = strictly_correct(text, q), strictly_correct(summary.text, q)
        plan_ok += p
        summary_ok += s
        replaced += was_replaced
        plan_wrong += wrong_number(text, allowed)
        summary_wrong += wrong_number(summary.text, allowed) and not s
        mark = "R" if was_replaced else " "
        print(f"{i + 1:2} {'✓' if p else '✗'}{mark} {'✓' if s else '✗'} {q.table}: {q.text}")
        if was_replaced:
            print(f"      model:   {''.join(said).strip()[:110]!r}")
        print(f"      plan:    {text[:110]!r}")
        print(f"      summary: {summary.text.strip()[:110]!r}")
    n = len(questions)
    print()
    print(f"questions: {n} over {len({q.table for q in questions})} tables "
          f"({time.perf_counter() - started:.0f}s)")  # fmt: skip
    print(f"plan path:    {plan_ok}/{n} strictly correct ({plan_ok / n:.0%}); "
          f"{replaced} replaced by the template; {plan_wrong} stating a wrong number")  # fmt: skip
    print(f"summary mode: {summary_ok}/{n} strictly correct ({summary_ok / n:.0%}); "
          f"{summary_wrong} wrong replies stating a number not in the result")  # fmt: skip


if __name__ == "__main__":
    main()
