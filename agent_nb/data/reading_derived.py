"""The question's words that ask for a column computed from two others, or from a text column.

`derivations` finds, over the question's tokens and the columns it names:

* arithmetic between two columns of numbers: "the difference (gap) between
  A and B", "A minus B", "A - B"; "the ratio of A to B", "A to B ratio",
  "A per B" (B a measure: "per Origin" stays a grouping), "A divided by B",
  "A / B"; "A plus B", "A + B", "A and B combined"; "A times B", "the product
  of A and B", "A * B";
* one column against another: "A greater than (their) B", "A is above B",
  "A exceeds B", "A equal to B": a filter ``A - B`` against 0, not a measure;
* a text column's length: "the length of T", "T length", "the number of
  characters in T", "the longest (shortest) T", "how long is T";
* a text column's word count: "the number of words in T", "T of more than 3
  words", "the word count of T".

A text column is free text (names, sentences; not a yes/no column). One the
question leaves out ("without taking the title into account") is not
measured; with no text column named, "the average review length in
characters" measures the table's prose (its column of longest text).

Each comes with the token positions it claims: the reading (`reading.read`)
gives those words to the derived column, so "temp_max" inside "the
difference between temp_max and temp_min" no longer names ``temp_max``
alone. "longest" and "shortest" stay cues (the highest, the lowest).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from . import vocabulary
from .derive import is_text
from .lexicon import match_columns
from .query import Derived, DeriveOp, FilterOp
from .table import Table
from .words import COMPARATORS, NAME_STOP, phrase, question_words, singular, stem

__all__ = ["Found", "claim", "claimed_words", "derivations", "signs_as_words"]


class Found(NamedTuple):
    """A derived column the words ask for, the token positions it claims, and for "A
    greater than B" the test of ``A - B`` against 0 (a filter, not a measure)."""

    derived: Derived
    claimed: tuple[int, ...]
    test: FilterOp | None = None


_SIGNS = (("-", "minus"), ("−", "minus"), ("+", "plus"), ("*", "times"), ("/", "divided by"))
_BEFORE: dict[str, DeriveOp] = vocabulary.mapping("derived_op_before_of")  # "<op> of A and B"
_INFIX: dict[str, DeriveOp] = vocabulary.mapping("derived_op_between")  # "A <op> B"
#: "A divided by B": the words of ``_INFIX`` that take "by".
_BY = vocabulary.words("operators_before_by")
#: "A and B combined", "A to B ratio": the word after two columns, and the word between.
_JOINED: dict[str, str] = vocabulary.mapping("derived_op_after_joined")
_SKIP = vocabulary.words("determiners_before_operand")
_LENGTH = vocabulary.words("text_length_words")
_LONG = vocabulary.words("text_length_adjectives")
_WORDS = vocabulary.words("text_word_count_words")
_NOT = vocabulary.words("exclusion_words")


def signs_as_words(question: str) -> str:
    """Arithmetic signs between spaced words, as words: "A - B" is "A minus B"."""
    for sign, word in _SIGNS:
        question = re.sub(
            rf"(?<=[\w)`'\"])\s+{re.escape(sign)}\s+(?=[\w(`'\"])", f" {word} ", question
        )
    return question


def _runs(tokens: list[str], ws: set[str], name: str = "") -> list[tuple[int, int]]:
    """Maximal runs of tokens that are the column's matched words, most words first."""

    def hit(t: str) -> bool:
        return t in ws or singular(t) in ws or stem(t) in {stem(w) for w in ws}

    out, i = [], 0
    while i < len(tokens):
        if hit(tokens[i]):
            j = i
            while (
                j < len(tokens)
                and (
                    hit(tokens[j])  # "weight in lbs": a name's own joining word inside the run
                    or (
                        tokens[j] in NAME_STOP
                        and j + 1 < len(tokens)
                        and f" {' '.join(tokens[j - 1 : j + 2])} " in f" {phrase(name)} "
                    )
                )
            ):
                j += 1
            out.append((i, j))
            i = j
        else:
            i += 1
    return sorted(out, key=lambda r: -len({singular(t) for t in tokens[r[0] : r[1]]}))


def _skip(tokens: list[str], i: int) -> int:
    while i < len(tokens) and tokens[i] in _SKIP:
        i += 1
    return i


def _longer(runs: dict[str, list[tuple[int, int]]], n: str, other: str, a: int, b: int) -> bool:
    """Whether ``n``'s run ``a:b`` is longer than ``other``'s run at the same place."""
    theirs = [y - x for x, y in runs[other] if x == a or y == b]
    return b - a > max(theirs, default=0)


