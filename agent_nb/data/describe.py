"""The template sentence of a result: the answer first, then what it is and where it holds.

"Yes — the mean Age (36.5) is above 35.", "61 rows have body_mass_g over
5000.", "[2028, 2090, 2426] are the 3 lowest MonthlyIncome." The sentence
names every filter its number was computed under, and uses the direction
words the result gives (highest or lowest, rose or fell, more or fewer).
`answer_text` writes the answer alone, as the reply's first words.
"""

from __future__ import annotations

from typing import Any

from . import vocabulary
from .describe_more import sentence_more
from .execute import MAX_LIST, Result
from .query import AGG_NAME as _AGG_NAME
from .query import Plan
from .wording import answer_text, format_number, measure_words, where

__all__ = ["answer_text", "format_number", "reading_of", "sentence", "sentence_of", "where"]

_COMBINED = {
    "difference": "difference of",
    "gap": "difference (either way round) between",
    "ratio": "ratio of",
}
_HOW_OFTEN = {"=": "exactly", "!=": "other than", ">": "more than", ">=": "at least",
              "<": "fewer than", "<=": "at most"}  # fmt: skip
_TEST = {
    "=": "is",
    "!=": "is not",
    "<": "is below",
    "<=": "is at most",
    ">": "is above",
    ">=": "is at least",
}


