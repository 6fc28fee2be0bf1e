"""On the real embedded model: a long prompt reports how far it is read, and
counting a prompt longer than the tokenizer's maximum prints no transformers
warning before agent_nb's own `ContextWindowError`."""

from __future__ import annotations

import asyncio

import pytest

from agent_nb import AgentRunner, Content, GenerateContentRequest, GenerationConfig
from agent_nb.backends import CancelToken, PrefillProgress, TextDelta
from agent_nb.backends.mlx import MLXBackend
from agent_nb.errors import ContextWindowError

pytestmark = pytest.mark.mlx

WARNING = "Token indices sequence length is longer than the specified maximum"


def test_prefill_reports_progress_between_chunks_before_the_first_token(
    mlx_backend: MLXBackend,
) -> None:
    chunked = MLXBackend("smollm2-135m", prefill_step=64, progress=False)  # weights are shared
    chunked.load()
    request = GenerateContentRequest(
        [Content.user("Summarise: " + "lorem ipsum dolor sit amet " * 40)],
        config=GenerationConfig(max_tokens=2),
    )

    async def chunks() -> list[object]:
        return [c async for c in chunked.stream(request, cache=None, cancel=CancelToken())]

    try:
        seen = asyncio.run(chunks())
    finally:
        chunked.close()
    progress = [c for c in seen if isinstance(c, PrefillProgress)]
    total = chunked.count_tokens(request)
    assert len(progress) >= total // 64 - 1 and {p.total for p in progress} == {total}
    assert [p.done for p in progress] == sorted(p.done for p in progress)
    assert progress[0].done == 64 and progress[-1].done < total
    first_text = next(i for i, c in enumerate(seen) if isinstance(c, TextDelta))
    assert seen.index(progress[-1]) < first_text


def test_no_transformers_warning_before_the_context_window_error(
    mlx_backend: MLXBackend, capfd: pytest.CaptureFixture[str]
) -> None:
    # transformers warns once per tokenizer; forget that it did, so this test can see it.
    inner = getattr(mlx_backend.tokenizer, "_tokenizer", mlx_backend.tokenizer)
    inner.deprecation_warnings.pop("sequence-length-is-longer-than-the-specified-maximum", None)
    runner = AgentRunner(model=mlx_backend)
    try:
        session = runner.get_or_create_session("huge")
        with pytest.raises(ContextWindowError, match="window is 8,192"):
            session.run("word " * 10_000, config=GenerationConfig(max_tokens=4))
        assert mlx_backend.count_text_tokens("word " * 10_000) >= 10_000
    finally:
        runner.shutdown()
    captured = capfd.readouterr()
    assert WARNING not in captured.err + captured.out
