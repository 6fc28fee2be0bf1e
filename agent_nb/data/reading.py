"""What a question's words say about a table, before any plan: columns, filters, k, kind.

`Reading` collects, each with the words it came from: the columns the
question names (and where), the filters its values, thresholds, negations
and quoted texts make, the ``k`` of "top 5", the answer type its form asks
for (``boolean`` for "Is there...", ``list`` for "List..." or "the 3
highest", ``number`` for "How many..."), and the words it could not place.
The planner (`planner`) turns a reading into ranked candidate plans.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from .lexicon import Named, Stated, match_columns, match_values, numbers, time_column
from .query import Filter
from .table import Column, Table
from .words import (
    AGG_WORDS,
    ASK_BOOL,
    COMPARATORS,
    CORR,
    FILLER,
    HIGH,
    HOW_MANY,
    LIST_CUE,
    LOW,
    MISSING,
    NEGATION,
    STOPWORDS,
    TREND,
    phrase,
    question_words,
    singular,
    stem,
)

__all__ = ["Reading", "read"]

_RANK_WORDS = HIGH | LOW | {"top", "bottom", "first", "last", "common", "frequent", "popular"}
_NEG = re.compile(
    r"\b(not|no|without|never|non|none|dont|doesnt|didnt|isnt|arent|wasnt|hasnt|"
    r"havent|haven't|don't|doesn't|didn't|isn't|aren't|wasn't|hasn't)\b"
)
_UNITS = {
    "pound": 0.45359237,
    "pounds": 0.45359237,
    "lb": 0.45359237,
    "lbs": 0.45359237,
    "gram": 0.001,
    "grams": 0.001,
    "g": 0.001,
}  # to kilograms


@dataclasses.dataclass
class Reading:
    """A question's words over one table (see the module docstring)."""

    table: Table
    question: str
    text: str
    tokens: list[str]
    words: list[str]
    named: dict[str, tuple[float, set[str]]]
    where: dict[str, int]  # a named column's first word index
    values: list[Named]
    stated: list[Stated]
    filters: list[Filter]
    k: int | None
    k_words: tuple[str, ...]
    expect: str | None  # boolean, list, number or None
    negated: list[tuple[int, str]]  # negation words and where
    notes: list[str]  # what a filter's reading assumed
    open: list[str]  # choices the words left open

    @property
    def high(self) -> bool:
        return bool(self.cues & HIGH)

    @property
    def low(self) -> bool:
        return bool(self.cues & LOW)

    @property
    def cues(self) -> set[str]:
        cols = self.table.columns
        used = {
            w
            for n, (_, ws) in self.named.items()
            for w in ws
            if w not in cols[n].words or w in cols[n].parts
        }
        return set(self.words) - used

    def near(
        self, index: int, roles: tuple[str, ...], numeric: bool = False, value: float | None = None
    ) -> Column | None:
        """The named column closest to word ``index`` (of ``roles``); with ``value``, one
        whose values span it comes first."""
        best: tuple[float, Column] | None = None
        for name, at in self.where.items():
            col = self.table.columns[name]
            if col.role not in roles and not (numeric and col.numeric):
                continue
            if numeric and not col.numeric:
                continue
            own = self.named[name][1] - (col.words - set(col.parts))
            distance = abs(at - index) - 0.3 * self.named[name][0] + (0.5 if at > index else 0)
            distance += 0 if own else 3  # named only by a synonym ("score")
            if value is not None and not _spans(self.table, col, value):
                distance += 10
            if best is None or distance < best[0]:
                best = (distance, col)
        return best[1] if best else None