def sentence(plan: Plan, result: Result, table: str) -> str:
    """The template sentence of ``result`` (see the module docstring)."""
    v, w = result.value, where(plan)
    side = "highest" if plan.order == "desc" else "lowest"
    op = plan.op
    if op == "compare":
        assert plan.of is not None
        left, right = result.get("left"), result.get("right")
        lead = answer_text(v)
        what = sentence_of(plan.of)
        other = sentence_of(plan.versus) if plan.versus is not None else answer_text(right)
        verb = _TEST[plan.test or "="] if v else _TEST[_negate(plan.test or "=")]
        if isinstance(v, str):  # a choice ("more or less"): the word that holds, and why
            lead = v.capitalize()
        return f"{lead} — {what} ({answer_text(left)}) {verb} {other}" + (
            f" ({answer_text(right)})." if plan.versus is not None else "."
        )
    if op == "exists":
        n, base = int(result.numbers.get("count", 0)), int(result.numbers.get("base", 0))
        cond = " and ".join(f.phrase() for f in plan.condition) or "rows"
        scope = f" of the {base} rows{w}" if plan.filters else f" of {base} rows"
        gaps = int(result.numbers.get("missing", 0))
        tested = sorted({f.column for f in plan.condition})
        said = (
            f" ({gaps} more rows have no {' or '.join(tested)} and are not counted)" if gaps else ""
        )
        return f"{answer_text(v)} — {n}{scope} have {cond}{said}."
    if op == "aggregate":
        if plan.combine and plan.versus is not None:
            return f"{answer_text(v)} is {reading_of(plan)}."
        if plan.agg == "share" and "whole" in result.numbers:  # a part of a measure's total
            some, whole = result.numbers["part"], result.numbers["whole"]
            part = " and ".join(f.phrase() for f in plan.condition)
            return (
                f"{format_number(v)}% of the total {plan.measure}{w} is in the rows with "
                f"{part} ({format_number(some)} of {format_number(whole)})."
            )
        if plan.agg == "share":
            n, base = int(result.numbers["count"]), int(result.numbers["base"])
            part = " and ".join(f.phrase() for f in plan.condition) or w.replace(" where ", "")
            of = w if plan.condition else ""
            return f"{format_number(v)}% of the rows{of} have {part} ({n} of {base})."
        if plan.agg == "streak":
            return _streak(plan, result)
        if plan.measure is None:
            return f"{answer_text(v)} rows of {table}{w}."
        if plan.agg == "mode":
            n, base = int(result.numbers["count"]), int(result.numbers["base"])
            most = "most" if plan.order == "desc" else "least"
            return f"{answer_text(v)} is the {most} common {plan.measure}{w} ({n} of {base} rows)."
        if plan.agg == "nth":
            return f"{answer_text(v)} is the {plan.k}th {side} {plan.measure}{w}."
        if plan.agg in ("count", "nunique"):
            return f"{answer_text(v)} is the {_AGG_NAME[plan.agg]} {plan.measure} values{w}."
        return f"{answer_text(v)} is the {measure_words(plan)}{w}."
    if op == "rank" and isinstance(v, dict):
        pairs = ", ".join(
            f"{k} {n if isinstance(n, str) else format_number(n)}" for k, n in v.items()
        )
        what = "number of rows" if plan.measure is None else measure_words(plan)
        per = plan.period or plan.group_by  # "per month" of a date column's months
        return f"{pairs}: the {what} per {per}{w}."
    if op == "rank":
        label, what = result.get("label", plan.group_by), measure_words(plan)
        if plan.agg in ("max", "min") and plan.measure:  # not "the highest highest Laps"
            what = plan.measure
        top = result.frame.iloc[:, 1].tolist()
        if plan.having is not None:  # "appears exactly once"
            test, n = plan.having
            rows = f"{_HOW_OFTEN[test]} {n} row{'s' if n != 1 else ''}"
            if not v:
                return f"No {label} has {rows}{w}."
            return f"{answer_text(v)} are the {label} values with {rows}{w}."
        if v is None and result.get("tied") is not None:
            return _no_single(label, f"the {side} {what}{w}", result)
        if isinstance(v, list):
            tied = _tied(result)
            return f"{answer_text(v)} are the {len(v)} {label} with the {side} {what}{w}{tied}."
        if not plan.labels:  # the value asked for: "the highest monthly total"
            per = plan.period or plan.group_by
            first = result.frame.iloc[0, 0]
            return f"{answer_text(v)} is the {side} {what} per {per}{w} ({first})."
        shown = result.get("shown") or format_number(float(top[0]))  # a time: "1:55.45"
        return f"{answer_text(v)} has the {side} {what}{w} ({shown})."
    if op == "extreme":
        show = plan.group_by or plan.measure
        best = f"{side} {plan.measure}"
        if plan.near is not None:  # "the year closest to 2000"
            best = f"{plan.measure} closest to {format_number(plan.near)}"
        if v is None and result.get("tied") is not None:
            return _no_single(f"{show} row", f"the {best}{w}", result)
        if isinstance(v, list):
            # the rows' values (repeats kept) say so; "the lowest 4 price values" are
            # distinct values, `distinct`'s sentence
            of = (
                f"{show} of the {len(v)} rows"
                if show != plan.measure
                else f"{show} values of the {len(v)} rows"
            )
            tied = _tied(result, plan.near is not None)
            return f"{answer_text(v)} are the {of} with the {best}{w}{tied}."
        cell = _cell_shown(result, plan.measure, v)
        if show == plan.measure:
            return f"{answer_text(v)} is the {best}{w}."
        if isinstance(v, str):
            return f"{v} has the {best}{w} ({cell})."
        return f"{answer_text(v)} is the {show} of the row with the {best}{w} ({cell})."
    if op == "distinct" and plan.listed:
        side = "highest" if plan.order == "desc" else "lowest"
        return f"{answer_text(v)} are the {len(v)} {side} distinct values of {plan.measure}{w}."
    if op == "distinct":
        return f"{answer_text(v)} are the {len(v)} distinct values of {plan.measure}{w}."
    if op == "values":
        return f"{answer_text(v)} are the {plan.group_by} values{w}."
    if op == "lookup" and not plan.offset and not _by_order(plan) and result.rows > 1:
        # "name a car with more than 200 horsepower": one of the rows, not the only one
        return (
            f"{answer_text(v)} is the {plan.group_by} of the first of the {result.rows:,} "
            f"rows{w}, in the table's order."
        )
    if op == "lookup":
        return f"{answer_text(v)} is {sentence_of(plan)}."
    return sentence_more(plan, result, table)


def _streak(plan: Plan, result: Result) -> str:
    """ "3 is the longest run of consecutive rows where Result Win, in the table's order
    (rows 4 to 6); 1 row with no Result is passed over." """
    v = result.value
    first, last = result.numbers.get("first"), result.numbers.get("last")
    rows = f" (rows {int(first)} to {int(last)})" if first and last and v != 1 else ""
    gaps = int(result.numbers.get("missing", 0))
    columns = " or ".join(sorted({f.column for f in plan.filters}))
    rows_are = "row with no {} is" if gaps == 1 else "rows with no {} are"
    said = f"; {gaps} {rows_are.format(columns)} passed over" if gaps else ""
    return f"{answer_text(v)} is {sentence_of(plan)}{rows}{said}."


