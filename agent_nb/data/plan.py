"""A question becomes one typed `Plan` over this table's columns: words first, a model last.

`Plan` is a small pydantic value: an operation (aggregate, rank, extreme,
trend, missing, shape, correlation, or "columns" for a question that names
nothing), the columns it reads, an aggregation, filters by value, an order
and a k. `plan_question` builds it lexically from the question's words
against the `Table` (column names, their parts, units and synonyms, the
values of categories and of the index) and says why in ``reasons``. Where a
slot stays open (a measure the question never names: "which island is
best?") it asks ``choose(question, slot, options)``, which the magic backs
with the model under a grammar of this table's columns (`choose`); without
one, the first candidate is taken and the reason says so.

Words used up by a column's name are not read as cues: the "min" of
``temp_min`` names a column, it does not ask for the lowest. Nothing here
evaluates the question or the model's text: they only select among names
that exist.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .lexicon import (
    ADDITIVE,
    AGG_WORDS,
    CORR,
    HIGH,
    HOW_MANY,
    LOW,
    MISSING,
    MODE,
    NUMBERS,
    SHAPE,
    TOPK,
    TREND,
    WHO,
    match_columns,
    match_values,
    phrase,
    time_column,
)  # fmt: skip
from .table import Column, Table, question_words

__all__ = [
    "AGGREGATIONS",
    "OPERATIONS",
    "Chooser",
    "Filter",
    "Plan",
    "plan_question",
    "plan_schema",
]

Op = Literal["aggregate", "rank", "extreme", "trend", "missing", "shape", "correlation", "columns"]
Agg = Literal["sum", "mean", "median", "count", "share", "min", "max", "nunique", "mode"]
OPERATIONS: tuple[str, ...] = Op.__args__  # type: ignore[attr-defined]
AGGREGATIONS: tuple[str, ...] = Agg.__args__  # type: ignore[attr-defined]

#: ``choose(question, slot, options)``: one of ``options`` for ``slot`` ("measure", "group").
Chooser = Callable[[str, str, Sequence[str]], str]


class Filter(BaseModel):
    """Rows whose ``column`` equals ``value`` (a year for a time column)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    column: str
    value: str | int | float | bool


class Plan(BaseModel):
    """One question's query over one table (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    op: Op
    measure: str | None = None
    agg: Agg = "sum"
    group_by: str | None = None
    time: str | None = None
    other: str | None = None  # the second column of a correlation
    filters: tuple[Filter, ...] = ()
    order: Literal["desc", "asc"] = "desc"
    k: int = Field(default=1, ge=1, le=20)
    period: Literal["year", "month", "day"] | None = None  # how a date column is bucketed

    def describe(self) -> str:
        """The plan in one line, for the trace."""
        bits: list[str] = [self.op]
        if self.op in ("aggregate", "rank", "trend"):
            bits.append(self.agg)
        bits += [x for x in (self.measure, self.other) if x]
        if self.group_by:
            bits.append(f"by {self.group_by}")
        if self.time:
            bits.append(f"over {self.time}")
        bits += [f"where {f.column} = {f.value!r}" for f in self.filters]
        if self.op in ("rank", "extreme"):
            bits.append(f"{'top' if self.order == 'desc' else 'bottom'} {self.k}")
        return " ".join(bits)


def plan_schema(table: Table, slot: str, options: Sequence[str]) -> dict[str, Any]:
    """The JSON schema a model answers under: one of ``options`` (this table's
    columns) for ``slot``, and one of the plan's operations."""
    return {
        "type": "object",
        "properties": {slot: {"enum": list(options)}, "op": {"enum": list(OPERATIONS)}},
        "required": [slot, "op"],
        "additionalProperties": False,
    }


def default_agg(column: Column) -> Agg:
    """How a measure adds up when the question does not say: sums for amounts, means for levels."""
    parts = set(column.parts) | {f"{p}s" for p in column.parts}  # parts are singular
    return "sum" if parts & ADDITIVE else "mean"


