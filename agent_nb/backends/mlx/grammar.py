"""Grammar-constrained decoding on MLX: llguidance masks, applied with ``mx.where``.

At each decode step llguidance computes which tokens the grammar allows
(a bitmask, `llguidance.numpy`); the others get ``-inf`` before sampling,
so the greedy choice among what is left is always valid. ``llguidance.mlx``
applies the mask with a Metal kernel; on the CPU build the numpy mask is
unpacked and applied with ``mx.where``, which works on every device.

Compiling is done once: `Grammars` (one per tokenizer) keeps a compiled
matcher per grammar text, and each generation takes a `deep_copy` of it
(microseconds). The llguidance tokenizer itself takes about half a second to
build from ``tokenizer.json`` and is built once per model.

`Constraint` is one generation's grammar state. The decode loop feeds it
every token the cache takes and asks it for the mask of the next position
(as a logits processor, `generate.grammar_processor`);
prompt lookup asks it how much of a draft the grammar allows
(`admissible`) before verifying, so a draft is cut where it would break the
grammar.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from typing import Any

from ...errors import BackendError, SchemaError
from ..structured import ToolCallFormat
from .chat import template_shows_tools
from .closing import Budget, TokenClasses

__all__ = ["MAX_GRAMMARS", "Constraint", "Grammars", "grammars_for", "tool_call_format"]

#: Compiled grammars kept per model (least recently used out first).
MAX_GRAMMARS = 64


def tool_call_format(tokenizer: Any) -> ToolCallFormat | None:
    """The JSON tool-call format the grammar writes for this model, or None.

    A template with mlx-lm's ``json_tools`` parser gets its own markers; a
    template that shows no tools gets the same format, and the tools are
    described in its system prompt (`chat.render_prompt`). Other formats
    (XML or pythonic calls, a template's own without an mlx-lm parser) are
    not constrained.
    """
    if not tokenizer.has_tool_calling:
        return None if template_shows_tools(tokenizer) else ToolCallFormat()
    from mlx_lm.tool_parsers import json_tools

    if tokenizer.tool_parser is json_tools.parse_tool_call:
        return ToolCallFormat(tokenizer.tool_call_start, tokenizer.tool_call_end)
    return None


def _ll_tokenizer(tokenizer: Any) -> Any:
    """llguidance's tokenizer from the model's fast tokenizer, as ``llguidance.hf``
    builds it (mlx-lm's wrapper hands the Hugging Face attributes through)."""
    import copy

    from llguidance import LLTokenizer

    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise BackendError(
            "grammar-constrained decoding needs a fast (tokenizer.json) tokenizer; "
            "this model has none. Drop the response schema or tool_choice, or use another model."
        )
    backend = copy.copy(backend)
    backend.no_padding()  # as llguidance.hf does: padding or truncation would
    backend.no_truncation()  # change what a token id means to the mask
    return LLTokenizer(backend.to_str(), eos_token=sorted(tokenizer.eos_token_ids))


class Grammars:
    """Compiled grammars for one tokenizer, compiled once per grammar text."""

    def __init__(self, tokenizer: Any) -> None:
        self.ll_tokenizer = _ll_tokenizer(tokenizer)
        self._compiled: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.compiles = 0
        self._classes: TokenClasses | None = None

    @property
    def classes(self) -> TokenClasses:
        """The vocabulary sorted for closing paths (built on first use, ~1 s)."""
        with self._lock:
            if self._classes is None:
                self._classes = TokenClasses(self.ll_tokenizer)
            return self._classes

    def compile(self, grammar: str, what: str = "the grammar") -> Any:
        """The pristine matcher of ``grammar``; `SchemaError` when it does not compile."""
        from llguidance import LLMatcher

        with self._lock:
            matcher = self._compiled.get(grammar)
            if matcher is not None:
                self._compiled.move_to_end(grammar)
                return matcher
        matcher = LLMatcher(self.ll_tokenizer, grammar, log_level=0)
        if matcher.is_error():
            raise SchemaError(f"{what} cannot be compiled into a grammar: {matcher.get_error()}")
        with self._lock:
            self.compiles += 1
            self._compiled[grammar] = matcher
            while len(self._compiled) > MAX_GRAMMARS:
                self._compiled.popitem(last=False)
        return matcher

    def start(
        self, grammar: str, what: str = "the grammar", max_tokens: int | None = None
    ) -> Constraint:
        """A fresh grammar state for one generation (compiling on first use).
        With ``max_tokens`` (a grammar of one JSON value) the reply is closed
        within that many tokens where the grammar allows (`closing.Budget`)."""
        matcher = self.compile(grammar, what).deep_copy()
        budget = None if max_tokens is None else Budget(max_tokens, self.classes)
        tokenizer = self.ll_tokenizer
        return Constraint(matcher, tokenizer.vocab_size, tokenizer.eos_tokens, budget)


@functools.lru_cache(maxsize=4)
def grammars_for(tokenizer: Any) -> Grammars:
    """One `Grammars` per loaded tokenizer (models load once per process)."""
    return Grammars(tokenizer)


class Constraint:
    """One generation's grammar state: consume tokens, mask the next logits."""

    def __init__(
        self, matcher: Any, vocab_size: int, eos: list[int], budget: Budget | None = None
    ) -> None:
        from llguidance.numpy import allocate_token_bitmask

        self._matcher = matcher
        self._eos = eos
        self.budget = budget
        self._vocab = vocab_size
        self._bitmask = allocate_token_bitmask(1, vocab_size)

    def _check(self) -> None:
        if self._matcher.is_error():
            raise BackendError(f"grammar-constrained decoding failed: {self._matcher.get_error()}")

    def allowed(self) -> Any:
        """An ``mx`` bool vector: True where the grammar allows the token next
        (once the value is whole, llguidance stops: only end of text)."""
        import mlx.core as mx
        import numpy as np
        from llguidance.numpy import fill_next_token_bitmask

        if self._matcher.is_stopped():
            only = np.zeros(self._vocab, np.bool_)
            only[self._eos] = True
            return mx.array(only)
        fill_next_token_bitmask(self._matcher, self._bitmask)
        self._check()
        bits = np.unpackbits(self._bitmask.view(np.uint8), bitorder="little")
        return mx.array(bits[: self._vocab].astype(np.bool_))

    def apply(self, logits: Any) -> Any:
        """``logits`` (last axis: the vocabulary) with forbidden tokens at ``-inf``."""
        import mlx.core as mx

        allowed = self.allowed()
        size = logits.shape[-1]
        if size != self._vocab:  # the model pads its embedding past the tokenizer
            allowed = mx.concatenate([allowed, mx.zeros(max(size - self._vocab, 0), mx.bool_)])
            allowed = allowed[:size]
        masked = mx.where(allowed, logits, mx.array(-mx.inf, dtype=logits.dtype))
        if self.budget is None or not self.budget.near(self._matcher):
            return masked
        # near the token limit: the greedy choice, or the closing path's next token
        picked: Any = mx.argmax(masked, axis=-1).reshape(-1)[0].item()
        wanted = int(picked)
        chosen = self.budget.choose(self._matcher, wanted)
        only = mx.arange(size) == chosen
        return mx.where(only, logits, mx.array(-mx.inf, dtype=logits.dtype))

    def consume(self, token: int) -> None:
        if not self._matcher.consume_token(token):
            self._check()
            raise BackendError(f"grammar-constrained decoding: token {token} was refused")
        if self.budget is not None:
            self.budget.consumed(token)

    def forced(self) -> list[int]:
        """The tokens the grammar allows alone from here (a key, the rest of an
        enum value): a draft that is always accepted."""
        return list(self._matcher.compute_ff_tokens())

    def admissible(self, tokens: list[int]) -> int:
        """How many of ``tokens`` the grammar accepts from here, in order."""
        return int(self._matcher.validate_tokens(tokens))

    @property
    def vocab_size(self) -> int:
        return self._vocab

    @property
    def stopped(self) -> bool:
        """The grammar has ended (end-of-text was consumed): no next token to mask."""
        return bool(self._matcher.is_stopped())