def _k(tokens: list[str], stated: list[Stated], listy: bool) -> tuple[int | None, tuple[str, ...]]:
    for s in stated:
        if not float(s.value).is_integer() or not 1 <= s.value <= 50:
            continue
        i = s.start
        prev = tokens[i - 1] if i > 0 else ""
        if prev in ("least", "most") and i >= 2 and tokens[i - 2] == "at":
            continue  # "at least 4": a threshold
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if prev in _RANK_WORDS | {"list", "top", "bottom", "which", "what"} or nxt in _RANK_WORDS:
            return int(s.value), s.words
        if listy and prev in ("the", "list", "are", "of") and nxt not in ("per", "kg", "and"):
            return int(s.value), s.words
    return None, ()


def _comparator(tokens: list[str], i: int) -> tuple[str, tuple[str, ...]] | None:
    before = " ".join(tokens[max(0, i - 4) : i])
    for words, op in COMPARATORS:
        if before.endswith(words):
            return op, tuple(words.split())
    after = " ".join(tokens[i + 1 : i + 3])
    for words, op in COMPARATORS:
        if words in ("or more", "or less", "or above", "or below") and after.startswith(words):
            return op, tuple(words.split())
    return None


def _scaled(value: float, col: Column, table: Table, tokens: list[str], i: int) -> float:
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if after in ("per", "percent", "%") or (
        i + 1 < len(tokens) and tokens[i + 1 : i + 3] == ["per", "cent"]
    ):
        top = table.df[col.name].max()
        if top is not None and float(top) <= 1.0:
            return value / 100
    if after in _UNITS and "kg" in phrase(col.name).split():
        return round(value * _UNITS[after], 3)
    return value


def _spans(table: Table, col: Column, value: float) -> bool:
    s = table.df[col.name]
    try:
        lo, hi = float(s.min()), float(s.max())
    except (TypeError, ValueError):
        return False
    return lo - 0.5 * abs(hi - lo) <= value <= hi + 0.5 * abs(hi - lo) or value == 0


def _by_range(table: Table, value: float) -> Column | None:
    """The one numeric column whose values span ``value`` (the tightest, if several)."""
    fits = []
    for col in table.columns.values():
        if not col.numeric or col.role in ("id", "time"):
            continue
        s = table.df[col.name]
        lo, hi = float(s.min()), float(s.max())
        if lo <= value <= hi:
            fits.append((hi - lo, col))
    return min(fits, key=lambda x: x[0])[1] if fits else None


def read(table: Table, question: str) -> Reading:
    """The reading of ``question`` over ``table`` (see the module docstring)."""
    question = _without_instructions(question)
    text = question.lower().replace("’", "'")
    tokens = phrase(question).split()
    words = question_words(question)
    named = match_columns(table, words, question)
    for col in table.of("empty"):
        if f" {phrase(col.name)} " in f" {phrase(question)} ":
            raise ValueError(f"{col.name} has no values (all missing): nothing to compute")
    live = [c for c in table.columns.values() if c.role != "empty"]
    if not named and len(live) == 1:  # df["col"]: the one column is what is asked about
        named = {live[0].name: (1.0, set())}
    where = {}
    for name, (_, ws) in named.items():
        at = [i for i, t in enumerate(tokens) if t in ws or singular(t) in ws or stem(t) in ws]
        where[name] = min(at) if at else 0
    values = match_values(table, question)
    stated = numbers(question)
    toks = phrase(question).split()
    values = [
        v
        for v in values
        if not (  # "more than 8 cylinders": a threshold, not a value
            str(v.value).replace(".", "").isdigit() and _comparator(toks, v.start) is not None
        )
    ]
    listy = bool(LIST_CUE.search(text))
    k, k_words = _k(tokens, stated, listy)
    expect = "boolean" if ASK_BOOL.search(text) and not set(words) & CORR else None
    if expect is None and (listy or (k is not None and k > 1)):
        expect = "list"
    plural = re.match(r"^\W*(which|what)\s+(\w+)\s+(are|were|have|had|do|did|exist)\b", text)
    if (
        expect is None
        and plural
        and plural.group(2).endswith("s")
        and len(plural.group(2)) > 3
        and (singular(plural.group(2)) != plural.group(2))
    ):
        expect = "list"  # "which islands are there?", "which cars have more than ...?"
    if expect is None and HOW_MANY.search(text):
        expect = "number"
    negated = [(i, t) for i, t in enumerate(tokens) if _NEG.fullmatch(t) or t in NEGATION]
    reading = Reading(
        table,
        question,
        text,
        tokens,
        words,
        named,
        where,
        values,
        stated,
        [],
        k,
        k_words,
        expect,
        negated,
        [],
        [],
    )
    reading.filters = _filters(reading)
    return reading


