"""Prompt-lookup drafting: guess the next tokens from where the text repeats itself.

Decoding one token reads every weight once; checking a handful of guessed
tokens in one forward pass reads them once too, so each guess the model
agrees with is a step saved. Replies copy from their prompt all the time
(``%agent explain`` quotes the failing code, ``--code`` rewrites the code it
was shown, a follow-up repeats the previous answer), so the guess is simply
what followed the latest earlier occurrence of the last few tokens in the
prompt and the reply so far (an n-gram match). Under greedy decoding the
model's own choice decides every token, so the text is exactly what plain
decoding gives.

`Drafter` holds the n-gram index and the back-off policy; it is plain Python
on token ids (nothing here touches MLX or knows which device runs the model).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = [
    "MAX_DRAFT",
    "MIN_DRAFT",
    "NGRAM_SIZES",
    "Drafter",
    "prompt_lookup_enabled",
]

#: The n-gram sizes tried, longest first: a 3-token match is a much better
#: predictor than a 2-token one, a 1-token match drafts noise.
NGRAM_SIZES = (3, 2)
#: Draft lengths. A verify pass of 8 tokens costs about 1.5 decode steps on
#: the CPU (the weights are read once either way), so long drafts pay off as
#: soon as the text is copying; the length grows while drafts are accepted.
#: ``benchmarks/bench_decode.py --sweep`` (one run, two CPU cores): copy-heavy
#: median / free chat for MAX_DRAFT 4, 8, 12 with (3, 2): x1.68 / 1.03,
#: x1.74 / 1.03, x1.63 / 1.11; with (4, 3, 2): x1.79 / 0.98, x1.81 / 0.94,
#: x1.71 / 0.90 (the 4-gram drafts more on free text than it wins); with (2,)
#: alone: x1.38 to 1.58.
MAX_DRAFT = 8
MIN_DRAFT = 2
#: After a draft the model rejected outright, drafting pauses for this many
#: tokens, doubling per consecutive failure up to `MAX_PAUSE`: on text that
#: does not repeat itself the wasted verify passes stay a few percent.
FIRST_PAUSE = 1
MAX_PAUSE = 32


def prompt_lookup_enabled() -> bool:
    """``$AGENT_NB_PROMPT_LOOKUP``: unset or ``1`` (default), or ``0`` (off)."""
    raw = os.environ.get("AGENT_NB_PROMPT_LOOKUP", "").strip()
    if raw not in ("", "0", "1"):
        raise ValueError(f"AGENT_NB_PROMPT_LOOKUP must be 0 or 1, got {raw!r}")
    return raw != "0"


class Drafter:
    """The token history, its n-gram index, and how long the next draft may be."""

    def __init__(self, history: Iterable[int] = ()) -> None:
        self._tokens: list[int] = []
        # n-gram -> the index just after its latest occurrence
        self._index: dict[tuple[int, ...], int] = {}
        self._length = MAX_DRAFT // 2
        self._pause = 0
        self._next_pause = FIRST_PAUSE
        self.drafted = 0
        self.accepted = 0
        self.extend(history)

    def extend(self, tokens: Iterable[int]) -> None:
        """Append tokens to the history (the prompt, then every token decoded)."""
        seq, index = self._tokens, self._index
        for token in tokens:
            seq.append(token)
            end = len(seq)
            # Index the n-grams that end just before this token, pointing at it:
            # a later match of that n-gram drafts from here on.
            for n in NGRAM_SIZES:
                if end - 1 >= n:
                    index[tuple(seq[end - 1 - n : end - 1])] = end - 1

    def draft(self, limit: int) -> list[int]:
        """Up to ``min(limit, current length)`` tokens that followed the latest
        earlier occurrence of the history's tail; ``[]`` while paused or unmatched."""
        if self._pause:
            self._pause -= 1
            return []
        limit = min(limit, self._length)
        if limit < 1:
            return []
        seq = self._tokens
        for n in NGRAM_SIZES:
            if len(seq) <= n:
                continue
            start = self._index.get(tuple(seq[-n:]))
            if start is not None and start < len(seq):
                return seq[start : start + limit]
        return []

    def record(self, drafted: int, accepted: int) -> None:
        """The outcome of verifying a draft: adapts the length and the pause."""
        self.drafted += drafted
        self.accepted += accepted
        if accepted == 0:
            self._length = MIN_DRAFT
            self._pause = self._next_pause
            self._next_pause = min(MAX_PAUSE, self._next_pause * 2)
            return
        self._next_pause = FIRST_PAUSE
        if accepted == drafted:
            self._length = min(MAX_DRAFT, self._length * 2)
        else:
            self._length = max(MIN_DRAFT, accepted + 1)
