"""What a ``%%agent`` cell leaves in the saved notebook file (issue 39, 3.5).

A notebook runs in a real kernel through nbclient, with the cell ids JupyterLab sends
(`LabLikeClient`), and is written with nbformat and read back, as a saved file is.
"""

from __future__ import annotations

import asyncio
import pathlib

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from tests.jupyter.test_magics_kernel import run_cell, started_kernel, use_scripted_model

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(600)]


def test_an_agent_cell_saves_no_empty_output(tmp_path: pathlib.Path) -> None:
    async def scenario() -> nbformat.NotebookNode:
        async with started_kernel() as kernel:
            await use_scripted_model(kernel, ["Hello, Ada."])
            await run_cell(kernel, new_code_cell("%%agent\nSay hello to Ada."))
            return kernel.nb

    notebook = asyncio.run(scenario())
    path = tmp_path / "saved.ipynb"
    nbformat.write(notebook, path)
    cell = nbformat.read(path, as_version=4).cells[-1]
    shown = [o for o in cell.outputs if o["output_type"] in ("display_data", "execute_result")]
    assert any("Hello, Ada." in o["data"].get("text/plain", "") for o in shown)
    assert [o for o in shown if not any(v for v in o["data"].values())] == []
    assert len(shown) == 1  # the reply's one output: its status was part of it
    assert set(shown[0]["data"]) == {"text/markdown", "text/plain"}  # no widget left
