"""Overhead of `OpenAIBackend` against the raw ``openai`` SDK on the same server.

Run: python benchmarks/bench_openai.py [--runs 5] [--max-tokens 16]

Two measurements, each a median over alternating runs (raw, backend, raw, ...)
so server drift hits both sides alike:

1. A real ``mlx_lm.server`` serving the embedded model: time to first token
   and decode tokens/s, raw SDK vs the backend vs a full `AgentRunner` turn.
   Target: ratios within a few percent of 1 (the model dominates).
2. A local socket server streaming 1,000 tiny chunks as fast as it can: pure
   client cost per chunk (SSE parsing in the SDK plus the backend's
   cancel-aware reads). This is where any overhead of the backend shows.

Tokens/s is computed the same way everywhere: (pieces - 1) / (last piece
time - first piece time), client-side.
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass

import openai

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from agent_nb import AgentRunner, Content, GenerateContentRequest, GenerationConfig
from agent_nb.backends import CancelToken, TextDelta
from agent_nb.backends.mlx.embedded import ensure_embedded_model
from agent_nb.backends.openai import OpenAIBackend
from tests.fixtures_server import FakeOpenAIServer, Reply, start_mlx_server

PROMPT = "Write one sentence about the sea."


@dataclass(frozen=True)
class Sample:
    ttft_s: float
    tokens_per_s: float
    pieces: int
    cpu_s: float  # CPU time of the calling thread: robust on a busy machine


def _sample(started: float, cpu_started: float, stamps: list[float]) -> Sample:
    span = stamps[-1] - stamps[0] if len(stamps) > 1 else 0.0
    rate = (len(stamps) - 1) / span if span > 0 else float("nan")
    return Sample(stamps[0] - started, rate, len(stamps), time.thread_time() - cpu_started)


async def raw_sdk(client: openai.AsyncOpenAI, model: str, max_tokens: int) -> Sample:
    started, cpu_started = time.perf_counter(), time.thread_time()
    stamps: list[float] = []
    stream = await client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": PROMPT}],
        stream=True,
        stream_options={"include_usage": True},
        temperature=0.0,
        top_p=1.0,
        max_tokens=max_tokens,
    )
    async for chunk in stream:
        for choice in chunk.choices:
            if choice.delta.content:
                stamps.append(time.perf_counter())
    return _sample(started, cpu_started, stamps)


async def via_backend(backend: OpenAIBackend, max_tokens: int) -> Sample:
    request = GenerateContentRequest(
        [Content.user(PROMPT)], config=GenerationConfig(max_tokens=max_tokens)
    )
    started, cpu_started = time.perf_counter(), time.thread_time()
    stamps: list[float] = []
    async for chunk in backend.stream(request, cache=None, cancel=CancelToken()):
        if isinstance(chunk, TextDelta):
            stamps.append(time.perf_counter())
    return _sample(started, cpu_started, stamps)


async def via_runner(runner: AgentRunner, max_tokens: int, run: int) -> Sample:
    session = runner.get_or_create_session(f"bench-{run}")
    started, cpu_started = time.perf_counter(), time.thread_time()
    stamps: list[float] = []
    stream = session.run_async(PROMPT, config=GenerationConfig(max_tokens=max_tokens))
    async for _ in stream.text_tokens():
        stamps.append(time.perf_counter())
    session.delete()
    return _sample(started, cpu_started, stamps)


def _report(title: str, results: dict[str, list[Sample]]) -> None:
    print(f"\n{title}")
    base = results["raw openai SDK"]
    base_ttft = statistics.median(s.ttft_s for s in base)
    base_rate = statistics.median(s.tokens_per_s for s in base)
    for name, samples in results.items():
        ttft = statistics.median(s.ttft_s for s in samples)
        rate = statistics.median(s.tokens_per_s for s in samples)
        pieces = statistics.median(s.pieces for s in samples)
        print(
            f"  {name:<22} TTFT {ttft * 1000:9.2f} ms   {rate:10.1f} tokens/s   "
            f"({pieces:.0f} pieces)   TTFT ratio {ttft / base_ttft:5.3f}   "
            f"tokens/s ratio {rate / base_rate:5.3f}"
        )


async def _alternate(
    runs: int, client: openai.AsyncOpenAI, backend: OpenAIBackend, model: str, max_tokens: int
) -> dict[str, list[Sample]]:
    results: dict[str, list[Sample]] = {"raw openai SDK": [], "OpenAIBackend.stream": []}
    await raw_sdk(client, model, max_tokens)  # warm-up: model load, server prompt cache
    await via_backend(backend, max_tokens)
    for _ in range(runs):
        results["raw openai SDK"].append(await raw_sdk(client, model, max_tokens))
        results["OpenAIBackend.stream"].append(await via_backend(backend, max_tokens))
    return results


def bench_real_server(runs: int, max_tokens: int) -> None:
    model_dir = ensure_embedded_model()
    with (
        tempfile.TemporaryDirectory() as tmp,
        start_mlx_server(model_dir, pathlib.Path(tmp) / "server.log") as server,
    ):
        client = openai.AsyncOpenAI(api_key="EMPTY", base_url=server.base_url, max_retries=0)
        backend = OpenAIBackend(server.model, base_url=server.base_url, max_retries=0)
        results = asyncio.run(_alternate(runs, client, backend, server.model, max_tokens))
        runner = AgentRunner(model=server.spec())
        try:
            results["AgentRunner turn"] = [
                asyncio.run(via_runner(runner, max_tokens, run)) for run in range(runs)
            ]
        finally:
            runner.shutdown()
    _report(f"real mlx_lm.server, embedded model, {max_tokens} tokens, {runs} runs", results)


def bench_client_overhead(runs: int, pieces: int = 1000) -> None:
    server = FakeOpenAIServer()
    try:
        server.enqueue(*[Reply(pieces=("x",) * pieces)] * (2 * runs + 2))
        client = openai.AsyncOpenAI(api_key="EMPTY", base_url=server.base_url, max_retries=0)
        backend = OpenAIBackend("fake", base_url=server.base_url, max_retries=0)
        results = asyncio.run(_alternate(runs, client, backend, "fake", pieces))
    finally:
        server.close()
    _report(f"local socket server, {pieces} chunks per reply (client cost only)", results)
    base = statistics.median(s.cpu_s / s.pieces for s in results["raw openai SDK"])
    for name, samples in results.items():
        cpu = statistics.median(s.cpu_s / s.pieces for s in samples)
        print(f"  {name:<22} {cpu * 1e6:7.1f} us client CPU per chunk   (ratio {cpu / base:5.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--skip-real", action="store_true", help="only the local-server part")
    args = parser.parse_args()
    bench_client_overhead(max(args.runs, 9))
    if not args.skip_real:
        bench_real_server(args.runs, args.max_tokens)


if __name__ == "__main__":
    main()