_INSTRUCTION = re.compile(
    r"(?<=[.?!])\s+(answer\b|the answer\b|if there (are|is)\b|please\b|respond\b)[^.?!]*[.?!]?",
    re.IGNORECASE,
)


def _without_instructions(question: str) -> str:
    """The question without the instructions after it ("Answer True or False",
    "If there are none answer with an empty list"): they name no data."""
    q = question.strip().strip('"').strip()
    return _INSTRUCTION.sub("", q).strip() or q


_EXCEPT = ("other than", "excluding", "except", "apart from", "besides", "aside from")


def _negated_at(r: Reading, start: int) -> tuple[str, ...]:
    for i, word in r.negated:
        if 0 <= start - i <= 4:
            return (word,)
    before = " ".join(r.tokens[max(0, start - 3) : start])
    for words in _EXCEPT:
        if before.endswith(words) or f"{words} " in f"{before} ":
            return tuple(words.split())
    return ()


_APART = re.compile(r"\b(than|compared|versus|vs|outnumber|outnumbers|ratio|difference|to)\b")


def _apart(r: Reading, hits: list[Named]) -> bool:
    """Two values of one column set against each other, not OR-ed."""
    a, b = sorted(h.start for h in hits)[:2]
    between = " ".join(r.tokens[a:b])
    return bool(_APART.search(between)) or bool(
        re.search(
            r"\b(ratio|difference|compared|"
            r"outnumber|times)\b",
            r.text,
        )
    )


_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_TEXT_OP = re.compile(
    r"\b(?:starting|starts|start|beginning|begins|begin) with\s+['\"]?([\w-]+)|"
    r"\b(?:containing|contains|contain|including|includes) (?:the word\s+)?['\"]?([\w-]+)"
)


def _text_filters(r: Reading, taken: set[str]) -> list[Filter]:
    """Dates named in full, "starting with ford", "containing chevy"."""
    out = []
    time = time_column(r.table)
    for m in _DATE.finditer(r.question):
        if time is not None:
            out.append(
                Filter(
                    column=time.name, op="=", value=m.group(1), words=tuple(m.group(1).split("-"))
                )
            )
    for m in _TEXT_OP.finditer(r.text):
        word = m.group(1) or m.group(2)
        at = len(phrase(r.text[: m.start()]).split())
        col = r.near(at, ("label", "category"))
        if col is None or col.numeric:
            labels = [c for c in r.table.of("label") if not c.numeric]
            col = labels[0] if labels else None
        if col is not None:
            op = "startswith" if m.group(1) else "contains"
            out.append(
                Filter(column=col.name, op=op, value=word, words=tuple(phrase(m.group(0)).split()))
            )
    return out


_NO_VALUE = re.compile(r"\b(no|without|missing|lacking|lack)\b")
_HAS_VALUE = re.compile(r"\b(with|have|has|had)\s+(a|an)?\s*$")


