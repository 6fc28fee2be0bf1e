"""Scoring an answer the way WikiTableQuestions does (its ``evaluator.py``, release 1.0.2).

Shared by ``tests/data/test_wtq_scoring.py`` and ``benchmarks/bench_wtq.py``.
The rules, re-stated from the dataset's official evaluator (Pasupat and
Liang 2015, github.com/ppasupat/WikiTableQuestions):

* every value, target or predicted, is **normalised** (`normalize`):
  diacritics removed, smart quotes and dashes made plain, trailing citations
  (``[1]``, ``*``, ``†``) and trailing details in parentheses removed, outer
  quotes and a final period removed, lower case, spaces collapsed;
* a value is a **number** when the whole text reads as one (``int`` or
  ``float``: "12,467" does not, "12467" does), a **date** when it reads as
  ``yyyy-mm-dd`` with ``xx`` for an unknown part (a year alone is a number),
  else a **string** (`to_value`);
* a number matches another within 1e-6, a date field by field, and any value
  matches one whose normalised text is the same (`Value.match`);
* the prediction is right when it holds as many distinct values as the
  target and each target value matches one of them (`check_denotation`).

A target with several values separates them with ``|`` in ``training.tsv``
(`tsv_unescape_list`); a target written with thousands separators, or a date
written in words, is read as its number or date, as the official run's
CoreNLP-tagged targets are (`target_canon`).
`answer_strings` writes a typed answer
(``reply.answer``: a bool, a number, a string or a list) as the strings the
evaluator reads.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from typing import Any

__all__ = [
    "DateValue",
    "NumberValue",
    "StringValue",
    "answer_strings",
    "check_denotation",
    "normalize",
    "target_canon",
    "to_value",
    "to_value_list",
    "tsv_unescape_list",
    "wtq_match",
]

_CITATION = re.compile(r"((?<!^)\[[^\]]*\]|\[\d+\]|[•♦†‡*#+])*$")
_DETAIL = re.compile(r"(?<!^)( \([^)]*\))*$")
_QUOTED = re.compile(r'^"([^"]*)"$')


def normalize(text: str) -> str:
    """The evaluator's normal form of a value's text (see the module docstring)."""
    text = "".join(
        c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) != "Mn"
    )
    text = re.sub(r"[‘’´`]", "'", text)
    text = re.sub(r"[“”]", '"', text)
    text = re.sub(r"[‐‑‒–—−]", "-", text)
    while True:
        old = text
        text = _CITATION.sub("", text.strip())
        text = _DETAIL.sub("", text.strip())
        text = _QUOTED.sub(r"\1", text.strip())
        if text == old:
            break
    if text and text[-1] == ".":
        text = text[:-1]
    return re.sub(r"\s+", " ", text).lower().strip()


@dataclasses.dataclass(frozen=True)
class StringValue:
    normalized: str

    def match(self, other: Value) -> bool:
        return self.normalized == other.normalized


@dataclasses.dataclass(frozen=True)
class NumberValue:
    amount: float
    normalized: str

    def match(self, other: Value) -> bool:
        if self.normalized == other.normalized:
            return True
        return isinstance(other, NumberValue) and abs(self.amount - other.amount) < 1e-6


@dataclasses.dataclass(frozen=True)
class DateValue:
    ymd: tuple[int, int, int]
    normalized: str

    def match(self, other: Value) -> bool:
        if self.normalized == other.normalized:
            return True
        return isinstance(other, DateValue) and self.ymd == other.ymd


Value = StringValue | NumberValue | DateValue


def _number(text: str) -> float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        amount = float(text)
    except ValueError:
        return None
    return None if math.isnan(amount) or math.isinf(amount) else amount


def _date(text: str) -> tuple[int, int, int] | None:
    parts = text.lower().split("-")
    if len(parts) != 3:
        return None
    try:
        year = -1 if parts[0] in ("xx", "xxxx") else int(parts[0])
        month = -1 if parts[1] == "xx" else int(parts[1])
        day = -1 if parts[2] == "xx" else int(parts[2])
    except ValueError:
        return None
    if year == month == day == -1:
        return None
    if not (month == -1 or 1 <= month <= 12) or not (day == -1 or 1 <= day <= 31):
        return None
    return year, month, day


def to_value(text: str, canon: str | None = None) -> Value:
    """A number, a date or a string, as the evaluator reads ``canon`` (else ``text``);
    the normalised text is always ``text``'s."""
    amount = _number(canon or text)
    if amount is not None:
        whole = abs(amount - round(amount)) < 1e-6
        return NumberValue(round(amount) if whole else float(amount), normalize(text))
    ymd = _date(canon or text)
    if ymd is not None:
        if ymd[1] == ymd[2] == -1:  # a year alone is a number
            return NumberValue(ymd[0], normalize(text))
        return DateValue(ymd, normalize(text))
    return StringValue(normalize(text))


