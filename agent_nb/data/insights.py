"""Deterministic insights from a DataFrame: the numbers a small model cannot compute.

A 135M-parameter model reads "North 11,063; West 8,529" and answers "West";
it phrases correctly when the facts arrive computed, as short plain
sentences. So pandas computes a **bounded** set of facts and the model only
words them:

* shape and columns; missing values;
* per numeric column: total, mean, min and max;
* for each categorical x numeric pair (at most `MAX_PAIRS`): the top and
  bottom group by total;
* the trend of each numeric column over a date-like column (first vs last
  period, and the peak period);
* a compact table of the first pair's group totals.

Every loop is capped (columns, pairs, groups, sentence count), so the text is
bounded whatever the table; the cost is a few pandas group-bys (figures in
``benchmarks/bench_agents.py``). Nothing here evaluates text: the tools in
`agent` (`DataAgent.tools`) take column names and values, never expressions.

pandas is never imported here at module level: ``import agent_nb`` stays light.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterable
from typing import Any

from . import vocabulary
from .wording import format_number

__all__ = [
    "MAX_COLUMNS",
    "MAX_PAIRS",
    "Fact",
    "Insights",
    "check_frame",
    "compute_insights",
    "facts_text",
]

MAX_COLUMNS = 12  # numeric columns summarised
MAX_PAIRS = 6  # categorical x numeric pairs ranked
MAX_GROUPS = 50  # a "categorical" column has at most this many distinct values
MAX_TABLE_ROWS = 8
MAX_SENTENCES = 24
#: Words of a column's name that say it holds dates ("Date", "Month", "Quarter").
_DATE_WORDS = vocabulary.listed("time_column_words")


@dataclasses.dataclass(frozen=True)
class Fact:
    """One computed sentence, with what it is about.

    ``kind`` is ``"shape"``, ``"missing"``, ``"summary"``, ``"rank"``,
    ``"trend"`` or ``"peak"``. Some facts also come in parts, for a question
    that asks for one only: a rank fact's ``high`` and ``low`` halves, a
    summary's ``total`` and ``mean``.
    """

    text: str
    kind: str
    columns: tuple[str, ...] = ()
    high: str = ""
    low: str = ""
    total: str = ""
    mean: str = ""


@dataclasses.dataclass(frozen=True)
class Insights:
    """Facts about one table: short sentences, and a compact table (plain text)."""

    name: str
    facts: tuple[Fact, ...]
    table: str

    @property
    def sentences(self) -> tuple[str, ...]:
        return tuple(f.text for f in self.facts)

    def text(self) -> str:
        return facts_text(self.name, self.sentences, self.table)


def facts_text(name: str, sentences: Iterable[str], table: str = "") -> str:
    """Facts as the writer reads them: a heading, one line per sentence, the table."""
    lines = [f"Facts about {name} (computed with pandas):", *(f"- {s}" for s in sentences)]
    if table:
        lines += ["", table]
    return "\n".join(lines)


def check_frame(name: str, value: object) -> Any:
    """``value`` if it is a pandas DataFrame, a source opened where it is one (a path,
    a DuckDB or Ibis table, a database URL and table: `sources.as_data`), else a
    TypeError saying what is allowed."""
    from .sources import as_data

    return as_data(name, value)


def _percent(new: float, old: float) -> str | None:
    if old == 0:
        return None
    change = (new - old) / abs(old) * 100
    return f"{'rose' if change >= 0 else 'fell'} {abs(change):.0f}%"


def _date_column(df: Any) -> str | None:
    import pandas as pd

    for column in df.columns:
        series = df[column]
        if pd.api.types.is_datetime64_any_dtype(series):
            return str(column)
    for column in df.columns:
        series = df[column]
        textual = series.dtype == object or pd.api.types.is_string_dtype(series)
        if textual and any(w in str(column).lower() for w in _DATE_WORDS):
            sample = series.dropna().astype(str).head(20)
            parsed = pd.to_datetime(sample, errors="coerce", format="mixed")
            if len(sample) and parsed.notna().all():
                return str(column)
    return None


def _categoricals(df: Any, date: str | None) -> list[str]:
    import pandas as pd

    out = []
    for column in df.columns:
        if str(column) == date:
            continue
        series = df[column]
        if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            continue
        if 1 < series.nunique(dropna=True) <= MAX_GROUPS:
            out.append(str(column))
    return out


def _numerics(df: Any) -> list[str]:
    """The measures: numbers that add up, not years, ids or codes (``k = arange % 7``)."""
    import pandas as pd

    from .table import SAMPLE_ROWS, column_role

    sample = df if len(df) <= SAMPLE_ROWS else df.sample(SAMPLE_ROWS, random_state=0)
    return [
        str(c)
        for c in df.columns
        if pd.api.types.is_numeric_dtype(df[c])
        and not pd.api.types.is_bool_dtype(df[c])
        and column_role(str(c), df[c], sample[c])[0] in ("measure", "empty")
    ][:MAX_COLUMNS]


def _by_size(df: Any, numerics: list[str]) -> list[str]:
    """Numeric columns, largest absolute total first: the headline measure leads."""
    sizes = {c: abs(float(df[c].sum())) for c in numerics}
    return sorted(numerics, key=lambda c: (-sizes[c], numerics.index(c)))


def compute_insights(name: str, df: Any) -> Insights:
    """The bounded, deterministic facts about ``df`` (see the module docstring).

    Infinite values count as missing; numpy's warnings on all-NaN slices stay here."""
    import numpy as np

    if check_frame(name, df) is not df:  # a source: its facts would cost full scans
        raise ValueError(f"{name} lives in an engine: ask it a question (--data and a question)")
    if len(df) == 0:
        listed = ", ".join(map(str, df.columns[:20]))
        text = f"{name} is empty (0 rows, columns: {listed}): there is nothing to summarise."
        return Insights(name, (Fact(text, "shape"),), "")
    numeric = df.select_dtypes("number")
    if numeric.shape[1] and np.isinf(numeric.to_numpy(dtype=float, na_value=np.nan)).any():
        df = df.replace([np.inf, -np.inf], np.nan)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _insights(name, df)


