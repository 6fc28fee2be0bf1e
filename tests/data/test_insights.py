"""The data agent's insights, checked against pandas computed independently here."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from agent_nb import DataAgent
from agent_nb.data.insights import MAX_SENTENCES, compute_insights
from tests.data.frames import sales_frame


def test_insights_match_pandas() -> None:
    sales = sales_frame()
    text = DataAgent(data={"sales": sales}).insights_text()
    by_region = sales.groupby("region")["revenue"].sum()
    best, worst = by_region.idxmax(), by_region.idxmin()
    assert (
        f"By region, {best} has the highest total revenue ({by_region.max():,.0f}) and "
        f"{worst} the lowest ({by_region.min():,.0f})."
    ) in text
    monthly = sales.groupby("month")["revenue"].sum()
    change = (monthly.iloc[-1] - monthly.iloc[0]) / monthly.iloc[0] * 100
    word = "fell" if change < 0 else "rose"
    assert f"Total revenue {word} {abs(change):.0f}% from 2026-01 to 2026-06." in text
    assert f"revenue: total {sales.revenue.sum():,.0f}" in text
    assert "sales has 24 rows and 5 columns" in text
    # The compact table lists every region's total, largest first.
    table = [line.split()[0] for line in text.splitlines()[-4:]]
    assert table == list(by_region.sort_values(ascending=False).index)


def test_insights_are_deterministic() -> None:
    agent = DataAgent(data={"sales": sales_frame()})
    assert agent.insights_text() == agent.insights_text()


def test_empty_all_nan_and_mixed_columns_give_bounded_results() -> None:
    empty = compute_insights("t", pd.DataFrame({"a": []}))
    assert "t is empty" in empty.text()
    nan = compute_insights("t", pd.DataFrame({"x": [np.nan, np.nan], "g": ["a", "b"]}))
    assert "x has no values (all missing)." in nan.sentences
    assert "Missing values: x (2)." in nan.sentences
    mixed = compute_insights("t", pd.DataFrame({"m": [1, "two", 3.0, None], "v": [1, 2, 3, 4]}))
    assert any(s.startswith("By m,") for s in mixed.sentences)  # ranked as a category
    assert "v: total 10" in mixed.text()


@pytest.mark.slow  # 10⁶ rows
def test_a_million_rows_stay_bounded() -> None:
    n = 1_000_000
    rng = np.random.default_rng(0)
    big = pd.DataFrame(
        {
            "date": pd.date_range("2020-01-01", periods=n, freq="min"),
            "region": rng.choice(["N", "S", "E", "W"], n),
            "value": rng.random(n),
        }
    )
    started = time.perf_counter()
    insights = compute_insights("big", big)
    elapsed = time.perf_counter() - started
    assert len(insights.sentences) <= MAX_SENTENCES
    assert len(insights.text()) < 3000
    assert elapsed < 30  # generous on a loaded CI machine; the benchmark quotes the figure
