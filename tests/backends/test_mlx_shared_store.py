"""Each kernel's MLX KV cache stays right when another kernel adds turns to its session.

Two runners on one SQLite file stand in for two kernels: each has its own
`MLXBackend` (the weights are loaded once per process, the KV caches are per
backend, as they are per kernel). Kernel A's cache holds its first turn; B then
adds a turn; A's next turn reloads the history and its cache must keep exactly
the common token prefix, feed the rest, and end up holding the whole new prompt.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_nb import GenerationConfig, TextMessage
from agent_nb.backends.mlx import MLXBackend
from tests.backends.test_mlx_backend import assert_consistent, chat_ids
from tests.fixtures_runtime import RunnerFactory

pytestmark = pytest.mark.mlx

SHORT = GenerationConfig(max_tokens=6)


def test_a_kernels_kv_cache_after_another_kernels_turn(
    mlx_backend: MLXBackend, make_runner: RunnerFactory, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path}/shared.db"
    other = MLXBackend("smollm2-135m", progress=False)
    # The caches in memory only: B's checkpoint would give A more than its own cache
    # (tests/runtime/test_kv_resume_restart.py covers resuming from disk).
    a = make_runner(model=mlx_backend, store=url, kv_checkpoints=False).get_or_create_session(
        "main"
    )
    b = make_runner(model=other, store=url, kv_checkpoints=False).get_or_create_session("main")
    first = a.run("Name a fruit.", config=SHORT)
    held_before = mlx_backend.cached_tokens("main")
    b.run("Name a color.", config=SHORT)
    reply = a.run("Name an animal.", config=SHORT)

    turns = [
        (("user" if e.author == "user" else "assistant"), e.text)
        for e in a.history
        if isinstance(e, TextMessage)
    ][:-1]  # the prompt of A's last turn: everything before its reply
    assert [t for _, t in turns][::2] == ["Name a fruit.", "Name a color.", "Name an animal."]
    expected = chat_ids(mlx_backend, turns)
    usage = reply.usage
    assert usage.prompt_tokens + usage.cached_tokens == len(expected)
    # Reused: what A's cache held that still matches (at least its first prompt).
    shared = next(
        (i for i, (x, y) in enumerate(zip(held_before, expected, strict=False)) if x != y),
        min(len(held_before), len(expected)),
    )
    assert usage.cached_tokens == shared > 0
    assert first.usage.prompt_tokens <= shared
    assert mlx_backend.cached_tokens("main")[: len(expected)] == expected
    assert_consistent(mlx_backend, "main")
    other.close()
