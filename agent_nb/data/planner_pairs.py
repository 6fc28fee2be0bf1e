"""Plans that set values side by side: two values of a column against each other
(a difference, a ratio), a share with its base, a correlation of two measures."""

from __future__ import annotations

import re
from typing import Any, Literal, cast

from . import vocabulary
from .planner_cues import default_agg
from .query import Agg, Filter, Plan
from .table import Column
from .word_classes import FEWER, MORE, offers_choice

__all__ = ["choice", "correlation", "share", "versus"]

#: "3 times as many", "how many times more": a ratio, not a count of times.
_TIMES = vocabulary.alternation("times_comparatives")
#: The aggregation words that keep the measure in a ratio ("times higher on average").
_AGGREGATED = vocabulary.alternation("average_mean_total_sum")
#: The words that set the two values against each other, recorded in their order.
_VERSUS_WORDS = vocabulary.listed("versus_words")


def versus(p: Any, filters: tuple[Filter, ...], measures: list[Column], agg: Agg | None) -> None:
    """Two values of one column set against each other: "how much heavier are Gentoo
    than Adelie on average" (a difference), "how many times more Adelie than
    Chinstrap" (a ratio)."""
    r = p.r
    by: dict[str, list[Filter]] = {}
    for f in filters:
        if f.op == "=":
            by.setdefault(f.column, []).append(f)
    pair = next((fs for fs in by.values() if len(fs) == 2), None)
    if pair is None or r.expect == "boolean":
        return
    # "more Osprey than Malabar class": the sides in the question's order (the filters
    # come in the order they were found, a value of two words first)
    pair = sorted(pair, key=r.said_at)
    rest = tuple(f for f in filters if f not in pair)
    # "how many times did A lose to B" counts; "3 times as many", "the ratio" divide
    ratio = bool(re.search(rf"\bratio\b|\btimes ({_TIMES})\b", r.text))
    if not ratio and not _SET_AGAINST & set(r.tokens):
        return  # "killed in 1973 and 1974": both years together, not one against the other
    m = measures[0] if measures else None
    a: Agg = (
        agg
        if agg in ("mean", "sum", "median", "max", "min")
        else (default_agg(m) if m is not None else "count")
    )
    if m is None or (ratio and not re.search(rf"\b({_AGGREGATED})\b", r.text)):
        m, a = None, "count"

    def side(f: Filter) -> Plan:
        return Plan(
            op="aggregate",
            measure=m.name if m else None,
            agg=a,
            filters=(*rest, f),
            words=p.words(m),
        )

    words = tuple(w for w in _VERSUS_WORDS if w in r.tokens)
    combine = "ratio" if ratio else _difference(r)
    if combine == "difference" and _less_than(r):
        pair = pair[::-1]  # "how much shorter was A than B": B - A
    plan = side(pair[0]).model_copy(
        update={
            "combine": combine,
            "versus": side(pair[1]),
            "words": (*p.words(m), ("versus", words)),
        }
    )
    p.add(plan, f"the {plan.combine} of {pair[0].value} and {pair[1].value}")


#: The words that set one value against another: without one, two values of a column
#: are read together ("in 1973 and 1974").
_SET_AGAINST = vocabulary.words("set_apart_words")
#: The words that give a difference a direction ("A minus B", "how much A exceeds B").
_DIRECTED = vocabulary.words("directed_difference_words")


def _less_than(r: Any) -> bool:
    """ "how much shorter was A than B", "how many fewer": a comparative at the low end
    before "than" asks by how much B exceeds A."""
    if "than" not in r.tokens:
        return False
    before = set(r.tokens[: r.tokens.index("than")])
    return bool(before & (r.down | FEWER)) and not before & r.up


def _difference(r: Any) -> Literal["difference", "gap"]:
    """ "the difference between A and B" names no direction: its size ("gap"); "how much
    more A than B" is A - B."""
    directed = r.up | r.down | _DIRECTED
    # a word of a name ("Max Biaggi's points") directs nothing
    named = {
        i for v in r.values if len(v.words) > 1 for i in range(v.start, v.start + len(v.words))
    }
    said = {t for i, t in enumerate(r.tokens) if i not in named}
    return "gap" if "difference" in r.tokens and not directed & said else "difference"


