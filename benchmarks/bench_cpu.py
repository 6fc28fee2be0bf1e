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
    args = parser.parse_args()

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
