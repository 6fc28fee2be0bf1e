"""Showing untrusted model text as Markdown without running any of it.

Jupyter's Markdown renderers (marked in JupyterLab, mistune in nbconvert,
markdown-it elsewhere) pass raw HTML through, and links and images load. Model
output must never act as HTML or JS, yet code should stay readable, and the
two pull in opposite directions: an escaped ``&lt;`` shows literally inside a
code block. So the text is split into prose and code first:

* **Prose**: ``&`` and ``<`` are escaped, so no tag, comment, autolink or
  entity trick survives (``&`` escaping also kills ``java&#115;cript:``).
  A link or link definition whose target has a script-capable scheme
  (``javascript:``, ``vbscript:``, ``data:``, ``file:``) loses its link
  syntax: a backslash escape goes before its ``(`` or ``:``, so it shows as
  the text it was. Images (which load remote URLs on their own) get a
  backslash before their ``[`` and show as text too. Only entities and
  backslash escapes are added: the rendered, and copied, text is exactly what
  the model wrote, with no invisible characters in it.
* **Fenced code** (found by `agent_nb._core.fences`, the finder ``--code``
  uses too) is re-emitted in a canonical form: a blank line, a backtick
  fence longer than any backtick run inside, the raw lines, the closing fence,
  a blank line. Whatever the model's fence looked like, the renderer sees a
  code block exactly where this module does, so the raw text inside is safe.
  An unclosed fence (mid-stream) runs to the end, as CommonMark says. A fence
  inside a list item or a quote becomes a block of its own.
* **Inline code** becomes ``<code>`` with every ASCII punctuation character
  as an entity. No raw model character is left that could open markup, and
  a ``$`` inside code cannot start Jupyter math.

The property the tests check: rendered with raw HTML enabled, the output holds
only tags the renderer itself makes from Markdown (and ``<code>``), no event
handler attributes, and no link or image target with a script-capable scheme.
"""

from __future__ import annotations

import bisect
import html
import re
import string

from .fences import fence_markdown, fences, normalize_newlines

__all__ = ["inline_code_spans", "safe_markdown"]

_BACKTICKS = re.compile(r"`+")
# What may stand between a link's "(" (or a definition's ":") and its target's
# scheme: spaces, control characters (browsers strip them), a "<" (escaped by then).
_GAP = r"[\x00-\x20]*"
_TO_SCHEME = rf"(?={_GAP}(?:&lt;{_GAP})?(?:javascript|vbscript|data|file){_GAP}\\?:)"
_LINK_TO_SCHEME = re.compile(r"(?i)\](?P<mark>\(|:)" + _TO_SCHEME)
_IMAGE = re.compile(r"!(?=\[)")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_PUNCT = frozenset(string.punctuation)


def safe_markdown(text: str) -> str:
    """Markdown for ``text`` in which no model character acts as HTML, JS or an image."""
    text = normalize_newlines(text)
    lines = text.split("\n")
    pieces: list[str] = []
    line = 0
    for fence in fences(text):
        if fence.start > line:
            pieces.append(_prose("\n".join(lines[line : fence.start])))
        pieces.append(f"\n\n{fence_markdown(fence.lines, fence.lang)}\n\n")
        line = fence.end
    if line < len(lines):
        pieces.append(_prose("\n".join(lines[line:])))
    return "".join(pieces).strip("\n")


def inline_code_spans(text: str) -> list[tuple[int, int, int, int]]:
    """CommonMark code spans of prose ``text``: (open start, open end, close start,
    close end) for each, in order. A backtick run opens a span only if an equal
    run closes it before a blank line, and a backslash-escaped run opens none."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    same_length: dict[int, list[int]] = {}  # run length -> indices of such runs, ascending
    for index, (start, end) in enumerate(runs):
        same_length.setdefault(end - start, []).append(index)
    spans = []
    k = 0
    while k < len(runs):
        start, end = runs[k]
        candidates = same_length[end - start]
        after = bisect.bisect_right(candidates, k)
        close = candidates[after] if after < len(candidates) else None
        if _escaped(text, start) or close is None:
            k += 1
            continue
        close_start, close_end = runs[close]
        if _BLANK_LINE.search(text, end, close_start):
            k += 1
            continue
        spans.append((start, end, close_start, close_end))
        k = close + 1
    return spans


def _prose(text: str) -> str:
    """Escape prose, turning the inline code spans found in it into ``<code>``."""
    out: list[str] = []
    pos = 0
    for start, end, close_start, close_end in inline_code_spans(text):
        out.append(_escape_prose(text[pos:start]))
        out.append(_code_span(text[end:close_start]))
        pos = close_end
    out.append(_escape_prose(text[pos:]))
    return "".join(out)


def _escaped(text: str, index: int) -> bool:
    """Whether an odd number of backslashes precedes ``text[index]``."""
    count = 0
    while index > count and text[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _escape_prose(text: str) -> str:
    escaped = html.escape(text, quote=False).replace("&gt;", ">")
    escaped = _LINK_TO_SCHEME.sub(lambda m: "]\\" + m["mark"], escaped)
    return _IMAGE.sub("!\\\\", escaped)


def _code_span(content: str) -> str:
    content = content.replace("\n", " ")
    if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
        content = content[1:-1]
    body = "".join(f"&#{ord(c)};" if c in _PUNCT else c for c in content)
    return f"<code>{body}</code>"
