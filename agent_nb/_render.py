"""Showing untrusted model text in a notebook without running any of it.

Jupyter's Markdown renderer passes raw HTML through (sanitised, but links and
images still load). Model output must never act as HTML or JS, so every ``<``,
``>`` and ``&`` is escaped before the text is handed over as Markdown, and
link targets with script-capable schemes are neutralised.
"""

from __future__ import annotations

import html
import re

__all__ = ["safe_markdown"]

_UNSAFE_LINK = re.compile(r"\]\(\s*(?:javascript|vbscript|data)\s*:", re.IGNORECASE)
_UNSAFE_AUTOLINK = re.compile(r"(?i)\b(javascript|vbscript|data)\s*:")


def safe_markdown(text: str) -> str:
    escaped = html.escape(text, quote=False)
    escaped = _UNSAFE_LINK.sub("](#", escaped)
    # Break bare scheme names so no renderer turns them into live links.
    return _UNSAFE_AUTOLINK.sub(lambda m: m.group(1) + "&#58;", escaped)
