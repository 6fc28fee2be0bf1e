"""Notebook-aware help in a real IPython shell: ``%agent explain``, ``--code``, ``--cells``.

Cells run with ``store_history=True`` here, as a notebook front end runs them,
so execution counts, ``In``/``Out`` and IPython's output history are real.
The ScriptedBackend echoes the last user message when nothing is enqueued,
and keeps every request, so each test reads exactly what the model was sent.
The kernel-side checks (the ``set_next_input`` payload in the execute reply)
are in `tests.jupyter.test_magics_kernel`.
"""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO, capture_output

from agent_nb import AgentRunner, TextMessage, get_runner, set_runner
from agent_nb._core.fences import first_code_block
from agent_nb._jupyter.prompts.trim import cut_middle
from agent_nb.backends import ScriptedBackend
from agent_nb.backends.mlx import MLXBackend
from tests.fixtures_magics import final_bundle, magics, turns, usage_error


def run(sh: InteractiveShell, source: str, cell_id: str | None = None) -> tuple[Any, CapturedIO]:
    """Run a cell as a notebook does: numbered and kept in the input history."""
    with capture_output() as cap:
        result = sh.run_cell(source, store_history=True, cell_id=cell_id)
    return result, cap


def sent(backend: ScriptedBackend) -> str:
    """The user message of the latest request."""
    text: str = backend.requests[-1].contents[-1].text
    return text


# -- %agent explain ------------------------------------------------------------


def test_explain_sends_the_error_the_cell_and_only_user_frames(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "import json\ndef parse(text):\n    return json.loads(text)\n")
    failed, _ = run(shell, "config = '{bad'\nsettings = parse(config)")
    number = failed.execution_count
    _, cap = run(shell, "%agent explain", cell_id="explain-cell")
    assert cap.stdout.splitlines()[0] == (
        "explaining JSONDecodeError: Expecting property name enclosed in double quotes: "
        f"line 1 column 2 (char 1) in In [{number}]"
    )
    prompt = sent(backend)
    assert prompt.startswith("My notebook cell failed with the Python error below. Explain")
    assert "JSONDecodeError: Expecting property name enclosed in double quotes" in prompt
    assert f"The failing cell (In [{number}]):\n```python\nconfig = '{{bad'\n" in prompt
    assert f"  In [{number}], line 2, in <module>\n    settings = parse(config)\n" in prompt
    assert f"  In [{number - 1}], line 3, in parse\n    return json.loads(text)\n" in prompt
    assert "  … 3 frames in json …" in prompt  # the library's frames, folded into one line
    for internal in ("interactiveshell", "IPython", "site-packages", "run_code", "ipykernel"):
        assert internal not in prompt
    assert final_bundle(cap)["text/plain"] == f"You said: {prompt}"  # streamed like a cell
    assert turns() == [prompt]  # a turn of the default session, like any %%agent cell
    # Re-running the cell replaces its turn; a named session and a model work as in %%agent.
    run(shell, "%agent explain", cell_id="explain-cell")
    assert turns() == [prompt]
    run(shell, "%agent explain tutor -m scripted --max-tokens 3")
    assert turns("tutor") == [prompt] and backend.requests[-1].config.max_tokens == 3


def test_explain_without_an_error_is_a_plain_note(shell: InteractiveShell) -> None:
    # A fresh kernel: nothing has failed (pytest also clears sys.last_value per test).
    shell.reset(new_session=True)
    magics(shell).last_error = None
    result, cap = run(shell, "%agent explain")
    note = "no error to explain yet: %agent explain explains the last cell that raised"
    # Nothing went wrong, so no "UsageError:" label and the cell succeeds.
    assert result.success and cap.stderr == "" and cap.stdout.startswith(note)
    # A magic's own UsageError is not "the last error" (it is its own explanation).
    run(shell, "%agent nonsense")
    result, cap = run(shell, "%agent explain")
    assert result.success and cap.stdout.startswith("no error to explain yet")
    assert get_runner().sessions() == []