def _missing_filters(r: Reading, taken: set[str]) -> list[Filter]:
    """ "no horsepower value", "without a Horsepower value": missing; "have a horsepower
    value", "Horsepower recorded", "is not missing": present."""
    out = []
    for name, at in r.where.items():
        if name in taken:
            continue
        words = r.named[name][1]
        end = (
            max(i for i, t in enumerate(r.tokens) if t in words or singular(t) in words)
            if any(t in words or singular(t) in words for t in r.tokens)
            else at
        )
        before = " ".join(r.tokens[max(0, at - 3) : at])
        after = " ".join(r.tokens[end + 1 : end + 4])
        valued = after.startswith(("value", "values", "recorded", "data", "entered", "given"))
        if re.search(r"^(is|are)\s+(not\s+)?(missing|null|empty|blank|nan)", after):
            op = "present" if " not " in f" {after} " else "missing"
        elif _NO_VALUE.search(before) and (valued or "missing" in before):
            op = "missing"
        elif (
            valued and (_HAS_VALUE.search(before + " ") or after.startswith("recorded"))
        ) or after.startswith(("recorded", "known", "filled")):
            op = "present"
        else:
            continue
        out.append(
            Filter(
                column=name,
                op=op,
                words=tuple(words) + tuple(before.split()[-2:]) + tuple(after.split()[:2]),
            )
        )  # type: ignore[arg-type]
    return out


def _filters(r: Reading) -> list[Filter]:
    t = r.table
    out: list[Filter] = []
    by_column: dict[str, list[Named]] = {}
    for v in r.values:
        by_column.setdefault(v.column.name, []).append(v)
    for name, hits in by_column.items():
        neg = _negated_at(r, hits[0].start)
        words = tuple(w for h in hits for w in h.words) + neg
        if hits[0].partial:
            out.append(Filter(column=name, op="contains", value=str(hits[0].value), words=words))
        elif len(hits) > 1 and _apart(r, hits):  # "more Adelie than Gentoo": two filters
            for h in hits:
                out.append(Filter(column=name, op="=", value=_plain(h.value), words=h.words))
        elif len(hits) > 1:
            vals = tuple(_plain(h.value) for h in hits)
            out.append(
                Filter(
                    column=name,
                    op="!=" if neg and len(hits) == 1 else "in",
                    value=vals,
                    words=words,
                )
            )
        else:
            out.append(
                Filter(
                    column=name, op="!=" if neg else "=", value=_plain(hits[0].value), words=words
                )
            )
    time = time_column(t)
    k_at = {s for s in r.k_words}
    for s in r.stated:
        if r.k is not None and s.words == r.k_words and s.value == r.k:
            continue
        i = s.start
        if any(f.op == "between" and s.value in (f.value or ()) for f in out):
            continue
        if any(s.text in m.group(0) for m in _DATE.finditer(r.question)) or any(
            v.start <= i < v.start + len(v.words) for v in r.values
        ):
            continue  # a number inside a date or a named value
        if time is not None and float(s.value).is_integer() and 1800 <= s.value <= 2100:
            cmp = _comparator(r.tokens, i)
            op = cmp[0] if cmp and cmp[0] in ("<", ">", "<=", ">=") else "="
            if t.df[time.name].dtype.kind in "iuf" or "datetime" in str(t.df[time.name].dtype):
                out.append(
                    Filter(
                        column=time.name,
                        op=op,
                        value=int(s.value),
                        words=s.words + (cmp[1] if cmp else ()),
                    )
                )
                continue
        cmp = _comparator(r.tokens, i)
        between = (
            i >= 1
            and r.tokens[i - 1] in ("between", "from")
            and any(o.start > i and o.start <= i + 3 for o in r.stated)
        )
        if (
            not cmp
            and not between
            and i >= 1
            and r.tokens[i - 1] in ("is", "was")
            and (i + 1 < len(r.tokens) and r.tokens[i + 1] in ("a", "an"))
        ):
            cmp = ("=", ())  # "is 99 an existing id": equality
        if not cmp and not between:
            inside = _inside_values(r, s)
            if inside is not None:
                out.append(inside)
            continue
        col = r.near(i, ("measure", "category", "id", "time"), numeric=True, value=s.value)
        if cmp is not None:  # "older than": the column the comparison's own word names
            for name in r.named:
                c = t.columns[name]
                if c.numeric and set(cmp[1]) & c.words and _spans(t, c, s.value):
                    col = c
        if col is not None and not _spans(t, col, _scaled(s.value, col, t, r.tokens, i)):
            col = _by_range(t, s.value) or col
        chosen = "named"
        if col is None:
            col = _by_range(t, s.value)
            chosen = "by its range"
        if col is None:
            continue
        value = _scaled(s.value, col, t, r.tokens, i)
        if between:
            other = next((o for o in r.stated if o.start > i and o.start <= i + 3), None)
            if other is None:
                continue
            hi = _scaled(other.value, col, t, r.tokens, other.start)
            out.append(
                Filter(
                    column=col.name,
                    op="between",
                    value=(_num(value), _num(hi)),
                    words=(r.tokens[i - 1], "to", "and") + s.words + other.words,
                )
            )
            continue
        assert cmp is not None
        op, cw = cmp
        neg = _negated_at(r, i - len(cw))
        if neg and op in ("<", ">", "<=", ">="):
            op = {"<": ">=", ">": "<=", "<=": ">", ">=": "<"}[op]
        out.append(Filter(column=col.name, op=op, value=_num(value), words=s.words + cw + neg))  # type: ignore[arg-type]
        if chosen != "named":
            r.notes.append(f"{s.text} read as {col.name} (the only column whose values span it)")
            r.open.append("threshold column")
    del k_at
    out += _binary(r, {f.column for f in out})
    out += _text_filters(r, {f.column for f in out})
    out += _missing_filters(r, {f.column for f in out})
    return out


