"""In a real JupyterLab the data agent's chart renders (Lab's own Vega-Lite renderer),
and a screenshot is kept in test-output/ to look at."""

from __future__ import annotations

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab

pytestmark = pytest.mark.browser

CELL = """\
import pandas as pd
from IPython.display import display
from agent_nb.data.answer import ask
from agent_nb.data.chart import chart_bundle
df = pd.DataFrame({"region": ["North", "South", "East", "West"] * 3,
                   "revenue": [11.0, 7.8, 9.8, 8.5] * 3})
answer = ask({"sales": df}, "Which region has the highest total revenue?")
print(answer.sentence)
display(chart_bundle(answer.chart), raw=True)
"""


def test_the_chart_renders_in_jupyterlab(lab: Lab) -> None:
    index = lab.run(CELL, timeout=120)
    assert "North has the highest total revenue" in lab.text(index)
    chart = lab.cell(index).locator(".jp-RenderedVegaCommon5, .vega-embed").first
    chart.wait_for(state="visible", timeout=30_000)
    chart.locator("canvas, svg").first.wait_for(state="visible", timeout=30_000)
    OUTPUT_DIR.mkdir(exist_ok=True)
    lab.cell(index).screenshot(path=str(OUTPUT_DIR / "data-chart.png"))
    assert not lab.errors
