"""The chart: a bar for a ranking, a line for a trend; its bundle carries a static SVG
that an nbconvert HTML export shows offline."""

from __future__ import annotations

import base64
import re

import pandas as pd
import pytest

from agent_nb.data.answer import ask
from agent_nb.data.chart import VEGA_LITE_MIME, chart_bundle
from tests.data.frames import sales_frame

pytest.importorskip("altair")
pytest.importorskip("vl_convert")


def test_a_ranking_is_a_bar_and_a_trend_a_line() -> None:
    sales = sales_frame()
    bar = ask({"sales": sales}, "Which region has the highest total revenue?").chart
    line = ask({"sales": sales}, "How did revenue change over the months?").chart
    assert bar.to_dict()["mark"]["type"] == "bar"
    assert line.to_dict()["mark"]["type"] == "line"
    assert ask({"sales": sales}, "What is the total revenue?").chart is None  # one number


@pytest.mark.slow  # nbconvert renders a notebook
def test_nbconvert_html_holds_the_svg() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    chart = ask({"sales": sales_frame()}, "Which region has the highest total revenue?").chart
    bundle = chart_bundle(chart)
    assert bundle[VEGA_LITE_MIME]["mark"]["type"] == "bar"
    assert bundle["image/svg+xml"].lstrip().startswith("<svg")
    cell = nbformat.v4.new_code_cell("chart")
    cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
    html, _ = nbconvert.HTMLExporter().from_notebook_node(nbformat.v4.new_notebook(cells=[cell]))
    # nbconvert inlines the SVG as a data URI: the chart shows offline, labels and all
    found = re.search(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)
    assert found is not None
    svg = base64.b64decode(found.group(1)).decode()
    assert svg.startswith("<svg") and "North" in svg


def test_column_names_with_colons_and_dots_are_charted() -> None:
    """Names copied from web tables ("Country:", "No.", "Pop. [1]"): Vega-Lite would read
    ":" as a type and "." or brackets as a nested field."""
    frame = pd.DataFrame(
        {"Country:": ["a", "b", "a", "c", "b", "a"], "Pop. [1]": [1, 2, 3, 4, 5, 6]}
    )
    chart = ask({"df": frame}, "Which Country: has the highest total Pop. [1]?").chart
    bundle = chart_bundle(chart)
    assert bundle["text/plain"] == "<chart>"  # vl-convert drew it: the fields resolve
    assert ">a<" in bundle["image/svg+xml"] or "a</text>" in bundle["image/svg+xml"]
