"""Multi-agent turns on the embedded model, measured side by side in one run.

Prints: TTFT and total time of the 03 data pipeline (data agent + writer) vs
today's ``--data-mode summary`` prompt; tokens fed on turn 4 of a two-agent
session vs a one-agent session, split into new text and template (target: the
new tokens -- the user's message and the other agent's unread messages -- plus
a template as long as one agent's);
insight computation time for 10⁶ rows (median of 3).

Run: ``python benchmarks/bench_agents.py``
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parents[1]))

from agent_nb import (
    Agent,
    AgentRunner,
    DataAgent,
    GenerationConfig,
    SequentialAgent,
    TextMessage,
)
from agent_nb._core.types import Usage
from agent_nb._jupyter.prompts.data_summary import summarize
from agent_nb.backends.mlx import MLXBackend
from agent_nb.data.insights import compute_insights
from tests.data.frames import sales_frame

SHORT = GenerationConfig(max_tokens=16)
QUESTION = "Which region has the highest total revenue?"


def main() -> None:
    backend = MLXBackend("smollm2-135m", progress=False)
    backend.load()
    runner = AgentRunner(Agent("writer", config=SHORT), model=backend)
    sales = sales_frame()
    writer = Agent("writer", DataAgent.WRITER_INSTRUCTIONS, config=SHORT)
    pipeline = DataAgent(data={"sales": sales}).pipeline(writer)
    rows = []
    for i in range(3):
        started = time.perf_counter()
        a = runner.get_or_create_session(f"p{i}").run(QUESTION, agent=pipeline)
        t_pipe = time.perf_counter() - started
        started = time.perf_counter()
        b = runner.get_or_create_session(f"s{i}").run(f"{QUESTION}\n\n{summarize('sales', sales)}")
        t_sum = time.perf_counter() - started
        rows.append((a.usage.time_to_first_token_s, t_pipe, b.usage.time_to_first_token_s, t_sum))
    med = [statistics.median(r[k] for r in rows) for k in range(4)]
    print(f"03 pipeline: TTFT {med[0]:.2f}s total {med[1]:.2f}s | summary cell: TTFT "
          f"{med[2]:.2f}s total {med[3]:.2f}s | ratio total {med[1] / med[3]:.2f}")  # fmt: skip
    print(f"  pipeline reply: {a.text!r}\n  summary reply: {b.text!r}")

    tree = SequentialAgent("pair", [Agent("first", "Answer briefly.", config=SHORT),
                                    Agent("second", "Rephrase it.", config=SHORT)])  # fmt: skip
    two, one = runner.get_or_create_session("two"), runner.get_or_create_session("one")
    count = backend.load().tokenizer.encode
    replies: list[dict[str, str]] = []
    usages: list[dict[str, Usage]] = []
    for n, q in enumerate(["Name a colour.", "Name a fruit.", "Name a city.", "Name a dog."]):
        two.run(q, agent=tree)
        r1 = one.run(q)
        steps = two.trace().steps  # type: ignore[union-attr]
        turn = two.history[-1].invocation_id
        replies.append({e.author: e.text for e in two.history
                        if isinstance(e, TextMessage) and e.invocation_id == turn})  # fmt: skip
        usages.append({s.agent: s.usage for s in steps})
        if n < 3:
            continue
        # What is new to each agent's cache on turn 4: the user's message, and
        # the other agent's messages it has not read yet; the rest is template.
        new_text = {
            "first": [q, replies[2]["second"]],
            "second": [q, replies[3]["first"]],
        }
        user_tokens = len(count(q, add_special_tokens=False))
        one_template = r1.usage.prompt_tokens - user_tokens
        print(f"turn 4, one agent: fed {r1.usage.prompt_tokens} of {r1.usage.context_tokens} "
              f"= {user_tokens} new + {one_template} template")  # fmt: skip
        for s in steps:
            new = sum(len(count(t, add_special_tokens=False)) for t in new_text[s.agent])
            # Everything this agent's cache held after turn 3 (its prompt and reply
            # but the last token, never fed) is reused: nothing old is fed again.
            held = usages[2][s.agent].context_tokens - 1  # type: ignore[operator]
            print(f"turn 4, two agents, {s.agent}: fed {s.usage.prompt_tokens} of "
                  f"{s.usage.context_tokens} = {new} new + {s.usage.prompt_tokens - new} "
                  f"template (2 messages); reused all {held} tokens of turn 3: "
                  f"{s.usage.cached_tokens >= held}")  # fmt: skip
    runner.shutdown()

    n = 1_000_000
    rng = np.random.default_rng(0)
    big = pd.DataFrame({"date": pd.date_range("2020-01-01", periods=n, freq="min"),
                        "region": rng.choice(["N", "S", "E", "W"], n),
                        "value": rng.random(n)})  # fmt: skip
    times = []
    for _ in range(3):
        started = time.perf_counter()
        text = compute_insights("big", big).text()
        times.append(time.perf_counter() - started)
    print(f"insights for 10^6 rows: median {statistics.median(times):.2f}s, {len(text)} chars")


if __name__ == "__main__":
    main()
