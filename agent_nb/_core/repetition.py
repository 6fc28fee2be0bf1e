"""Noticing a reply that has fallen into a loop.

Small models, greedy decoding especially, fall into loops: one sentence
again and again until the token limit ("She loves to play with her favorite
toys..." twelve times, 500 tokens). The runtime watches every backend's
stream with a `RepetitionWatch` and ends the reply once the text ends in the
same span ``repeats`` times in a row.

The shortest repeating span must be at least `MIN_SPAN` characters and hold
a letter or digit, so that rules (``-----``), table separators, "ha ha ha" or
a blank-line run are never taken for a loop; at most `MAX_SPAN` characters, which bounds the work
per chunk. The check looks only at the tail, and a periodic tail stays
periodic whatever chunk boundaries the backend chose, so one test per chunk
finds the loop as soon as its last copy is complete.
"""

from __future__ import annotations

__all__ = ["MAX_SPAN", "MIN_SPAN", "RepetitionWatch", "repetition_note"]

MIN_SPAN = 24
MAX_SPAN = 400


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
        """The text with the extra copies dropped: the loop shows once."""
        text, length = self.text, self.span
        while length and text[-length:] == text[-2 * length : -length]:
            text = text[:-length]  # a chunk may have brought more copies than `repeats`
        return text


def _looping_span(text: str, repeats: int) -> int:
    """The shortest span length L such that ``text`` ends in ``repeats`` copies of
    the same L characters, or 0 (also when that shortest span is too short)."""
    longest = min(MAX_SPAN, len(text) // repeats)
    last = text[-1:]
    for length in range(1, longest + 1):
        if text[-1 - length] != last:  # cheap first test before any slicing
            continue
        span = text[-length:]
        if all(text[-(k + 1) * length : -k * length] == span for k in range(1, repeats)):
            # "ha ha ha", "-----": a short period, however long the run
            if length < MIN_SPAN or not any(c.isalnum() for c in span):
                return 0
            return length
    return 0


def repetition_note() -> str:
    """The one wording for a reply stopped by the repetition stop (cell, Reply, export)."""
    return (
        "(stopped: the reply kept repeating itself; AgentMagics.repetition_stop / "
        "GenerationConfig.repetition_stop sets when, 0 turns it off)"
    )