def _insights(name: str, df: Any) -> Insights:
    import pandas as pd

    rows, cols = df.shape
    facts = [
        Fact(
            f"{name} has {rows:,} rows and {cols} columns: {', '.join(map(str, df.columns[:20]))}.",
            "shape",
        )
    ]
    missing = df.isna().sum()
    gaps = [(str(c), f"{c} ({int(n):,})") for c, n in missing.items() if n][:MAX_COLUMNS]
    if gaps:
        text = f"Missing values: {', '.join(g for _, g in gaps)}."
        facts.append(Fact(text, "missing", tuple(c for c, _ in gaps)))
    numerics = _numerics(df)
    # Mixed-type object columns are neither summed nor ranked: they are named.
    for column in numerics:
        series = df[column]
        if series.notna().sum() == 0:
            facts.append(Fact(f"{column} has no values (all missing).", "missing", (column,)))
            continue
        total, mean, low, high = (
            format_number(float(x), glance=True)
            for x in (series.sum(), series.mean(), series.min(), series.max())
        )
        facts.append(
            Fact(
                f"{column}: total {total}, mean {mean}, from {low} to {high}.",
                "summary",
                (column,),
                total=f"The total {column} is {total}.",
                mean=f"The mean {column} is {mean}.",
            )
        )
    date = _date_column(df)
    table = ""
    ranked = _by_size(df, numerics)
    pairs = [(c, n) for n in ranked for c in _categoricals(df, date)][:MAX_PAIRS]
    for index, (cat, num) in enumerate(pairs):
        totals = (
            df.groupby(cat, observed=True)[num]
            .sum(min_count=1)
            .dropna()  # a group with no values has no total (not 0)
            .sort_values(ascending=False, kind="stable")
        )
        if totals.empty:
            continue
        top, bottom = totals.index[0], totals.index[-1]
        most, least = (
            format_number(float(totals.iloc[0]), glance=True),
            format_number(float(totals.iloc[-1]), glance=True),
        )
        facts.append(
            Fact(
                f"By {cat}, {top} has the highest total {num} ({most}) and {bottom} the lowest "
                f"({least}).",
                "rank",
                (cat, num),
                high=f"By {cat}, {top} has the highest total {num} ({most}).",
                low=f"By {cat}, {bottom} has the lowest total {num} ({least}).",
            )
        )
        if index == 0:
            shown = totals.head(MAX_TABLE_ROWS)
            width = max(len(cat), *(len(str(k)) for k in shown.index))
            table = "\n".join(
                [f"{cat:<{width}}  total {num}"]
                + [
                    f"{k!s:<{width}}  {format_number(float(v), glance=True)}"
                    for k, v in shown.items()
                ]
            )
    if date is not None and numerics:
        when = pd.to_datetime(df[date], errors="coerce", format="mixed")
        labels = when.dt.to_period("M").astype(str) if when.nunique() > 24 else df[date].astype(str)
        labels = labels.where(when.notna())
        for num in ranked[:2]:
            by_period = df[num].groupby(labels).sum(min_count=1).dropna().sort_index()
            if len(by_period) < 2:
                continue
            first, last = by_period.index[0], by_period.index[-1]
            move = _percent(float(by_period.iloc[-1]), float(by_period.iloc[0]))
            if move is not None:
                facts.append(
                    Fact(f"Total {num} {move} from {first} to {last}.", "trend", (num, date))
                )
            peak = by_period.idxmax()
            facts.append(
                Fact(
                    f"The highest total {num} was in {peak} "
                    f"({format_number(float(by_period.max()), glance=True)}).",
                    "peak",
                    (num, date),
                )
            )
    return Insights(name, tuple(facts[:MAX_SENTENCES]), table)
