"""The context window on the embedded SmolLM2: a long chat in a small window.

Run: python benchmarks/bench_context.py [--turns 100] [--window 512] [--max-tokens 8]

(a) A ``--turns`` conversation with ``MLXBackend(context_window=--window)`` and
    short replies. Reported: requests over the window (prompt + max_tokens
    past it, by the exact template count; and KV caches holding more tokens
    than the window; both must be 0), KV rebuilds (slides) per 100 turns,
    and the median tokens fed per turn against the new message's own tokens
    (between slides a turn should cost its message plus the template).
(b) The cost of counting: time to first token over the first 10 turns of two
    sessions fed the same messages, alternating turn by turn: one with the
    window (the request is counted with the chat template before each call),
    one on a backend that counts nothing and knows no window (what agent_nb
    did before). TTFT is taken client-side, from ``run_async`` to the first
    streamed text, so the counting is inside it (the backend's own TTFT starts
    after it). Median, p95 and the ratio of medians; target <= 1.05.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from typing import Any

from agent_nb import (
    AgentRunner,
    AgentSession,
    GenerateContentRequest,
    GenerationConfig,
    TextMessage,
)
from agent_nb.backends.mlx import MLXBackend

SYSTEM = "You are a helpful assistant. Answer in one short sentence."
TOPICS = [
    "the capital of France", "a river in Egypt", "the color of the sky", "what bees make",
    "the largest ocean", "the capital of Japan", "an animal that says moo", "a kind of tree",
    "the boiling point of water", "a planet near the sun", "a famous painter",
    "a fruit that is yellow", "the capital of Spain", "a bird that cannot fly",
    "a musical instrument", "the tallest mountain", "a kind of cheese", "a winter sport",
]  # fmt: skip


def question(i: int) -> str:
    return f"Question {i + 1}: tell me about {TOPICS[i % len(TOPICS)]}."


class Uncounted(MLXBackend):
    """The same model with no window and no counting: the turn as it was before."""

    def count_tokens(self, request: GenerateContentRequest) -> int:
        return 0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def long_chat(turns: int, window: int, max_tokens: int) -> dict[str, Any]:
    backend = MLXBackend("smollm2-135m", context_window=window, progress=False)
    backend.load()
    runner = AgentRunner(model=backend)
    config = GenerationConfig(max_tokens=max_tokens)
    session = runner.get_or_create_session("long")
    over = kv_over = slides = 0
    fed: list[int] = []
    fed_between: list[int] = []
    new: list[int] = []
    previous = 0
    started = time.perf_counter()
    for i in range(turns):
        text = question(i)
        usage = session.run(text, system=SYSTEM, config=config).usage
        assert usage.context_tokens is not None
        over += usage.context_tokens + max_tokens > window
        kv_over += len(backend.cached_tokens(session.id)) > window
        tokens = len(backend.tokenizer.encode(text, add_special_tokens=False))
        new.append(tokens)
        fed.append(usage.prompt_tokens)
        if i and usage.cached_tokens < previous:
            slides += 1
        elif i:
            fed_between.append(usage.prompt_tokens)
        previous = usage.context_tokens
    elapsed = time.perf_counter() - started
    runner.shutdown()
    backend.close()
    return {
        "turns": turns,
        "over": over,
        "kv_over": kv_over,
        "slides": slides,
        "fed": statistics.median(fed),
        "fed_between": statistics.median(fed_between) if fed_between else 0,
        "new": statistics.median(new),
        "history_turns": turns,
        "seconds": elapsed,
    }


def client_ttft(session: AgentSession, text: str, config: GenerationConfig) -> float:
    """Seconds from starting the turn to its first streamed text (counting included)."""

    async def turn() -> float:
        started = time.perf_counter()
        first: float | None = None
        async for event in session.run_async(text, system=SYSTEM, config=config):
            if first is None and isinstance(event, TextMessage) and event.is_partial:
                first = time.perf_counter() - started
        assert first is not None, "the turn streamed no text"
        return first

    return asyncio.run(turn())


def ttft_pair(turns: int, window: int, max_tokens: int) -> tuple[list[float], list[float]]:
    windowed = MLXBackend("smollm2-135m", context_window=window, progress=False)
    plain = Uncounted("smollm2-135m", progress=False)
    windowed.load()
    plain.load()
    config = GenerationConfig(max_tokens=max_tokens)
    runners = [AgentRunner(model=windowed), AgentRunner(model=plain)]
    sessions = [r.get_or_create_session(f"ttft-{n}") for n, r in enumerate(runners)]
    times: list[list[float]] = [[], []]
    for i in range(turns):
        order = (0, 1) if i % 2 == 0 else (1, 0)  # neither side always goes first
        for side in order:
            times[side].append(client_ttft(sessions[side], question(i), config))
    for runner in runners:
        runner.shutdown()
    return times[0], times[1]


def main() -> None:
    sys.stdout.reconfigure(line_buffering=True)  # a long run shows its figures as they come
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--window", type=int, default=512)
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--ttft-turns", type=int, default=10)
    parser.add_argument("--only", choices=["a", "b"], help="run one part only")
    args = parser.parse_args()

    if args.only != "b":
        part_a(args)
    if args.only != "a":
        part_b(args)


def part_a(args: argparse.Namespace) -> None:
    print(f"(a) {args.turns} turns, context_window={args.window}, max_tokens={args.max_tokens}")
    a = long_chat(args.turns, args.window, args.max_tokens)
    per_100 = a["slides"] * 100 / a["turns"]
    print(f"    requests over the window: {a['over']} (KV caches over it: {a['kv_over']})")
    print(f"    KV rebuilds (slides): {a['slides']} ({per_100:.1f} per 100 turns)")
    print(
        f"    median tokens fed per turn: {a['fed']:.0f} (between slides {a['fed_between']:.0f})"
        f" vs new-message tokens {a['new']:.0f}; ratio {a['fed'] / a['new']:.2f}"
        f" ({a['fed_between'] / a['new']:.2f} between slides)"
    )
    print(f"    wall time: {a['seconds']:.0f} s")


def part_b(args: argparse.Namespace) -> None:
    print(f"(b) TTFT over the first {args.ttft_turns} turns, alternating sessions")
    with_window, without = ttft_pair(args.ttft_turns, args.window, args.max_tokens)
    for name, values in (("with window", with_window), ("without", without)):
        print(
            f"    {name:12} median {statistics.median(values) * 1000:7.1f} ms"
            f"  p95 {percentile(values, 0.95) * 1000:7.1f} ms"
        )
    ratio = statistics.median(with_window) / statistics.median(without)
    print(f"    ratio of medians (with / without): {ratio:.3f}  (target <= 1.05)")


if __name__ == "__main__":
    main()