def reading_of(plan: Plan) -> str:
    """The whole computed value's name, two plans combined included: "the difference of
    the number of rows where ... and the number of rows where ..."."""
    if plan.op == "aggregate" and plan.combine and plan.versus is not None:
        return f"the {_COMBINED[plan.combine]} {sentence_of(plan)} and {sentence_of(plan.versus)}"
    return sentence_of(plan)


def sentence_of(plan: Plan) -> str:
    """A computed value's name: "the mean Age where Department Sales", "the rows where ..."."""
    w = where(plan)
    if plan.op == "aggregate":
        if plan.agg == "streak":
            return f"the longest run of consecutive rows{w}, in the table's order"
        if plan.measure is None:
            return f"the number of rows{w}"
        if plan.agg == "mode":
            return f"the {'most' if plan.order == 'desc' else 'least'} common {plan.measure}{w}"
        if plan.agg == "share":
            whose = f"the total {plan.measure}" if plan.measure and plan.condition else "rows"
            return (
                f"the share of {whose} with {' and '.join(f.phrase() for f in plan.condition)}{w}"
            )
        return f"the {measure_words(plan)}{w}"
    if plan.op == "rank":
        side = "highest" if plan.order == "desc" else "lowest"
        what = plan.measure if plan.agg in ("max", "min") and plan.measure else None
        return f"the {plan.group_by} with the {side} {what or measure_words(plan)}{w}"
    if plan.op == "extreme":
        side = "highest" if plan.order == "desc" else "lowest"
        return f"the {plan.group_by or plan.measure} of the row with the {side} {plan.measure}{w}"
    if plan.op == "lookup" and plan.offset:  # "the Title of the row after the one where ..."
        n = abs(plan.offset)
        side = "after" if plan.offset > 0 else "before"
        if n > 1:
            return f"the {plan.group_by} {n} rows {side} the row{w}, in the table's order"
        return f"the {plan.group_by} of the row {side} the one{w}, in the table's order"
    if plan.op == "lookup" and _by_order(plan):
        end = "last" if plan.order == "asc" else "first"  # (time's end, where it runs back)
        return f"the {plan.group_by} of the {end} row{w}, in the table's order"
    if plan.op == "lookup":
        return f"the {plan.group_by}{w}"
    if plan.op == "compare" and plan.of is not None and plan.test is not None:
        # "whether the mean Round where Winner Roche is above the mean Round where ..."
        than = sentence_of(plan.versus) if plan.versus is not None else str(plan.against)
        return f"whether {sentence_of(plan.of)} {_TEST[plan.test]} {than}"
    return plan.describe()


def _by_order(plan: Plan) -> bool:
    """Whether a lookup's row is picked by its place in the table ("the first car")."""
    return bool(vocabulary.words("table_place_words") & set(dict(plan.words).get("order", ())))


def _tied(result: Result, near: bool = False) -> str:
    """The reason a list answers a question for one: the values tied with the last."""
    tied = result.get("tied")
    if tied is None:
        return ""
    return f" (tied, {answer_text(tied)} away)" if near else f" (tied at {answer_text(tied)})"


def _no_single(who: str, what: str, result: Result) -> str:
    """A tie that leaves nothing to state: say it, with the shared value."""
    n, at = int(result.get("groups", 0)), answer_text(result.get("tied"))
    many = f"all {n:,}" if n <= MAX_LIST else f"more than {MAX_LIST}"
    return f"No single {who} has {what}: {many} tie at {at}."


def _negate(test: str) -> str:
    return {"=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}[test]


def _cell_shown(result: Result, column: str | None, default: Any) -> str:
    """The extreme row's ``column`` as the reader knows it: the cell as written where it
    was read from text ("2:55.16", not 175.16 seconds), else the number."""
    shown = result.shown
    if column is None or column not in result.frame:
        return format_number(float(default))
    cell = shown[column].iloc[0] if column in shown else None
    if isinstance(cell, str):
        return cell
    return format_number(float(result.frame[column].iloc[0]))
