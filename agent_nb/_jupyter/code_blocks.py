"""Fenced code blocks in a model's reply.

One pattern serves ``--format code`` (show only the blocks) and ``--code``
(put the first block into a new cell). A block counts only once its closing
fence has arrived, so a reply cut off mid-block (``--max-tokens``, an
interrupt) never yields half a program. Fences follow CommonMark: three or
more backticks or tildes, closed by the same run, the info string (``python``)
on the opening line.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["FENCED", "block_parser", "close_open_fence", "first_code_block", "opens_a_block"]

FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,})([^\n]*)\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)
_OPENING = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.M)
_LIST_MARKER = re.compile(r"[-*+]|\d{1,9}[.)]")


def first_code_block(text: str) -> str | None:
    """The body of the first complete fenced block (without its fences), or None."""
    match = FENCED.search(text)
    if match is None:
        return None
    return match.group(3).removesuffix("\n")


def opens_a_block(text: str) -> bool:
    """True when a fence opens somewhere in ``text`` (closed or not)."""
    return _OPENING.search(text) is not None


@functools.cache
def block_parser() -> Any:
    """markdown-it-py with block rules only (CommonMark, raw HTML off): code blocks
    are blocks, and inline parsing is the costly part. Imported on first use."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).disable(["inline", "text_join"], True)


def close_open_fence(text: str) -> str:
    """``text`` with a fence it leaves open (an interrupted or cut-off reply)
    closed, so that what follows it (a note) is not shown as code."""
    fences = [t for t in block_parser().parse(text) if t.type == "fence" and t.map]
    if not fences:
        return text
    last = fences[-1]
    start, end = last.map
    lines = last.content.split("\n")
    if last.content.endswith("\n") or not last.content:
        lines.pop()
    if end - start - 1 > len(lines):  # a closing fence line follows the code
        return text
    # The closing fence goes where the opening one stands: inside the same list
    # item (marker turned into spaces) or quote (">" kept).
    opening = text.split("\n")[start]
    prefix = _LIST_MARKER.sub(lambda m: " " * len(m[0]), opening[: opening.find(last.markup)])
    return f"{text.rstrip(chr(10))}\n{prefix}{last.markup}"
