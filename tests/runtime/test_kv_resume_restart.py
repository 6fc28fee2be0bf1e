"""Issue 31 end to end: a session on a SQLite store resumes its KV cache in a new process.

Each "kernel" is a fresh interpreter (`tests.kv_runner_worker`) that opens the
runner on the same store file and checkpoint folder, runs one greedy turn of
8 tokens and exits. The control re-runs the second turn on a copy of the store
taken after the first kernel, with checkpoints off, so the reply it re-reads
everything for is the one the resumed kernel must match.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import pytest

from agent_nb import AgentRunner
from agent_nb.backends.mlx.chat import common_prefix

pytestmark = pytest.mark.mlx

#: About 90 prompt tokens: over the checkpoints' minimum (64), cheap to prefill.
FIRST = "Explain in one sentence why the sky is blue. " * 6
SECOND = "And why is it red at sunset?"
ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = "mlx:smollm2-135m"


def kernel(spec: dict[str, Any], **env: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.kv_runner_worker", json.dumps(spec)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in reversed(done.stdout.splitlines()) if x.startswith("RESULT "))
    result: dict[str, Any] = json.loads(line[len("RESULT ") :])
    return result


def copy_store(source: pathlib.Path, target: pathlib.Path) -> str:
    """The store file as the first kernel left it (with any WAL beside it)."""
    for suffix in ("", "-wal", "-shm"):
        if pathlib.Path(f"{source}{suffix}").exists():
            shutil.copy(f"{source}{suffix}", f"{target}{suffix}")
    return f"sqlite:///{target}"


def by_key(files: list[dict[str, Any]]) -> dict[str, list[list[int]]]:
    found: dict[str, list[list[int]]] = {}
    for f in files:
        found.setdefault(f["key"], []).append(f["tokens"])
    return found


def expected_resume(first: dict[str, Any], second: dict[str, Any]) -> dict[str, int]:
    """Per key, the tokens the first kernel's checkpoint shares with the second
    kernel's prompt. The second kernel's own checkpoint holds that prompt plus its
    reply, and the first checkpoint ends inside that prompt (it holds the first
    prompt and reply, which the second prompt re-renders and extends)."""
    held = by_key(first["files"])
    later = by_key(second["files"])
    shared = {}
    for key, (tokens,) in held.items():
        (new,) = [t for t in later[key] if t != tokens]
        shared[key] = common_prefix(tokens, new)
    return shared


def test_a_restarted_kernel_resumes_the_session_and_answers_the_same(
    embedded_model_dir: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    db, kv = tmp_path / "sessions.db", tmp_path / "kv"
    spec = {"store": f"sqlite:///{db}", "kv": str(kv), "session": "s"}
    first = kernel({**spec, "turns": [FIRST]})
    assert first["kv_checkpoints"] is True  # the default with a persistent store
    assert [f["key"] for f in first["files"]] == ["s"]
    cold_store = copy_store(db, tmp_path / "cold.db")

    resumed = kernel({**spec, "turns": [SECOND]})
    # The control: the same second turn with the switch off re-reads everything.
    cold_kv = tmp_path / "kv-cold"
    cold = kernel(
        {**spec, "store": cold_store, "kv": str(cold_kv), "turns": [SECOND]},
        AGENT_NB_KV_CHECKPOINTS="0",
    )

    assert resumed["turns"][0]["text"] == cold["turns"][0]["text"]
    shared = expected_resume(first, resumed)["s"]
    assert shared > 0
    assert resumed["turns"][0]["cached"] == shared
    assert resumed["figures"]["kv_checkpoint_resumes"] == 1
    assert resumed["figures"]["kv_checkpoint_resumed_tokens"] == shared
    assert cold["turns"][0]["cached"] == 0
    assert cold["turns"][0]["fed"] == resumed["turns"][0]["fed"] + shared
    # The environment switch wins over the runner's default: nothing written.
    assert "kv_checkpoint_writes" not in cold["figures"] and cold["files"] == []
    # memory() counts the session's files on disk.
    on_disk = resumed["memory"]["sessions"]["s"]["kv_disk_bytes"]
    assert on_disk > 0 and resumed["memory"]["kv_disk_bytes"] == {"s": on_disk}

    # A third kernel deletes the session before any turn: its files go too.
    runner = AgentRunner(model=MODEL, store=spec["store"], kv_directory=kv)
    try:
        assert runner.kv_disk_bytes()["s"] == sum(
            pathlib.Path(f["path"]).stat().st_size for f in resumed["files"]
        )
        runner.delete_session("s")
        assert runner.kv_disk_bytes() == {}
        assert not any(pathlib.Path(f["path"]).exists() for f in resumed["files"])
        assert runner.stored_session_ids() == []
    finally:
        runner.shutdown()


def test_a_two_agent_turn_resumes_each_agents_cache(
    embedded_model_dir: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    db, kv = tmp_path / "sessions.db", tmp_path / "kv"
    spec = {"store": f"sqlite:///{db}", "kv": str(kv), "session": "s", "pipeline": True}
    first = kernel({**spec, "turns": [FIRST]})
    keys = {f["key"] for f in first["files"]}
    assert len(keys) == 2 and all(k == "s" or k.startswith("s/") for k in keys)
    cold_store = copy_store(db, tmp_path / "cold.db")

    resumed = kernel({**spec, "turns": [SECOND]})
    cold_kv = tmp_path / "kv-cold"
    cold = kernel(
        {**spec, "store": cold_store, "kv": str(cold_kv), "turns": [SECOND], "checkpoints": False}
    )

    assert resumed["turns"][0]["texts"] == cold["turns"][0]["texts"]
    assert len(resumed["turns"][0]["texts"]) == 2  # both agents answered
    shared = expected_resume(first, resumed)
    assert set(shared) == keys and all(n > 0 for n in shared.values())
    assert resumed["turns"][0]["cached"] == sum(shared.values())
    assert resumed["figures"]["kv_checkpoint_resumes"] == 2
    assert cold["turns"][0]["cached"] == 0
    # kv_checkpoints=False: the runner says so and the backend writes nothing.
    assert cold["kv_checkpoints"] is False and cold["files"] == []
    assert not cold_kv.exists() or not any(cold_kv.rglob("*.safetensors"))