def _arithmetic(
    table: Table, tokens: list[str], runs: dict[str, list[tuple[int, int]]]
) -> list[Found]:
    cols = {n: table.columns[n] for n in runs}
    numeric = {n for n, c in cols.items() if c.numeric and c.role in ("measure", "category")}
    # where runs of two columns start (or end) together ("temp" of "temp max"), the longer
    starts: dict[int, str] = {}
    ends: dict[int, str] = {}
    order = list(table.columns)  # ties go to the column listed first, in every process
    for n in sorted(numeric, key=lambda n: (-max(b - a for a, b in runs[n]), order.index(n))):
        for lo, hi in sorted(runs[n], key=lambda r: r[0] - r[1]):
            if lo not in starts or _longer(runs, n, starts[lo], lo, hi):
                starts[lo] = n
            if hi not in ends or _longer(runs, n, ends[hi], lo, hi):
                ends[hi] = n
    span_of = {(n, r[0]): r for n in numeric for r in runs[n]}
    span_end = {(n, r[1]): r for n in numeric for r in runs[n]}
    out: list[Found] = []
    for i, t in enumerate(tokens):
        op: DeriveOp | None = None
        first = second = ""
        lo = hi = 0
        if t in _BEFORE and i + 1 < len(tokens) and tokens[i + 1] in ("between", "of"):
            a_at = _skip(tokens, i + 2)
            a = starts.get(a_at)
            if a is None:
                continue
            a_end = span_of[(a, a_at)][1]
            if a_end < len(tokens) and tokens[a_end] in ("and", "to"):
                b_at = _skip(tokens, a_end + 1)
                b = starts.get(b_at)
                if b is not None and b != a:
                    op, first, second, lo, hi = _BEFORE[t], a, b, i, span_of[(b, b_at)][1]
        elif t in _INFIX and i in ends:
            a = ends[i]
            b_at = _skip(tokens, i + (2 if t in _BY else 1))
            if t in _BY and tokens[i + 1 : i + 2] != ["by"]:
                continue
            b = starts.get(b_at)
            if b is None or b == a:
                continue
            if t == "per" and cols[b].role != "measure":
                continue  # "per Origin": a grouping
            if t == "per" and "per" in phrase(cols[b].name).split():
                continue  # "people per km" of "Persons per km2": a rate named, not divided by
            op, first, second = _INFIX[t], a, b
            lo, hi = span_end[(a, i)][0], span_of[(b, b_at)][1]
        elif t in _JOINED and i in ends:
            b = ends[i]
            b_at = span_end[(b, i)][0]
            joint = tokens[b_at - 1] if b_at > 0 else ""
            if _JOINED[t] != joint or b_at - 1 not in ends:
                continue
            a = ends[b_at - 1]
            if a == b:
                continue
            op, first, second = ("+" if t == "combined" else "/"), a, b
            lo, hi = span_end[(a, b_at - 1)][0], i + 1
        if op is not None:
            out.append(Found(Derived(op=op, column=first, other=second), tuple(range(lo, hi))))
        elif i in ends:  # "Horsepower greater than their Displacement": A - B against 0
            test = _versus(table, tokens, i, ends[i], starts, span_of, span_end)
            if test is not None:
                out.append(test)
    return out


_THEIR = _SKIP | vocabulary.words("possessives_before_other_operand")
_VERB = vocabulary.words("verbs_before_column_comparison")
_EQUAL = vocabulary.words("equality_with_column")
_TESTS = {w for words, _ in COMPARATORS for w in words.split()}


def _versus(
    table: Table,
    tokens: list[str],
    i: int,
    a: str,
    starts: dict[int, str],
    span_of: dict[tuple[str, int], tuple[int, int]],
    span_end: dict[tuple[str, int], tuple[int, int]],
) -> Found | None:
    end = i
    while i < len(tokens) and tokens[i] in _VERB:  # "ARMED was ever higher than"
        i += 1
    ahead = " ".join(tokens[i : i + 4])
    for words, op in COMPARATORS:
        if not ahead.startswith(words + " ") or (op == "=" and words not in _EQUAL):
            continue  # "a score of 4" tests a number, not a column
        at = i + len(words.split())
        while at < len(tokens) and tokens[at] in _THEIR:
            at += 1
        b = starts.get(at)
        if b is None or b == a:
            return None
        lo, hi = span_end[(a, end)][0], span_of[(b, at)][1]
        return Found(Derived(op="-", column=a, other=b), tuple(range(lo, hi)), op)  # type: ignore[arg-type]
    return None


def _texts(table: Table) -> list[str]:
    """Columns of free text: names or sentences, not a yes/no or a handful of codes."""
    return [
        c.name
        for c in table.columns.values()
        if not c.numeric
        and (c.role == "label" or (c.role == "category" and c.nunique > 5))
        and not c.listy
        and is_text(table.df[c.name])
    ]


def _prose(table: Table, texts: list[str]) -> str | None:
    """The column of longest text (sentences, 30 characters or more on average)."""
    means = {n: float(table.df[n].dropna().astype(str).str.len().mean()) for n in texts}
    best = max(means, key=lambda n: means[n], default=None)
    return best if best is not None and means[best] >= 30 else None


