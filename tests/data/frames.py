"""The tables the data tests share."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["sales_frame"]


def sales_frame() -> pd.DataFrame:
    """The DataFrame of notebooks/03_data_summary.ipynb."""
    rng = np.random.default_rng(7)
    months = pd.period_range("2026-01", periods=6, freq="M").astype(str)
    regions = ["North", "South", "East", "West"]
    sales = pd.DataFrame(
        [(m, r, int(rng.integers(80, 200)), round(float(rng.uniform(9.5, 12.5)), 2))
         for m in months for r in regions],
        columns=["month", "region", "units", "unit_price"],
    )  # fmt: skip
    sales["revenue"] = sales.units * sales.unit_price
    return sales
