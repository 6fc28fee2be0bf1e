"""An MCP tool's result as `FunctionResponse` data: what the model reads next.

* **Structured content** (``structuredContent``, a JSON object) is the result
  as it is, the way a Python tool's dict is: ``{"result": 5}`` from the SDK's
  server for an ``int``, the object's own keys for a model or a dict. Its
  text copy (the spec asks servers to send one) is not repeated.
* **Text** stays text: ``{"result": "the text"}``, several blocks joined by
  blank lines.
* **An image, audio or a resource** is named, never dropped and never
  inlined as bytes: ``[image image/png, 1.2 KB]``, ``[resource
  file:///notes.md (text/markdown)]``. An embedded text resource keeps its
  text after its name. Beside structured content the names go in
  ``attachments``.
* **An error** (``isError``) is ``{"error": "..."}``, as a Python tool that
  raised: the model sees it and may recover.

Everything here is data for the model; nothing is rendered as HTML (the
cell shows it through `agent_nb._core.render.safe_markdown`, the widget as
text).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..._core.numbers import byte_size

__all__ = ["result_payload"]


def result_payload(result: Any) -> dict[str, Any]:
    """The payload of an ``mcp.types.CallToolResult`` (see the module docstring)."""
    texts: list[str] = []
    named: list[str] = []
    for block in result.content or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        else:
            name = _name(block)
            named.append(name)
            texts.append(name)
    structured = result.structured_content
    if result.is_error:
        return {"error": "\n\n".join(texts) or "the tool failed without saying why"}
    if isinstance(structured, dict):
        payload = dict(structured)
        if named:
            payload.setdefault("attachments", named)
        return payload
    return {"result": "\n\n".join(texts)}


def _name(block: Any) -> str:
    kind = getattr(block, "type", "unknown")
    if kind in ("image", "audio"):
        return f"[{kind} {block.mime_type}, {_size(block.data)}]"
    if kind == "resource_link":
        mime = f" ({block.mime_type})" if getattr(block, "mime_type", None) else ""
        return f"[resource link {block.uri}{mime}]"
    if kind == "resource":
        inner = block.resource
        mime = f" ({inner.mime_type})" if getattr(inner, "mime_type", None) else ""
        text = getattr(inner, "text", None)
        if isinstance(text, str):
            return f"[resource {inner.uri}{mime}]\n{text}"
        return f"[resource {inner.uri}{mime}, {_size(getattr(inner, 'blob', ''))}]"
    return f"[{kind} content]"


def _size(data: str) -> str:
    """The decoded size of base64 ``data``, as a person reads it."""
    try:
        count = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        count = len(data)
    return byte_size(count)  # the one way sizes read (KV caches, %agent sessions)
