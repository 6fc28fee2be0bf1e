"""In a real JupyterLab, a data question asked in the chat widget shows its table and an
SVG chart (vega-embed, bundled: the page loads nothing from the network), in a second
view too, and again after a page reload. Screenshots go to test-output/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab
from tests.jupyter.test_widget_lifecycle_browser import _save

pytestmark = pytest.mark.browser

SETUP = """\
import pandas as pd
sales = pd.DataFrame({"region": ["North", "South", "East", "West"] * 3,
                      "revenue": [11.0, 7.8, 9.8, 8.5] * 3})
w_data = ChatWidget("chart-chat", data={"sales": sales})
w_data
"""
QUESTION = "Which region has the highest total revenue?"


def chart_of(widget: Any) -> Any:
    """The turn's drawn chart (its SVG), waited for."""
    svg = widget.locator('.anb-past .anb-data .anb-chart[data-state="drawn"] svg').first
    svg.wait_for(state="visible", timeout=60_000)
    return svg


def check_answer(widget: Any) -> None:
    data = widget.locator(".anb-past .anb-data")
    assert data.locator(".anb-plan").inner_text() == "plan: rank sum revenue by region top 1"
    headers = data.locator(".anb-table th").all_inner_texts()
    assert headers == ["region", "total revenue"]
    cells = data.locator(".anb-table td").all_inner_texts()
    assert cells[:2] == ["North", "33"] and len(cells) == 8
    svg = chart_of(widget)
    # Four bars, drawn as SVG marks by vega with the computed values.
    assert svg.locator("g.mark-rect path").count() == 4
    assert "total revenue by region" in svg.inner_html()
    # the computed sentence is the reply, shown in the data block (no model wording)
    sentence = widget.locator(".anb-past .anb-data .anb-data-text").last.inner_text()
    assert "North has the highest total revenue (33)" in sentence


def test_a_data_question_in_the_widget_shows_its_chart_and_keeps_it(lab: Lab) -> None:
    requests: list[str] = []
    lab.page.on("request", lambda r: requests.append(r.url))
    index = lab.run(SETUP)
    widget = lab.widget(index)
    box = widget.locator("textarea.anb-input")
    box.click()
    box.fill(QUESTION)
    box.press("Enter")
    widget.locator(".anb-stop:disabled").wait_for(timeout=60_000)
    check_answer(widget)
    assert widget.locator(".anb-chart .vega-actions").count() == 0  # actions: false
    OUTPUT_DIR.mkdir(exist_ok=True)
    widget.screenshot(path=str(OUTPUT_DIR / "widget-data-chart.png"))
    assert lab.eval("w_data.session.history[1].author") == "data_agent"

    # A second view of the same widget draws the same stored chart.
    second = lab.widget(lab.run("w_data"))
    check_answer(second)

    # After a reload the page has only the stored transcript: the chart comes back.
    _save(lab)
    lab.page.reload(wait_until="domcontentloaded")
    lab.wait_reopened(1)
    again = lab.widget(index, timeout=90)  # every widget output restored from the kernel
    check_answer(again)
    again.screenshot(path=str(OUTPUT_DIR / "widget-data-chart-reloaded.png"))
    assert not lab.errors, lab.errors
    away = [u for u in requests if not u.startswith(("http://127.0.0.1", "blob:", "data:"))]
    assert away == []  # vega-embed came from the kernel, never from a CDN


def test_a_question_not_understood_shows_no_numbers_in_the_widget(lab: Lab) -> None:
    """ "the loyal customers": the reply says what it read and what it could not place;
    the widget shows the plan it read, and neither its table nor its chart (their
    numbers, the total of every row, answer another question)."""
    setup = SETUP.replace("w_data", "w_unsure").replace('"chart-chat"', '"unsure-chat"')
    widget = lab.widget(lab.run(setup))
    box = widget.locator("textarea.anb-input")
    box.click()
    box.fill("What is the total revenue of the loyal customers?")
    box.press("Enter")
    widget.locator(".anb-stop:disabled").wait_for(timeout=60_000)
    data = widget.locator(".anb-past .anb-data")
    assert data.locator(".anb-plan").inner_text() == "plan: aggregate sum revenue (not answered)"
    assert data.locator(".anb-table").count() == 0 and data.locator(".anb-chart").count() == 0
    said = data.locator(".anb-data-text").last.inner_text()
    assert said.startswith("No answer: I read the total revenue in sales")
    assert "'loyal'" in said
    assert "111.3" not in widget.inner_text() and "111" not in said
    widget.screenshot(path=str(OUTPUT_DIR / "widget-data-not-answered.png"))
    assert not lab.errors, lab.errors
