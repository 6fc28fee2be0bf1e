"""The context window on the real embedded model (MLX, CPU build).

A 256-token window makes the conversation outgrow it within a dozen short
turns. Checked: every request (and the KV cache, which holds the request
plus the reply) stays inside the window; between slides the cache is reused
whole, so a turn feeds only its new message plus the chat template's markup;
at a slide it is rebuilt once; a rewind after a slide still reuses it; and
the answer to the latest question is still right.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_nb import AgentRunner, GenerationConfig
from agent_nb.backends.mlx import MLXBackend
from tests.fixtures_mlx import cache_info

pytestmark = pytest.mark.mlx

WINDOW = 256
CONFIG = GenerationConfig(max_tokens=8, temperature=0.0)
TEMPLATE = 12  # "<|im_end|>\n<|im_start|>user\n ... <|im_end|>\n<|im_start|>assistant\n" and so on
QUESTIONS = [
    "What is the capital of France?",
    "What is 2 plus 2?",
    "Name a color of the sky.",
    "What is the capital of Italy?",
    "What do bees make?",
    "What is the capital of Spain?",
    "Name a large ocean.",
    "What is the capital of Japan?",
    "What animal says moo?",
    "What is the capital of Germany?",
    "How many legs does a spider have?",
    "What is the capital of France?",
]


@pytest.fixture
def windowed(mlx_backend: MLXBackend) -> Iterator[MLXBackend]:
    """The embedded model (weights shared with `mlx_backend`) with a 256-token window."""
    backend = MLXBackend("smollm2-135m", context_window=WINDOW, progress=False)
    backend.load()
    yield backend
    backend.close()


def test_twelve_turns_in_a_256_token_window(windowed: MLXBackend, mlx_backend: MLXBackend) -> None:
    assert mlx_backend.context_window == 8192  # max_position_embeddings in config.json
    runner = AgentRunner(model=windowed)
    try:
        session = runner.get_or_create_session("small-window")
        previous_context = 0
        slides = 0
        for question in QUESTIONS:
            reply = session.run(question, config=CONFIG)
            usage = reply.usage
            assert usage.context_window == WINDOW and usage.context_tokens is not None
            prompt = usage.context_tokens - usage.generated_tokens  # context = prompt + reply
            assert prompt + CONFIG.max_tokens <= WINDOW
            # What was fed plus what was reused is exactly the request as counted.
            assert usage.prompt_tokens + usage.cached_tokens == prompt
            assert cache_info(windowed, session.id)["tokens"] <= WINDOW
            new = len(windowed.tokenizer.encode(question, add_special_tokens=False))
            if usage.cached_tokens >= previous_context > 0:  # no slide: the cache was reused
                assert new < usage.prompt_tokens <= new + TEMPLATE, (question, usage)
            elif previous_context:  # a slide: rebuilt once, from the system prompt on
                slides += 1
                assert usage.omitted_turns > 0
                assert usage.prompt_tokens > new + TEMPLATE
            previous_context = prompt
        assert 1 <= slides <= 2
        assert "Paris" in reply.text
        assert len(session.invocations()) == len(QUESTIONS)  # history keeps every turn

        # A rewind after the slide keeps the window's prefix: the rerun reuses it.
        before = usage.cached_tokens
        session.rewind(session.invocations()[-1])
        again = session.run(QUESTIONS[-1], config=CONFIG)
        assert again.usage.cached_tokens >= before and "Paris" in again.text
    finally:
        runner.shutdown()


def test_the_window_is_read_from_the_folder_before_the_model_loads(
    mlx_backend: MLXBackend,
) -> None:
    import asyncio

    fresh = MLXBackend("smollm2-135m", progress=False)
    assert fresh.context_window is None  # nothing read yet
    window = asyncio.run(fresh.resolve_context_window())
    assert fresh._loaded is None  # the window needed no weights and no tokenizer
    assert window == mlx_backend.context_window == 8192  # what the loaded model says
