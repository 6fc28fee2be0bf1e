"""Plans for yes/no questions: a computed value tested, two values compared, rows tested.

* "Is the average age above 35?": a threshold the words put on a measure,
  with an aggregate named, tests that aggregate (`Plan.op` ``compare``);
* "Is the highest rate negative?": the sign words test against 0;
* "Are there more Adelie than Gentoo penguins?": two values (or two filters)
  around "than" compare two counts;
* "Is the most frequent travel value rarely traveling?", "Is 5 the ID of
  the store with the most transactions?": the question without the named
  value is asked as a "what" question, and its answer is tested;
* "Is there any lifter older than 50?", "Does 'Jessica Wilson' appear?":
  some row meets the filters (``exists``); "Are all ...": every row of the
  base meets the last filter; "Do most ...": a share above 50 %.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

from . import vocabulary
from .planner_cues import default_agg
from .query import Plan
from .reading import Reading, read
from .reading_filters import comparator
from .words import MODE, phrase

#: The planner's own plans for a reading (the question asked as a "what" question).
Replan = Callable[[Reading], list[Any]]

__all__ = ["boolean_plans"]

_BE = vocabulary.alternation("copulas")
_DO = vocabulary.alternation("do_does_did")
#: The table's own words for its rows ("fewer than 200k rows?").
_ROW_NOUNS = vocabulary.alternation("row_nouns_plural")
#: The sign words test against 0 ("Is the highest rate negative?").
_SIGNS = vocabulary.alternation("sign_words")
#: The low side of two values compared around "than": "<".
_FEWER = vocabulary.alternation("fewer_less_smaller_lower")
#: The words that set two counts against each other, recorded as the plan's words.
_TWO_COUNTS = vocabulary.words("two_counts_compared_words")

_AGG_OF = {
    "mean": "mean",
    "sum": "sum",
    "median": "median",
    "std": "std",
    "max": "max",
    "min": "min",
    "range": "range",
    "count": "count",
}


def boolean_plans(p: Any, replan: Replan) -> list[tuple[Plan, str]]:
    """The candidate plans of a yes/no question (``p``: the planner at work)."""
    r = p.r
    out: list[tuple[Plan, str]] = []
    filters = list(r.filters)
    agg = p.agg_cue()
    quant = _quantifier(r.text)
    # "Is there a player with exactly 1000 total points?": rows, before a total tested
    rows_asked = bool(re.match(rf"^\W*({_BE}) there\b|^\W*({_DO}) any\b", r.text))
    late: list[tuple[Plan, str]] = []
    thresholds = [
        f
        for f in filters
        if f.op in ("<", "<=", ">", ">=", "=", "!=", "between")
        and isinstance(f.value, (int, float))
        and r.table.columns[f.column].numeric
    ]
    tested = (
        _tested_value(p, replan)
        if re.match(
            r"^\W*(is|was)\s+(?!the\b|there\b|our\b|any\b)\S+(\s\S+)?\s+(the)\b", r.question, re.I
        )
        else []
    )
    out += tested
    # the table's size against a constant ("fewer than 200k rows?")
    if not r.named and not filters and re.search(rf"\b({_ROW_NOUNS})\b", r.text):
        for s in r.stated:
            cmp = comparator(r.tokens, s.start)
            if cmp:
                out.append(
                    (
                        Plan(
                            op="compare",
                            of=Plan(op="aggregate", agg="count"),
                            test=cast(Any, cmp[0]),
                            against=_scalar(s.value),
                            words=(("rows", cmp[1] + s.words),),
                        ),
                        "test the number of rows",
                    )
                )
    for op, n, (what, column), said in r.count_tests:  # "more than 100 lifters?"
        counted = (
            Plan(op="aggregate", agg="nunique", measure=column, filters=tuple(filters))
            if what == "nunique"
            else Plan(op="aggregate", agg="count", filters=tuple(filters))
        )
        out.append(
            (
                Plan(
                    op="compare",
                    of=counted,
                    test=cast(Any, op),
                    against=n,
                    words=(("count", said),),
                ),
                f"test the number of {'distinct ' + column if column else 'rows'} {op} {n}",
            )
        )
    # a computed value against a constant ("is the average age above 35?")
    if agg in _AGG_OF and agg != "count" and thresholds and quant != "all":
        th = thresholds[-1]
        rest = tuple(f for f in filters if f is not th)
        of = Plan(
            op="aggregate",
            measure=th.column,
            agg=agg,
            filters=rest,
            words=((th.column, th.words),),
        )
        test = th.op if th.op != "between" else ">="
        (late if rows_asked else out).append(
            (
                Plan(op="compare", of=of, test=cast(Any, test), against=th.value),
                f"test the {agg} of {th.column} {th.op} {th.value}",
            )
        )
    sign = re.search(rf"\b({_SIGNS})\b", r.text)
    if sign and agg in _AGG_OF:
        measures = p.best(("measure",), numeric=True)
        if measures:
            of = Plan(
                op="aggregate",
                measure=measures[0].name,
                agg=agg,
                filters=tuple(filters),
                words=p.words(measures[0]),
            )
            test = "<" if sign.group(1) == "negative" else ">"
            out.append(
                (
                    Plan(op="compare", of=of, test=cast(Any, test), against=0),
                    f"test the sign of the {agg} of {measures[0].name}",
                )
            )
    # two values around "than": two counts
    than = max(r.text.find(" than "), r.text.find(" outnumber"), r.text.find(" compared"))
    if than > 0 and not thresholds and len(filters) >= 2:
        at = len(r.text[:than].split())
        left = [f for f in filters if r.said_at(f) < at]
        right = [f for f in filters if r.said_at(f) >= at]
        if left and right:
            test = "<" if re.search(rf"\b({_FEWER})\b", r.text) else ">"
            said = tuple(t for t in r.tokens if t in _TWO_COUNTS)
            measures = [
                m
                for m in p.best(("measure",), numeric=True)
                if m.name not in {f.column for f in filters}
            ]
            a = p.agg_cue()
            if measures and a in ("mean", "sum", "median", "max", "min"):
                mk = dict(op="aggregate", measure=measures[0].name, agg=a)
            elif measures and measures[0].name in r.named:
                # "did A play more minutes than B?": the measure named, added up as it adds
                mk = dict(op="aggregate", measure=measures[0].name, agg=default_agg(measures[0]))
            else:
                mk = dict(op="aggregate", agg="count")
            out.append(
                (
                    Plan(
                        op="compare",
                        of=Plan(filters=tuple(left), **mk),
                        test=cast(Any, test),
                        versus=Plan(filters=tuple(right), **mk),
                        words=(("than", said),),
                    ),
                    "compare the two values' " + ("rows" if "measure" not in mk else mk["agg"]),
                )
            )
    out += _uniform(p, quant)
    # "Is the highest rating ... 4?": an aggregate named, a number, no comparison word
    spare = [
        s
        for s in r.stated
        if not (r.k is not None and s.value == r.k)
        and not any(set(s.words) <= set(f.words) for f in filters)
    ]
    numeric = p.best(("measure", "category"), numeric=True)
    if agg in _AGG_OF and agg != "count" and spare and numeric and not thresholds:
        m = numeric[0]
        late.append(
            (
                Plan(
                    op="compare",
                    of=Plan(
                        op="aggregate",
                        measure=m.name,
                        agg=agg,
                        filters=tuple(filters),
                        words=p.words(m),
                    ),
                    test="=",
                    against=_scalar(spare[-1].value),
                    words=(("tested", spare[-1].words),),
                ),
                f"test whether the {agg} of {m.name} is {spare[-1].text}",
            )
        )
    # "is <value> the <answer of a what-question>?"
    if not tested:
        out += _tested_value(p, replan)
    # rows that meet the filters
    if filters:
        # "all Gentoo penguins (the base) are from Biscoe (the condition)": word order
        said = sorted(filters, key=r.said_at)
        if quant == "all" and len(filters) >= 1:
            base, cond = tuple(said[:-1]), (said[-1],)
            out.append(
                (
                    Plan(op="exists", quantifier="all", filters=base, condition=cond),
                    f"every row{' where ' + base[0].describe() if base else ''} has "
                    + cond[0].describe(),
                )
            )
        elif quant == "most":
            base, cond = tuple(said[:-1]), (said[-1],)
            of = Plan(op="aggregate", agg="share", filters=base, condition=cond)
            out.append(
                (
                    Plan(op="compare", of=of, test=">", against=50),
                    f"more than half the rows have {cond[0].describe()}",
                )
            )
        else:
            out.append(
                (
                    Plan(
                        op="exists",
                        quantifier="none" if quant == "none" else "any",
                        condition=tuple(filters),
                    ),
                    "some row has " + " and ".join(f.describe() for f in filters),
                )
            )
    return out + late


#: "the same across all employees": one distinct value; "all ... a different id": as many
#: distinct values as rows.
_UNIFORM = vocabulary.alternation("uniform_words")
_ALL_EACH = vocabulary.alternation("all_every_each")
_DIFFERENT = vocabulary.alternation("distinct_words")
_SAME = re.compile(rf"\b({_UNIFORM})\b")
_ALL_DIFFERENT = re.compile(rf"\b({_ALL_EACH})\b.*\b({_DIFFERENT})\b")


def _uniform(p: Any, quant: str) -> list[tuple[Plan, str]]:
    """ "Is the standard number of hours the same across all employees?": one distinct
    value; "Do all rows have a different product id?": as many distinct values as rows."""
    r = p.r
    same, different = _SAME.search(r.text), _ALL_DIFFERENT.search(r.text)
    found = same or different
    whole = quant == "all" or re.search(r"\bacross\b", r.text)
    if found is None or (same is not None and not whole and different is None):
        return []
    cut = len(r.text[: found.start()].split())
    cols = [
        c
        for c in p.best(("measure", "category", "label", "id", "time"))
        if c.name not in {f.column for f in r.filters}
    ]
    cols = [c for c in cols if r.where.get(c.name, 0) < cut] or cols
    if not cols:
        return []
    col = cols[0]
    distinct = Plan(op="aggregate", measure=col.name, agg="nunique", filters=tuple(r.filters))
    words = (("uniform", tuple(phrase(found.group(0)).split())),)
    if same:
        plan = Plan(op="compare", of=distinct, test="=", against=1, words=words)
        return [(plan, f"{col.name} holds one value throughout")]
    rows = Plan(op="aggregate", agg="count", filters=tuple(r.filters))
    plan = Plan(op="compare", of=distinct, test="=", versus=rows, words=words)
    return [(plan, f"every row has its own {col.name}")]


_ALL_AUXILIARIES = vocabulary.alternation("are_do_does_did_is_were_was")
_ALL_EVERY = vocabulary.alternation("all_every")
_EVERY_ROW = vocabulary.alternation("every_row_nouns")
_MOST_AUXILIARIES = vocabulary.alternation("do_does_did_are_have")


def _quantifier(text: str) -> str:
    if re.search(
        rf"\b({_ALL_AUXILIARIES}) ({_ALL_EVERY})\b|\ball of\b|\bevery ({_EVERY_ROW})\b", text
    ):
        return "all"
    if re.search(rf"\b({_MOST_AUXILIARIES}) most\b", text):
        return "most"
    if re.search(r"\b(is there no|are there no|no one|nobody)\b", text):
        return "none"
    return "any"


_IS_WAS_ARE = vocabulary.alternation("is_was_are")
#: "Is 5 the ID of the store with the most transactions?": a what-question's answer tested.
_TESTED_SUPERLATIVES = vocabulary.alternation("tested_superlatives")


def _tested_value(p: Any, replan: Replan) -> list[tuple[Plan, str]]:
    """ "Is X the most common Y?": the what-question's answer, tested against X."""
    r = p.r
    m = re.match(rf"^\s*\W*({_IS_WAS_ARE})\s+(.+?)\s+(the|a|an)\s+(.+)$", r.question, re.IGNORECASE)
    value: Any = None
    rest = ""
    if (
        m
        and not m.group(2).lower().startswith(("the ", "there", "our ", "any"))
        and len(m.group(2).split()) <= 4
    ):
        value, rest = m.group(2).strip(" '\""), f"What is the {m.group(4)}"
    elif MODE.search(r.text) or re.search(rf"\b({_TESTED_SUPERLATIVES})\b", r.text):
        named = [v for v in r.values if not v.partial]
        if named:
            v = named[-1]
            value = v.value
            words = set(v.words)
            kept = [
                t for t in re.findall(r"\S+", r.question) if t.lower().strip("?'\".,") not in words
            ]
            rest = "What is " + " ".join(kept[1:])
    if value is None or not rest:
        return []
    try:
        sub = read(r.table, rest)
    except ValueError:
        return []
    sub.expect = None
    plans = replan(sub)
    out = []
    for c in plans[:3]:
        if c.plan.op in ("aggregate", "rank", "extreme", "lookup") and (
            c.plan.agg in ("mode",) or c.plan.op != "aggregate"
        ):
            out.append(
                (
                    Plan(
                        op="compare",
                        of=c.plan,
                        test="=",
                        against=_scalar(value),
                        words=(("tested", tuple(phrase(str(value)).split())),),
                    ),
                    f"test whether {value!r} is the answer to {rest!r}",
                )
            )
            break
    return out


def _scalar(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        number = float(text.replace(",", ""))
    except ValueError:
        return text
    return int(number) if number.is_integer() else number