#: "the number of characters in T", "how many words": a count's words, claimed with it.
_COUNTED = vocabulary.words("how_many_number_of")


def _text(table: Table, tokens: list[str], runs: dict[str, list[tuple[int, int]]]) -> list[Found]:
    every = _texts(table)
    negated = {  # "without taking the title into account": not the text measured
        n: (i, hi)
        for n in every
        for lo, hi in runs.get(n, [])
        for i in range(max(0, lo - 4), lo)
        if tokens[i] in _NOT
    }
    texts = [n for n in every if n in runs and n not in negated]
    out: list[Found] = []
    cues: tuple[tuple[frozenset[str], DeriveOp], ...] = (
        (_WORDS, "words"),
        (_LENGTH, "length"),
        (_LONG, "length"),
    )
    # "the length of English Canyon" over a Length of numbers: that column's own name
    # ("the longest name" is still the text's)
    measured = {p for c in table.columns.values() if c.numeric for p in c.parts}
    for cue, op in cues:
        near = []
        at = [
            i for i, t in enumerate(tokens) if t in cue and not (cue is _LENGTH and t in measured)
        ]
        for i in at:
            for n in texts:
                for lo, hi in runs[n]:
                    if not {singular(t) for t in tokens[lo:hi]} & set(table.columns[n].parts):
                        continue  # "how long did X coach": a person noun names no text
                    if cue is _LONG or tokens[i] == "length":  # "the longest name", "name length"
                        if 1 <= lo - i <= 5 or (cue is not _LONG and hi == i):
                            near.append((abs(lo - i), i, n, (lo, hi)))
                    elif abs(lo - i) <= 6:  # "names of more than 3 words", "characters in name"
                        near.append((abs(lo - i), i, n, (lo, hi)))
        if not near and at and cue is not _LONG and not texts:
            # "the average review length (in characters)": the table's text, when no
            # column of text is named (its lengths are read only then: a scan per column)
            prose = _prose(table, [n for n in every if n not in negated])
            if prose is not None:
                near.append((0, at[0], prose, (at[0], at[0])))
        if not near:
            continue
        _, i, name, (lo, hi) = min(near)
        claimed = set(range(lo, hi))
        if cue is not _LONG:  # "longest" stays a cue: the highest length
            claimed |= set(at)  # "length ... (in chars)"
            if " ".join(tokens[max(0, i - 2) : i]) in _COUNTED:  # "number of", "how many"
                claimed |= {i - 2, i - 1}
            if tokens[i + 1 : i + 2] == ["count"]:
                claimed.add(i + 1)
        for first, end in negated.values():  # measured apart from it: the exclusion holds
            claimed |= set(range(first, end))
        out.append(Found(Derived(op=op, column=name), tuple(sorted(claimed))))
        break
    return out


def derivations(table: Table, question: str) -> list[Found]:
    """The derived columns ``question`` asks for over ``table`` (module docstring), each
    with the positions of ``phrase(question)``'s tokens it claims."""
    tokens = phrase(question).split()
    cues = set(_BEFORE) | set(_INFIX) | _LENGTH | _LONG | _WORDS | _TESTS | {"combined"}
    if not set(tokens) & cues:
        return []
    named = match_columns(table, question_words(question), question)
    runs = {n: _runs(tokens, ws, n) for n, (_, ws) in named.items() if ws}
    runs = {n: r for n, r in runs.items() if r}
    found = _arithmetic(table, tokens, runs) or _text(table, tokens, runs)
    return [f for f in found if f.derived.name not in table.columns][:1]


_FUNCTION = _SKIP | vocabulary.words("function_words_of_derived_names")


def claimed_words(tokens: list[str], idx: tuple[int, ...]) -> tuple[str, ...]:
    """The words a derived column is named by: its claimed tokens, less function words."""
    return tuple(dict.fromkeys(singular(tokens[i]) for i in idx if tokens[i] not in _FUNCTION))


def claim(
    named: dict[str, tuple[float, set[str]]], tokens: list[str], found: list[Found]
) -> dict[str, tuple[float, set[str]]]:
    """``named`` with each derived column named by its claimed words, ahead of the rest,
    and without the columns named only inside its words (its operands)."""
    out = dict(named)
    for d, idx, test in found:
        if test is not None:  # a filter: neither it nor its operands is a measure by it
            out.pop(d.name, None)
            continue
        span = set(idx)
        for other in list(out):
            ws = out[other][1]
            if other != d.name and not any(
                i not in span and (t in ws or singular(t) in ws) for i, t in enumerate(tokens)
            ):
                del out[other]
        top = max((s for s, _ in out.values() if s), default=0.0)
        out[d.name] = (top + 1.0, set(claimed_words(tokens, idx)))
    return out
