"""`DataAgent`: what it accepts, and its tools take names and values, never expressions."""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb import DataAgent
from tests.data.frames import sales_frame


@pytest.mark.parametrize("bad", [[1, 2], "df", pd.Series([1, 2]), None, {}])
def test_non_dataframes_are_refused_with_what_is_allowed(bad: object) -> None:
    data = bad if isinstance(bad, dict) else {"x": bad}
    with pytest.raises(TypeError, match="DataFrame"):
        DataAgent(data=data)  # type: ignore[arg-type]


def test_structured_tools_take_names_and_values_never_expressions() -> None:
    sales = sales_frame()
    group_totals, filter_rows, top_k, distribution = DataAgent(data={"sales": sales}).tools
    totals = group_totals("sales", "region", "revenue", top=2)
    expected = sales.groupby("region")["revenue"].sum().sort_values(ascending=False).head(2)
    assert totals == {k: float(v) for k, v in expected.items()}
    rows = filter_rows("sales", "region", "North", limit=3)
    assert len(rows) == 3 and {r["region"] for r in rows} == {"North"}
    assert top_k("sales", "revenue", k=1)[0]["revenue"] == float(sales.revenue.max())
    assert distribution("sales", "region") == {"North": 6, "South": 6, "East": 6, "West": 6}
    # Text that pandas would evaluate is only ever a column name or a value here.
    with pytest.raises(ValueError, match="unknown column"):
        group_totals("sales", "__import__('os').system('true')", "revenue")
    assert filter_rows("sales", "region", "region == 'North' or True") == []
    with pytest.raises(ValueError, match="unknown table"):
        top_k("other", "revenue")
