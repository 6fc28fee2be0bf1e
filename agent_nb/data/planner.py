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
import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from . import vocabulary
from .planner_bool import boolean_plans
from .planner_cues import counted_word, counts_from_the_top, counts_rows, default_agg
from .planner_list import list_plans
from .planner_pairs import correlation
from .planner_rows import first_of_two, how_often, options_held, others_sharing, streaks
from .planner_value import value
from .query import Agg, Derived, Filter, Plan
from .reading import Reading, read
from .table import Column, Table
from .word_classes import a_person
from .words import (
    AGG_WORDS,
    CORR,
    HOW_MANY,
    MISSING,
    MODE,
    ORDER_LOW,
    SIZES,
    STOPWORDS,
    singular,
)

__all__ = ["Candidate", "default_agg", "plan_candidates"]

#: The words of a column's name that mark its high or low side ("temp_max", "Low").
_HIGH_PART = vocabulary.words("column_part_high")
_LOW_PART = vocabulary.words("column_part_low")
#: The low end of an order ("the fewest", "the worst"), unless part of "at least".
_LOW = vocabulary.alternation_of(ORDER_LOW)
_LOW_DESPITE_AT_LEAST = vocabulary.words("order_low_despite_at_least")
#: "the non-null room rating": a filter, not a count of gaps.
_NON = vocabulary.alternation("non_not")
_MISSING_WORDS = vocabulary.alternation("missing_words")
_NOT_MISSING = re.compile(rf"\b({_NON})[\s-]+({_MISSING_WORDS})\b")
_WHO = vocabulary.words("who_whom")


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One plan and why; ``open`` when the words left a choice to make."""

    plan: Plan
    reasons: tuple[str, ...]
    open: bool = False


def _of_people(col: Column) -> bool:
    """Whether the column's name says it names people: Name, Player, Winner, Contestant
    (not Constituency Name)."""
    return col.parts == ("name",) or any(a_person(p) for p in col.parts)


class _Planner:
    def __init__(self, r: Reading) -> None:
        self.r, self.t = r, r.table
        self.reasons: list[str] = [
            f"{n!r} named by {', '.join(sorted(ws))} ({s:g})"
            for n, (s, ws) in sorted(r.named.items(), key=lambda x: -x[1][0])
        ]
        self.reasons += r.notes
        self.out: list[Candidate] = []

    # -- helpers ------------------------------------------------------------
    def add(self, plan: Plan, why: str, open_: bool = False) -> None:
        self.out.append(Candidate(plan, (*self.reasons, why), open_ or bool(self.r.open)))

    def aggregate(
        self, why: str, col: Column, agg: Agg, filters: tuple[Filter, ...], **more: Any
    ) -> None:
        """One number of ``col`` over the rows ``filters`` match, the words that named it."""
        words = self.words(col)
        self.add(
            Plan(op="aggregate", measure=col.name, agg=agg, filters=filters, words=words, **more),
            why,
        )

    def words(self, *cols: Column | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple(
            (c.name, tuple(sorted(self.r.named.get(c.name, (0, set()))[1])))
            for c in cols
            if c is not None
        )

    def filter_cols(self) -> set[str]:
        return {f.column for f in self.r.filters}

    def best(
        self,
        roles: Sequence[str],
        exclude: Sequence[str] = (),
        numeric: bool = False,
    ) -> list[Column]:
        cols = [
            (s, self.t.columns[n])
            for n, (s, _) in self.r.named.items()
            if n not in exclude
            and (self.t.columns[n].role in roles or (numeric and self.t.columns[n].numeric))
        ]
        if numeric:
            cols = [(s, c) for s, c in cols if c.numeric]

        def unmatched(c: Column) -> int:
            return len(set(c.parts) - self.r.named[c.name][1])

        cols.sort(key=lambda x: (-x[0], unmatched(x[1]), self.r.where.get(x[1].name, 0)))
        if len(cols) > 1 and (self.r.high or self.r.low) and cols[0][0] == cols[1][0]:
            side = _HIGH_PART if self.r.high else _LOW_PART
            cols.sort(key=lambda x: (-x[0], not set(x[1].parts) & side))
        return [c for _, c in cols]

    def order(self) -> Literal["asc", "desc"]:
        cues = self.r.cues
        low = re.search(rf"\b({_LOW})\b", self.r.text)
        at_least = re.search(r"\b(at least|least \d)", self.r.text)
        if low and (not at_least or cues & _LOW_DESPITE_AT_LEAST):
            return "asc"
        return "asc" if self.r.low and not self.r.high else "desc"

    def agg_cue(self) -> Agg | None:
        cues = self.r.cues
        if MODE.search(self.r.text):
            return "mode"
        if re.search(r"\b(difference betw\w*|range)\b", self.r.text) and (
            (self.r.high and self.r.low) or "range" in cues
        ):
            return "range"
        for agg in ("nunique", "share", "mean", "median", "std", "range"):
            if cues & AGG_WORDS[agg] or (agg == "share" and "%" in self.r.text):
                return agg
        names_measure = self._number_of_a_measure()
        counted = counted_word(self.r.text)
        computed = counted is not None and any(  # "how many characters": a derived length
            singular(counted) in self.r.named.get(d.name, (0.0, set()))[1] for d in self.r.derived
        )
        if HOW_MANY.search(self.r.text) and not names_measure and not computed:
            return "count"
        if cues & AGG_WORDS["sum"]:
            return "sum"
        # a superlative asks for an extreme, also where it names the measure ("the
        # heaviest body mass", "the warmest day"): HIGH and LOW are the direction words
        if cues & (self.r.up | {"record"}):
            return "max"
        if cues & self.r.down:
            return "min"
        return "sum" if names_measure else None  # "the number of starters": added up

    def _number_of_a_measure(self) -> bool:
        """ "the highest number of steals", "the number of starters": the words after
        "number of" name a column of numbers (most of its name), not the rows."""
        of = re.search(r"\bnumber of\s+(\w+)", self.r.text)
        if of is None or counts_rows(self.r.text, self.t):
            return False
        word = of.group(1)
        for name, (_, ws) in self.r.named.items():
            col = self.t.columns[name]
            numbers = (col.role == "measure" or col.numeric) and col.role not in ("id", "time")
            most = len(col.parts) < 2 or 2 * len(set(col.parts) - ws) <= len(col.parts)
            if numbers and most and (word in ws or word.rstrip("s") in ws):
                return True
        return False

    def label(self, exclude: Sequence[str] = ()) -> Column | None:
        """The column that names rows ("which car", "who"): a named label, the index, the first."""
        named = [c for c in self.best(("label",), exclude)]
        if named:
            return named[0]
        if self.t.index is not None and self.t.columns[self.t.index].role in (
            "label",
            "time",
            "category",
        ):
            return self.t.columns[self.t.index]
        labels = [c for c in self.t.of("label") if c.name not in exclude]
        if not labels:  # a column of names that repeat ("Lifter Name", "PLAYER")
            labels = [
                c
                for c in self.t.of("category")
                if c.name not in exclude
                and not c.numeric
                and (_of_people(c) or c.name in self.r.named)
            ]
        if self.r.tokens and self.r.tokens[0] in _WHO:  # a named column first
            # "who was the only 17 year old delegate": a column of people's names next,
            # where a person noun no filter or column took says the rows are people
            # ("who was the only champion" of a Finished column: the first label, a team)
            taken = {w for f in self.r.filters for w in f.words}
            taken |= {w for _, ws in self.r.named.values() for w in ws}
            people = any(
                a_person(t) for t in self.r.tokens[1:] if t not in taken and t not in STOPWORDS
            )
            labels.sort(key=lambda c: (c.name not in self.r.named, people and not _of_people(c)))
        return labels[0] if labels else None

    # -- the plan -----------------------------------------------------------
    def plan(self) -> list[Candidate]:
        r = self.r
        if r.cues & CORR and r.expect != "list" and not (r.high or r.low):
            correlation(self)
        # "the (non-null) room rating": a filter, not a count of gaps
        gaps_asked = r.cues & MISSING and not _NOT_MISSING.search(r.text)
        if (
            gaps_asked
            and r.expect not in ("list",)
            and all(f.op in ("missing", "present") for f in r.filters)
        ):
            cols = self.best(("measure", "category", "label", "time", "id"))
            col = cols[0] if cols else None
            self.add(
                Plan(op="missing", measure=col.name if col else None, words=self.words(col)),
                "a missing-values question",
            )
        streaks(self, tuple(r.filters))  # "how many consecutive wins": a strong cue, first
        how_often(self, tuple(r.filters))  # "appears exactly once": a strong cue, first
        options_held(self, tuple(r.filters))  # "was it A or B?": which one, first
        others_sharing(self, tuple(r.filters))  # "the same C as X": the others, first
        first_of_two(self, tuple(r.filters))  # "which came first, A or B?": the one, first
        if r.expect == "boolean":
            self.boolean()
        elif r.expect == "list":
            self.listing()
        value(self)
        self.add(Plan(op="columns"), "the question names no column or value of this table")
        return self.out

    def boolean(self) -> None:
        for plan, why in boolean_plans(self, lambda reading: _Planner(reading).plan()):
            self.add(plan, why)

    def listing(self) -> None:
        for plan, why in list_plans(self):
            self.add(plan, why)


def _with_derive(plan: Plan, derived: tuple[Derived, ...]) -> Plan:
    """``plan`` carrying the derived columns any of its parts reads (it runs on the table
    as given: `execute.run_plan` computes them first)."""
    text = plan.model_dump_json()
    used = tuple(d for d in derived if json.dumps(d.name) in text)
    if not used:
        return plan
    # the value it is compared or combined with runs on its own (an engine's query)
    subs = {k: _with_derive(v, derived) for k in ("of", "versus") if (v := getattr(plan, k))}
    return plan.model_copy(update={"derive": used, **subs})


_TURNED = {"asc": "desc", "desc": "asc", "max": "min", "min": "max"}
_TESTS_TURNED = {">": "<", "<": ">", ">=": "<=", "<=": ">="}


def _from_the_top(c: Candidate, r: Reading) -> Candidate:
    """A superlative of a standing counts from its top, rank 1: "the top-ranked nation",
    "the highest seed" are the smallest numbers (`planner_cues.counts_from_the_top`)."""
    plan = c.plan
    compared = plan.op == "compare" and plan.of is not None and plan.test in _TESTS_TURNED
    measure = plan.of.measure if compared and plan.of is not None else plan.measure
    if not (r.high or r.low) or not counts_from_the_top(r.table, measure):
        return c
    if compared and plan.test is not None:
        # "did A have a higher rank than B?": rank 23 is above rank 32
        turned = plan.model_copy(update={"test": _TESTS_TURNED[plan.test]})
    elif plan.op == "extreme" or (
        plan.op == "rank" and plan.agg in ("min", "max", "mean", "median")
    ):
        # (a group's total of a standing is no standing: "the lowest total pts")
        turned = plan.model_copy(update={"order": _TURNED[plan.order]})
    elif plan.op == "aggregate" and plan.agg in ("max", "min") and not SIZES & set(r.tokens):
        # "the best position" is 1; "the lowest Rank of ..." asks for the number itself
        turned = plan.model_copy(update={"agg": _TURNED[plan.agg]})
    else:
        return c
    why = f"{measure} counts from 1 at the top"
    return dataclasses.replace(c, plan=turned, reasons=(*c.reasons[:-1], why, c.reasons[-1]))


def plan_candidates(table: Table, question: str) -> tuple[Reading, list[Candidate]]:
    """The reading of ``question`` and its candidate plans, best first (module docstring)."""
    r = read(table, question)
    out = _Planner(r).plan()
    seen: set[str] = set()
    unique = []
    for c in out:
        if r.derived:
            c = dataclasses.replace(c, plan=_with_derive(c.plan, r.derived))
        c = _from_the_top(c, r)
        key = c.plan.model_dump_json()
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return r, unique