class _Planner:
    def __init__(self, table: Table, question: str, choose: Chooser | None) -> None:
        self.table, self.question, self.choose = table, question, choose
        self.text = question.lower()
        self.words = question_words(question)
        self.reasons: list[str] = []
        self.named = match_columns(table, self.words, question)
        # A column's own name parts are used up ("min" of temp_min); synonyms stay cues
        # ("longest" names flipper_length_mm and still asks for the highest).
        used = {w for n, (_, ws) in self.named.items() for w in ws if w in table.columns[n].parts}
        self.cues = set(self.words) - used
        if "over" in self.words and "time" in self.words:
            self.cues.add("over_time")
        spaced = f" {phrase(question)} "
        for col in table.of("empty"):
            if f" {phrase(col.name)} " in spaced:
                raise ValueError(f"{col.name} has no values (all missing): nothing to compute")
        self.values = match_values(table, question, set(self.named))
        self.high, self.low = bool(self.cues & HIGH), bool(self.cues & LOW)
        for name, (score, words) in sorted(self.named.items(), key=lambda x: -x[1][0]):
            self.reasons.append(f"{name!r} named by {', '.join(sorted(words))} ({score:g})")

    def best(self, roles: Sequence[str], exclude: Sequence[str] = ()) -> Column | None:
        cols = [
            (s, self.table.columns[n])
            for n, (s, _) in self.named.items()
            if self.table.columns[n].role in roles and n not in exclude
        ]
        if not cols:
            return None
        top = max(s for s, _ in cols)
        tied = [c for s, c in cols if s == top]
        if len(tied) > 1 and (
            self.high or self.low
        ):  # temp_max for "highest", temp_min for "lowest"
            side = {"max", "high", "maximum"} if self.high else {"min", "low", "minimum"}
            tied = [c for c in tied if set(c.parts) & side] or tied
        return tied[0]

    def pick(self, slot: str, options: list[Column], why: str) -> Column:
        names = [c.name for c in options]
        if self.choose is not None and len(names) > 1:
            picked = self.choose(self.question, slot, names)
            if picked in names:
                self.reasons.append(f"{slot} {picked!r} chosen by the model among {names} ({why})")
                return self.table.columns[picked]
        self.reasons.append(f"{slot} {names[0]!r}: the first of {names} ({why}; no model asked)")
        return options[0]

    def agg_cue(self) -> Agg | None:
        if MODE.search(self.text):
            return "mode"
        for agg, words in AGG_WORDS.items():
            if self.cues & words or (agg == "share" and "%" in self.text):
                return agg  # type: ignore[return-value]
        if HOW_MANY.search(self.text):
            return "count"
        return None

    def period(self) -> Literal["year", "month", "day"] | None:
        for word in ("year", "month", "day"):
            if re.search(
                rf"\b(which|what|each|per|by|every|in which|over the)\s+{word}", self.text
            ):
                return word
        return None

    def k(self) -> int:
        m = TOPK.search(self.text)
        if not m:
            return 1
        raw = m.group(1) or m.group(2)
        return max(1, min(20, NUMBERS.get(raw) or int(raw)))

    def filters(self, exclude: Sequence[str] = ()) -> tuple[Filter, ...]:
        out = [
            Filter(column=c.name, value=_plain(v)) for c, v in self.values if c.name not in exclude
        ]
        time = time_column(self.table)
        if time is not None and time.name not in exclude:
            for year in re.findall(r"\b(1[89]\d\d|20\d\d)\b", self.question):
                out.append(Filter(column=time.name, value=int(year)))
        for f in out:
            self.reasons.append(f"filter {f.column} = {f.value!r} (the question names the value)")
        return tuple(out)

    def plan(self) -> Plan:
        t = self.table
        measure = self.best(["measure"]) or self.best(["category", "id"]) if self.named else None
        if measure is not None and measure.role not in ("measure",) and not measure.integer:
            measure = None
        order: Literal["desc", "asc"] = "asc" if self.low and not self.high else "desc"
        agg = self.agg_cue()
        time = time_column(t)
        value_cols = {c.name for c, _ in self.values}
        if self.cues & CORR:
            return self.correlation()
        if self.cues & MISSING:
            col = self.best(["measure", "category", "label", "time", "id"])
            self.reasons.append("a missing-values question")
            return Plan(op="missing", measure=col.name if col else None)
        if (
            self.cues & SHAPE
            and not self.named
            and not self.values
            and (HOW_MANY.search(self.text) or {"shape", "size", "big"} & self.cues)
        ):
            self.reasons.append("asks for the table's size")
            return Plan(op="shape")
        group = self.group(exclude=[measure.name] if measure else [], values=value_cols)
        if group is not None and group.role == "time" and self.cues & TREND:
            time, group = group, None
        if self.cues & TREND and time is not None and (measure or t.of("measure")):
            m = measure or self.pick("measure", t.of("measure"), "a trend of an unnamed measure")
            per = group if group is not None and _per(self.text, group) else None
            self.reasons.append(f"a trend over {time.name}" + (f" per {per.name}" if per else ""))
            trend_agg: Agg = agg if agg in ("sum", "mean", "median") else default_agg(m)
            return Plan(
                op="trend", measure=m.name, agg=trend_agg,
                time=time.name, group_by=per.name if per else None,
                filters=self.filters(exclude=[time.name]), period=self.period(),
            )  # fmt: skip
        if group is not None:
            return self.grouped(group, measure, agg, order)
        if measure is not None:
            label = self.implicit_label()
            if (self.high or self.low) and agg is None and label is not None:
                self.reasons.append(
                    f"which row holds the {order}-most {measure.name}: by {label.name}"
                )
                return Plan(op="extreme", measure=measure.name, group_by=label.name, order=order,
                            k=self.k(), filters=self.filters())  # fmt: skip
            if agg is None:
                agg = (
                    ("max" if order == "desc" else "min")
                    if self.high or self.low
                    else default_agg(measure)
                )
            if agg == "mode" and measure.role == "measure":
                agg = "max" if order == "desc" else "min"
            self.reasons.append(f"one number: the {agg} of {measure.name}")
            return Plan(op="aggregate", measure=measure.name, agg=agg, filters=self.filters())
        cat = self.best(["category", "label", "time"], exclude=list(value_cols))
        if cat is not None and agg in ("mode", "nunique", "count"):
            agg = "nunique" if agg == "count" else agg
            self.reasons.append(f"the {agg} of {cat.name}")
            return Plan(op="aggregate", measure=cat.name, agg=agg, filters=self.filters())
        if self.values:
            self.reasons.append("rows with the named value(s)")
            return Plan(
                op="aggregate", agg="share" if agg == "share" else "count", filters=self.filters()
            )
        if HOW_MANY.search(self.text) and not self.named:
            self.reasons.append("how many rows")
            return Plan(op="aggregate", agg="count", filters=self.filters())
        label = self.implicit_label()
        if (
            (self.high or self.low)
            and label is not None
            and WHO.search(self.text)
            and t.of("measure")
        ):
            m = self.pick("measure", t.of("measure"), "no measure named")
            self.reasons.append(f"which {label.name} holds the {order}-most {m.name}")
            return Plan(op="extreme", measure=m.name, group_by=label.name, order=order, k=self.k())
        self.reasons.append("the question names no column or value of this table")
        return Plan(op="columns")

    def group(self, exclude: Sequence[str], values: set[str]) -> Column | None:
        """The dimension asked for: a named category, label or time column that is not
        just the column of a named value ("Gentoo" filters species; "which species" groups)."""
        cands = []
        for name, (score, _) in self.named.items():
            col = self.table.columns[name]
            if name in exclude or col.role not in ("category", "label", "time"):
                continue
            if name in values and not re.search(
                rf"\b(which|each|per|by|every)\s+{re.escape(phrase(name).split()[0])}", self.text
            ):
                continue
            cands.append((score, col))
        time = time_column(self.table)
        for word in ("year", "month", "day", "date"):  # "which year" over a date column
            asked = re.search(rf"\b(which|what|each|per|by|every|in which)\s+{word}", self.text)
            if time is None or not asked or time.name in exclude:
                continue
            if not any(c.name == time.name for _, c in cands):
                cands.append((0.5, time))
        if not cands:
            return None
        if len(cands) > 1:  # the one after which/each/per/by
            for _, col in cands:
                if _per(self.text, col) or re.search(
                    rf"\b(which|what)\s+{re.escape(col.parts[0] if col.parts else '')}", self.text
                ):
                    return col
        return max(cands, key=lambda x: x[0])[1]

    def implicit_label(self) -> Column | None:
        """The column that names rows ("which car", "who"): the index or the first label."""
        t = self.table
        if t.index is not None and t.columns[t.index].role in ("label", "time", "category"):
            return t.columns[t.index]
        labels = t.of("label")
        if labels:
            return labels[0]
        times = t.of("time")
        if times and re.search(r"\b(when|which (day|date|month|year))\b", self.text):
            return times[0]
        return None

    def grouped(
        self, group: Column, measure: Column | None, agg: Agg | None, order: Literal["desc", "asc"]
    ) -> Plan:
        filters = self.filters(exclude=[group.name])
        if (
            measure is None
            and group.role != "time"
            and not _per(self.text, group)
            and (
                agg == "mode"
                or agg == "nunique"
                or (agg == "count" and not (self.high or self.low))
            )
        ):
            agg = "nunique" if agg == "count" else agg
            self.reasons.append(f"the {agg} of {group.name}")
            return Plan(op="aggregate", measure=group.name, agg=agg, filters=filters)
        if measure is None and agg in (None, "sum", "mean", "median") and (self.high or self.low):
            # "which island has the most penguins": rows; "which island is best": a measure
            after = re.search(r"\b(?:most|fewest|least|highest number of|more)\s+(\w+)", self.text)
            if after is None or after.group(1) in ("value", "values"):
                measures = self.table.of("measure")
                if measures:
                    measure = self.pick("measure", measures, f"no measure named for {group.name}")
            if measure is None:
                agg = "count"
        if measure is None and agg not in ("count", "share"):
            agg = "count"
        if (
            group.role == "label"
            and measure is not None
            and group.nunique >= 0.9 * len(self.table.df)
            and agg is None
        ):
            self.reasons.append(f"{group.name} names rows: the row that holds it")
            return Plan(
                op="extreme",
                measure=measure.name,
                group_by=group.name,
                order=order,
                k=self.k(),
                filters=filters,
            )
        if measure is not None and agg in (None, "mode", "nunique", "count"):
            agg = default_agg(measure)
        final: Agg = agg or "sum"
        self.reasons.append(
            f"rank {group.name} by {final} of {measure.name if measure else 'rows'}"
        )
        return Plan(op="rank", measure=measure.name if measure else None, agg=final,
                    group_by=group.name, order=order, k=self.k(), filters=filters,
                    period=self.period() if group.role == "time" else None)  # fmt: skip

    def correlation(self) -> Plan:
        ranked = sorted(
            (n for n in self.named if self.table.columns[n].role == "measure"),
            key=lambda n: -self.named[n][0],
        )
        measures = [c for c in self.table.of("measure")]
        while len(ranked) < 2 and len(measures) > len(ranked):
            rest = [c for c in measures if c.name not in ranked]
            ranked.append(self.pick("measure", rest, "a correlation needs two measures").name)
        if len(ranked) < 2:
            raise ValueError(f"{self.table.name} has fewer than two numeric columns to correlate")
        self.reasons.append(f"the correlation of {ranked[0]} and {ranked[1]}")
        return Plan(op="correlation", measure=ranked[0], other=ranked[1], filters=self.filters())


def _per(text: str, col: Column) -> bool:
    head = re.escape(phrase(col.name).split()[0]) if phrase(col.name) else ""
    return bool(re.search(rf"\b(each|per|by|every|for all|across)\s+(\w+\s)?{head}", text))


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    return value if isinstance(value, (str, int, float, bool)) else str(value)


def plan_question(
    table: Table, question: str, choose: Chooser | None = None
) -> tuple[Plan, tuple[str, ...]]:
    """The plan that answers ``question`` over ``table``, and why (see the module docstring)."""
    planner = _Planner(table, question, choose)
    plan = planner.plan()
    return plan, tuple(planner.reasons)
