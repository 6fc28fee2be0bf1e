"""``--data`` summaries hold their token budget as the model counts tokens.

A character estimate (4 per token) undercounts numeric tables about 2x, so
with a model that has a tokenizer the budget is checked with that tokenizer;
without one, the one estimate of `agent_nb._core.tokens` (3 bytes a token).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import TextMessage, get_runner
from agent_nb._core.tokens import estimate_text_tokens
from agent_nb._jupyter.prompts.data_summary import summarize
from agent_nb.backends import ScriptedBackend
from agent_nb.backends.mlx import MLXBackend
from tests.fixtures_magics import magics, run


def wide_numbers(rows: int = 2000, cols: int = 200) -> pd.DataFrame:
    return pd.DataFrame(np.random.default_rng(0).normal(size=(rows, cols)) * 1000)


@pytest.mark.parametrize("budget", [60, 200, 600])
def test_summaries_hold_the_budget_of_any_counter(budget: int) -> None:
    def one_per_char(text: str) -> int:  # a counter far stricter than the estimate
        return len(text)

    for obj in (wide_numbers(300, 50), np.arange(10_000.0), "x" * 50_000, list(range(5000))):
        text = summarize("v", obj, budget, one_per_char)
        assert one_per_char(text) <= budget
        assert text.startswith("Data `v`")


def test_backends_without_a_tokenizer_keep_the_estimate() -> None:
    assert ScriptedBackend().count_text_tokens("anything at all") is None
    text = summarize("df", wide_numbers(300, 50), 300)
    assert estimate_text_tokens(text) <= 300


@pytest.mark.mlx
@pytest.mark.parametrize("budget", [200, 600])
def test_the_mlx_tokenizer_counts_and_the_budget_holds(
    mlx_backend: MLXBackend, budget: int
) -> None:
    frame = wide_numbers()
    counted = summarize("df", frame, budget, mlx_backend.count_text_tokens)
    assert mlx_backend.count_text_tokens(counted) <= budget
    assert mlx_backend.count_text_tokens(counted) >= budget // 3  # not needlessly small
    # Without a tokenizer the one estimate (3 bytes a token) stays near the real
    # count even for numbers; 4 characters a token sent over 1.1x the budget here.
    estimated = summarize("df", frame, budget)
    assert mlx_backend.count_text_tokens(estimated) <= 1.1 * budget


@pytest.fixture
def backend(mlx_backend: MLXBackend) -> Any:  # the magics' shell runs on the embedded model
    return mlx_backend


@pytest.mark.mlx
def test_a_data_cell_on_mlx_uses_the_model_tokenizer(
    shell: InteractiveShell, mlx_backend: MLXBackend
) -> None:
    shell.user_ns["df"] = wide_numbers(500, 40)
    magics(shell).data_budget = 120
    result, cap = run(shell, "%%agent --data df --data-mode summary --max-tokens 1\nOne word:")
    assert result.success, cap.stderr
    history = get_runner().get_or_create_session("default").history
    sent = next(e.text for e in history if isinstance(e, TextMessage) and e.author == "user")
    summary = sent.split("\n\n", 1)[1]
    assert summary.startswith("Data `df` (pandas.DataFrame):")
    assert mlx_backend.count_text_tokens(summary) <= 120
