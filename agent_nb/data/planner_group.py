"""Plans over groups: the dimension a question asks for, rankings of groups (one or
two groupings), the row that holds an extreme when a label names rows."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from . import vocabulary
from .planner_cues import agent_by, default_agg, per, per_words, period, time_of
from .query import Agg, Filter, Plan
from .table import Column
from .words import (
    HIGH,
    LOW,
    MODE,
    SIZES,
)

__all__ = ["dimension", "grouped", "second_group"]

#: The words that ask for a column as the dimension ("which species", "per origin").
_ASKING = vocabulary.alternation("group_asking_words")
#: "the ID of the store with the most transactions": a link, then a count superlative.
_HAVING = vocabulary.alternation("having_phrases")
_MOST_ROWS = vocabulary.alternation("most_fewest_number_of")
#: The words that ask for the table's time as the dimension ("which year", "per month").
_ASKING_TIME = vocabulary.alternation("time_group_asking_words")


def dimension(p: Any, exclude: Sequence[str]) -> Column | None:
    """The dimension asked for: a named category, label or time column that is not
    just the column of a named value ("Gentoo" filters species; "which species" groups)."""
    r = p.r
    cands = []
    fcols = p.filter_cols()
    for name, (score, _) in r.named.items():
        col = p.t.columns[name]
        if name in exclude or col.role not in ("category", "label", "time", "id"):
            continue
        if col.nunique == 1:
            continue  # a constant groups nothing
        heads = "|".join(re.escape(w) for w in sorted(r.named[name][1]) if w)
        asked: Any = heads and re.search(rf"\b({_ASKING})\s+(\w+\s)?({heads})", r.text)
        by = [
            m
            for m in re.finditer(rf"\bby\s+(\w+\s)?({heads})", r.text)
            if heads and not agent_by(r.text, m.start() + 2)
        ]
        asked = asked or (by and 0.5)
        asked = asked or (
            heads
            and (col.role == "time" or not col.numeric)
            and re.search(
                rf"\b({'|'.join(sorted(HIGH | LOW | r.up | r.down))})\s+({heads})\b", r.text
            )
            and 0.5
        )  # "the busiest year" (not "the most bronze": a number's extreme, no group)
        asked = asked or (  # "the ID of the store with the most transactions"
            heads
            and re.search(
                rf"\bthe\s+(\w+\s)?({heads})\s+({_HAVING})\s+the\s+({_MOST_ROWS})\b",
                r.text,
            )
            and 0.5
        )
        if name in fcols and not asked:
            continue
        if (
            not asked
            and not per(r.text, col, r.table)
            and not (
                heads and re.search(rf"\b(top|bottom|\d+|most|least)\s+(\w+\s)?({heads})", r.text)
            )
        ):
            continue
        if col.role == "id" and not asked:
            continue
        # "which team ... by its players": the noun after "which" is the group
        cands.append((score + (1 if asked == 0.5 else 2 if asked else 0), col))
    time = time_of(p.t)
    for word in ("year", "month", "day", "date"):
        asked_t = bool(re.search(rf"\b({_ASKING_TIME})\s+{word}", r.text)) or (
            word != "date" and period(r.text, r.table) == word
        )  # "monthly"
        if (
            time is not None
            and asked_t
            and time.name not in exclude
            and not any(c.name == time.name for _, c in cands)
        ):
            cands.append((0.5, time))
    if not cands:
        return None
    return max(cands, key=lambda x: x[0])[1]


_EACH = ("sum", "mean", "median", "min", "max", "count", "std", "nunique")
#: The count words before the noun a group is ranked by ("the most rebounds").
_COUNTED_AFTER = vocabulary.alternation("most_fewest_least_more")
#: The nouns after "most" that name no measure ("the most values").
_VALUE_NOUNS = vocabulary.words("value_nouns")
#: The extreme said as such ("the max"): a group's own extreme.
_EXTREME_SAID = vocabulary.alternation("max_min_maximum_minimum")
_MOST_FEWEST = vocabulary.alternation("most_fewest")
#: "what is the highest ...", "how much was the lowest ...": the value over the groups.
_WHAT_HOW = vocabulary.alternation("what_how")
_IS_MUCH = vocabulary.alternation("is_was_are_were_much")
_VALUE_SUPERLATIVES = vocabulary.alternation_of(sorted(SIZES))


def grouped(
    p: Any,
    group: Column,
    measures: list[Column],
    agg: Agg | None,
    order: Literal["asc", "desc"],
    filters: tuple[Filter, ...],
) -> None:
    r = p.r
    filters = tuple(f for f in filters if f.column != group.name)
    m = next((c for c in measures if c.name != group.name), None)
    after = re.search(rf"\b(?:{_COUNTED_AFTER})\s+(\w+)", r.text)
    cue = per_words(r.text, group, r.table)
    when = period(r.text, r.table) if group.role == "time" else None  # "per month"
    counts = m is not None or agg in (None, "count")  # "the average X per month": X's mean

    def ranked(why: str, open_: bool = False, **parts: Any) -> None:
        """A plan over the groups of ``group``: the question's order, k and filters."""
        plan: dict[str, Any] = {"group_by": group.name, "order": order, "k": r.k or 1}
        plan |= {"filters": filters, "listed": r.expect == "list", "period": when}
        p.add(Plan(**(plan | parts)), why, open_=open_)

    if (
        cue
        and counts
        and not (r.high or r.low or r.k or MODE.search(r.text) or r.expect == "boolean")
    ):
        # "the average horsepower per origin", "how many penguins per island": every
        # group's value, not the top one
        each: Agg = "count" if m is None else (agg if agg in _EACH else default_agg(m))
        p.add(
            Plan(
                op="rank",
                measure=m.name if m is not None else None,
                agg=each,
                group_by=group.name,
                each=True,
                filters=filters,
                period=when,
                words=(*p.words(group, m), ("each", cue)),
            ),
            f"the {each} of {m.name if m is not None else 'rows'} per {group.name}",
        )
    if m is None and agg in ("mode", "nunique") and not per(r.text, group, r.table):
        p.add(
            Plan(
                op="aggregate",
                measure=group.name,
                agg=agg,
                order=order,
                filters=filters,
                words=p.words(group),
            ),
            f"the {agg} of {group.name}",
        )
        return
    additive = [c for c in p.t.of("measure") if default_agg(c) == "sum"]
    only = len(p.t.of("measure")) == 1  # "which region sold most" over region, total
    if (  # "the busiest year": most passengers, not most rows
        m is None
        and (r.high or r.low)
        and not MODE.search(r.text)
        and additive
        and (group.role == "time" or only)
    ):
        pick = additive[0]  # "the busiest year": most passengers, not most rows
        ranked(
            f"rank {group.name} by total {pick.name} (an additive measure)",
            open_=True,
            op="rank",
            measure=pick.name,
            agg="sum",
            words=p.words(group),
        )
    if (
        m is None
        and agg in (None, "sum", "mean", "median", "max", "min", "count")
        and (r.high or r.low or agg == "count" or MODE.search(r.text))
    ):
        ranked(
            f"rank {group.name} by rows",
            op="rank",
            agg="count",
            words=p.words(group),
        )
        if after is None or after.group(1) in _VALUE_NOUNS:
            for pick in p.t.of("measure")[:2]:
                ranked(
                    f"rank {group.name} by {pick.name} (no measure named)",
                    open_=True,
                    op="rank",
                    measure=pick.name,
                    agg=default_agg(pick),
                    words=p.words(group),
                    listed=False,
                )
        return
    if m is None:
        if group.role == "label":
            return  # a label's rows, named ("which player is from Ireland"): the lookup's
        ranked(
            f"rows per {group.name}",
            op="rank",
            agg="count",
            words=p.words(group),
            listed=False,
        )
        return
    a: Agg = (
        agg
        if agg in ("sum", "mean", "median", "std", "min", "max", "share", "range")
        else (default_agg(m))
    )
    if agg in ("max", "min") and not re.search(rf"\b({_EXTREME_SAID})\b", r.text):
        # "which site had the lowest attendance": where most groups are one row each, the
        # site of the lowest row; over a few large groups ("which origin has the highest
        # mpg") a level is compared by its mean, an amount by its total
        a = default_agg(m)
        if a == "mean" and when is None:  # not by year: "the warmest year" is its mean
            sizes = p.t.df[group.name].value_counts()
            a = agg if int((sizes == 1).sum()) * 2 >= len(sizes) > 0 else a
        most = re.search(rf"\b({_MOST_FEWEST})\s+(\w+)", r.text)
        said = {most.group(2), most.group(2).rstrip("s")} if most else set()
        rows = [  # "the store with the most transactions": transaction_id names the rows
            c
            for c in p.t.columns.values()
            if c.role in ("id", "label") and c.nunique == len(p.t.df) and said & set(c.parts)
        ]
        if rows:
            ranked(
                f"rank {group.name} by rows ({rows[0].name} names one row each)",
                op="rank",
                agg="count",
                words=(*p.words(group), ("rows", tuple(sorted(said)))),
            )
        elif said & r.named[m.name][1]:
            a = "sum"  # "which team had the most rebounds": the team's rebounds add up
    second = second_group(p, group)
    value_asked = (
        r.expect != "list"
        and bool(
            re.match(
                rf"^\W*({_WHAT_HOW})\s+({_IS_MUCH})\s+(the\s+)?({_VALUE_SUPERLATIVES})\b",
                r.text,
            )
        )
    ) or bool(
        re.search(rf"\bwhat is the ({_VALUE_SUPERLATIVES})\b", r.text)
        and not re.search(r"\bwhich\b", r.text)
    )
    if value_asked and _heads_the_superlative(r, r.named.get(group.name, (0, set()))[1]):
        value_asked = False  # "what is the highest city in altitude?" asks for the city
    if second is not None or value_asked:
        ranked(
            f"the {order} {a} of {m.name} over the groups of {group.name}"
            + (f" and {second.name}" if second else ""),
            op="rank",
            measure=m.name,
            agg=a,
            group_by2=second.name if second else None,
            labels=False,
            words=p.words(m, group, second),
            listed=False,
        )
    if group.role == "label" and group.nunique >= 0.9 * len(p.t.df) and agg in (None, "max", "min"):
        ranked(
            f"{group.name} names rows: the row that holds it",
            op="extreme",
            measure=m.name,
            words=p.words(m, group),
            period=None,
        )
    ranked(
        f"rank {group.name} by {a} of {m.name}",
        op="rank",
        measure=m.name,
        agg=a,
        words=p.words(m, group),
    )


def second_group(p: Any, group: Column) -> Column | None:
    """ "By species and sex": a second grouping named beside the first."""
    r = p.r
    for name, (_, ws) in r.named.items():
        col = p.t.columns[name]
        if name == group.name or col.role not in ("category", "label") or col.nunique < 2:
            continue
        heads = "|".join(re.escape(w) for w in ws)
        mine = "|".join(re.escape(w) for w in r.named[group.name][1])
        if heads and re.search(
            rf"\b({mine})\w*\s+(and|&)\s+({heads})|\b({heads})\w*\s+(and|&)\s+({mine})", r.text
        ):
            return col
    return None


def _heads_the_superlative(r: Any, words: set[str]) -> bool:
    """Whether the noun the superlative qualifies is one of ``words`` (the group's)."""
    ends = r.up | r.down
    return any(
        t in ends and r.tokens[i + 1 : i + 2] and r.tokens[i + 1] in words
        for i, t in enumerate(r.tokens)
    )
