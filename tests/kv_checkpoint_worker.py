"""KV checkpoints in a fresh process: the "restart" of the resume tests.

``python -m tests.kv_checkpoint_worker turns SPEC`` runs greedy turns on the
embedded model (SPEC is JSON: ``dir``, ``store``, ``checkpoints`` and ``turns``,
a list of ``[cache key, [[role, text], ...]]``) and prints ``RESULT {json}``:
each turn's text and usage, the backend's checkpoint figures and, per key,
the token ids its latest checkpoint holds.

``python -m tests.kv_checkpoint_worker writers SPEC`` imports what a writer
needs, then forks one writer per line it reads on stdin (the line is its
random seed). A writer loads one checkpoint (``source``) without the model,
prints ``READY pid`` and writes prefixes of it again and again under ``key``
(``model`` and ``weights`` give the identity), printing ``WROTE n`` after
each: the process the SIGKILL rounds kill mid-write. Once a writer is dead
the server reaps it and prints ``GONE pid``, so its pid no longer counts as
alive. Forking from an imported server spares each round the seconds a fresh
interpreter spends importing mlx-lm.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import random
import sys
import traceback
from typing import Any

__all__ = ["RESULT_PREFIX", "main", "parse_result"]

RESULT_PREFIX = "RESULT "


def parse_result(stdout: str) -> dict[str, Any]:
    line = next(x for x in reversed(stdout.splitlines()) if x.startswith(RESULT_PREFIX))
    result: dict[str, Any] = json.loads(line[len(RESULT_PREFIX) :])
    return result


def _turns(spec: dict[str, Any]) -> dict[str, Any]:
    from agent_nb import GenerationConfig
    from agent_nb._core.types import Content, GenerateContentRequest
    from agent_nb.backends import CancelToken, Finish, TextDelta
    from agent_nb.backends.mlx import MLXBackend
    from agent_nb.backends.mlx import checkpoint_files as files

    backend = MLXBackend("smollm2-135m", progress=False)
    on = spec["checkpoints"] and backend.configure_checkpoints(
        store_identity=spec["store"], directory=spec["dir"]
    )
    config = GenerationConfig(max_tokens=spec.get("max_tokens", 12))
    results = []
    for key, turns in spec["turns"]:
        contents = tuple(
            Content.user(text) if role == "user" else Content.model(text) for role, text in turns
        )
        request = GenerateContentRequest(contents=contents, config=config)

        async def go(request: GenerateContentRequest = request, key: str = key) -> dict[str, Any]:
            text, finish = [], None
            async for chunk in backend.stream(request, cache=key, cancel=CancelToken()):
                if isinstance(chunk, TextDelta):
                    text.append(chunk.text)
                elif isinstance(chunk, Finish):
                    finish = chunk
            assert finish is not None
            return {"key": key, "text": "".join(text), "cached": finish.usage.cached_tokens,
                    "fed": finish.usage.prompt_tokens,
                    "ttft": finish.usage.time_to_first_token_s,
                    "prompt": backend.prompt_tokens(request)}  # fmt: skip

        results.append(asyncio.run(go()))
    figures = {k: v for k, v in backend.memory().items() if k.startswith("kv_")}
    backend.close()  # flushes the checkpoints
    held: dict[str, list[int]] = {}
    if backend.checkpoints is not None:
        for f in files.all_files(backend.checkpoints.root):
            header = files.read_header(f.path)
            held[header.meta["key"]] = header.tokens
    return {"turns": results, "figures": figures, "checkpoints_on": on, "held": held}


def _write(spec: dict[str, Any]) -> None:
    from mlx_lm.models.cache import load_prompt_cache

    from agent_nb.backends.mlx import checkpoint_files as files
    from agent_nb.backends.mlx.checkpoints import Checkpoints
    from agent_nb.backends.mlx.kv import KVSlot
    from agent_nb.backends.mlx.runtime import mlx_thread

    thread = mlx_thread()
    root = pathlib.Path(spec["dir"])
    tokens = files.read_header(pathlib.Path(spec["source"])).tokens
    slot = KVSlot(spec["key"], cache=thread.call(lambda: load_prompt_cache(spec["source"])))
    print(f"READY {os.getpid()}", flush=True)
    rng = random.Random(spec.get("seed", 0))
    while True:
        n = rng.randrange(len(tokens) // 2, len(tokens) + 1)

        def cut(n: int = n) -> None:
            assert slot.cache is not None
            for layer in slot.cache:
                layer.offset = n
            slot.tokens = tokens[:n]

        thread.call(cut)
        # A fresh store each time: one process would skip prefixes it wrote already.
        checkpoints = Checkpoints(root=root, store_identity=spec["store"],
                                  disk_budget=1 << 40, submit=thread.submit)  # fmt: skip
        checkpoints.use_model_identity(spec["model"], spec["weights"])
        assert checkpoints.capture(slot)
        checkpoints.close()
        print(f"WROTE {n}", flush=True)


def _writers(spec: dict[str, Any]) -> None:
    # Imported before any fork; no thread runs yet (the MLX thread starts in each child).
    import mlx_lm.models.cache  # noqa: F401

    import agent_nb.backends.mlx.checkpoints
    import agent_nb.backends.mlx.kv
    import agent_nb.backends.mlx.runtime  # noqa: F401

    for line in sys.stdin:
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            try:
                _write({**spec, "seed": int(line)})
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(1)  # only a SIGKILL is meant to end a writer
        os.waitpid(pid, 0)
        print(f"GONE {pid}", flush=True)


def main(argv: list[str]) -> None:
    mode, spec = argv[0], json.loads(argv[1])
    if mode == "turns":
        print(RESULT_PREFIX + json.dumps(_turns(spec)), flush=True)
    else:
        _writers(spec)


if __name__ == "__main__":
    main(sys.argv[1:])
