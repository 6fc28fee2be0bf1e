"""MLX's Linux CPU fast path: OpenBLAS loaded before mlx.core, float32 weights.

Which BLAS a process uses is settled at its first ``mlx.core`` import, so the
path comparisons run `tests.cpu_path_worker` in fresh processes, one per
path, and compare their greedy answers exactly. The cancel test runs in the
pytest process itself, which takes the fast path through the shared
`mlx_backend` (nothing in the suite imports mlx before it: the first test
here checks that).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from typing import Any

import pytest

from agent_nb import AgentRunner, GenerationConfig, TurnComplete
from agent_nb.backends.mlx import CPU_PREFILL_CHUNK_S, MLXBackend
from agent_nb.backends.mlx.cpu_blas import INSTALL_COMMAND, _is_linux_cpu_wheel, find_openblas
from tests.cpu_path_worker import TURNS, parse_result
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


#: The turns the slow path answers too: its 650-token data prompt alone took a minute
#: at 10 tokens/s, so the long-prefill equality is left to test_cpu_attention's tiles.
SLOW_PATH_TURNS = ("france", "italy", "rhyme")


def test_both_paths_give_the_same_greedy_answers() -> None:
    # Both at once: the slow one takes half a minute, the fast one seconds.
    fast = _start(["-m", "tests.cpu_path_worker"])
    slow = _start(
        ["-m", "tests.cpu_path_worker", "--turns", ",".join(SLOW_PATH_TURNS)], AGENT_NB_CPU_FAST="0"
    )
    fast_out, fast_err = _finish(fast, 600)
    slow_out, slow_err = _finish(slow, 900)
    on_fast, on_slow = parse_result(fast_out), parse_result(slow_out)

    assert on_fast["memory"]["cpu_blas"] == "openblas"
    assert on_fast["memory"]["weights"] == "float32"
    assert on_slow["memory"]["cpu_blas"] == "reference"
    assert on_slow["memory"]["weights"] == "quantised"
    # float32 holds every weight in 4 bytes: several times the 4/8-bit packing.
    assert on_fast["memory"]["weight_bytes"] > 4 * on_slow["memory"]["weight_bytes"]
    # AGENT_NB_CPU_FAST=0 is a choice, not a problem: no hint on either path.
    assert INSTALL_COMMAND not in fast_err + slow_err

    assert on_fast["turns"]["data"]["prompt_tokens"] >= 600
    assert "Paris" in on_fast["turns"]["france"]["text"]
    assert set(on_fast["turns"]) == {label for label, _, _ in TURNS}
    assert set(on_slow["turns"]) == set(SLOW_PATH_TURNS)
    texts = {label: (on_fast["turns"][label]["text"], on_slow["turns"][label]["text"])
             for label in SLOW_PATH_TURNS}  # fmt: skip
    assert {k: a for k, (a, b) in texts.items()} == {k: b for k, (a, b) in texts.items()}
    # KV reuse works the same on both: the second turn of a session feeds only its new tokens.
    assert on_fast["turns"]["italy"]["cached_tokens"] == on_slow["turns"]["italy"]["cached_tokens"]
    assert on_fast["turns"]["italy"]["cached_tokens"] > 0
    assert on_fast["turns"]["revenue"]["cached_tokens"] > 0


_TWO_LOADS = """
import sys
from agent_nb import AgentRunner, GenerationConfig
from agent_nb.backends.mlx import MLXBackend
first = MLXBackend("smollm2-135m", progress=False)
second = MLXBackend(first.load().path, progress=False)  # a second model load, same files
runner = AgentRunner(model=second)
reply = runner.run_single_turn("What is the capital of France?",
                               config=GenerationConfig(max_tokens=8))
memory = second.memory()
print("RESULT", memory["cpu_blas"], memory["weights"], repr(reply.text))
runner.shutdown()
"""


def test_a_missing_blas_keeps_working_on_the_slow_path_with_one_hint() -> None:
    missing = os.path.join(ROOT, "no-such-dir", "libopenblas.so.0")
    out, err = _finish(_start(["-c", _TWO_LOADS], AGENT_NB_BLAS=missing), 600)
    assert "RESULT reference quantised" in out and "Paris" in out, out
    assert err.count(INSTALL_COMMAND) == 1, err  # two model loads, one hint
    assert missing in err


def test_a_bad_cpu_fast_value_says_what_is_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_NB_CPU_FAST", "yes")
    with pytest.raises(ValueError, match="AGENT_NB_CPU_FAST must be 0 or 1, got 'yes'"):
        MLXBackend("smollm2-135m")


def _long_prompt(rows: int) -> str:
    cities = ["Paris", "Rome", "Berlin", "Madrid"]
    lines = [f"Row {i}: city {cities[i % 4]}, visitors {1000 + 7 * i}." for i in range(rows)]
    return "Here is a table of city visits:\n" + "\n".join(lines)


def test_stop_during_a_long_prefill_answers_within_about_a_second(
    mlx_runner: AgentRunner, mlx_backend: MLXBackend
) -> None:
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
    assert info["tokens"] == info["offset"] < len(mlx_backend.tokenizer.encode(prompt))
    # Chunks are sized to CPU_PREFILL_CHUNK_S whatever the load; "about a second".
    assert timings["mlx_idle"] < 1.5, (timings, CPU_PREFILL_CHUNK_S)

    # The cancelled turn (a table this small model cannot get past) is
    # dropped; the next turn reuses the first turn's cache and answers right.
    session.rewind(session.invocations()[-1])
    reply = session.run("What is the capital of France?", config=GenerationConfig(max_tokens=16))
    assert reply.finish_reason == "stop" and "Paris" in reply.text, reply.text
    assert reply.usage.cached_tokens > 0
