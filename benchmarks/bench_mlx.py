"""The MLX backend on the embedded SmolLM2: KV reuse, decode overhead, memory after close.

Run: python benchmarks/bench_mlx.py [--turns 8] [--reps 3] [--sessions 20] [--only abc]

(a) Tokens fed and time to first token at turns 1..N of one growing
    conversation: a session (KV reuse) vs a no-reuse baseline that re-prefills
    the whole history every turn (what llm-mlx and jupyter-ai do), on the same
    requests. The baseline asks for one token only: TTFT is all it measures.
(b) Decode tokens/s through ``session.run_async`` vs raw
    ``mlx_lm.stream_generate`` on the same prompt and model, alternating
    runs. Both measured client-side the same way: (tokens - 1) / (time of the
    last piece - time of the first). Target: ratio >= 0.97.
(c) MLX active memory after creating, using and closing N sessions vs before.
    Target: within 5%.

The CPU build decodes a few tokens per second; the defaults keep the whole
run to a few minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from agent_nb import (
    AgentRunner,
    Content,
    GenerateContentRequest,
    GenerationConfig,
    TextMessage,
    TurnComplete,
)
from agent_nb.backends import CancelToken, Finish
from agent_nb.backends.mlx import MLXBackend

SYSTEM = "You are a helpful assistant. Answer in one short sentence."
QUESTIONS = [
    "What is the capital of France?",
    "And of Italy?",
    "Which is larger?",
    "Name a river there.",
    "How long is it?",
    "Name a famous bridge.",
    "Who built it?",
    "Thanks, bye.",
]
STORY = "Write a long story about a dog who learns to sail."


def fmt(x: float | None, unit: str = "s") -> str:
    return "-" if x is None else f"{x:.2f}{unit}"


# -- (a) KV reuse ----------------------------------------------------------------


async def _ttft_without_reuse(backend: MLXBackend, request: GenerateContentRequest) -> Finish:
    one = GenerateContentRequest(
        request.contents, request.system_instruction, config=GenerationConfig(max_tokens=1)
    )
    finish = Finish()
    async for chunk in backend.stream(one, cache=None, cancel=CancelToken()):
        if isinstance(chunk, Finish):
            finish = chunk
    return finish


def bench_reuse(backend: MLXBackend, turns: int, max_tokens: int) -> None:
    print(f"(a) growing conversation, {turns} turns, {max_tokens} new tokens each")
    runner = AgentRunner(model=backend)
    session = runner.get_or_create_session("bench-reuse")
    config = GenerationConfig(max_tokens=max_tokens)
    rows = []
    try:
        for turn in range(turns):
            question = QUESTIONS[turn % len(QUESTIONS)]
            contents = [
                Content(
                    "user" if isinstance(e, TextMessage) and e.author == "user" else "model", e.text
                )
                for e in session.history
                if isinstance(e, TextMessage)
            ] + [Content.user(question)]
            request = GenerateContentRequest(contents, SYSTEM)
            reply = session.run(question, system=SYSTEM, config=config)
            base = asyncio.run(_ttft_without_reuse(backend, request))
            rows.append((turn + 1, reply.usage, base.usage))
    finally:
        runner.shutdown()
    print(" turn | reuse: fed cached  ttft | no reuse: fed  ttft | ttft ratio")
    for turn, reuse, base in rows:
        ratio = (
            base.time_to_first_token_s / reuse.time_to_first_token_s
            if reuse.time_to_first_token_s and base.time_to_first_token_s
            else None
        )
        print(
            f" {turn:4d} | {reuse.prompt_tokens:10d} {reuse.cached_tokens:6d} "
            f"{fmt(reuse.time_to_first_token_s):>6} | {base.prompt_tokens:12d} "
            f"{fmt(base.time_to_first_token_s):>6} | {fmt(ratio, 'x'):>8}"
        )
    fed_reuse = sum(r.prompt_tokens for _, r, _ in rows)
    fed_base = sum(b.prompt_tokens for _, _, b in rows)
    ttft_reuse = statistics.median(r.time_to_first_token_s or 0 for _, r, _ in rows[1:])
    ttft_base = statistics.median(b.time_to_first_token_s or 0 for _, _, b in rows[1:])
    print(
        f" total fed: {fed_reuse} with reuse vs {fed_base} without "
        f"({fed_base / max(fed_reuse, 1):.1f}x fewer); median TTFT turns 2..{turns}: "
        f"{ttft_reuse:.2f}s vs {ttft_base:.2f}s ({ttft_base / max(ttft_reuse, 1e-9):.1f}x faster)"
    )


# -- (b) decode overhead ------------------------------------------------------------


def _rate(times: list[float], tokens: int) -> float:
    return (tokens - 1) / (times[-1] - times[0]) if tokens > 1 and len(times) > 1 else 0.0


def raw_decode(backend: MLXBackend, prompt: list[int], max_tokens: int) -> float:
    from mlx_lm import stream_generate

    from agent_nb.backends.mlx.runtime import mlx_thread

    loaded = backend.load()

    def job() -> float:
        times: list[float] = []
        n = 0
        for response in stream_generate(
            loaded.model, loaded.tokenizer, prompt, max_tokens=max_tokens
        ):
            times.append(time.perf_counter())
            n = response.generation_tokens
        return _rate(times, n)

    # Same thread as the backend's own generations: same stream, same caches.
    return mlx_thread().call(job)


def session_decode(runner: AgentRunner, rep: int, max_tokens: int) -> float:
    session = runner.get_or_create_session(f"bench-decode-{rep}")

    async def consume() -> float:
        times: list[float] = []
        generated = 0
        async for event in session.run_async(
            STORY, system=SYSTEM, config=GenerationConfig(max_tokens=max_tokens)
        ):
            if isinstance(event, TextMessage) and event.is_partial:
                times.append(time.perf_counter())
            elif isinstance(event, TurnComplete):
                generated = event.usage.generated_tokens
        # A token can yield no text piece (a lone space waits for the next
        # token), so count tokens, as the raw side does, over the pieces' span.
        return _rate(times, generated)

    try:
        return asyncio.run(consume())
    finally:
        session.delete()


def bench_decode(backend: MLXBackend, reps: int, max_tokens: int) -> None:
    print(f"(b) decode tokens/s, {reps} alternating runs of {max_tokens} tokens")
    runner = AgentRunner(model=backend)
    prompt = backend.prompt_tokens(GenerateContentRequest([Content.user(STORY)], SYSTEM))
    raw, ours = [], []
    try:
        session_decode(runner, -1, 4)  # warm up both paths
        for rep in range(reps):
            raw.append(raw_decode(backend, prompt, max_tokens))
            ours.append(session_decode(runner, rep, max_tokens))
    finally:
        runner.shutdown()
    r, o = statistics.median(raw), statistics.median(ours)
    print(
        f" raw mlx_lm.stream_generate: {r:.2f} tok/s  (runs: {', '.join(f'{x:.2f}' for x in raw)})"
    )
    print(
        f" session.run_async:          {o:.2f} tok/s  (runs: {', '.join(f'{x:.2f}' for x in ours)})"
    )
    print(f" ratio session/raw: {o / r:.3f}  (target >= 0.97)")


# -- (c) memory after close -------------------------------------------------------------


def bench_memory(backend: MLXBackend, sessions: int) -> None:
    import gc

    import mlx.core as mx

    print(f"(c) MLX active memory around {sessions} sessions (one short turn each)")
    runner = AgentRunner(model=backend)
    config = GenerationConfig(max_tokens=1)
    try:
        warm = runner.get_or_create_session("bench-warm")
        warm.run("Hi", system="Hi", config=config)
        warm.delete()
        gc.collect()
        before = mx.get_active_memory()
        opened = []
        for i in range(sessions):
            session = runner.get_or_create_session(f"bench-mem-{i}")
            session.run("Hi", system="Hi", config=config)
            opened.append(session.id)
        during = mx.get_active_memory()
        kv = runner.memory()["kv_bytes_total"]
        for session_id in opened:
            runner.get_or_create_session(session_id).close()
        for session_id in opened:
            runner.get_or_create_session(session_id)  # waits for the background eviction
        gc.collect()
        after = mx.get_active_memory()
    finally:
        runner.shutdown()
    mib = 1 << 20
    print(
        f" before {before / mib:.1f} MiB, with {sessions} sessions {during / mib:.1f} MiB "
        f"(KV {kv / mib:.1f} MiB), after closing {after / mib:.1f} MiB"
    )
    print(f" ratio after/before: {after / before:.3f}  (target within 5%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--turn-tokens", type=int, default=8)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--decode-tokens", type=int, default=24)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--only", default="abc", help="which parts to run, e.g. 'b'")
    args = parser.parse_args()
    backend = MLXBackend("smollm2-135m")
    started = time.perf_counter()
    backend.load()
    print(f"model loaded in {time.perf_counter() - started:.1f}s")
    if "a" in args.only:
        bench_reuse(backend, args.turns, args.turn_tokens)
    if "b" in args.only:
        bench_decode(backend, args.reps, args.decode_tokens)
    if "c" in args.only:
        bench_memory(backend, args.sessions)
    print(f"total {time.perf_counter() - started:.0f}s")


if __name__ == "__main__":
    main()
