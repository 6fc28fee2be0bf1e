"""One generation on the MLX thread: reuse the cache prefix, prefill, decode.

Split the way mlx-lm splits ``generate_step`` (tokens) from
``stream_generate`` (text), in small pieces that compose in `run_generation`:

* `prefill` feeds the prompt in chunks (sized by time on a CPU), checking
  cancellation between them and reporting each as `PrefillProgress`;
* `token_steps` yields sampled token ids; the next token's forward pass is
  queued with ``mx.async_eval`` before the current one is read, which keeps
  the device busy while Python detokenizes. Like mlx-lm's one
  ``generate_step`` it takes logits processors: a repetition penalty, and
  a grammar (`grammar_processor`, the mask of a `grammar.Constraint`,
  computed while the forward pass runs);
* `lookup_steps` drafts from the prompt for greedy decoding (exact);
* `stream_text` detokenizes through the `TextGate` (stop strings, tool-call
  markup), emits chunks, and stops at EOS, a stop string, ``max_tokens`` or
  cancellation (checked after every token);
* `_Tally` turns the counts and clocks into `Usage`.

The prompt cache is the conversation's own: the longest common token prefix
with what it holds is kept (trimmed to), and only the rest is fed, at least
one token so there are logits to sample from. Whatever happens,
``slot.tokens`` ends equal to what the cache holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

from ..._core.types import FinishReason, GenerationConfig, Usage
from .._base import Chunk, Finish, PrefillProgress
from ..structured import ToolCallFormat
from .chat import TextGate, common_prefix
from .decode_kernel import MAX_TOKENS
from .grammar import Constraint
from .kv import KVSlot
from .lookup import Drafter, prompt_lookup_enabled

__all__ = [
    "GenerationJob",
    "grammar_processor",
    "lookup_steps",
    "prefill",
    "run_generation",
    "stream_text",
    "token_steps",
    "uses_lookup",
]


#: The smallest adaptive prefill chunk: below it per-call overhead dominates, and
#: a pass of at most `decode_kernel.MAX_TOKENS` tokens would leave the float32
#: weights for the decode kernel, which computes every row's logits (a decode
#: pass needs them, a prefill chunk does not): on a busy machine slow chunks
#: made smaller chunks, which made slower ones (5,000 tokens at 0.45x).
MIN_PREFILL_CHUNK = MAX_TOKENS + 1


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
    #: How tool calls are read when the model's tokenizer has no mlx-lm parser
    #: for them (the JSON format the tool grammar writes); None: its own parser.
    tool_format: ToolCallFormat | None = None
    #: The grammar this generation decodes under (a response schema, tool calls).
    constraint: Constraint | None = None


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


@dataclass
class _Tally:
    """What `usage` needs, filled in as the generation goes."""

    fed: int
    cached: int
    started: float
    generated: int = 0
    first_at: float | None = None
    drafted: int = 0
    accepted: int = 0

    def usage(self) -> Usage:
        import mlx.core as mx

        end = time.perf_counter()
        decode_time = end - self.first_at if self.first_at is not None else 0.0
        generated = self.generated
        return Usage(
            prompt_tokens=self.fed,
            cached_tokens=self.cached,
            generated_tokens=generated,
            time_to_first_token_s=None if self.first_at is None else self.first_at - self.started,
            tokens_per_s=(generated - 1) / decode_time if generated > 1 and decode_time else None,
            peak_memory_bytes=int(mx.get_peak_memory()),
            drafted_tokens=self.drafted,
            accepted_tokens=self.accepted,
        )


def prefill(job: GenerationJob, rest: list[int]) -> list[int] | None:
    """Feed all of ``rest`` but its last token into the slot's cache, in chunks.

    Returns what is left to feed (at least one token, so there are logits to
    sample from), or None when cancelled between chunks; ``slot.tokens``
    grows with every chunk the cache took.
    """
    import mlx.core as mx

    cache, slot = job.slot.cache, job.slot
    assert cache is not None
    piece = job.prefill_step if job.prefill_chunk_s is None else min(job.prefill_step, 32)
    while len(rest) > 1:
        if job.cancelled():
            mx.eval([c.state for c in cache])
            return None
        n = min(piece, len(rest) - 1)
        chunk_started = time.perf_counter()
        job.model(mx.array(rest[:n])[None], cache=cache)
        mx.eval([c.state for c in cache])
        slot.tokens.extend(rest[:n])
        rest = rest[n:]
        job.emit(PrefillProgress(len(job.prompt) - len(rest), len(job.prompt)))
        if job.prefill_chunk_s is not None:
            piece = _next_chunk(n, time.perf_counter() - chunk_started, job)
    return rest


def grammar_processor(constraint: Constraint, start: int) -> Callable[[Any, Any], Any]:
    """A grammar as a logits processor (mlx-lm's ``(tokens, logits) -> logits``):
    it feeds the grammar the tokens generated since its last call (those past
    ``start``, where generation began) and masks what the grammar forbids.

    The mask of a position depends on the token before it, so sampling waits
    for it; the forward pass does not, so it is queued first and llguidance
    computes the mask (on the CPU) while the model runs.
    """
    import mlx.core as mx

    fed = start

    def process(tokens: Any, logits: Any) -> Any:
        nonlocal fed
        mx.async_eval(logits)
        new = tokens[fed:].tolist() if tokens.size > fed else []
        fed = max(fed, int(tokens.size))
        for token in new:
            constraint.consume(int(token))
        return constraint.apply(logits)

    return process


def token_steps(job: GenerationJob, rest: list[int]) -> Generator[int, None, None]:
    """Sampled token ids, at most ``max_tokens`` (mlx-lm's ``generate_step``).

    The logits processors (a repetition penalty, then the grammar's mask when
    ``job.constraint`` is set: `grammar_processor`) see every token before the
    next position, prompt included. ``rest`` (the prompt's unfed tail) goes in
    first. Every token but one at ``max_tokens`` is fed back before it is
    yielded (the next step is queued ahead), so ``slot.tokens`` always equals
    what the cache holds -- also when the caller stops early.
    """
    import mlx.core as mx

    model, slot, cache = job.model, job.slot, job.slot.cache
    sampler, processors = _sampling(job)
    start = len(job.prompt) - len(rest)
    if job.constraint is not None:
        processors = [*processors, grammar_processor(job.constraint, len(job.prompt))]
    # every token before the next step's input, for the processors
    context: Any = mx.array(job.prompt[:start], dtype=mx.int32)

    def step(tokens: Any) -> Any:
        nonlocal context
        logits = model(tokens[None], cache=cache)[:, -1, :]
        if processors:
            context = mx.concatenate([context, tokens.astype(mx.int32)])
            for processor in processors:
                logits = processor(context, logits)
        return sampler(logits - mx.logsumexp(logits, keepdims=True))

    y = step(mx.array(rest))
    mx.async_eval(y)
    slot.tokens.extend(rest)
    for generated in range(1, job.config.max_tokens + 1):
        last = generated >= job.config.max_tokens
        if not last:
            next_y = step(y)  # feeds y into the cache, so y joins slot.tokens
            mx.async_eval(next_y)
        token = int(y.item())
        if not last:
            slot.tokens.append(token)
        yield token
        if not last:
            y = next_y


def uses_lookup(job: GenerationJob) -> bool:
    """Prompt-lookup drafting is on for greedy decoding without logits processors
    (there it is exact) and a cache that can drop rejected tokens. Sampling
    (temperature > 0) decodes plainly: exact speculative sampling is not done."""
    from mlx_lm.models.cache import can_trim_prompt_cache

    config = job.config
    return (
        config.prompt_lookup
        and config.temperature == 0
        and not config.repetition_penalty
        and prompt_lookup_enabled()
        and job.slot.cache is not None
        and can_trim_prompt_cache(job.slot.cache)
    )


def lookup_steps(job: GenerationJob, rest: list[int], tally: _Tally) -> Generator[int, None, None]:
    """`token_steps` for greedy decoding with prompt-lookup drafts (`Drafter`).

    Each step feeds the pending token plus a draft in one forward pass, keeps
    the drafted tokens the model would have chosen itself, and trims the
    rejected ones off the cache. The tokens are the plain greedy ones (the
    model decides each), and so is the cache whenever the caller stops: fed
    tokens it did not take yet are trimmed off too.

    Under a grammar (``job.constraint``) the tokens it forces (a key, the
    rest of an enum value) are the draft, so they cost one forward pass
    together; else a draft is first cut where the grammar stops allowing it.
    Each position's choice is the greedy one among the tokens its grammar
    state allows, as in `token_steps`.
    """
    import mlx.core as mx
    from mlx_lm.models.cache import trim_prompt_cache

    model, slot, cache = job.model, job.slot, job.slot.cache
    assert cache is not None
    limit = job.config.max_tokens
    drafter = Drafter(job.prompt)
    constraint = job.constraint

    def normalized(tokens: list[int]) -> Any:
        logits = model(mx.array(tokens)[None], cache=cache)[0]
        # as the sampler sees them in `token_steps`: same argmax, bit for bit
        return logits - mx.logsumexp(logits, axis=-1, keepdims=True)

    def greedy(tokens: list[int]) -> list[int]:
        picked: Any = mx.argmax(normalized(tokens), axis=-1).tolist()
        return [int(t) for t in picked]

    def allowed_pick(logits: Any) -> int:
        """The greedy token at one position under the grammar's current state."""
        assert constraint is not None
        masked = constraint.apply(logits)
        picked: Any = mx.argmax(masked - mx.logsumexp(masked, keepdims=True)).item()
        return int(picked)

    def verify(fed: list[int], draft: list[int]) -> tuple[list[int], int]:
        """(the choices after each fed token, how many drafted tokens match them)."""
        if constraint is None:
            choices = greedy(fed)
            accepted = 0
            while accepted < len(draft) and draft[accepted] == choices[accepted]:
                accepted += 1
            return choices, accepted
        rows = model(mx.array(fed)[None], cache=cache)[0]
        choices = []
        for i in range(len(fed)):
            choices.append(allowed_pick(rows[i]))
            if i == len(draft) or draft[i] != choices[i]:
                return choices, i
            constraint.consume(draft[i])
        return choices, len(draft)

    if constraint is None:
        pending = greedy(rest)[-1]
    else:
        pending = allowed_pick(model(mx.array(rest)[None], cache=cache)[0, -1])
    slot.tokens.extend(rest)
    generated = 0  # tokens yielded
    ahead = 0  # tokens fed to the cache that the caller has not taken yet
    try:
        while generated + 1 < limit:
            # pending is token number generated + 1; a draft may run up to
            # number limit - 1, so every fed token is one `token_steps` feeds
            drafter.extend([pending])
            room = limit - generated - 2
            forced: list[int] = []
            if constraint is not None:
                constraint.consume(pending)
                forced = constraint.forced()[: max(room, 0)]
            draft = forced or drafter.draft(room)
            if constraint is not None and not forced:
                del draft[constraint.admissible(draft) :]
            fed = [pending, *draft]
            choices, accepted = verify(fed, draft)
            if draft:
                if accepted < len(draft):
                    trim_prompt_cache(cache, len(draft) - accepted)
                if not forced:  # the drafter adapts to its own drafts only
                    drafter.record(len(draft), accepted)
                tally.drafted, tally.accepted = drafter.drafted, drafter.accepted
            taken = fed[: accepted + 1]
            slot.tokens.extend(taken)
            drafter.extend(draft[:accepted])
            ahead = len(taken)
            for token in taken:
                ahead -= 1
                generated += 1
                yield token
            pending = choices[accepted]
        yield pending  # number limit: not fed, as in `token_steps`
    finally:
        if ahead:  # the caller stopped inside an accepted draft
            trim_prompt_cache(cache, ahead)
            del slot.tokens[-ahead:]


def _gate(job: GenerationJob) -> TextGate:
    tokenizer = job.tokenizer
    if job.tools and job.tool_format is not None and not tokenizer.has_tool_calling:
        from mlx_lm.tool_parsers import json_tools

        fmt = job.tool_format
        return TextGate(
            job.config.stop, (fmt.start, fmt.end), json_tools.parse_tool_call, job.tools
        )
    parser = tokenizer.tool_parser if job.tools and tokenizer.has_tool_calling else None
    markers = (tokenizer.tool_call_start, tokenizer.tool_call_end) if parser else None
    return TextGate(job.config.stop, markers, parser, job.tools)


def stream_text(job: GenerationJob, tokens: Iterator[int], tally: _Tally) -> FinishReason:
    """Detokenize ``tokens`` through the `TextGate` and emit the chunks
    (mlx-lm's ``stream_generate``); stops at EOS, a stop string, ``max_tokens``
    or cancellation, and returns why."""
    eos = set(job.tokenizer.eos_token_ids)
    gate = _gate(job)
    detokenizer = job.tokenizer.detokenizer
    finish: FinishReason = "length"
    for token in tokens:
        if tally.first_at is None:
            tally.first_at = time.perf_counter()
        tally.generated += 1
        if token in eos:
            finish = "stop"
            break
        detokenizer.add_token(token)
        for chunk in gate.feed(detokenizer.last_segment):
            job.emit(chunk)
        if gate.stopped:
            finish = "stop"
            break
        if tally.generated >= job.config.max_tokens:
            break
        if job.cancelled():
            finish = "cancelled"
            break
    if not gate.stopped:
        detokenizer.finalize()
        for chunk in gate.feed(detokenizer.last_segment) + gate.flush():
            job.emit(chunk)
    if gate.tool_calls and finish == "length":
        finish = "stop"
    return finish


def run_generation(job: GenerationJob) -> Finish:
    """Generate for ``job`` on the calling (MLX) thread; emits chunks, returns the Finish."""
    import mlx.core as mx

    started = time.perf_counter()
    mx.reset_peak_memory()
    cached = _reuse(job)
    cache = job.slot.cache
    assert cache is not None
    tally = _Tally(fed=len(job.prompt) - cached, cached=cached, started=started)
    with mx.stream(job.stream):
        rest = prefill(job, job.prompt[cached:])
        if rest is None or job.cancelled():
            return Finish(tally.usage(), "cancelled")
        tokens = lookup_steps(job, rest, tally) if uses_lookup(job) else token_steps(job, rest)
        try:
            finish = stream_text(job, tokens, tally)
        finally:
            tokens.close()
            mx.eval([c.state for c in cache])
    return Finish(tally.usage(), finish)
