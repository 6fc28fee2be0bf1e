"""The model picks what the words left open, and can pick only what exists.

When the question names no measure ("which island is best?"), `model_chooser`
asks the model once, with a ``response_schema`` whose enum is this table's
candidate columns (`plan.plan_schema`): on MLX the reply decodes under that
grammar, so the answer is always one of them; a server's answer is checked
against the enum. The reply is parsed as JSON and only ever compared with
the column names; it is never evaluated. Any failure falls back to the
lexical default (the first candidate), and the plan's reasons say which.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from typing import Any

from .._core.types import Content, GenerateContentRequest, GenerationConfig
from ..backends import Backend, CancelToken, TextDelta
from .plan import Chooser

__all__ = ["model_chooser"]

_PROMPT = "Question: {question}\nWhich {slot} of the table answers it? Choose one of: {options}."


def model_chooser(backend: Backend, max_tokens: int = 40) -> Chooser:
    """A `plan.Chooser` backed by ``backend`` under a grammar (see the module docstring)."""

    def choose(question: str, slot: str, options: Sequence[str]) -> str:
        schema = {
            "type": "object",
            "properties": {slot: {"enum": list(options)}},
            "required": [slot],
            "additionalProperties": False,
        }
        prompt = _PROMPT.format(question=question, slot=slot, options=", ".join(options))
        request = GenerateContentRequest(
            [Content.user(prompt)],
            config=GenerationConfig(max_tokens=max_tokens, temperature=0.0),
            response_schema=schema,
        )
        try:
            text = _run(backend, request)
            value = json.loads(text).get(slot)
        except Exception:  # the lexical default stands; the reason says no model was asked
            return ""
        return value if value in options else ""

    return choose


def _run(backend: Backend, request: GenerateContentRequest) -> str:
    """The reply's text; on a thread of its own, since the kernel's loop may be running."""
    out: dict[str, Any] = {}

    async def main() -> None:
        parts = []
        async for chunk in backend.stream(request, cache=None, cancel=CancelToken()):
            if isinstance(chunk, TextDelta):
                parts.append(chunk.text)
        out["text"] = "".join(parts)

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # handed to the caller's thread
            out["error"] = exc

    thread = threading.Thread(target=target, name="agent_nb-data-choose", daemon=True)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return str(out["text"])
