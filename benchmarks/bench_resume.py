"""KV checkpoints: the first turn after a restart, resumed from disk vs re-read.

Run: python benchmarks/bench_resume.py [--tokens 4000] [--max-tokens 8]

A session of about ``--tokens`` tokens is built in one process with
checkpoints on (two turns); the checkpoint written after the second turn is
set aside, and the third turn is measured three ways on the same request:

* **warm**: in the same process, on the cache in memory;
* **resumed**: in a fresh process with checkpoints on (loads the checkpoint,
  feeds the rest);
* **cold**: in a fresh process with ``AGENT_NB_KV_CHECKPOINTS=0`` (re-reads
  everything: today's restart).

Target: resumed TTFT <= 2x warm. Also printed: bytes on disk per 1k tokens,
and the background write of the second turn's checkpoint as a share of that
turn (the MLX thread's part -- cutting and evaluating the arrays, which the
next turn would wait for -- and the writer thread's part, which overlaps).
Each phase is a process of its own (``--phase``), as a kernel restart is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

STORE = "bench_resume|sqlite:///bench.db"
KEY = "bench"
QUESTIONS = [
    "In one sentence: what is this list about?",
    "Which fact mentions river 7?",
    "Thanks. Which fact comes last?",
]


def document(tokens: int) -> str:
    """Numbered facts, about 22 tokens each."""
    lines = [
        f"Fact {i}: river {i} flows {i * 7 % 90 + 10} km into lake {i % 13}."
        for i in range(tokens // 22)
    ]
    return "Here is a list of facts.\n" + "\n".join(lines)


def _turn(backend: Any, history: list[list[str]], max_tokens: int) -> dict[str, Any]:
    from agent_nb import GenerationConfig
    from agent_nb._core.types import Content, GenerateContentRequest
    from agent_nb.backends import CancelToken, Finish, TextDelta

    contents = tuple(Content.user(t) if r == "user" else Content.model(t) for r, t in history)
    request = GenerateContentRequest(
        contents=contents, config=GenerationConfig(max_tokens=max_tokens)
    )

    async def go() -> dict[str, Any]:
        text, finish, started = [], None, time.perf_counter()
        async for chunk in backend.stream(request, cache=KEY, cancel=CancelToken()):
            if isinstance(chunk, TextDelta):
                text.append(chunk.text)
            elif isinstance(chunk, Finish):
                finish = chunk
        assert finish is not None
        u = finish.usage
        return {
            "text": "".join(text),
            "ttft": u.time_to_first_token_s,
            "cached": u.cached_tokens,
            "fed": u.prompt_tokens,
            "wall": time.perf_counter() - started,
        }

    return asyncio.run(go())


def phase(args: argparse.Namespace) -> dict[str, Any]:
    from agent_nb.backends.mlx import MLXBackend

    backend = MLXBackend("smollm2-135m", progress=False)
    backend.load()
    on = backend.configure_checkpoints(store_identity=STORE, directory=args.dir)
    out: dict[str, Any] = {"checkpoints": on}
    history: list[list[str]] = json.loads(args.history) if args.history else []
    if args.phase == "build":
        history = [["user", document(args.tokens) + "\n\n" + QUESTIONS[0]]]
        checkpoints = backend.checkpoints
        assert checkpoints is not None
        for number, question in enumerate(QUESTIONS[1:], start=1):
            checkpoints.flush()
            before = checkpoints.stats.mlx_seconds, checkpoints.stats.io_seconds
            result = _turn(backend, history, args.max_tokens)
            out[f"turn{number}"] = result
            history += [["model", result["text"]], ["user", question]]
        checkpoints.flush()  # the second turn's checkpoint: what a restart finds
        out["write_mlx_s"] = checkpoints.stats.mlx_seconds - before[0]
        out["write_io_s"] = checkpoints.stats.io_seconds - before[1]
        shutil.copytree(args.dir, args.dir + ".snapshot")
        out["history"] = history
        out["warm"] = _turn(backend, history, args.max_tokens)
    else:
        out["turn"] = _turn(backend, history, args.max_tokens)
        out["figures"] = {k: v for k, v in backend.memory().items() if k.startswith("kv_check")}
    backend.checkpoints_off()
    return out


def run_phase(
    name: str, folder: str, history: list[list[str]] | None, args: argparse.Namespace, **env: str
) -> dict[str, Any]:
    command = [
        sys.executable,
        __file__,
        "--phase",
        name,
        "--dir",
        folder,
        "--tokens",
        str(args.tokens),
        "--max-tokens",
        str(args.max_tokens),
    ]
    if history is not None:
        command += ["--history", json.dumps(history)]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **env})
    if done.returncode:
        raise SystemExit(f"phase {name} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=4000)
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--phase", choices=["build", "resume"])
    parser.add_argument("--dir")
    parser.add_argument("--history")
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "kv")
        build = run_phase("build", folder, None, args)
        snapshot = folder + ".snapshot"
        files = [p for p in pathlib.Path(snapshot).rglob("*.safetensors") if p.name[0] != "."]
        assert len(files) == 1, files
        disk = files[0].stat().st_size
        held = int(files[0].name.split("-")[0])
        resumed = run_phase("resume", snapshot, build["history"], args)
        cold = run_phase("resume", snapshot, build["history"], args, AGENT_NB_KV_CHECKPOINTS="0")
    warm, res, cld = build["warm"], resumed["turn"], cold["turn"]
    turn2 = build["turn2"]
    print(
        f"session: {warm['cached'] + warm['fed']} tokens at the measured turn; "
        f"checkpoint holds {held} tokens, {disk / 1e6:.1f} MB"
    )
    print(f"{'':10}{'TTFT':>9}{'cached':>8}{'fed':>7}  reply")
    for name, t in (("warm", warm), ("resumed", res), ("cold", cld)):
        print(f"{name:10}{t['ttft']:>8.2f}s{t['cached']:>8}{t['fed']:>7}  {t['text'][:40]!r}")
    print(
        f"resumed / warm: {res['ttft'] / warm['ttft']:.2f}x (target <= 2x); "
        f"cold / warm: {cld['ttft'] / warm['ttft']:.1f}x"
    )
    print(f"same reply resumed and cold: {res['text'] == cld['text']}")
    print(f"disk: {disk / held * 1000 / 1e6:.1f} MB per 1k tokens")
    print(
        f"background write after turn 2 ({turn2['wall']:.2f}s): MLX thread "
        f"{build['write_mlx_s'] * 1000:.0f} ms ({build['write_mlx_s'] / turn2['wall']:.1%}), "
        f"writer thread {build['write_io_s'] * 1000:.0f} ms "
        f"({build['write_io_s'] / turn2['wall']:.1%}, overlapping)"
    )


if __name__ == "__main__":
    main()
