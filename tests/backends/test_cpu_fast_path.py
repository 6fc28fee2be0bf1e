"""MLX's Linux CPU fast path: OpenBLAS loaded before mlx.core, float32 weights.

Which BLAS a process uses is settled at its first ``mlx.core`` import. The
pytest process itself takes the fast path through the shared `mlx_backend`
(nothing in the suite imports mlx before it: the first test here checks that),
so the fast side of the comparison asks `tests.cpu_path_worker`'s turns here,
through the real magics, while one fresh worker process answers them on the
slow path (``AGENT_NB_CPU_FAST=0``); their greedy answers must be identical.
That worker also forks, before its first ``mlx.core`` import, the child that
meets a missing OpenBLAS: a second fresh interpreter would only pay the imports.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import AgentRunner, GenerationConfig, TurnComplete
from agent_nb.backends.mlx import CPU_PREFILL_CHUNK_S, MLXBackend
from agent_nb.backends.mlx.cpu_blas import (
    INSTALL_COMMAND,
    _is_linux_cpu_wheel,
    cpu_blas,
    find_openblas,
)
from tests.cpu_path_worker import TURNS, ask, parse_result, prepare
from tests.fixtures_mlx import cache_info
from tests.waiting import async_wait_until

pytestmark = [
    pytest.mark.mlx,
    pytest.mark.skipif(
        not _is_linux_cpu_wheel() or find_openblas() is None,
        reason="the fast path needs MLX's Linux CPU wheel and a system OpenBLAS "
        f"(`{INSTALL_COMMAND}`)",
    ),
]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_FAST_ENV = ("AGENT_NB_CPU_FAST", "AGENT_NB_BLAS")


def _env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _FAST_ENV}
    # The module's worker starts before the autouse fixture that turns replay off.
    env["AGENT_NB_REPLAY"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    return env | overrides


def _start(module_args: list[str], **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *module_args],
        cwd=ROOT,
        env=_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"exit {proc.returncode}:\n{err[-3000:]}"
    return out, err


def test_the_test_process_itself_takes_the_fast_path(mlx_backend: MLXBackend) -> None:
    """Guards the suite's import order: had anything imported mlx.core before
    the backend, this process would be on the reference BLAS."""
    memory = mlx_backend.memory()
    assert (memory["cpu_blas"], memory["weights"]) == ("openblas", "float32"), memory


#: The turns the slow path answers too, a session's first turn and its second (KV
#: reuse): at about 10 tokens/s each prompt costs seconds there. Its 650-token data
#: prompt alone took a minute, so the long-prefill equality is left to
#: test_cpu_attention's tiles, and `benchmarks/bench_cpu.py` compares every turn.
SLOW_PATH_TURNS = ("france", "italy")
#: Greedy tokens a turn on both paths: france and italy end before it ("... is Paris.").
MAX_TOKENS = 8


class SlowWorker:
    """The slow-path worker, started once for this module's two tests that read it."""

    def __init__(self, out: pathlib.Path) -> None:
        self.missing = os.path.join(ROOT, "no-such-dir", "libopenblas.so.0")
        self.child_out = out
        turns = ["--turns", ",".join(SLOW_PATH_TURNS), "--max-tokens", str(MAX_TOKENS)]
        child = ["--missing-blas", self.missing, "--missing-blas-out", str(out)]
        self.proc = _start(["-m", "tests.cpu_path_worker", *turns, *child], AGENT_NB_CPU_FAST="0")
        self._done: tuple[dict[str, Any], str] | None = None

    def result(self) -> tuple[dict[str, Any], str]:
        """Its RESULT and its stderr (the forked child's output is in ``child_out``)."""
        if self._done is None:
            out, err = _finish(self.proc, 900)
            self._done = parse_result(out), err
        return self._done


@pytest.fixture(scope="module")
def slow_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlowWorker]:
    worker = SlowWorker(tmp_path_factory.mktemp("missing-blas"))
    yield worker
    if worker.proc.poll() is None:
        worker.proc.kill()
        worker.proc.communicate()


@pytest.fixture
def backend(mlx_backend: MLXBackend) -> MLXBackend:
    """The magic tests' real shell (tests/fixtures_magics.py), on the embedded model."""
    return mlx_backend


