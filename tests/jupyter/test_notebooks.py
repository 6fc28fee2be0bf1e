"""The shipped notebooks run top to bottom in a real kernel on the embedded model."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from tests.data.frames import sales_frame
from tests.fixtures_notebooks import QUICKSTART, run_all

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))

pytestmark = [pytest.mark.kernel, pytest.mark.mlx]


def test_the_three_notebooks_exist() -> None:
    assert [p.name for p in NOTEBOOKS] == [
        "01_quickstart.ipynb",
        "02_teaching_demo.ipynb",
        "03_data_summary.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path: Path) -> None:
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_text_about_a_failing_cell_agrees_with_its_tag(path: Path) -> None:
    """A cell tagged raises-exception does not stop Run All: the text must not say it does."""
    nb = nbformat.read(path, as_version=4)
    for before, cell in zip(nb.cells, nb.cells[1:], strict=False):
        if "raises-exception" not in cell.metadata.get("tags", []):
            continue
        assert before.cell_type == "markdown", "say why the next cell fails"
        text = " ".join(before.source.split())
        assert "stops there" not in text and '"Run All" stops' not in text, text
        assert "raises-exception" in text and "goes on" in text, text


def _outputs_text(nb: nbformat.NotebookNode) -> str:
    chunks = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            chunks.append(out.get("text", ""))
            data = out.get("data", {})
            chunks.append(data.get("text/plain", ""))
            chunks.append(data.get("text/markdown", ""))
    return "\n".join(chunks)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes(
    path: Path, embedded_model_dir: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if path == QUICKSTART:  # its Run All is shared with test_quickstart_replay
        nb = request.getfixturevalue("quickstart_cold").nb
    else:
        nb = run_all(path, tmp_path, tmp_path / "replay.sqlite", replay=False).nb
    text = _outputs_text(nb)
    assert "Traceback" not in text
    if path.stem == "01_quickstart":
        assert "Paris" in text  # the embedded model answered the first cell
        assert "moved to branch 2 | turns on the active branch: 1" in text
        assert "back on branch 2 | turns: 2" in text
        assert "--code: " in text  # a new cell below, or one line saying why not
        assert "explaining ZeroDivisionError: division by zero in In [" in text
    elif path.stem == "02_teaching_demo":
        assert "You got a B" in text and "stored state: {'grades_given': 1}" in text
        assert "chat() needs exactly one of" in text
        # A SequentialAgent: the code agent's temp: value reached the model agent,
        # each message names its agent, and nothing of temp: was stored.
        assert "('announcer', 'TextMessage')" in text
        stored = next(line for line in text.splitlines() if "'scores': [72, 85, 91, 64]" in line)
        assert "temp:" not in stored
        trace = text[text.index("calculator [code]") :]
        assert "temp: wrote temp:average = 78.0" in trace
        assert "announcer [model]" in trace and "temp: read temp:average" in trace
        # The MCP section: a real server's read-only tool, its server named in the trace.
        assert "Week 2 is about spread." in text
        assert "[('syllabus', 'course', True)]" in text
        assert "syllabus -> {'result': 'spread: variance and IQR'}" in text
        assert "called syllabus (course)" in text and "server: closed" in text
    else:
        best = sales_frame().groupby("region")["revenue"].sum().idxmax()  # pandas, here
        assert f"{best} has the highest total revenue" in text  # the data agent's result
        assert "plan: trend sum revenue over month" in text  # a plan, and why
        assert "plan: rank sum revenue by region" in text  # the %%agent cell's plan
        svgs = [
            o
            for c in nb.cells
            for o in c.get("outputs", [])
            if "image/svg+xml" in o.get("data", {})
        ]
        assert len(svgs) >= 2  # the trend's chart and the cell's, with a static SVG for exports
        assert f"Best region: **{best}**" in text
        assert "data_agent [code]" in text and "temp: wrote temp:insights = Facts" in text
        assert "writer [model]" in text and "temp: read temp:insights" in text
        assert "stored state: {}" in text  # temp:insights ended with the turn
        take = next(line for line in text.splitlines() if line.startswith("Model's take"))
        assert best in take, take  # the model's sentence uses the data agent's facts
