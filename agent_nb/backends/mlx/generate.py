"""One generation on the MLX thread: reuse the cache prefix, prefill, decode.

The loop follows mlx-lm's ``generate_step`` (the next token's forward pass is
queued with ``mx.async_eval`` before the current token is read, which keeps
the device busy while Python detokenizes), with three differences that the
session model needs:

* the prompt cache is the conversation's own: the longest common token
  prefix with what it holds is kept (trimmed to), and only the rest is fed,
  at least one token so there are logits to sample from;
* cancellation is checked between prefill chunks (each reported as
  `PrefillProgress`) and after every token;
* whatever happens, ``slot.tokens`` ends equal to what the cache holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..._core.types import FinishReason, GenerationConfig, Usage
from .._base import Chunk, Finish, PrefillProgress
from .chat import TextGate, common_prefix
from .kv import KVSlot

__all__ = ["GenerationJob", "run_generation"]


#: The smallest adaptive prefill chunk: below it per-call overhead dominates.
MIN_PREFILL_CHUNK = 8


@dataclass
class GenerationJob:
    model: Any
    tokenizer: Any
    stream: Any  # the MLX thread's stream
    prompt: list[int]
    config: GenerationConfig
    slot: KVSlot
    emit: Callable[[Chunk], None]
    cancelled: Callable[[], bool]
    prefill_step: int = 512
    #: When set, prefill chunks are sized so each takes about this many seconds
    #: (at most ``prefill_step`` tokens): cancellation is checked between chunks,
    #: and how long a chunk takes on a CPU depends on the machine and its load.
    prefill_chunk_s: float | None = None
    tools: list[dict[str, Any]] | None = None


def _next_chunk(n: int, took: float, job: GenerationJob) -> int:
    """The next prefill chunk, sized from how fast the last one went."""
    assert job.prefill_chunk_s is not None
    rate = n / max(took, 1e-3)
    return max(MIN_PREFILL_CHUNK, min(job.prefill_step, int(rate * job.prefill_chunk_s)))


def _sampling(job: GenerationJob) -> tuple[Any, list[Any]]:
    import mlx.core as mx
    from mlx_lm.sample_utils import make_logits_processors, make_sampler

    config = job.config
    if config.seed is not None:
        mx.random.seed(config.seed)
    sampler = make_sampler(temp=config.temperature, top_p=config.top_p, top_k=config.top_k)
    processors = make_logits_processors(repetition_penalty=config.repetition_penalty)
    return sampler, processors


def _reuse(job: GenerationJob) -> int:
    """Trim the slot's cache to the common prefix; returns the tokens kept."""
    from mlx_lm.models.cache import can_trim_prompt_cache, make_prompt_cache, trim_prompt_cache

    slot = job.slot
    if (
        slot.cache is not None
        and slot.offset() == len(slot.tokens)
        and can_trim_prompt_cache(slot.cache)
    ):
        keep = min(common_prefix(slot.tokens, job.prompt), len(job.prompt) - 1)
        trimmed = trim_prompt_cache(slot.cache, len(slot.tokens) - keep)
        if trimmed == len(slot.tokens) - keep:
            del slot.tokens[keep:]
            return keep
    # Untrimmable (e.g. rotating or recurrent caches) or out of step: start over.
    slot.clear()
    slot.cache = make_prompt_cache(job.model)
    return 0


def run_generation(job: GenerationJob) -> Finish:
    """Generate for ``job`` on the calling (MLX) thread; emits chunks, returns the Finish."""
    import mlx.core as mx

    started = time.perf_counter()
    mx.reset_peak_memory()
    model, slot, config = job.model, job.slot, job.config
    cached = _reuse(job)
    cache = slot.cache
    assert cache is not None
    rest = job.prompt[cached:]
    fed = len(rest)
    sampler, processors = _sampling(job)
    context: Any = None  # token ids before the next step's input (repetition penalty)
    eos = set(job.tokenizer.eos_token_ids)
    parser = job.tokenizer.tool_parser if job.tools and job.tokenizer.has_tool_calling else None
    gate = TextGate(
        config.stop,
        (job.tokenizer.tool_call_start, job.tokenizer.tool_call_end) if parser else None,
        parser,
        job.tools,
    )
    detokenizer = job.tokenizer.detokenizer
    finish: FinishReason = "length"
    generated = 0
    first_at: float | None = None

    def usage() -> Usage:
        end = time.perf_counter()
        decode_time = end - first_at if first_at is not None else 0.0
        return Usage(
            prompt_tokens=fed,
            cached_tokens=cached,
            generated_tokens=generated,
            time_to_first_token_s=None if first_at is None else first_at - started,
            tokens_per_s=(generated - 1) / decode_time if generated > 1 and decode_time else None,
            peak_memory_bytes=int(mx.get_peak_memory()),
        )

    def step(tokens: Any) -> Any:
        nonlocal context
        logits = model(tokens[None], cache=cache)[:, -1, :]
        if processors:
            context = mx.concatenate([context, tokens.astype(mx.int32)])
            for processor in processors:
                logits = processor(context, logits)
        return sampler(logits - mx.logsumexp(logits, keepdims=True))

    piece = job.prefill_step if job.prefill_chunk_s is None else min(job.prefill_step, 32)
    with mx.stream(job.stream):
        while len(rest) > 1:
            if job.cancelled():
                mx.eval([c.state for c in cache])
                return Finish(usage(), "cancelled")
            n = min(piece, len(rest) - 1)
            chunk_started = time.perf_counter()
            model(mx.array(rest[:n])[None], cache=cache)
            mx.eval([c.state for c in cache])
            slot.tokens.extend(rest[:n])
            rest = rest[n:]
            job.emit(PrefillProgress(len(job.prompt) - len(rest), len(job.prompt)))
            if job.prefill_chunk_s is not None:
                piece = _next_chunk(n, time.perf_counter() - chunk_started, job)
        if job.cancelled():
            return Finish(usage(), "cancelled")
        context = mx.array(job.prompt[: len(job.prompt) - len(rest)], dtype=mx.int32)
        y = step(mx.array(rest))
        mx.async_eval(y)
        slot.tokens.extend(rest)
        while True:
            last = generated + 1 >= config.max_tokens
            if not last:
                next_y = step(y)  # feeds y into the cache, so y joins slot.tokens
                mx.async_eval(next_y)
            token = int(y.item())
            if not last:
                slot.tokens.append(token)
            if first_at is None:
                first_at = time.perf_counter()
            generated += 1
            if token in eos:
                finish = "stop"
                break
            detokenizer.add_token(token)
            for chunk in gate.feed(detokenizer.last_segment):
                job.emit(chunk)
            if gate.stopped:
                finish = "stop"
                break
            if last:
                break
            if job.cancelled():
                finish = "cancelled"
                break
            y = next_y
        mx.eval([c.state for c in cache])
    if not gate.stopped:
        detokenizer.finalize()
        for chunk in gate.feed(detokenizer.last_segment) + gate.flush():
            job.emit(chunk)
    if gate.tool_calls and finish == "length":
        finish = "stop"
    return Finish(usage(), finish)