def to_value_list(texts: list[str], canon: list[str | None] | None = None) -> list[Value]:
    """The distinct values of ``texts`` (the evaluator compares sets)."""
    pairs = zip(texts, canon or [None] * len(texts), strict=True)
    return list(dict.fromkeys(to_value(t, c) for t, c in pairs))


_GROUPED = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def target_canon(text: str) -> str | None:
    """A target's number as CoreNLP reads it, where its text alone does not read as one.

    The official run scores against the dataset's *tagged* targets, whose
    ``targetCanon`` CoreNLP wrote ("12,467" -> 12467.0). Those files are not
    in ``../shared/wtq``; this reads the two cases that matter most the same
    way: a number with thousands separators and a date written in words."""
    text = text.strip()
    if _GROUPED.match(text):
        return text.replace(",", "")
    return _date_canon(text)


_DATE_FORMATS = (  # (strptime format, the canon CoreNLP writes: xx for what is not given)
    ("%B %d, %Y", "{y:04d}-{m:02d}-{d:02d}"),
    ("%b %d, %Y", "{y:04d}-{m:02d}-{d:02d}"),
    ("%d %B %Y", "{y:04d}-{m:02d}-{d:02d}"),
    ("%d %b %Y", "{y:04d}-{m:02d}-{d:02d}"),
    ("%B %Y", "{y:04d}-{m:02d}-xx"),
    ("%B %d", "xx-{m:02d}-{d:02d}"),
)


def _date_canon(text: str) -> str | None:
    """A date written in words ("October 13, 1968") as CoreNLP's canon (1968-10-13)."""
    from datetime import datetime

    for fmt, canon in _DATE_FORMATS:
        try:
            when = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return canon.format(y=when.year, m=when.month, d=when.day)
    return None


def check_denotation(target: list[Value], predicted: list[Value]) -> bool:
    """As many values as the target, and every target value matched by one of them."""
    if len(target) != len(predicted):
        return False
    return all(any(t.match(p) for p in predicted) for t in target)


def tsv_unescape_list(text: str) -> list[str]:
    """``training.tsv``'s ``targetValue``: values split at ``|``, then unescaped."""
    return [
        x.replace(r"\n", "\n").replace(r"\p", "|").replace("\\\\", "\\") for x in text.split("|")
    ]


def answer_strings(answer: Any) -> list[str] | None:
    """A typed answer as the evaluator's list of strings; None for no answer.

    A whole float is written as an integer (4.0 -> "4"), a boolean as yes/no
    (how WikiTableQuestions writes them), a list item by item, and a mapping
    (one value per group) by its values."""
    if answer is None:
        return None
    if hasattr(answer, "tolist") and not isinstance(answer, str):
        answer = answer.tolist()
    if isinstance(answer, dict):
        answer = list(answer.values())
    if isinstance(answer, tuple | set | frozenset | list):
        return [s for x in answer for s in (answer_strings(x) or [])]
    if isinstance(answer, bool):
        return ["yes" if answer else "no"]
    if isinstance(answer, float) and answer.is_integer():
        return [str(int(answer))]
    if isinstance(answer, float):
        return [f"{answer:.10g}"]
    return [str(answer)]


def wtq_match(answer: Any, target: str) -> bool:
    """Whether a typed answer is right for ``target`` (``training.tsv``'s form)."""
    predicted = answer_strings(answer)
    if predicted is None:
        return False
    targets = tsv_unescape_list(target)
    gold = to_value_list(targets, [target_canon(t) for t in targets])
    return check_denotation(gold, to_value_list(predicted))