def choice(p: Any, filters: tuple[Filter, ...], measure: Column | None, agg: Agg | None) -> None:
    """ "Which is heavier on average, Adelie or Gentoo?", "does Vitonen or Kutonen have the
    larger division?", "of Beijing and Shanghai, which has more people?": the named
    values ranked by what the comparison measures (their rows where nothing is
    measured), and the first of them is the answer."""
    r = p.r
    named = [f for f in filters if f.op == "in" and isinstance(f.value, tuple)]
    # the comparatives of the question's own measure, and of a count ("more", "fewer")
    fewer = bool(FEWER & set(r.tokens))
    directed = (r.up | r.down | MORE | FEWER) & set(r.tokens)
    if len(named) != 1 or not offers_choice(r.tokens):
        return
    if not directed:
        _first_of(p, named[0], tuple(f for f in filters if f is not named[0]))
        return
    pick, rest = named[0], tuple(f for f in filters if f is not named[0])
    values = pick.value if isinstance(pick.value, tuple) else (pick.value,)
    if measure is not None and measure.name == pick.column:
        return
    a: Agg = (
        "count"
        if measure is None
        else (agg if agg in ("mean", "sum", "median", "max", "min") else default_agg(measure))
    )
    order: Literal["asc", "desc"] = "asc" if (r.low or fewer) and not r.high else "desc"
    said = tuple(t for t in r.tokens if t in directed | {"or", "and"})
    p.add(
        Plan(
            op="rank",
            group_by=pick.column,
            measure=measure.name if measure is not None else None,
            agg=a,
            order=order,
            filters=(*rest, pick),
            words=(*p.words(measure), ("choice", said)),
        ),
        f"which of {' or '.join(str(v) for v in values)} has the "
        f"{'highest' if order == 'desc' else 'lowest'} {measure.name if measure else 'rows'}",
    )


#: The operation's own words for the ends of an order in time or in number.
_FIRST: dict[str, str] = vocabulary.mapping("first_last_order")


def _first_of(p: Any, pick: Filter, rest: tuple[Filter, ...]) -> None:
    """ "Which chapter was founded first, Zeta Eta or Zeta Omega?": the named values ranked
    by the column of dates or numbers the question names (Founding Date), smallest first."""
    r = p.r
    ends = [t for t in r.tokens if t in _FIRST]
    ordered = [
        p.t.columns[n]
        for n in r.named
        if n != pick.column and p.t.columns[n].role in ("time", "measure", "id")
        and (p.t.columns[n].numeric or p.t.columns[n].role == "time")
    ]  # fmt: skip
    if len(set(ends)) != 1 or len(ordered) != 1:
        return
    col, order = ordered[0], _FIRST[ends[0]]
    p.add(
        Plan(
            op="rank",
            group_by=pick.column,
            measure=col.name,
            agg="min" if order == "asc" else "max",
            order=cast(Literal["asc", "desc"], order),
            filters=(*rest, pick),
            words=(*p.words(col), ("choice", (ends[0], "or"))),
        ),
        f"which of {pick.describe()} comes {ends[0]} by {col.name}",
    )


def share(p: Any, filters: tuple[Filter, ...], measure: Column | None = None) -> None:
    """ "What fraction of Chinstrap penguins are female?": the part is the last-named
    filter, the base the others; "what share of net generation comes from
    Renewables?": the part's share of the measure's total."""
    if measure is not None:
        p.add(
            Plan(
                op="aggregate",
                agg="share",
                measure=measure.name,
                condition=filters,
                words=p.words(measure),
            ),
            f"the share of total {measure.name} where "
            + " and ".join(f.describe() for f in filters),
        )
        return
    ordered = sorted(filters, key=lambda f: p.r.text.find(str(f.words[0]) if f.words else ""))
    if len(ordered) > 1:
        base, part = tuple(ordered[:-1]), (ordered[-1],)
        p.add(
            Plan(op="aggregate", agg="share", filters=base, condition=part),
            f"the share of {part[0].describe()} among {', '.join(f.describe() for f in base)}",
        )
    else:
        p.add(Plan(op="aggregate", agg="share", filters=tuple(ordered)), "the share of all rows")


def correlation(p: Any) -> None:
    ranked = p.best(("measure",), numeric=True)
    measures = [c for c in p.t.of("measure") if c not in ranked]
    open_ = len(ranked) < 2
    ranked = (ranked + measures)[:2]
    if len(ranked) < 2:
        return  # nothing to correlate: the next candidate says what is possible
    p.add(
        Plan(
            op="correlation",
            measure=ranked[0].name,
            other=ranked[1].name,
            filters=tuple(p.r.filters),
            words=p.words(*ranked),
        ),
        f"the correlation of {ranked[0].name} and {ranked[1].name}",
        open_=open_,
    )