def _binary(r: Reading, taken: set[str]) -> list[Filter]:
    """A named yes/no column after "with", "without", "have", "any"...: ``= 1`` (or 0,
    negated): "applicants without research experience" is ``Research = 0``."""
    out = []
    for name, at in r.where.items():
        col = r.table.columns[name]
        if name in taken or col.nunique != 2 or (not col.numeric and col.role != "category"):
            continue
        s = r.table.df[name].dropna()
        values = set(s.unique().tolist())
        if values not in ({0, 1}, {True, False}):
            continue
        before = r.tokens[max(0, at - 4) : at]
        if not set(before) & {
            "with",
            "without",
            "have",
            "has",
            "had",
            "any",
            "some",
            "no",
            "dont",
            "don",
            "doesn",
            "didn",
            "who",
            "got",
        }:
            continue
        neg = _negated_at(r, at)
        yes = 1 if 1 in values else True
        words = tuple(sorted(r.named[name][1])) + neg
        out.append(
            Filter(
                column=name, op="=", value=(0 if yes == 1 else False) if neg else yes, words=words
            )
        )
    return out


def _inside_values(r: Reading, s: Stated) -> Filter | None:
    """A number that is part of a text value ("2012" of season "2012-13"): contains."""
    if not float(s.value).is_integer() or s.value < 1000:
        return None
    needle = str(int(s.value))
    for col in r.table.columns.values():
        if col.role in ("category", "label") and not col.numeric and col.values:
            if any(needle in k and k != needle for k in list(col.values)[:500]):
                return Filter(column=col.name, op="contains", value=needle, words=s.words)
    return None


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _plain(value: Any) -> Any:
    from .execute import plain

    return plain(value)


def unused_words(r: Reading, used: set[str]) -> list[str]:
    """Content words of the question that no part of the plan used."""
    spent = {w for _, (_, ws) in r.named.items() for w in ws} & used
    cues = HIGH | LOW | TREND | CORR | MISSING | {w for ws in AGG_WORDS.values() for w in ws}
    out = []
    for token in r.tokens:
        w = singular(token)
        if token in used or w in used or w in spent or token in spent:
            continue
        if token in STOPWORDS or w in STOPWORDS or w in FILLER or token in FILLER or w in cues:
            continue
        if len(token) < 3 and not token.isdigit():
            continue
        out.append(token)
    return out
