"""Noticing a reply that has fallen into a loop.

Small models, greedy decoding especially, fall into loops: one sentence
again and again until the token limit ("She loves to play with her favorite
toys..." twelve times, 500 tokens; "Rome was born." a hundred times). The
runtime watches every backend's stream with a `RepetitionWatch` and ends the
reply once the text ends in the same span ``repeats`` times in a row.

Two sizes of span, two bars, so that a loop is caught but a list or a table
never is:

* a span of `MIN_SPAN` to `MAX_SPAN` characters holding a letter or digit
  loops after ``repeats`` copies;
* a **short passage** (under `MIN_SPAN`, e.g. "Rome was born. ") loops only
  after one copy more (`short_repeats`: 4 at the default 3) and only when it
  reads as a phrase: at least two words of letters, no table cell (``|``),
  and not inside an open code fence (`agent_nb._core.fences`, the one finder),
  where a repeated short line is a program's business. "ha ha ha", a rule
  (``-----``), ``0, 0, 0``, a run of blank lines or ``| N/A | N/A |`` is
  therefore never taken for a loop; a numbered list or a table of similar
  rows is not periodic at all. tests/core/test_repetition.py measures this on
  a corpus of replies with lists, tables and code.

`MAX_SPAN` bounds the work per chunk. The check looks only at the tail, and a
periodic tail stays periodic whatever chunk boundaries the backend chose, so
one test per chunk finds the loop as soon as its last copy is complete.
"""

from __future__ import annotations

import re

__all__ = ["MAX_SPAN", "MIN_SPAN", "RepetitionWatch", "repetition_note", "short_repeats"]

MIN_SPAN = 24
MAX_SPAN = 400

_WORD = re.compile(r"[^\W\d_]{2,}")  # a word: two letters or more


def short_repeats(repeats: int) -> int:
    """How many copies of a short passage make a loop (one more than a long span's)."""
    return repeats + 1


class RepetitionWatch:
    """Feed text as it streams; `feed` returns True once the tail loops."""

    def __init__(self, repeats: int) -> None:
        self.repeats = repeats
        self.text = ""
        self.span = 0  # the looping span's length, once found

    def feed(self, delta: str) -> bool:
        if self.span:  # found: the rest is not part of the reply
            return True
        self.text += delta
        if self.repeats < 2:
            return False
        self.span = _looping_span(self.text, self.repeats)
        return bool(self.span)

    def kept(self) -> str:
        """The text with the extra copies dropped: the loop shows once, from where
        it began to the end of its first copy's punctuation ("Rome was born. ",
        not "Rome was born. Rome" when the stream stopped inside a copy)."""
        text, length = self.text, self.span
        if not length:
            return text
        start = len(text) - length
        while start > 0 and text[start - 1] == text[start - 1 + length]:
            start -= 1  # back to where the periodic run begins
        end = start + length
        if end < len(text) and text[end - 1].isalnum():  # the run began inside a word
            while end < len(text) and text[end].isalnum():
                end += 1
        while end < len(text) and not text[end].isalnum():
            end += 1
        return text[:end]


def _ends_in_copies(text: str, length: int, copies: int) -> bool:
    span = text[-length:]
    return len(text) >= copies * length and all(
        text[-(k + 1) * length : -k * length] == span for k in range(1, copies)
    )


def _looping_span(text: str, repeats: int) -> int:
    """The shortest span length L such that ``text`` ends in ``repeats`` copies of
    the same L characters, or 0 (also when that span does not clear its bar)."""
    longest = min(MAX_SPAN, len(text) // repeats)
    last = text[-1:]
    for length in range(1, longest + 1):
        if text[-1 - length] != last:  # cheap first test before any slicing
            continue
        if not _ends_in_copies(text, length, repeats):
            continue
        span = text[-length:]
        if length >= MIN_SPAN:
            return length if any(c.isalnum() for c in span) else 0
        # A short period: "ha ha ha", "-----", or a short sentence looping.
        if _is_phrase(span) and _ends_in_copies(text, length, short_repeats(repeats)):
            return length if not _in_open_fence(text) else 0
        return 0
    return 0


def _is_phrase(span: str) -> bool:
    """Two words or more, counted round the loop: the tail may end mid-word, so
    "ry, ve" is the one word of "very, very, " and not two."""
    if "|" in span:
        return False
    cut = next((i for i, c in enumerate(span) if not c.isalpha()), None)
    if cut is None:  # letters only: one word repeated without a break
        return False
    return len(_WORD.findall(span[cut:] + span[:cut])) >= 2


def _in_open_fence(text: str) -> bool:
    """Inside a code block the reply has not closed yet (markdown-it, imported only
    once a short loop is suspected; without the notebook extra: never)."""
    try:
        from .fences import fences

        found = fences(text)
    except ModuleNotFoundError:
        return False
    return bool(found) and not found[-1].closed


def repetition_note() -> str:
    """The one wording for a reply stopped by the repetition stop (cell, Reply, export)."""
    return (
        "(stopped: the reply kept repeating itself; AgentMagics.repetition_stop / "
        "GenerationConfig.repetition_stop sets when, 0 turns it off)"
    )
