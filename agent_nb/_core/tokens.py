"""Counting tokens: the model's tokenizer when the backend has one, else one estimate.

Every budget (the context window, ``--data``, ``--cells``, ``%agent explain``)
counts with `Backend.count_text_tokens` / `Backend.count_tokens` where the
backend has a local tokenizer (MLX does), and with the estimate below where it
has none (an OpenAI-compatible server, the scripted fake).

**The estimate**: one token per 3 bytes of UTF-8 text, rounded up; a request
adds 4 per message for the chat markup and 3 for the reply's start, and
counts tool calls, results and schemas as their JSON. English averages about
4 characters per token with BPE tokenizers, so this overestimates on purpose:
an overestimate costs a little room, an underestimate a refused request or a
budget overrun. Numeric tables are the exception (digits and padding
tokenise to under 2 characters each), which is why a real tokenizer is used
wherever there is one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeAlias

from .messages import chat_messages
from .types import GenerateContentRequest

__all__ = [
    "BYTES_PER_TOKEN",
    "CHARS_PER_TOKEN_CAP",
    "TextCounter",
    "estimate_request_tokens",
    "estimate_text_tokens",
    "text_counter",
]

BYTES_PER_TOKEN = 3
MESSAGE_TOKENS = 4  # chat markup around each message
REPLY_TOKENS = 3  # the assistant turn the prompt ends with

#: A cap on characters per token of budget, for cutting text *before* it is
#: counted (so a huge repr is never rendered whole): generous for prose, and
#: the exact count decides afterwards.
CHARS_PER_TOKEN_CAP = 4

TextCounter: TypeAlias = Callable[[str], int]


def estimate_text_tokens(text: str) -> int:
    """Tokens ``text`` takes by the estimate (no tokenizer at hand)."""
    return -(-len(text.encode()) // BYTES_PER_TOKEN)


def estimate_request_tokens(request: GenerateContentRequest) -> int:
    """Prompt tokens of ``request`` by the same estimate, as a backend without a
    tokenizer counts it (`Backend.count_tokens`)."""
    total = REPLY_TOKENS
    for message in chat_messages(request, for_template=False):
        text = message.get("content") or ""
        if message.get("tool_calls"):
            text += json.dumps(message["tool_calls"])
        total += MESSAGE_TOKENS + estimate_text_tokens(text)
    for tool in request.tools:
        total += estimate_text_tokens(json.dumps(tool.to_openai()))
    return total


def text_counter(count_text_tokens: Callable[[str], int | None]) -> TextCounter:
    """A counter from a backend's ``count_text_tokens``: its tokenizer's count,
    or the estimate where it returns None (no local tokenizer)."""

    def count(text: str) -> int:
        counted = count_text_tokens(text)
        return estimate_text_tokens(text) if counted is None else counted

    return count
