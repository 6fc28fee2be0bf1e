"""Prompt-lookup decoding and the CPU attention path, on the real embedded model.

Exactness is the contract: with drafting on, every text, every token the KV
cache holds afterwards and every count are those of plain greedy decoding.
The generations run `run_generation` on the MLX thread directly where a
deterministic cancel point is needed, else through `MLXBackend.stream`.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_nb import GenerationConfig
from agent_nb._core.types import Content, GenerateContentRequest
from agent_nb.backends import TextDelta
from agent_nb.backends.mlx import MLXBackend, cpu_attention
from agent_nb.backends.mlx.chat import render_prompt
from agent_nb.backends.mlx.generate import GenerationJob, run_generation
from agent_nb.backends.mlx.kv import KVSlot
from agent_nb.backends.mlx.lookup import Drafter
from agent_nb.backends.mlx.runtime import mlx_thread
from tests.fixtures_mlx import cache_info
from tests.lookup_prompts import COPY_HEAVY
from tests.streaming import collect

pytestmark = pytest.mark.mlx


def run(backend: MLXBackend, turns: list[Content], key: str, **config: Any) -> tuple[str, Any]:
    return collect(backend, turns, GenerationConfig(**config), cache=key)


def consistent(backend: MLXBackend, key: str) -> list[int]:
    info = cache_info(backend, key)
    assert info["tokens"] == info["offset"] and not info["busy"], info
    return backend.cached_tokens(key)


def test_drafter_drafts_what_followed_the_latest_match_and_backs_off() -> None:
    drafter = Drafter([5, 6, 7, 8, 9, 1, 5, 6, 7])
    assert drafter.draft(8) == [8, 9, 1, 5]  # the tail 5 6 7 was followed by 8 9 1 5 ...
    drafter.record(4, 0)  # rejected outright: shorter drafts, a pause
    assert drafter.draft(8) == []
    assert drafter.draft(8) == [8, 9]
    assert Drafter([1, 2, 3]).draft(8) == []  # nothing repeats


def test_greedy_texts_and_caches_identical_with_and_without_lookup(
    mlx_backend: MLXBackend,
) -> None:
    # Drafts partly accepted (code edit), all rejected (data summary), and a turn
    # after a model message (repeat answer); the rest of the set is the benchmark's.
    prompts = {name: COPY_HEAVY[name] for name in ("code edit", "data summary", "repeat answer")}
    accepted = rejected = 0
    for name, turns in prompts.items():
        texts, caches, usages = {}, {}, {}
        for lookup in (True, False):
            key = f"lookup-{name}-{lookup}"
            text, finish = run(mlx_backend, turns, key, max_tokens=16, prompt_lookup=lookup)
            texts[lookup], usages[lookup] = text, finish.usage
            caches[lookup] = consistent(mlx_backend, key)
            mlx_backend.drop_cache(key)
        assert texts[True] == texts[False], name
        # a rejected draft leaves the cache as plain decoding does: the next
        # turn would be fed the same tokens
        assert caches[True] == caches[False], name
        on, off = usages[True], usages[False]
        assert (on.generated_tokens, on.prompt_tokens) == (off.generated_tokens, off.prompt_tokens)
        assert off.drafted_tokens == 0
        accepted += on.accepted_tokens
        rejected += on.drafted_tokens - on.accepted_tokens
    assert accepted > 0 and rejected > 0  # both paths of a verify step ran


def _job(backend: MLXBackend, turns: list[Content], config: GenerationConfig, stop_after: int):
    loaded = backend.load()
    prompt = render_prompt(loaded.tokenizer, GenerateContentRequest(contents=tuple(turns)))
    slot = KVSlot("direct")
    emitted: list[str] = []

    def emit(chunk: Any) -> None:
        if isinstance(chunk, TextDelta):  # not the prefill's progress reports
            emitted.append(chunk.text)

    job = GenerationJob(
        model=loaded.model,
        tokenizer=loaded.tokenizer,
        stream=mlx_thread().stream,
        prompt=prompt,
        config=config,
        slot=slot,
        emit=emit,
        cancelled=lambda: len(emitted) >= stop_after,
    )
    return job, slot, emitted


def test_cancel_inside_a_drafted_step_leaves_the_plain_cache(mlx_backend: MLXBackend) -> None:
    turns = COPY_HEAVY["repeat answer"]
    results = {}
    for lookup in (True, False):
        config = GenerationConfig(max_tokens=40, prompt_lookup=lookup)
        job, slot, emitted = _job(mlx_backend, turns, config, stop_after=7)
        finish = mlx_thread().call(lambda job=job: run_generation(job))
        assert finish.finish_reason == "cancelled"
        assert slot.offset() == len(slot.tokens)
        results[lookup] = (list(slot.tokens), "".join(emitted), finish.usage)
    assert results[True][:2] == results[False][:2]
    assert results[True][2].accepted_tokens > 0  # it was cancelled with drafts accepted


def test_window_slide_and_rewind_after_drafted_turns(mlx_backend: MLXBackend) -> None:
    first = COPY_HEAVY["repeat answer"]
    key = "lookup-window"
    text, finish = run(mlx_backend, first, key, max_tokens=24)
    assert finish.usage.accepted_tokens > 0
    consistent(mlx_backend, key)
    # a rewind to the first two messages trims the drafted turn off
    mlx_backend.rewind_cache(key, GenerateContentRequest(contents=tuple(first[:2])))
    held = consistent(mlx_backend, key)
    # the window slides: the oldest turn is left out, so the prompt's start changes
    slid = [*first[2:], Content.model(text), Content.user("Now say it in one sentence.")]
    replies = []
    for lookup in (True, False):
        reply, finish = run(mlx_backend, slid, key, max_tokens=16, prompt_lookup=lookup)
        replies.append((reply, finish.usage.generated_tokens))
        consistent(mlx_backend, key)
    assert replies[0] == replies[1]
    assert held  # the rewind kept the common prefix
    mlx_backend.drop_cache(key)


def test_long_prompt_gives_the_same_greedy_text_on_the_numpy_attention_path(
    mlx_backend: MLXBackend,
) -> None:
    data = COPY_HEAVY["data summary"][0].text
    turns = [Content.user(data * 4 + "\nWhich city has the largest area?")]
    outcomes = []
    try:
        for numpy_path in (True, False):
            cpu_attention.set_enabled(numpy_path)
            key = f"long-{numpy_path}"
            text, finish = run(mlx_backend, turns, key, max_tokens=12, prompt_lookup=False)
            assert finish.usage.prompt_tokens > 500
            outcomes.append((text, consistent(mlx_backend, key)))
            mlx_backend.drop_cache(key)
    finally:
        cpu_attention.set_enabled(True)
    assert outcomes[0] == outcomes[1]
