"""Issue 31 end to end: a session on a SQLite store resumes its KV cache in a new process.

Each "kernel" is a fresh interpreter (`tests.kv_runner_worker`) that opens the
runner on the same store file and checkpoint folder, runs one greedy turn of
8 tokens and exits. Two kernels serve both tests: each runs a one-agent session
(``s``) and a two-agent one (``p``). The controls re-run the second turn in this
process (a fresh runner: empty caches, as after a restart) on a copy of the store
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
from dataclasses import dataclass
from typing import Any

import pytest

from agent_nb import AgentRunner
from agent_nb.backends.mlx.chat import common_prefix
from tests.kv_runner_worker import run

pytestmark = pytest.mark.mlx

#: About 90 prompt tokens: over the checkpoints' minimum (64), cheap to prefill.
FIRST = "Explain in one sentence why the sky is blue. " * 6
SECOND = "And why is it red at sunset?"
ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = "mlx:smollm2-135m"


def kernel(spec: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.kv_runner_worker", json.dumps(spec)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
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


def turns(text: str) -> list[dict[str, Any]]:
    """Both sessions, one turn each: ``s`` by one agent, ``p`` by a pipeline of two."""
    return [
        {"session": "s", "turns": [text]},
        {"session": "p", "turns": [text], "pipeline": True},
    ]


def by_key(files: list[dict[str, Any]], session: str) -> dict[str, list[list[int]]]:
    """The token ids of each checkpoint of ``session`` (its own key and its agents')."""
    found: dict[str, list[list[int]]] = {}
    for f in files:
        if f["key"] == session or f["key"].startswith(f"{session}/"):
            found.setdefault(f["key"], []).append(f["tokens"])
    return found


def expected_resume(first: dict[str, Any], second: dict[str, Any], session: str) -> dict[str, int]:
    """Per key, the tokens the first kernel's checkpoint shares with the second
    kernel's prompt. The second kernel's own checkpoint holds that prompt plus its
    reply, and the first checkpoint ends inside that prompt (it holds the first
    prompt and reply, which the second prompt re-renders and extends)."""
    held = by_key(first["files"], session)
    later = by_key(second["files"], session)
    shared = {}
    for key, (tokens,) in held.items():
        (new,) = [t for t in later[key] if t != tokens]
        shared[key] = common_prefix(tokens, new)
    return shared


@dataclass(frozen=True)
class Kernels:
    spec: dict[str, Any]
    first: dict[str, Any]
    resumed: dict[str, Any]
    cold_store: str  # the store as the first kernel left it
    tmp: pathlib.Path


@pytest.fixture(scope="module")
def kernels(embedded_model_dir: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> Kernels:
    """The first kernel's turn, then a restarted kernel's, on both sessions."""
    tmp = tmp_path_factory.mktemp("restart")
    db, kv = tmp / "sessions.db", tmp / "kv"
    spec = {"store": f"sqlite:///{db}", "kv": str(kv)}
    first = kernel({**spec, "sessions": turns(FIRST)})
    cold_store = copy_store(db, tmp / "cold.db")
    resumed = kernel({**spec, "sessions": turns(SECOND)})
    return Kernels(spec, first, resumed, cold_store, tmp)


def test_a_restarted_kernel_resumes_the_session_and_answers_the_same(
    kernels: Kernels, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, resumed = kernels.first, kernels.resumed
    assert first["kv_checkpoints"] is True  # the default with a persistent store
    held = by_key(first["files"], "s")
    assert list(held) == ["s"] and len(held["s"]) == 1  # one agent: one file, the session's key

    # The control: the same second turn with the environment's switch off re-reads everything.
    monkeypatch.setenv("AGENT_NB_KV_CHECKPOINTS", "0")
    cold_kv = kernels.tmp / "kv-cold-env"
    cold = run({"store": kernels.cold_store, "kv": str(cold_kv), "sessions": turns(SECOND)[:1]})

    warm_turn, cold_turn = resumed["sessions"]["s"]["turns"][0], cold["sessions"]["s"]["turns"][0]
    assert warm_turn["text"] == cold_turn["text"]
    shared = expected_resume(first, resumed, "s")["s"]
    assert shared > 0
    assert warm_turn["cached"] == shared
    added = resumed["sessions"]["s"]["figures"]
    assert added["kv_checkpoint_resumes"] == 1
    assert added["kv_checkpoint_resumed_tokens"] == shared
    assert cold_turn["cached"] == 0
    assert cold_turn["fed"] == warm_turn["fed"] + shared
    # The environment switch wins over the runner's default: nothing written.
    assert "kv_checkpoint_writes" not in cold["figures"] and cold["files"] == []
    # memory() counts each session's files on disk.
    on_disk = resumed["memory"]["sessions"]["s"]["kv_disk_bytes"]
    assert on_disk > 0 and resumed["memory"]["kv_disk_bytes"]["s"] == on_disk
    assert set(resumed["memory"]["kv_disk_bytes"]) == {"s", "p"}

    # A third kernel deletes the session before any turn: its files go too, the other's stay.
    monkeypatch.delenv("AGENT_NB_KV_CHECKPOINTS")
    s_files = [f for f in resumed["files"] if f["key"] == "s"]
    runner = AgentRunner(model=MODEL, store=kernels.spec["store"], kv_directory=kernels.spec["kv"])
    try:
        assert runner.kv_disk_bytes()["s"] == sum(
            pathlib.Path(f["path"]).stat().st_size for f in s_files
        )
        runner.delete_session("s")
        assert set(runner.kv_disk_bytes()) == {"p"}
        assert not any(pathlib.Path(f["path"]).exists() for f in s_files)
        assert runner.stored_session_ids() == ["p"]
    finally:
        runner.shutdown()


def test_a_two_agent_turn_resumes_each_agents_cache(kernels: Kernels) -> None:
    first, resumed = kernels.first, kernels.resumed
    keys = set(by_key(first["files"], "p"))
    assert len(keys) == 2 and all(k == "p" or k.startswith("p/") for k in keys)

    # The control: kv_checkpoints=False, in a fresh runner on the first kernel's store.
    cold_kv = kernels.tmp / "kv-cold-off"
    spec = {"store": kernels.cold_store, "kv": str(cold_kv), "checkpoints": False}
    cold = run({**spec, "sessions": turns(SECOND)[1:]})

    warm_turn, cold_turn = resumed["sessions"]["p"]["turns"][0], cold["sessions"]["p"]["turns"][0]
    assert warm_turn["texts"] == cold_turn["texts"]
    assert len(warm_turn["texts"]) == 2  # both agents answered
    shared = expected_resume(first, resumed, "p")
    assert set(shared) == keys and all(n > 0 for n in shared.values())
    assert warm_turn["cached"] == sum(shared.values())
    assert resumed["sessions"]["p"]["figures"]["kv_checkpoint_resumes"] == 2
    assert cold_turn["cached"] == 0
    # kv_checkpoints=False: the runner says so and the backend writes nothing.
    assert cold["kv_checkpoints"] is False and cold["files"] == []
    assert not cold_kv.exists() or not any(cold_kv.rglob("*.safetensors"))
