"""A question becomes ranked candidate plans over this table's columns: words first.

`plan_candidates` reads the question (`reading.read`: columns, filters,
``k``, the answer type its form asks for) and proposes plans, best first,
each with why. The answer type leads: "Is there any applicant with a GRE
score above 330?" tests rows (``exists``); "Is the average age above 35?"
compares a computed value with a constant; "Are there more Adelie than
Gentoo?" compares two counts; "List the 5 lowest incomes" is a list;
"How many ..." counts rows or, for an additive measure, sums it. Each
candidate's parts record the words they came from (`Plan.words`), and the
next candidate is tried when running one fails (`answer.ask`).

Words used up by a column's name are not read as cues: the "min" of
``temp_min`` names a column, it does not ask for the lowest.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Literal

from .planner_bool import boolean_plans
from .planner_list import list_plans
from .query import Agg, Filter, Plan
from .reading import Reading, read
from .table import Column, Table
from .words import (
    ADDITIVE, AGG_WORDS, CORR, HIGH, HOW_MANY, LOW, MISSING, MODE, SHAPE, TREND, WHO, phrase,
    question_words,
)  # fmt: skip

__all__ = ["Candidate", "default_agg", "plan_candidates"]


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One plan and why; ``open`` when the words left a choice to make."""

    plan: Plan
    reasons: tuple[str, ...]
    open: bool = False


def default_agg(column: Column) -> Agg:
    """How a measure adds up when the question does not say: sums for amounts, means for levels."""
    parts = set(column.parts) | {f"{p}s" for p in column.parts}
    return "sum" if parts & ADDITIVE else "mean"


