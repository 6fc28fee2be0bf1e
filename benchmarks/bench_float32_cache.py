"""Loading the embedded model on the CPU fast path: float32 weights computed or read back.

Each run is a fresh interpreter (a kernel, a script, a notebook: what a user
starts) that loads the converted model with mlx-lm and then makes its weights
float32 either way, alternating:

* ``computed``: `weights.dequantise_to_float32` with no cache (what every
  load did before `agent_nb.backends.mlx.float32_cache`);
* ``cached``: the same call reading the float32 file the first load wrote.

It prints the median CPU seconds and wall seconds of that step, and of the
whole load (mlx-lm's load included), with the ratio computed / cached, and
checks that both ways give bit-identical weights.

Run: ``python benchmarks/bench_float32_cache.py [--runs 5]``
(needs MLX's Linux CPU wheel and a system OpenBLAS: the fast path)
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]

__all__ = ["main"]

CHILD = textwrap.dedent(
    """
    import hashlib, json, pathlib, sys, time
    from agent_nb.backends.mlx.cpu_blas import prepare_cpu_blas
    assert prepare_cpu_blas().fast, "not on the CPU fast path (OpenBLAS)"
    import mlx.core as mx
    from mlx.utils import tree_flatten
    from mlx_lm import load
    from agent_nb.backends.mlx.embedded import ensure_embedded_model
    from agent_nb.backends.mlx.weights import dequantise_to_float32

    folder = ensure_embedded_model(progress=False)
    cpu, wall = time.process_time(), time.perf_counter()
    model, _ = load(str(folder))
    cpu_step, wall_step = time.process_time(), time.perf_counter()
    dequantise_to_float32(model, folder if sys.argv[1] == "cached" else None)
    end_cpu, end_wall = time.process_time(), time.perf_counter()
    digest = hashlib.sha256()
    for name, value in sorted(tree_flatten(model.parameters()), key=lambda kv: kv[0]):
        digest.update(name.encode())
        digest.update(memoryview(value.astype(mx.float32)).tobytes())
    print(json.dumps({
        "step_cpu": end_cpu - cpu_step, "step_wall": end_wall - wall_step,
        "load_cpu": end_cpu - cpu, "load_wall": end_wall - wall,
        "digest": digest.hexdigest(),
    }))
    """
)


def _run(mode: str) -> dict[str, float | str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{done.stderr[-2000:]}")
    result: dict[str, float | str] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    _run("cached")  # writes the file if it is missing: not timed
    runs: dict[str, list[dict[str, float | str]]] = {"computed": [], "cached": []}
    for _ in range(args.runs):
        for mode in runs:
            runs[mode].append(_run(mode))
    digests = {str(r["digest"]) for rs in runs.values() for r in rs}
    print(f"{args.runs} fresh interpreters each way, alternating; medians")
    print(f"{'seconds':28s}{'computed':>10s}{'cached':>10s}{'ratio':>8s}")
    for key, label in (
        ("step_cpu", "float32 weights, CPU"),
        ("step_wall", "float32 weights, wall"),
        ("load_cpu", "whole load, CPU"),
        ("load_wall", "whole load, wall"),
    ):
        computed = statistics.median(float(r[key]) for r in runs["computed"])
        cached = statistics.median(float(r[key]) for r in runs["cached"])
        print(f"{label:28s}{computed:10.2f}{cached:10.2f}{computed / cached:7.1f}x")
    print("weights identical both ways:", len(digests) == 1)
    sys.exit(0 if len(digests) == 1 else 1)


if __name__ == "__main__":
    main()
