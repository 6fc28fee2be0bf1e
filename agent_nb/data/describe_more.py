"""Sentences of the descriptive operations: trend, correlation, missing values, shape, columns."""

from __future__ import annotations

from .execute import Result
from .query import Plan
from .wording import format_number, where

__all__ = ["sentence_more"]


def sentence_more(plan: Plan, result: Result, table: str) -> str:
    w, g = where(plan), result.get
    if plan.op == "trend":
        word = {"sum": "total", "mean": "mean", "median": "median", "count": "number of"}[
            g("agg", "mean")
        ]
        w = f" {plan.measure}{w}" if plan.measure is not None else f" rows{w}"
        if plan.group_by is None:
            first, last, change = g("first"), g("last"), g("change")
            a, b = g("from"), g("to")
            if change is None:
                return (
                    f"The {word}{w} went from {format_number(first)} in {a} "
                    f"to {format_number(last)} in {b}."
                )
            verb = "rose" if change >= 0 else "fell"
            return (
                f"{verb.capitalize()} {abs(change):.1f}% — the {word}{w} "
                f"{verb} from {a} ({format_number(first)}) to {b} ({format_number(last)})."
            )
        return (
            f"{g('high')} changed most ({g('high_change'):+.1f}%) and {g('low')} least "
            f"({g('low_change'):+.1f}%) — the {word}{w} per {plan.group_by}."
        )
    if plan.op == "correlation":
        r = float(result.value)
        strength = "strong" if abs(r) >= 0.7 else "moderate" if abs(r) >= 0.4 else "weak"
        sign = "positive" if r >= 0 else "negative"
        pair = f"{plan.measure} and {plan.other}{w}"
        return f"{r:.2f} is the correlation of {pair} ({strength}, {sign})."
    if plan.op == "missing":
        if plan.measure is not None:
            share = result.numbers["share"]
            return f"{result.value} values of {plan.measure} are missing ({share:.1f}% of rows)."
        listed = g("listed", ())
        if not listed:
            return f"0 — {table} has no missing values."
        shown = ", ".join(f"{c} ({n:,})" for c, n in listed)
        return f"{result.value:,} values are missing in {table}: {shown}."
    if plan.op == "shape":
        rows, cols = result.value, int(result.numbers["columns"])
        return f"{rows:,} rows and {cols} columns are in {table}."
    names = list(result.names)
    shown = ", ".join(names) + (", ..." if len(result.frame) > len(names) else "")
    return f"The question names nothing in {table}; its columns are: {shown}."