def test_explain_keeps_the_last_real_error_and_bad_options_send_nothing(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "1 / 0")
    run(shell, "%%agent --cells 0\nhi")  # a UsageError later does not replace it
    result, cap = run(shell, "%agent explain --max-tokens 0")
    usage_error(result, cap, "--max-tokens must be at least 1")
    result, cap = run(shell, "%agent explain --temperature 2")
    usage_error(result, cap, "unrecognized arguments: --temperature")
    assert backend.requests == []
    run(shell, "%agent explain")
    assert "ZeroDivisionError: division by zero" in sent(backend)


def test_explain_finds_an_error_from_before_the_extension_was_loaded(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.extension_manager.unload_extension("agent_nb")
    failed, _ = run(shell, "x = 1\nx = = 2")
    shell.extension_manager.load_extension("agent_nb")
    run(shell, "%agent explain")
    prompt = sent(backend)
    assert "SyntaxError: invalid syntax" in prompt
    assert f'File "In [{failed.execution_count}]", line 2' in prompt
    assert "```python\nx = 1\nx = = 2\n```" in prompt


def test_explain_cuts_a_long_traceback_in_the_middle(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "def down(n):\n    return down(n + 1)\n")
    # IPython's default (Context) mode spends half a minute showing 3,000 frames (an
    # inspect.getmodule scan per frame); what explain sends does not depend on it.
    mode = shell.InteractiveTB.mode
    run(shell, "%xmode Plain")
    try:
        run(shell, "down(0)")
    finally:
        shell.InteractiveTB.set_mode(mode)
    magics(shell).error_budget = 300
    run(shell, "%agent explain")
    prompt = sent(backend)
    assert len(prompt) <= 300 * 4 + 200  # the budget, plus the headings
    assert "RecursionError: maximum recursion depth exceeded" in prompt
    frames = prompt.split("Traceback of my code (most recent call last):\n")[1]
    lines = frames.splitlines()
    assert lines[0].endswith("line 1, in <module>") and lines[1] == "    down(0)"
    assert lines[-1] == "    return down(n + 1)"  # the innermost frame survives the cut
    assert any(line.startswith("… (") and "lines left out) …" in line for line in lines)


def test_cut_middle_keeps_both_ends() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    cut = cut_middle(text, 200)
    assert len(cut) <= 200
    assert cut.startswith("line 0\nline 1\n") and cut.endswith("line 998\nline 999")
    assert cut_middle("short", 10) == "short"
    assert "characters left out" in cut_middle("x" * 1000, 100)


# -- %%agent --code --------------------------------------------------------------

BLOCKS = "Try this:\n\n```python\nimport math\nprint(math.pi)\n```\n\nor\n~~~\nsecond\n~~~\n"


def test_code_puts_the_first_block_in_the_next_cell(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    shell.rl_next_input = None
    backend.enqueue(BLOCKS)
    _, cap = run(shell, "%%agent --code\nprint pi")
    assert final_bundle(cap)["text/plain"] == BLOCKS  # the reply streamed as usual
    assert cap.stdout.strip() == (
        "--code: the reply's first code block is in a new cell below (not run)"
    )
    assert shell.rl_next_input == "import math\nprint(math.pi)"  # the terminal's next input
    assert "math" not in shell.user_ns  # never run


@pytest.mark.parametrize(
    ("reply", "options", "why"),
    [
        ("No code, just words.", "", "it has no fenced code block"),
        ("```python\nprint(1)\nprint(2)\n```", "--max-tokens 3",
         "its code block was cut off before the closing fence (raise --max-tokens)"),
    ],
    ids=["no-block", "cut-mid-block"],
)  # fmt: skip
def test_code_without_a_complete_block_adds_no_cell(
    shell: InteractiveShell, backend: ScriptedBackend, reply: str, options: str, why: str
) -> None:
    shell.rl_next_input = None
    backend.enqueue(reply)
    _, cap = run(shell, f"%%agent --code {options}\nwrite code")
    assert cap.stdout.strip() == f"--code: no cell was added: {why}"
    assert shell.rl_next_input is None


def test_first_code_block() -> None:
    assert first_code_block(BLOCKS) == "import math\nprint(math.pi)"
    assert first_code_block("````\n```\nnested\n```\n````") == "```\nnested\n```"
    assert first_code_block("```python\nunfinished") is None
    assert first_code_block("```\n\n```") == ""


# -- %%agent --cells N [--outputs] ------------------------------------------------


def test_cells_sends_exactly_the_last_n_cells(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    run(shell, "too_old = 1")
    first, _ = run(shell, "a = 40\nprint('printed', a)")
    second, _ = run(shell, "b = 2\na + b")
    run(shell, "%%agent --cells 2\nWhat did I compute?")
    n, m = first.execution_count, second.execution_count
    assert sent(backend) == (
        "Context: the code of the last 2 cells I ran in this notebook.\n\n"
        f"In [{n}]:\n```python\na = 40\nprint('printed', a)\n```\n\n"
        f"In [{m}]:\n```python\nb = 2\na + b\n```\n\n"
        "What did I compute?"
    )
    failed, _ = run(shell, "1 / 0")
    run(shell, "%%agent --cells 3 --outputs\nAnd now?")
    prompt = sent(backend)
    assert prompt.startswith("Context: the code and outputs of the last 3 cells")
    assert f"In [{m}]:\n```python\nb = 2\na + b\n```\n\nOut[{m}]:\n```text\n42\n```" in prompt
    assert f"In [{failed.execution_count}]:\n```python\n1 / 0\n```" in prompt
    assert "ZeroDivisionError: division by zero" in prompt
    assert "too_old" not in prompt and "And now?" not in prompt.split("\n\n")[-2]
    assert prompt.endswith("\n\nAnd now?")


def test_cells_context_fits_its_budget(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    body = "\n".join(f"value_{i} = {i}" for i in range(2000))
    run(shell, body)
    run(shell, f"print('{'x' * 5000}')")
    magics(shell).cells_budget = 200
    run(shell, "%%agent --cells 2 --outputs\nsummarise")
    prompt = sent(backend)
    assert len(prompt) <= 200 * 4 + 250
    assert "value_0 = 0" in prompt and "value_1999 = 1999" in prompt  # both ends kept
    assert "lines left out" in prompt and "characters left out" in prompt


def test_cells_with_nothing_run_before(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    shell.reset(new_session=True)
    result, cap = run(shell, "%%agent --cells 2\nhello")
    usage_error(result, cap, "--cells: no cell has run before this one in this kernel yet")
    assert backend.requests == []


def test_in_and_out_interpolation(shell: InteractiveShell, backend: ScriptedBackend) -> None:
    cell, _ = run(shell, "6 * 7")
    n = cell.execution_count
    run(shell, f"%%agent\nWhy does {{In[{n}]}} give {{Out[{n}]}}?")
    assert sent(backend) == "Why does 6 * 7 give 42?"


# -- the embedded model ------------------------------------------------------------


@pytest.mark.mlx
def test_explain_on_the_embedded_model(shell: InteractiveShell, mlx_backend: MLXBackend) -> None:
    runner = AgentRunner(model=mlx_backend)
    set_runner(runner)  # the shell fixture shuts down whatever runner is current
    run(shell, "prices = [3, 4]\naverage = sum(prices) / 0")
    result, cap = run(shell, "%agent explain --max-tokens 12")
    assert result.error_in_exec is None, cap.stderr
    reply = final_bundle(cap)["text/plain"]
    assert reply.strip() and not reply.startswith("You said")
    history = runner.get_or_create_session("default").history
    texts = [(e.author, e.text) for e in history if isinstance(e, TextMessage)]
    assert len(texts) == 2 and texts[0][0] == "user"
    assert "ZeroDivisionError: division by zero" in texts[0][1]
    # What the cell shows is the recorded reply (then, if 12 tokens cut it, the cut-off mark).
    assert reply.startswith(texts[1][1])
    assert reply == texts[1][1] or "cut off at the 12-token limit" in reply
