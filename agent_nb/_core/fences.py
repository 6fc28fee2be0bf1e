"""Fenced code blocks in model text: the one finder.

Rendering (`agent_nb._core.render.safe_markdown`), ``--format code`` and
``--code`` all ask this module where the code blocks of a reply are, so a
block that shows as code is the block ``--code`` puts into a cell, and the
other way round, even where hand-written parsers go wrong: a closing fence
longer than its opening one, a backtick in a backtick fence's info string.

The blocks come from markdown-it-py's block tokens (CommonMark), with raw HTML
off as the renderers see it after `safe_markdown` has escaped every tag. Each
``fence`` token's ``map`` gives the source lines it covers and its ``content``
the code, with the container's indentation or ``>`` markers removed, so a
fence inside a list item or a quote is found too. A fence that never closes
(a reply still streaming, or cut off by ``--max-tokens``) runs to the end of
its container, as CommonMark says; it is marked ``closed=False``: rendering
shows it as code, but ``--code`` only takes complete blocks, so a reply cut
off mid-block never yields half a program.

markdown-it-py is a dependency of the ``notebook`` extra and is imported on
first use, so ``import agent_nb`` stays light.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any

__all__ = [
    "Fence",
    "block_parser",
    "close_open_fence",
    "code_blocks",
    "fence_markdown",
    "fences",
    "first_code_block",
    "normalize_newlines",
    "opens_a_block",
]

_LANG = re.compile(r"[A-Za-z0-9_+#.-]{1,40}")
_BACKTICKS = re.compile(r"`+")
_LIST_MARKER = re.compile(r"[-*+]|\d{1,9}[.)]")


@dataclasses.dataclass(frozen=True)
class Fence:
    """One fenced block: source lines ``start`` (the opening fence) to ``end``
    (exclusive: after the closing fence, or where an unclosed block stops)."""

    start: int
    end: int
    info: str
    lines: tuple[str, ...]  # the code, one entry per line, without newlines
    closed: bool
    markup: str = "```"  # the opening fence as typed (backticks or tildes)

    @property
    def code(self) -> str:
        return "\n".join(self.lines)

    @property
    def lang(self) -> str:
        """The language word of the info string ("" when it names none we keep)."""
        match = _LANG.match(self.info.strip())
        return match[0] if match else ""


def normalize_newlines(text: str) -> str:
    """Line ends as ``\\n`` and NUL as U+FFFD, as markdown-it reads text; line
    numbers in `Fence` count ``\\n``-separated lines of this form."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")


@functools.cache
def block_parser() -> Any:
    """markdown-it-py with block rules only (CommonMark, raw HTML off), imported
    on first use; its ``fence`` and ``code_block`` tokens are Markdown code."""
    from markdown_it import MarkdownIt

    # Block rules only: fences are blocks, and inline parsing is the costly part.
    return MarkdownIt("commonmark", {"html": False}).disable(["inline", "text_join"], True)


def fences(text: str) -> list[Fence]:
    """Every fenced block of ``text`` (normalized first), closed or not, in order."""
    found = []
    for token in block_parser().parse(normalize_newlines(text)):
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        content: str = token.content
        lines = content.split("\n")
        if content.endswith("\n") or not content:
            lines.pop()
        # Between the fences lie exactly the code's lines; one more line in the
        # token's range means a closing fence was found.
        closed = end - start - 1 > len(lines)
        found.append(Fence(start, end, token.info, tuple(lines), closed, token.markup))
    return found


def code_blocks(text: str) -> list[Fence]:
    """The complete (closed) fenced blocks of ``text``."""
    return [fence for fence in fences(text) if fence.closed]


def first_code_block(text: str) -> str | None:
    """The code of the first complete fenced block (without its fences), or None."""
    blocks = code_blocks(text)
    return blocks[0].code if blocks else None


def opens_a_block(text: str) -> bool:
    """True when a fence opens somewhere in ``text`` (closed or not)."""
    return bool(fences(text))


def fence_markdown(lines: tuple[str, ...] | list[str], lang: str = "") -> str:
    """``lines`` as a canonical fenced block: a backtick fence longer than any
    backtick run inside, so nothing in the code can close it early."""
    longest = max((len(m) for line in lines for m in _BACKTICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    inner = "".join(line + "\n" for line in lines)
    return f"{fence}{lang}\n{inner}{fence}"


def close_open_fence(text: str) -> str:
    """``text`` with a fence it leaves open (an interrupted or cut-off reply)
    closed, so that what follows it (a note) is not shown as code."""
    found = fences(text)
    if not found or found[-1].closed:
        return text
    last = found[-1]
    # The closing fence goes where the opening one stands: inside the same list
    # item (marker turned into spaces) or quote (">" kept).
    opening = normalize_newlines(text).split("\n")[last.start]
    prefix = _LIST_MARKER.sub(lambda m: " " * len(m[0]), opening[: opening.find(last.markup)])
    return f"{text.rstrip(chr(10))}\n{prefix}{last.markup}"
