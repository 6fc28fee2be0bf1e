"""Closing a reply within its token budget, without a model: closing paths and
`Budget` over a one-token-per-byte tokenizer, so every byte is a step.

The model-side half (a real generation that is closed at its last token) is
in test_structured.
"""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
from llguidance import LLMatcher, LLTokenizer
from llguidance.numpy import allocate_token_bitmask

from agent_nb.backends.mlx.closing import (
    OUTSIDE,
    Budget,
    TokenClasses,
    allowed_tokens,
    closing_path,
    lex,
)
from agent_nb.backends.structured import schema_grammar

EOS = 256
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "size": {"type": "integer", "minimum": 3},
        "note": {"type": "string"},
    },
    "required": ["name", "tags", "size"],
}


@pytest.fixture(scope="module")
def byte_tokenizer() -> LLTokenizer:
    """One token per byte, and end of text (256)."""
    vocab = {f"<0x{i:02X}>": i for i in range(256)}
    vocab["</s>"] = EOS
    spec = {
        "version": "1.0",
        "added_tokens": [{"id": EOS, "content": "</s>", "special": True, "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": False}],
        "model": {"type": "BPE", "vocab": vocab, "merges": [], "byte_fallback": True},
        "decoder": {"type": "ByteFallback"},
    }  # fmt: skip
    return LLTokenizer(json.dumps(spec), eos_token=EOS)


@pytest.fixture(scope="module")
def classes(byte_tokenizer: LLTokenizer) -> TokenClasses:
    return TokenClasses(byte_tokenizer)


def _matcher(tok: LLTokenizer, prefix: str) -> LLMatcher:
    matcher = LLMatcher(tok, schema_grammar(SCHEMA), log_level=0)
    assert matcher.consume_tokens(list(prefix.encode())), prefix
    return matcher


@pytest.mark.parametrize(
    "prefix",
    [
        "",
        '{"name": "Mi',
        '{"name": "Mike", "tags": [',
        '{"name": "Mike", "tags": ["a", "say \\"hi',  # an escaped quote stays inside
        '{"name": "M", "tags": ["x"], "size": 4',
        '{"name": "M", "tags": ["x"], "size": 4}',
    ],
)
def test_a_closing_path_ends_in_json_the_schema_allows(
    byte_tokenizer: LLTokenizer, classes: TokenClasses, prefix: str
) -> None:
    matcher = _matcher(byte_tokenizer, prefix)
    bitmask = allocate_token_bitmask(1, classes.vocab_size)
    state = lex(OUTSIDE, prefix.encode())
    path = closing_path(matcher, state, classes, bitmask, limit=200)
    assert path is not None and path[-1] == EOS
    text = prefix + bytes(path[:-1]).decode()
    jsonschema.validate(json.loads(text), SCHEMA)
    assert "note" not in json.loads(text)  # what is optional is left out
    # it is the path's length that counts: one token less and there is none
    assert closing_path(matcher, state, classes, bitmask, len(path) - 1) is None
    assert not matcher.is_stopped() or prefix.endswith("}")  # the matcher itself is untouched


@pytest.mark.parametrize("max_tokens", [40, 57, 90])
def test_a_model_that_never_closes_is_closed_within_max_tokens(
    byte_tokenizer: LLTokenizer, classes: TokenClasses, max_tokens: int
) -> None:
    """The "model" writes ``a`` wherever the grammar allows it, else the first
    token allowed: left alone it fills every string to its bound."""
    matcher = _matcher(byte_tokenizer, "")
    budget = Budget(max_tokens, classes)
    bitmask = allocate_token_bitmask(1, classes.vocab_size)
    out: list[int] = []
    while len(out) < max_tokens and not matcher.is_stopped():
        allowed = allowed_tokens(matcher, bitmask, classes.vocab_size)
        wanted = ord("a") if allowed[ord("a")] else int(np.flatnonzero(allowed)[0])
        token = budget.choose(matcher, wanted) if budget.near(matcher) else wanted
        assert matcher.consume_token(token)
        budget.consumed(token)
        out.append(token)
    if out[-1] != EOS:  # llguidance stops at the value's end; the model writes end of text
        out.append(EOS)
    assert len(out) <= max_tokens
    value = json.loads(bytes(out[:-1]).decode())
    jsonschema.validate(value, SCHEMA)
    assert budget.forced > 0
    assert "a" in value["name"]  # the model chose until it had to stop
