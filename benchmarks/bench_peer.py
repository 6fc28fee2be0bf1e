"""agent_nb's MLX CPU path against llama.cpp on the same GGUF, side by side in one run.

Run: python benchmarks/bench_peer.py --llama-python /path/to/venv/bin/python
     [--lengths 500,1000,2000,5000] [--decode 96] [--threads 2]

The peer ratio for issue 23: llama.cpp (``llama-cpp-python``, built from
source here: there is no Linux wheel on PyPI) reads the embedded model's own
file, ``SmolLM2-135M-Instruct.Q4_1.gguf``, in a Python whose path you give; it
runs in a subprocess, alternating with agent_nb's path in this process, on
the same prompt text (the `bench_cpu` prompts of about N tokens). Printed per
length: prefill tok/s of each (prompt tokens over the time to the first
token, a fresh cache each), then decode tok/s for ``--decode`` greedy tokens
on a short prompt, and the ratios agent_nb / llama.cpp.

agent_nb runs float32 weights through OpenBLAS (its CPU fast path);
llama.cpp runs the Q4_1 weights with its own kernels, on ``--threads``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.bench_cpu import _prompt_of  # noqa: E402

#: The llama.cpp half: reads one JSON job per line, answers one JSON line each.
PEER = r"""
import json, sys, time
from llama_cpp import Llama
path, threads = sys.argv[1], int(sys.argv[2])
llm = Llama(model_path=path, n_ctx=8192, n_batch=512, n_threads=threads, verbose=False)
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    llm.reset()
    messages = [{"role": "user", "content": job["text"]}]
    started, first, n = time.perf_counter(), None, 0
    for _ in llm.create_chat_completion(messages, max_tokens=job["max_tokens"],
                                        temperature=0.0, stream=True):
        n += 1
        if first is None:
            first = time.perf_counter()
    end = time.perf_counter()
    prompt = len(llm.tokenize(job["text"].encode(), add_bos=False))
    print(json.dumps({"ttft": first - started, "prompt": prompt, "n": n,
                      "decode": (n - 1) / (end - first) if n > 1 else None}), flush=True)
"""


class Peer:
    def __init__(self, python: str, gguf: str, threads: int) -> None:
        self.proc = subprocess.Popen(
            [python, "-c", PEER, gguf, str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.ask_line() == {"ready": True}

    def ask_line(self) -> Any:
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())

    def run(self, text: str, max_tokens: int) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"text": text, "max_tokens": max_tokens}) + "\n")
        self.proc.stdin.flush()
        return dict(self.ask_line())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llama-python", required=True, help="a Python with llama-cpp-python")
    parser.add_argument("--lengths", default="500,1000,2000,5000")
    parser.add_argument("--decode", type=int, default=96)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()

    from agent_nb import GenerationConfig
    from agent_nb.backends.mlx import MLXBackend
    from agent_nb.backends.mlx.embedded import find_gguf
    from tests.streaming import collect

    backend = MLXBackend("smollm2-135m", progress=False)
    loaded = backend.load()
    gguf = str(find_gguf())
    peer = Peer(args.llama_python, gguf, args.threads)
    print(f"agent_nb: {loaded.cpu_blas} BLAS, {loaded.weights} weights; llama.cpp: {gguf}, "
          f"{args.threads} threads; load {os.getloadavg()}")  # fmt: skip

    def ours(text: str, max_tokens: int) -> Any:
        config = GenerationConfig(max_tokens=max_tokens, prompt_lookup=False)
        return collect(backend, text, config)[1].usage

    try:
        for n in [int(x) for x in args.lengths.split(",") if x]:
            text = _prompt_of(loaded.tokenizer, n)
            mine, theirs = [], []
            for _ in range(args.reps):
                usage = ours(text, 1)
                mine.append(usage.prompt_tokens / usage.time_to_first_token_s)
                got = peer.run(text, 1)
                theirs.append(got["prompt"] / got["ttft"])
            a, b = statistics.median(mine), statistics.median(theirs)
            print(f"  prefill {n:>5} tokens: agent_nb {a:7.1f} tok/s  llama.cpp {b:7.1f} tok/s"
                  f"  ratio x{a / b:.2f}", flush=True)  # fmt: skip
        story = "Write a long story about a lighthouse keeper and a storm."
        mine, theirs = [], []
        for _ in range(args.reps):
            mine.append(ours(story, args.decode).tokens_per_s or 0.0)
            theirs.append(peer.run(story, args.decode)["decode"] or 0.0)
        a, b = statistics.median(mine), statistics.median(theirs)
        print(f"  decode {args.decode} tokens: agent_nb {a:.1f} tok/s  llama.cpp {b:.1f} tok/s"
              f"  ratio x{a / b:.2f}   load after {os.getloadavg()}")  # fmt: skip
    finally:
        peer.close()


if __name__ == "__main__":
    main()