class _Planner:
    def __init__(self, r: Reading) -> None:
        self.r, self.t = r, r.table
        self.reasons: list[str] = [f"{n!r} named by {', '.join(sorted(ws))} ({s:g})"
                                   for n, (s, ws) in sorted(r.named.items(), key=lambda x: -x[1][0])]  # fmt: skip
        self.reasons += r.notes
        self.out: list[Candidate] = []

    # -- helpers ------------------------------------------------------------
    def add(self, plan: Plan, why: str, open_: bool = False) -> None:
        self.out.append(Candidate(plan, (*self.reasons, why), open_ or bool(self.r.open)))

    def words(self, *cols: Column | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple((c.name, tuple(sorted(self.r.named.get(c.name, (0, set()))[1])))
                     for c in cols if c is not None)  # fmt: skip

    def filter_cols(self) -> set[str]:
        return {f.column for f in self.r.filters}

    def best(self, roles: Sequence[str], exclude: Sequence[str] = (), numeric: bool = False,
             ) -> list[Column]:  # fmt: skip
        cols = [(s, self.t.columns[n]) for n, (s, _) in self.r.named.items()
                if n not in exclude and (self.t.columns[n].role in roles
                                         or (numeric and self.t.columns[n].numeric))]  # fmt: skip
        if numeric:
            cols = [(s, c) for s, c in cols if c.numeric]
        def unmatched(c: Column) -> int:
            return len(set(c.parts) - self.r.named[c.name][1])

        cols.sort(key=lambda x: (-x[0], unmatched(x[1]), self.r.where.get(x[1].name, 0)))
        if len(cols) > 1 and (self.r.high or self.r.low) and cols[0][0] == cols[1][0]:
            side = {"max", "high", "maximum"} if self.r.high else {"min", "low", "minimum"}
            cols.sort(key=lambda x: (-x[0], not set(x[1].parts) & side))
        return [c for _, c in cols]

    def order(self) -> Literal["asc", "desc"]:
        cues = self.r.cues
        if re.search(r"\b(least|fewest|lowest|smallest|worst|bottom|minimum|min)\b", self.r.text):
            if not re.search(r"\b(at least|least \d)", self.r.text) or cues & {"lowest", "worst"}:
                return "asc"
        return "asc" if self.r.low and not self.r.high else "desc"

    def agg_cue(self) -> Agg | None:
        cues = self.r.cues
        if MODE.search(self.r.text):
            return "mode"
        if re.search(r"\b(difference between|range)\b", self.r.text) and (
            self.r.high and self.r.low or "range" in cues
        ):
            return "range"
        for agg in ("nunique", "share", "mean", "median", "std", "range"):
            if cues & AGG_WORDS[agg] or (agg == "share" and "%" in self.r.text):
                return agg  # type: ignore[return-value]
        of = re.search(r"\bnumber of\s+(\w+)", self.r.text)
        names_measure = of is not None and any(
            self.t.columns[n].role == "measure" and (of.group(1) in ws or of.group(1).rstrip("s") in ws)
            for n, (_, ws) in self.r.named.items()
        )  # "the highest number of steals": the steals column, not rows
        if HOW_MANY.search(self.r.text) and not names_measure:
            return "count"
        if cues & AGG_WORDS["sum"]:
            return "sum"
        if cues & {"highest", "maximum", "max", "most", "largest", "biggest", "best", "longest",
                   "record", "greatest", "top", "peak"}:  # fmt: skip
            return "max"
        if cues & {"lowest", "minimum", "min", "least", "smallest", "worst", "shortest", "fewest"}:
            return "min"
        return None

    def label(self, exclude: Sequence[str] = ()) -> Column | None:
        """The column that names rows ("which car", "who"): a named label, the index, the first."""
        named = [c for c in self.best(("label",), exclude)]
        if named:
            return named[0]
        if self.t.index is not None and self.t.columns[self.t.index].role in ("label", "time", "category"):
            return self.t.columns[self.t.index]
        labels = [c for c in self.t.of("label") if c.name not in exclude]
        return labels[0] if labels else None

    # -- the plan -----------------------------------------------------------
    def plan(self) -> list[Candidate]:
        r = self.r
        if r.cues & CORR and r.expect != "list":
            self.correlation()
        if r.cues & MISSING and r.expect not in ("list",) and all(
            f.op in ("missing", "present") for f in r.filters
        ):
            col = (self.best(("measure", "category", "label", "time", "id")) or [None])[0]
            self.add(Plan(op="missing", measure=col.name if col else None,
                          words=self.words(col)), "a missing-values question")  # fmt: skip
        if r.expect == "boolean":
            self.boolean()
        elif r.expect == "list":
            self.listing()
        self.value()
        self.add(Plan(op="columns"), "the question names no column or value of this table")
        return self.out

    def value(self) -> None:
        """A number or a category: one aggregate, a ranking, the row at an extreme."""
        r, t = self.r, self.t
        filters = tuple(r.filters)
        fcols = self.filter_cols()
        measures = [c for c in self.best(("measure",), numeric=True) if c.role not in ("time", "id")]
        measures.sort(key=lambda c: c.role != "measure")  # stable: a real measure first
        agg = self.agg_cue()
        order = self.order()
        if (r.cues & SHAPE and not r.named and not r.values
                and (HOW_MANY.search(r.text) or {"shape", "size", "big"} & r.cues)):  # fmt: skip
            self.add(Plan(op="shape"), "the table's size")
            return
        eq_cols = {f.column for f in filters if f.op in ("=", "in")}
        measures = [c for c in measures if c.name not in eq_cols] or (
            [] if agg in (None, "count", "share") else measures)
        nth = _nth(r.text)
        if nth and measures:
            self.add(Plan(op="aggregate", measure=measures[0].name, agg="nth", k=nth, order=order,
                          filters=filters, words=self.words(measures[0]) + (("nth", _nth_words(r.text)),)),
                     f"the {nth}th {order} of {measures[0].name}")  # fmt: skip
        self.versus(filters, measures, agg)
        group = self.group(exclude=[m.name for m in measures[:1]])
        time = _time(t)
        if r.cues & TREND and time is not None and (measures or t.of("measure")) and not (
            group is not None and group.role != "time" and agg in ("mode", "nunique")
        ):
            m = measures[0] if measures else t.of("measure")[0]
            per = group if group is not None and group.role != "time" and _per(r.text, group) else None
            self.add(Plan(op="trend", measure=m.name, agg=agg if agg in ("sum", "mean", "median") else default_agg(m),
                          time=(group if group is not None and group.role == "time" else time).name,
                          group_by=per.name if per else None,
                          filters=tuple(f for f in filters if f.column != time.name),
                          period=_period(r.text), words=self.words(m, per)),
                     f"a trend of {m.name}", open_=not measures)  # fmt: skip
        if group is not None:
            self.grouped(group, measures, agg, order, filters)
        m = measures[0] if measures else None
        if m is not None and m.name in fcols and len(measures) > 1 and agg not in (None, "count"):
            m = next((c for c in measures if c.name not in fcols), m)
        if m is not None and agg in (None, "max", "min") and (r.high or r.low) and WHO.search(r.text):
            label = self.label(exclude=[m.name])
            if re.search(r"\bwhen\b", r.text) and time is not None:
                label = time
            if label is not None and re.search(r"\b(who|which|whose|what|when)\b", r.text):
                self.add(Plan(op="extreme", measure=m.name, group_by=label.name, order=order,
                              filters=filters, words=self.words(m, label)),
                         f"which {label.name} holds the {order} {m.name}")  # fmt: skip
        of_row = re.search(r"\b(with|has|had|having|who|whose|of|by)\s+(the\s+)?(\w+\s+)?"
                           r"(highest|lowest|most|least|best|worst|largest|smallest|longest|"
                           r"shortest|maximum|minimum|top|greatest|fewest)\b", r.text)  # fmt: skip
        if of_row and len(r.named) >= 2 and group is None:
            cut = len(r.text[: of_row.start()].split())
            shown = [c for c in self.best(("measure", "category", "label", "id", "time"), numeric=True)
                     if r.where.get(c.name, 99) < cut and c.name not in fcols]  # fmt: skip
            shown += [c for c in self.best(("category", "label", "id", "time"))
                      if r.where.get(c.name, 99) < cut and c.name not in fcols and c not in shown]  # fmt: skip
            ranked = [c for c in measures if r.where.get(c.name, -1) >= cut]
            if shown and ranked:
                self.add(Plan(op="extreme", measure=ranked[0].name, group_by=shown[0].name,
                              order=order, filters=filters, words=self.words(ranked[0], shown[0])),
                         f"{shown[0].name} of the row with the {order} {ranked[0].name}")  # fmt: skip
        cat = next(iter(self.best(("category", "label", "time", "id"), exclude=list(fcols))), None)
        if cat is not None and (agg in ("nunique", "count") or re.search(r"\b(combinations?|pairs?)\b", r.text)):
            pair = self.second_group(cat)
            if pair is not None and re.search(r"\b(combinations?|pairs?|distinct|unique|different)\b", r.text):
                self.add(Plan(op="aggregate", measure=cat.name, agg="nunique", group_by2=pair.name,
                              filters=filters, words=self.words(cat, pair)),
                         f"distinct pairs of {cat.name} and {pair.name}")  # fmt: skip
        if cat is not None and agg == "count" and m is None and re.search(
            r"\bhow many (different |distinct |unique )?(\w+)", r.text
        ) and any(w in r.named[cat.name][1] for w in question_words(
            re.search(r"\bhow many (different |distinct |unique )?(\w+)", r.text).group(2))):  # type: ignore[union-attr]
            self.add(Plan(op="aggregate", measure=cat.name, agg="nunique", filters=filters,
                          words=self.words(cat)), f"how many distinct {cat.name}")  # fmt: skip
        if cat is not None and agg in ("mode", "nunique") and (m is None or agg == "mode" or
                                                               r.where[cat.name] < r.where.get(m.name, 99)):  # fmt: skip
            self.add(Plan(op="aggregate", measure=cat.name, agg=agg, order=order if agg == "mode" else "desc",
                          filters=filters, words=self.words(cat)), f"the {agg} of {cat.name}")  # fmt: skip
        if m is not None:
            if agg == "share" and filters:
                self.share(filters, m)
            a: Agg = agg if agg not in (None, "mode", "nunique", "share") else (
                "count" if agg == "count" else default_agg(m))
            if agg == "count" and not (set(m.parts) & ADDITIVE or _how_many_of(r.text, m)):
                self.add(Plan(op="aggregate", agg="count", filters=filters,
                              words=(("rows", _how_words(r.text)),)), "how many rows")  # fmt: skip
                a = "count"
            elif agg == "count":
                a = "sum"  # "how many passengers": the measure adds up
            if agg == "mode" and m.role == "measure":
                self.add(Plan(op="aggregate", measure=m.name, agg="mode", filters=filters,
                              words=self.words(m)), f"the most common {m.name}")  # fmt: skip
            self.add(Plan(op="aggregate", measure=m.name, agg=a, filters=filters, words=self.words(m)),
                     f"one number: the {a} of {m.name}")  # fmt: skip
        if agg == "share" and filters:
            self.share(filters)
        if m is None and agg in ("max", "min", "mean", "sum", "median") and t.of("measure") and (
            r.named or r.filters
        ):
            pick = t.of("measure")[0]
            self.add(Plan(op="aggregate", measure=pick.name, agg=agg, filters=filters),
                     f"the {agg} of {pick.name} (no measure named)", open_=len(t.of("measure")) > 1)  # fmt: skip
        if agg == "nunique" and not self.best(("label", "category"), exclude=list(fcols)):
            label = self.label(exclude=list(fcols))
            if label is not None:  # "how many different athletes": the rows' names
                self.add(Plan(op="aggregate", measure=label.name, agg="nunique", filters=filters),
                         f"distinct {label.name} (the column that names rows)", open_=True)
        if filters and (WHO.search(r.text) or r.named) and not HOW_MANY.search(r.text):
            shown = [c for c in self.best(("label", "category", "measure", "id", "time"))
                     if c.name not in fcols]  # fmt: skip
            if shown:
                self.add(Plan(op="lookup", group_by=shown[0].name, filters=filters,
                              words=self.words(shown[0])), f"{shown[0].name} in the matching row")  # fmt: skip
        if filters or HOW_MANY.search(r.text):
            what = self.best(("label", "category"), exclude=list(fcols))
            if agg == "nunique" and what:
                self.add(Plan(op="aggregate", measure=what[0].name, agg="nunique", filters=filters,
                              words=self.words(what[0])), f"distinct {what[0].name}")  # fmt: skip
            self.add(Plan(op="aggregate", agg="count", filters=filters,
                          words=(("rows", _how_words(r.text)),)), "how many rows match")  # fmt: skip
        if m is None and (r.high or r.low) and t.of("measure") and WHO.search(r.text):
            label = self.label()
            if label is not None:
                pick = t.of("measure")[0]
                self.add(Plan(op="extreme", measure=pick.name, group_by=label.name, order=order,
                              filters=filters, words=self.words(label)),
                         f"which {label.name} holds the {order} {pick.name} (no measure named)",
                         open_=True)  # fmt: skip

    def versus(self, filters: tuple[Filter, ...], measures: list[Column], agg: Agg | None) -> None:
        """Two values of one column set against each other: "how much heavier are Gentoo
        than Adelie on average" (a difference), "how many times more Adelie than
        Chinstrap" (a ratio)."""
        r = self.r
        by: dict[str, list[Filter]] = {}
        for f in filters:
            if f.op == "=":
                by.setdefault(f.column, []).append(f)
        pair = next((fs for fs in by.values() if len(fs) == 2), None)
        if pair is None or r.expect == "boolean":
            return
        rest = tuple(f for f in filters if f not in pair)
        ratio = bool(re.search(r"\b(ratio|times)\b", r.text))
        m = measures[0] if measures else None
        a: Agg = agg if agg in ("mean", "sum", "median", "max", "min") else (
            default_agg(m) if m is not None else "count")  # fmt: skip
        if m is None or (ratio and not re.search(r"\b(average|mean|total|sum)\b", r.text)):
            m, a = None, "count"
        def side(f: Filter) -> Plan:
            return Plan(op="aggregate", measure=m.name if m else None, agg=a,
                        filters=(*rest, f), words=self.words(m))  # fmt: skip
        words = tuple(w for w in ("than", "compared", "to", "ratio", "difference", "times",
                                  "between", "and", "more", "less", "higher", "heavier")
                      if w in r.tokens)  # fmt: skip
        plan = side(pair[0]).model_copy(update={
            "combine": "ratio" if ratio else "difference", "versus": side(pair[1]),
            "words": self.words(m) + (("versus", words),)})  # fmt: skip
        self.add(plan, f"the {plan.combine} of {pair[0].value} and {pair[1].value}")

    def share(self, filters: tuple[Filter, ...], measure: Column | None = None) -> None:
        """"What fraction of Chinstrap penguins are female?": the part is the last-named
        filter, the base the others; "what share of net generation comes from
        Renewables?": the part's share of the measure's total."""
        if measure is not None:
            self.add(Plan(op="aggregate", agg="share", measure=measure.name, condition=filters,
                          words=self.words(measure)),
                     f"the share of total {measure.name} where "
                     + " and ".join(f.describe() for f in filters))  # fmt: skip
            return
        ordered = sorted(filters, key=lambda f: self.r.text.find(str(f.words[0]) if f.words else ""))
        if len(ordered) > 1:
            base, part = tuple(ordered[:-1]), (ordered[-1],)
            self.add(Plan(op="aggregate", agg="share", filters=base, condition=part),
                     f"the share of {part[0].describe()} among {', '.join(f.describe() for f in base)}")
        else:
            self.add(Plan(op="aggregate", agg="share", filters=tuple(ordered)),
                     "the share of all rows")

    def group(self, exclude: Sequence[str]) -> Column | None:
        """The dimension asked for: a named category, label or time column that is not
        just the column of a named value ("Gentoo" filters species; "which species" groups)."""
        r = self.r
        cands = []
        fcols = self.filter_cols()
        for name, (score, _) in r.named.items():
            col = self.t.columns[name]
            if name in exclude or col.role not in ("category", "label", "time", "id"):
                continue
            if col.nunique == 1:
                continue  # a constant groups nothing
            heads = "|".join(re.escape(w) for w in sorted(r.named[name][1]) if w)
            asked = heads and re.search(rf"\b(which|what|each|per|every)\s+(\w+\s)?({heads})", r.text)
            asked = asked or (heads and re.search(rf"\bby\s+(\w+\s)?({heads})", r.text) and 0.5)
            asked = asked or (heads and re.search(rf"\b({'|'.join(sorted(HIGH | LOW))})\s+({heads})\b",
                                                  r.text) and 0.5)  # "the busiest year"
            if name in fcols and not asked:
                continue
            if not asked and not _per(r.text, col) and not (heads and re.search(
                rf"\b(top|bottom|\d+|most|least)\s+(\w+\s)?({heads})", r.text
            )):
                continue
            if col.role == "id" and not asked:
                continue
            cands.append((score + (2 if asked else 0), col))
        time = _time(self.t)
        for word in ("year", "month", "day", "date"):
            asked_t = re.search(rf"\b(which|what|each|per|by|every|in which)\s+{word}", r.text)
            if time is not None and asked_t and time.name not in exclude and not any(
                c.name == time.name for _, c in cands
            ):
                cands.append((0.5, time))
        if not cands:
            return None
        return max(cands, key=lambda x: x[0])[1]

    def grouped(self, group: Column, measures: list[Column], agg: Agg | None,
                order: Literal["asc", "desc"], filters: tuple[Filter, ...]) -> None:  # fmt: skip
        r = self.r
        filters = tuple(f for f in filters if f.column != group.name)
        m = next((c for c in measures if c.name != group.name), None)
        after = re.search(r"\b(?:most|fewest|least|highest number of|more)\s+(\w+)", r.text)
        if m is None and agg in ("mode", "nunique") and not _per(r.text, group):
            self.add(Plan(op="aggregate", measure=group.name, agg=agg, order=order, filters=filters,
                          words=self.words(group)), f"the {agg} of {group.name}")  # fmt: skip
            return
        additive = [c for c in self.t.of("measure") if default_agg(c) == "sum"]
        if m is None and (r.high or r.low) and not MODE.search(r.text) and additive:
            pick = additive[0]  # "the busiest year": most passengers, not most rows
            self.add(Plan(op="rank", measure=pick.name, agg="sum", group_by=group.name,
                          order=order, k=r.k or 1, listed=r.expect == "list", filters=filters,
                          period=_period(r.text), words=self.words(group)),
                     f"rank {group.name} by total {pick.name} (an additive measure)", open_=True)  # fmt: skip
        if m is None and agg in (None, "sum", "mean", "median", "max", "min", "count") and (
            r.high or r.low or agg == "count" or MODE.search(r.text)
        ):
            self.add(Plan(op="rank", agg="count", group_by=group.name, order=order, k=r.k or 1,
                          listed=r.expect == "list", filters=filters, period=_period(r.text),
                          words=self.words(group)), f"rank {group.name} by rows")  # fmt: skip
            if after is None or after.group(1) in ("value", "values"):
                for pick in self.t.of("measure")[:2]:
                    self.add(Plan(op="rank", measure=pick.name, agg=default_agg(pick),
                                  group_by=group.name, order=order, k=r.k or 1, filters=filters,
                                  words=self.words(group)),
                             f"rank {group.name} by {pick.name} (no measure named)", open_=True)  # fmt: skip
            return
        if m is None:
            self.add(Plan(op="rank", agg="count", group_by=group.name, order=order, k=r.k or 1,
                          filters=filters, words=self.words(group)), f"rows per {group.name}")  # fmt: skip
            return
        a: Agg = agg if agg in ("sum", "mean", "median", "std", "min", "max", "share", "range") else (
            default_agg(m))  # fmt: skip
        if agg in ("max", "min") and not re.search(r"\b(max|min|maximum|minimum)\b", r.text):
            a = default_agg(m) if agg == "max" or agg == "min" else a
        second = self.second_group(group)
        value_asked = r.expect != "list" and bool(re.match(
            r"^\W*(what|how)\s+(is|was|are|were|much)\s+(the\s+)?(highest|largest|lowest|"
            r"smallest|maximum|minimum|biggest|greatest|best|worst)\b", r.text)) or bool(
            re.search(r"\bwhat is the (highest|largest|lowest|smallest|maximum|minimum)\b", r.text)
            and not re.search(r"\bwhich\b", r.text))  # fmt: skip
        if second is not None or value_asked:
            self.add(Plan(op="rank", measure=m.name, agg=a, group_by=group.name,
                          group_by2=second.name if second else None, order=order, k=r.k or 1,
                          labels=False, filters=filters, words=self.words(m, group, second)),
                     f"the {order} {a} of {m.name} over the groups of {group.name}"
                     + (f" and {second.name}" if second else ""))  # fmt: skip
        if group.role == "label" and group.nunique >= 0.9 * len(self.t.df) and agg in (None, "max", "min"):
            self.add(Plan(op="extreme", measure=m.name, group_by=group.name, order=order,
                          k=r.k or 1, listed=r.expect == "list", filters=filters,
                          words=self.words(m, group)), f"{group.name} names rows: the row that holds it")  # fmt: skip
        self.add(Plan(op="rank", measure=m.name, agg=a, group_by=group.name, order=order,
                      k=r.k or 1, listed=r.expect == "list", filters=filters,
                      period=_period(r.text) if group.role == "time" else None,
                      words=self.words(m, group)), f"rank {group.name} by {a} of {m.name}")  # fmt: skip

    def second_group(self, group: Column) -> Column | None:
        """"By species and sex": a second grouping named beside the first."""
        r = self.r
        for name, (_, ws) in r.named.items():
            col = self.t.columns[name]
            if name == group.name or col.role not in ("category", "label") or col.nunique < 2:
                continue
            heads = "|".join(re.escape(w) for w in ws)
            mine = "|".join(re.escape(w) for w in r.named[group.name][1])
            if heads and re.search(rf"\b({mine})\w*\s+(and|&)\s+({heads})|\b({heads})\w*\s+(and|&)\s+({mine})",
                                   r.text):  # fmt: skip
                return col
        return None

    def correlation(self) -> None:
        ranked = self.best(("measure",), numeric=True)
        measures = [c for c in self.t.of("measure") if c not in ranked]
        open_ = len(ranked) < 2
        ranked = (ranked + measures)[:2]
        if len(ranked) < 2:
            return  # nothing to correlate: the next candidate says what is possible
        self.add(Plan(op="correlation", measure=ranked[0].name, other=ranked[1].name,
                      filters=tuple(self.r.filters), words=self.words(*ranked)),
                 f"the correlation of {ranked[0].name} and {ranked[1].name}", open_=open_)  # fmt: skip

    def boolean(self) -> None:
        for plan, why in boolean_plans(self, lambda reading: _Planner(reading).plan()):
            self.add(plan, why)

    def listing(self) -> None:
        for plan, why in list_plans(self):
            self.add(plan, why)


def _time(table: Table) -> Column | None:
    from .lexicon import time_column

    return time_column(table)


def _per(text: str, col: Column) -> bool:
    head = re.escape(phrase(col.name).split()[0]) if phrase(col.name) else ""
    return bool(re.search(rf"\b(each|per|by|every|for all|across)\s+(\w+\s)?{head}", text))


def _period(text: str) -> Literal["year", "month", "day"] | None:
    for word in ("year", "month", "day"):
        if re.search(rf"\b(which|what|each|per|by|every|in which|over the)\s+{word}", text):
            return word  # type: ignore[return-value]
    return None


_NTH = re.compile(r"\b(second|third|fourth|fifth|2nd|3rd|4th|5th)[\s-]+(highest|largest|lowest|"
                  r"smallest|best|worst|most|biggest|heaviest|longest)\b")


def _nth_words(text: str) -> tuple[str, ...]:
    m = _NTH.search(text)
    return tuple(phrase(m.group(0)).split()) if m else ()


def _nth(text: str) -> int | None:
    m = _NTH.search(text)
    if not m:
        return None
    return {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}[m.group(1)]


def _how_many_of(text: str, m: Column) -> bool:
    """"How many passengers": the words after "how many" name the measure itself."""
    hit = re.search(r"\bhow many\s+(\w+)", text)
    return bool(hit) and any(hit.group(1).rstrip("s") == p.rstrip("s") for p in m.parts)  # type: ignore[union-attr]


def _how_words(text: str) -> tuple[str, ...]:
    hit = re.search(r"\b(how many|number of|count)\s+(\w+)", text)
    return tuple(hit.group(2).split()) if hit else ()


def plan_candidates(table: Table, question: str) -> tuple[Reading, list[Candidate]]:
    """The reading of ``question`` and its candidate plans, best first (see the module docstring)."""
    r = read(table, question)
    out = _Planner(r).plan()
    seen: set[str] = set()
    unique = []
    for c in out:
        key = c.plan.model_dump_json()
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return r, unique
