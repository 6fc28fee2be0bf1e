"""How values are written in a sentence: numbers, the answer alone, the filters."""

from __future__ import annotations

from typing import Any

from .query import AGG_NAME as _AGG_NAME
from .query import Plan

__all__ = ["answer_text", "format_number", "item_text", "measure_words", "where"]


def format_number(value: float, *, glance: bool = False) -> str:
    """A number as a person reads it: an answer precise enough to be scored (4 decimals
    at most), or, at a ``glance`` (a table's summary), rounded to what the eye takes in
    (whole from 100 up, else 2 decimals)."""
    if value != value:
        return "missing"
    if glance:
        whole = abs(value) >= 100 or float(value).is_integer()
        return f"{value:,.0f}" if whole else f"{value:,.2f}"
    if float(value).is_integer():
        return f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))
    if abs(value) >= 1000:
        return f"{value:,.2f}"
    return f"{value:.4f}".rstrip("0").rstrip(".")


def answer_text(value: Any) -> str:
    """The answer alone: Yes / No, a number, a name, a list as a list."""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, (int, float)):
        return format_number(float(value))
    if isinstance(value, list):  # items without thousands separators: the commas part them
        items = [item_text(v) for v in value]
        # items that hold commas ("Tokyo, Japan") are parted by semicolons
        return "[" + ("; " if any("," in i for i in items) else ", ").join(items) + "]"
    return str(value)


def item_text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return format_number(float(value)).replace(",", "")
    return str(value)


def where(plan: Plan) -> str:
    """`` where species not Adelie and body_mass_g over 5000`` (or nothing)."""
    if not plan.filters:
        return ""
    return " where " + " and ".join(f.phrase() for f in plan.filters)


def measure_words(plan: Plan) -> str:
    if plan.measure is None:
        return "rows"
    return f"{_AGG_NAME.get(plan.agg, plan.agg)} {plan.measure}".replace("number of ", "number of ")
