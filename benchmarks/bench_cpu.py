"""MLX on the Linux CPU: the fast path (OpenBLAS + float32 weights) vs today's.

Run: python benchmarks/bench_cpu.py [--reps 3] [--story 48]

Each repetition starts one fresh process per path, alternating (the BLAS is
settled at a process's first ``mlx.core`` import): ``tests.cpu_path_worker``
runs the notebooks' prompts through the real ``%%agent`` magic, including a
``--data`` turn on the 03 notebook's DataFrame (about 700 prompt tokens), and
a story turn for decode speed. Printed per path, as medians over the
repetitions: TTFT of the ``--data`` turn, prefill tokens/s (its prompt tokens
over that TTFT), decode tokens/s (story turn), weights and resident memory;
then the ratios fast / today and whether the greedy texts are identical.

Targets on the 2-core project machine: TTFT ratio <= 1/15, decode ratio >= 2,
identical greedy text.

Then, in this process on the fast path, prefill at length (``--lengths``):
each prompt of about N tokens runs with the numpy attention/SwiGLU path
(`agent_nb.backends.mlx.cpu_attention`) and with mlx-lm's own ops, alternating,
through `MLXBackend.stream` (the real chunking); prefill tok/s is the fed
prompt tokens over the time to the first token. Target: >= 150 tok/s at
5,000 tokens, no slower at 500, identical greedy first tokens. Then how long
a Stop takes in the middle of the longest (last) prompt's prefill (the cancel
token is set at five points in it; seconds until the stream finishes). Target:
about a second.
``--prefill-only`` skips the subprocess comparison.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.cpu_path_worker import parse_result  # noqa: E402

PATHS = {"fast": {}, "today": {"AGENT_NB_CPU_FAST": "0"}}


def run_path(env_overrides: dict[str, str], story: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("AGENT_NB_CPU_FAST", "AGENT_NB_BLAS")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "tests.cpu_path_worker", "--story", str(story)],
        cwd=ROOT,
        env=env | env_overrides,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode:
        raise SystemExit(f"worker failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return parse_result(proc.stdout)


def figures(result: dict[str, Any]) -> dict[str, float]:
    data, story = result["turns"]["data"], result["turns"]["story"]
    return {
        "ttft_s": data["ttft_s"],
        "prompt_tokens": data["prompt_tokens"],
        "prefill_tok_s": data["prompt_tokens"] / data["ttft_s"],
        "decode_tok_s": story["tokens_per_s"],
        "weight_mb": result["memory"]["weight_bytes"] / 1e6,
        "resident_mb": result["resident_bytes"] / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--story", type=int, default=48, help="tokens of the decode turn")
    parser.add_argument("--lengths", default="500,1000,2000,5000")
    parser.add_argument("--prefill-only", action="store_true")
    args = parser.parse_args()
    if not args.prefill_only:
        compare_paths(args)
    prefill_at_length([int(n) for n in args.lengths.split(",") if n], args.reps)


def _prompt_of(tokenizer: Any, n: int) -> str:
    """A user message of about ``n`` tokens (varied words, so no n-gram shortcut)."""
    words = [f"item{i % 97} value {i * 37 % 1009}," for i in range(n)]
    ids = tokenizer.encode(" ".join(words), add_special_tokens=False)[: max(1, n - 30)]
    return str(tokenizer.decode(ids))


def prefill_at_length(lengths: list[int], reps: int) -> None:
    from agent_nb import GenerationConfig
    from agent_nb.backends.mlx import MLXBackend, cpu_attention
    from tests.streaming import collect

    backend = MLXBackend("smollm2-135m", progress=False)
    loaded = backend.load()
    print(f"\nPrefill at length ({loaded.cpu_blas} BLAS, {loaded.weights}), load {os.getloadavg()}")
    config = GenerationConfig(max_tokens=1, prompt_lookup=False)

    def once(text: str) -> tuple[float, int, str]:
        first, finish = collect(backend, text, config)
        usage = finish.usage
        assert usage.time_to_first_token_s
        return usage.prompt_tokens / usage.time_to_first_token_s, usage.prompt_tokens, first

    same = True
    for n in lengths:
        text = _prompt_of(loaded.tokenizer, n)
        rates: dict[bool, list[float]] = {True: [], False: []}
        firsts: dict[bool, str] = {}
        fed = 0
        for _ in range(reps):
            for numpy_path in (True, False):
                cpu_attention.set_enabled(numpy_path)
                rate, fed, first = once(text)
                rates[numpy_path].append(rate)
                firsts.setdefault(numpy_path, first)
        cpu_attention.set_enabled(True)
        same &= firsts[True] == firsts[False]
        new, old = statistics.median(rates[True]), statistics.median(rates[False])
        print(
            f"  {fed:>5} tokens: new {new:6.1f} tok/s  old {old:6.1f} tok/s  x{new / old:.2f}",
            flush=True,
        )
    print(f"  greedy first tokens identical: {same}   load after {os.getloadavg()}")
    # The last length is the longest: its prefill takes about fed / new seconds.
    stop_latency(backend, _prompt_of(loaded.tokenizer, lengths[-1]), config, fed / new)


def stop_latency(backend: Any, text: str, config: Any, prefill_s: float) -> None:
    """Seconds from a Stop (the cancel token set) to the end of the stream, pressed
    at 10 to 70 % of a prefill that takes about ``prefill_s``."""
    import threading
    import time

    from agent_nb.backends import CancelToken
    from tests.streaming import collect

    def once(after_s: float) -> tuple[float, str]:
        cancel, pressed = CancelToken(), [0.0]

        def press() -> None:
            pressed[0] = time.perf_counter()
            cancel.set()

        timer = threading.Timer(after_s, press)
        timer.start()
        _, finish = collect(backend, text, config, cancel=cancel)
        timer.cancel()
        return time.perf_counter() - pressed[0], finish.finish_reason

    waits = [once(prefill_s * share) for share in (0.1, 0.25, 0.4, 0.55, 0.7)]
    assert all(reason == "cancelled" for _, reason in waits), waits
    seconds = sorted(w for w, _ in waits)
    print(
        f"  Stop during the prefill: median {statistics.median(seconds):.2f} s, "
        f"max {seconds[-1]:.2f} s over {len(seconds)} stops (target: about a second)"
    )


def compare_paths(args: argparse.Namespace) -> None:
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in PATHS}
    for rep in range(args.reps):
        for name, env in PATHS.items():
            result = run_path(env, args.story)
            runs[name].append(result)
            f = figures(result)
            print(
                f"  rep {rep + 1} {name:>5}: TTFT {f['ttft_s']:.2f}s  "
                f"prefill {f['prefill_tok_s']:.1f} tok/s  decode {f['decode_tok_s']:.2f} tok/s",
                flush=True,
            )

    medians: dict[str, dict[str, float]] = {}
    print(f"\nMedians over {args.reps} runs per path (each run a fresh process):")
    for name, results in runs.items():
        memory = results[0]["memory"]
        per = [figures(r) for r in results]
        medians[name] = {k: statistics.median(f[k] for f in per) for k in per[0]}
        m = medians[name]
        print(
            f"  {name:>5} ({memory['cpu_blas']} BLAS, {memory['weights']} weights): "
            f"TTFT of the --data turn ({m['prompt_tokens']:.0f} prompt tokens) {m['ttft_s']:.2f}s, "
            f"prefill {m['prefill_tok_s']:.1f} tok/s, decode {m['decode_tok_s']:.2f} tok/s, "
            f"weights {m['weight_mb']:.0f} MB, resident {m['resident_mb']:.0f} MB"
        )
    fast, today = medians["fast"], medians["today"]
    ttft = fast["ttft_s"] / today["ttft_s"]
    decode = fast["decode_tok_s"] / today["decode_tok_s"]
    print(
        f"\nRatios fast / today: TTFT {ttft:.3f} (1/{1 / ttft:.1f}; target <= 1/15), "
        f"prefill x{fast['prefill_tok_s'] / today['prefill_tok_s']:.1f}, "
        f"decode x{decode:.2f} (target >= 2), "
        f"resident memory x{fast['resident_mb'] / today['resident_mb']:.2f}"
    )
    texts = {
        name: [{k: t["text"] for k, t in r["turns"].items()} for r in results]
        for name, results in runs.items()
    }
    same = all(t == texts["today"][0] for name in texts for t in texts[name])
    print(f"Greedy texts identical across paths and runs: {same}")
    if not same:
        for label in texts["today"][0]:
            print(f"  {label}: fast {texts['fast'][0][label]!r}")
            print(f"  {' ' * len(label)}  today {texts['today'][0][label]!r}")


if __name__ == "__main__":
    main()