def test_both_paths_give_the_same_greedy_answers(
    slow_worker: SlowWorker, shell: InteractiveShell, mlx_backend: MLXBackend
) -> None:
    # The fast side asks here while the slow worker (seconds per turn) runs.
    prepare(shell, MAX_TOKENS)
    fast_turns = ask(shell, max_tokens=MAX_TOKENS)
    on_slow, slow_err = slow_worker.result()
    fast_memory = mlx_backend.memory()

    assert fast_memory["cpu_blas"] == "openblas"
    assert fast_memory["weights"] == "float32"
    assert on_slow["memory"]["cpu_blas"] == "reference"
    assert on_slow["memory"]["weights"] == "quantised"
    # float32 holds every weight in 4 bytes: several times the 4/8-bit packing.
    assert fast_memory["weight_bytes"] > 4 * on_slow["memory"]["weight_bytes"]
    # AGENT_NB_CPU_FAST=0 is a choice, not a problem: no hint on either path.
    assert INSTALL_COMMAND not in slow_err
    state = cpu_blas()
    assert state is not None and state.fast and state.hint == ""

    assert fast_turns["data"]["prompt_tokens"] >= 600
    assert "Paris" in fast_turns["france"]["text"]
    assert set(fast_turns) == {label for label, _, _ in TURNS}
    assert set(on_slow["turns"]) == set(SLOW_PATH_TURNS)
    texts = {label: (fast_turns[label]["text"], on_slow["turns"][label]["text"])
             for label in SLOW_PATH_TURNS}  # fmt: skip
    assert {k: a for k, (a, b) in texts.items()} == {k: b for k, (a, b) in texts.items()}
    # KV reuse works the same on both: the second turn of a session feeds only its new tokens.
    assert fast_turns["italy"]["cached_tokens"] == on_slow["turns"]["italy"]["cached_tokens"]
    assert fast_turns["italy"]["cached_tokens"] > 0
    assert fast_turns["revenue"]["cached_tokens"] > 0


def test_a_missing_blas_keeps_working_on_the_slow_path_with_one_hint(
    slow_worker: SlowWorker,
) -> None:
    """Two model loads in a process whose AGENT_NB_BLAS names no file (the slow
    worker's forked child, `tests.cpu_path_worker.two_loads`)."""
    on_slow, _ = slow_worker.result()
    out = (slow_worker.child_out / "stdout").read_text()
    err = (slow_worker.child_out / "stderr").read_text()
    assert on_slow["missing_blas_exit"] == 0, err[-3000:]
    assert "RESULT reference quantised" in out and "Paris" in out, out
    assert err.count(INSTALL_COMMAND) == 1, err  # two model loads, one hint
    assert slow_worker.missing in err


def test_a_bad_cpu_fast_value_says_what_is_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_NB_CPU_FAST", "yes")
    with pytest.raises(ValueError, match="AGENT_NB_CPU_FAST must be 0 or 1, got 'yes'"):
        MLXBackend("smollm2-135m")


def _long_prompt(rows: int) -> str:
    cities = ["Paris", "Rome", "Berlin", "Madrid"]
    lines = [f"Row {i}: city {cities[i % 4]}, visitors {1000 + 7 * i}." for i in range(rows)]
    return "Here is a table of city visits:\n" + "\n".join(lines)


def test_stop_during_a_long_prefill_cuts_it_short_and_the_next_turn_reuses_the_cache(
    mlx_runner: AgentRunner, mlx_backend: MLXBackend
) -> None:
    """The prefill stops between chunks. How soon (about a second: chunks are sized
    to CPU_PREFILL_CHUNK_S) is timed by ``benchmarks/bench_cpu.py``'s stop latency,
    not here, where a loaded machine would make any bound a guess."""
    assert mlx_backend.memory()["cpu_blas"] == "openblas"
    session = mlx_runner.get_or_create_session("long-prefill")
    session.run("What is the capital of Italy?", config=GenerationConfig(max_tokens=8))
    prompt = _long_prompt(60)  # about 950 tokens: several seconds of prefill
    assert len(mlx_backend.tokenizer.encode(prompt)) > 900
    timings: dict[str, float] = {}

    async def cancel_mid_prefill() -> TurnComplete:
        stream = session.run_async(prompt, config=GenerationConfig(max_tokens=8))
        done: list[TurnComplete] = []

        async def consume() -> None:
            async for event in stream:
                if isinstance(event, TurnComplete):
                    done.append(event)

        task = asyncio.create_task(consume())
        # Wait until a chunk past the cached first turn is in: the prefill is under way.
        start = cache_info(mlx_backend, session.id)["tokens"]

        def prefilling() -> bool:
            assert not task.done(), "the turn ended before its prefill got going"
            return bool(cache_info(mlx_backend, session.id)["tokens"] > start)

        await async_wait_until(prefilling, timeout=60, what="a prefill chunk to land")
        cancelled_at = time.perf_counter()
        stream.cancel()
        await task
        timings["answer"] = time.perf_counter() - cancelled_at
        await async_wait_until(  # the MLX thread let go
            lambda: not cache_info(mlx_backend, session.id)["busy"], timeout=30
        )
        timings["mlx_idle"] = time.perf_counter() - cancelled_at
        return done[0]

    done = asyncio.run(cancel_mid_prefill())
    assert done.finish_reason == "cancelled"
    info: dict[str, Any] = cache_info(mlx_backend, session.id)
    # Stopped inside the prompt: the rest of its chunks were never fed.
    assert info["tokens"] == info["offset"] < len(mlx_backend.tokenizer.encode(prompt))
    print(f"stop mid-prefill: {timings} (chunks of {CPU_PREFILL_CHUNK_S} s)")

    # The cancelled turn (a table this small model cannot get past) is
    # dropped; the next turn reuses the first turn's cache and answers right.
    session.rewind(session.invocations()[-1])
    reply = session.run("What is the capital of France?", config=GenerationConfig(max_tokens=16))
    assert reply.finish_reason == "stop" and "Paris" in reply.text, reply.text
    assert reply.usage.cached_tokens > 0
