"""Fenced code blocks in a model's reply.

One pattern serves ``--format code`` (show only the blocks) and ``--code``
(put the first block into a new cell). A block counts only once its closing
fence has arrived, so a reply cut off mid-block (``--max-tokens``, an
interrupt) never yields half a program. Fences follow CommonMark: three or
more backticks or tildes, closed by the same run, the info string (``python``)
on the opening line.
"""

from __future__ import annotations

import re

__all__ = ["FENCED", "first_code_block", "opens_a_block"]

FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})([^\n]*)\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)
_OPENING = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)


def first_code_block(text: str) -> str | None:
    """The body of the first complete fenced block (without its fences), or None."""
    match = FENCED.search(text)
    if match is None:
        return None
    return match.group(3).removesuffix("\n")


def opens_a_block(text: str) -> bool:
    """True when a fence opens somewhere in ``text`` (closed or not)."""
    return _OPENING.search(text) is not None
