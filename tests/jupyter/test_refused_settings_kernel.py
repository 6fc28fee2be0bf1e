"""Refused settings fail the cell, in a real kernel, so Run All stops on them.

IPython's ``%config`` only logs what a configurable refuses; a user who set a
store would go on believing they were saving. And a turn refused before it
starts leaves no "…" above its one-line error.
"""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from nbclient.exceptions import CellExecutionError
from nbformat.v4 import new_code_cell

from tests.jupyter.test_magics_kernel import displays, kernel_on_model, run, run_cell, stdout

pytestmark = [pytest.mark.kernel, pytest.mark.mlx, pytest.mark.timeout(600)]


async def _fails(kernel: object, source: str) -> tuple[object, str]:
    cell = new_code_cell(source)
    with pytest.raises(CellExecutionError) as failed:
        await run_cell(kernel, cell)  # type: ignore[arg-type]
    return cell, f"{failed.value.ename}: {failed.value.evalue}"


def test_bad_settings_and_refused_turns_fail_the_cell(embedded_model_dir: pathlib.Path) -> None:
    asyncio.run(_bad_settings(embedded_model_dir))


async def _bad_settings(embedded_model_dir: pathlib.Path) -> None:
    async with kernel_on_model(embedded_model_dir) as kernel:
        _, error = await _fails(kernel, '%config AgentMagics.store = "sqlite://relative.db"')
        assert error.startswith("UsageError: AgentMagics.store: store must be None, 'memory', ")
        assert "got 'sqlite://relative.db'" in error
        assert error.endswith("AgentMagics.store stays 'memory'.")
        probe = await run(
            kernel,
            "from agent_nb import get_runner\nfrom agent_nb.stores import MemoryStore\n"
            "print(isinstance(get_runner().store, MemoryStore))",
        )
        assert stdout(probe).strip() == "True"

        _, error = await _fails(kernel, "%config AgentMagics.max_tokens = -3")
        assert "should not be less than 1" in error
        assert error.endswith("AgentMagics.max_tokens stays 512.")
        _, error = await _fails(kernel, "%config AgentMagics.max_token = 5")
        assert "no setting 'max_token'. Did you mean AgentMagics.max_tokens?" in error
        ok = await run(
            kernel,
            "%config AgentMagics.max_tokens = 6\n"
            "print(get_ipython().magics_manager.registry['AgentMagics'].max_tokens)",
        )
        assert stdout(ok).strip() == "6"  # an accepted value still takes effect

        # Refused with the options, naming the window; nothing loaded, shown or recorded.
        cell, error = await _fails(kernel, "%%agent --max-tokens 999999999\nhello")
        assert error == (
            "UsageError: --max-tokens must be between 1 and the model's context window (8,192 "
            f"tokens for mlx:{embedded_model_dir}), got 999,999,999; nothing was sent or recorded"
        )
        assert displays(cell) == []
        probe = await run(
            kernel,
            "from agent_nb.backends.mlx.runtime import loaded_models\n"
            "print(len(loaded_models()), get_runner().get_or_create_session('default').turns)",
        )
        assert stdout(probe).split() == ["0", "0"]

        # Too long for the window: refused before anything is sent, with no stray "…".
        cell, error = await _fails(kernel, "%%agent\n" + "word " * 10_000)
        assert "ContextWindowError" in error
        shown = [o["data"].get("text/plain", "") for o in displays(cell)]
        assert all(text == "" for text in shown), shown
