"""``--cells`` and ``%agent explain`` hold their budgets as the given counter counts.

The counters here are far stricter than the estimate (one token per
character), as a tokenizer is on numeric text; the MLX case itself is in
`tests.jupyter.test_cells_budget_mlx`.
"""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from agent_nb._core.tokens import estimate_request_tokens, estimate_text_tokens
from agent_nb._core.types import Content, GenerateContentRequest, Part, Role
from agent_nb._jupyter.prompts.cell_context import cells_context, recent_cells
from agent_nb._jupyter.prompts.last_error import LastError, explain_prompt
from agent_nb._jupyter.prompts.trim import fit_middle


def one_per_char(text: str) -> int:
    return len(text)


def test_fit_middle_keeps_both_ends_within_the_count() -> None:
    text = "\n".join(f"line {i}" for i in range(500))
    cut = fit_middle(text, 120, one_per_char, "[{}]".format)
    assert len(cut) <= 120 and len(cut) > 100
    assert cut.startswith("[line 0\n") and cut.endswith("line 499]")
    assert fit_middle("short", 120, one_per_char) == "short"
    assert len(fit_middle("x" * 10_000, 60, one_per_char)) <= 60  # one huge line


@pytest.mark.parametrize("budget", [800, 2000])
def test_explain_prompt_holds_its_budget(budget: int) -> None:
    try:
        exec(compile("raise ValueError('bad ' + '9' * 5000)", "<cell>", "exec"))
    except ValueError as exc:
        error = exc
    last = LastError(error=error, cell="x = 1\n" * 2000, execution_count=7)
    prompt = explain_prompt(last, {}, budget, one_per_char)
    assert len(prompt) <= budget + 6  # the "\n\n" joins
    assert "ValueError: bad 999" in prompt and "In [7]" in prompt


def test_cells_context_holds_its_budget(shell: InteractiveShell) -> None:
    with capture_output():
        for i in range(3):
            shell.run_cell(f"v{i} = {list(range(400))}", store_history=True)
    context = cells_context(
        shell, recent_cells(shell, 3), outputs=False, budget_tokens=300, count=one_per_char
    )
    assert len(context) <= 300 + 4
    assert all(f"v{i} = [0, 1" in context for i in range(3))


def test_text_and_request_estimates_follow_one_rule() -> None:
    assert estimate_text_tokens("") == 0
    assert estimate_text_tokens("abc") == 1 and estimate_text_tokens("abcd") == 2
    assert estimate_text_tokens("é") == 1  # bytes of UTF-8, not characters
    request = GenerateContentRequest(contents=(Content(Role.USER, (Part(text="a" * 30),)),))
    assert estimate_request_tokens(request) == 3 + 4 + estimate_text_tokens("a" * 30)
