"""``%%agent --cells N`` on MLX holds its budget in the model's own tokens.

Code full of numbers tokenises at under 2 characters a token in SmolLM2, so a
budget counted by a characters-per-token estimate (4, or the 3 bytes of
`agent_nb._core.tokens`) sends about twice as many tokens as it allows. The
cells run in a real IPython shell with history, as a notebook runs them.
"""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from agent_nb import TextMessage, get_runner
from agent_nb._jupyter.prompts.cell_context import cells_context, recent_cells
from agent_nb.backends.mlx import MLXBackend
from tests.fixtures_magics import magics

BUDGET = 150


@pytest.fixture
def backend(mlx_backend: MLXBackend) -> Any:  # the magics' shell runs on the embedded model
    return mlx_backend


def _numbers_cell(seed: int) -> str:
    values = ", ".join(str((seed * 7919 + i * 104729) % 99991) for i in range(120))
    return f"values_{seed} = [{values}]\ntotal_{seed} = sum(values_{seed})"


@pytest.mark.mlx
def test_cells_on_mlx_are_budgeted_in_the_models_tokens(
    shell: InteractiveShell, mlx_backend: MLXBackend
) -> None:
    with capture_output():
        for seed in (1, 2, 3):
            assert shell.run_cell(_numbers_cell(seed), store_history=True).success
    cells = recent_cells(shell, 3)
    # What the estimate alone lets through is far over budget in real tokens.
    estimated = cells_context(shell, cells, outputs=False, budget_tokens=BUDGET)
    assert mlx_backend.count_text_tokens(estimated) > 1.3 * BUDGET

    magics(shell).cells_budget = BUDGET
    with capture_output() as cap:
        result = shell.run_cell("%%agent --cells 3 --max-tokens 1\nOne word:", store_history=True)
    assert result.success, cap.stderr
    history = get_runner().get_or_create_session("default").history
    sent = next(e.text for e in history if isinstance(e, TextMessage) and e.author == "user")
    context, question = sent.rsplit("\n\n", 1)
    assert question == "One word:"
    assert context.startswith("Context: the code of the last 3 cells I ran in this notebook.")
    assert all(f"values_{seed} = [" in context for seed in (1, 2, 3))  # every cell has a share
    tokens = mlx_backend.count_text_tokens(context)
    assert tokens <= BUDGET + 4  # the "\n\n" joins between the parts
    assert tokens >= BUDGET * 2 // 3  # not needlessly small
