"""One backend stream run to its end: the text and the `Finish`, for tests and benchmarks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from agent_nb import GenerationConfig
from agent_nb._core.types import Content, GenerateContentRequest
from agent_nb.backends import Backend, CancelToken, Finish, TextDelta


def collect(
    backend: Backend,
    turns: Sequence[Content] | str,
    config: GenerationConfig,
    *,
    cache: str | None = None,
    cancel: CancelToken | None = None,
) -> tuple[str, Finish]:
    """Stream ``turns`` (or one user message) through ``backend``, on a fresh event
    loop; returns the streamed text and the final `Finish`."""
    contents = (Content.user(turns),) if isinstance(turns, str) else tuple(turns)
    # `is None`, not `or`: an unset CancelToken is falsy.
    token = CancelToken() if cancel is None else cancel
    request = GenerateContentRequest(contents=contents, config=config)

    async def go() -> tuple[str, Finish]:
        text: list[str] = []
        finish: Any = None
        async for chunk in backend.stream(request, cache=cache, cancel=token):
            if isinstance(chunk, TextDelta):
                text.append(chunk.text)
            elif isinstance(chunk, Finish):
                finish = chunk
        assert isinstance(finish, Finish), "the stream ended without a Finish"
        return "".join(text), finish

    return asyncio.run(go())
