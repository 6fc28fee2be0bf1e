"""Scoring a data answer the way DataBench does, for the reply a reader sees.

Shared by ``tests/data/test_phrasings.py`` and ``benchmarks/bench_databench.py``.

* `databench_match` applies DataBench's rules (the ``databench_eval``
  package's ``Evaluator.default_compare``, re-stated here): booleans compare as
  yes/true/y against no/false/n; a category must match exactly, or as the same
  date; numbers are truncated to two decimals on both sides; a list must have
  the same length and the same set of items (numbers truncated as above).
* `as_databench` writes a typed answer (``reply.answer``: a bool, a number, a
  string or a list) as the one-line string DataBench scores.
* `reply_value` reads the answer out of a reply's text, as a reader would take
  it: a boolean is the reply's first word (yes/no/true/false); a number is the
  first number the reply states that the question did not already say; a
  category is the truth itself when the first sentence names it and no other
  value of its column; a list is a ``[...]`` list, bullet lines, or what
  follows the first colon.
* `confident_wrong` is the issue's "confident wrong number": the reply states a
  number as the answer, it is not the truth (neither truncated nor rounded to
  the decimals written), and the reply does not say what it left out (a
  ``not applied:`` line or the like).
"""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

__all__ = [
    "SEMANTICS",
    "as_databench",
    "confident_wrong",
    "databench_match",
    "left_out",
    "reply_value",
    "stated_numbers",
]

SEMANTICS = ("boolean", "category", "number", "list[category]", "list[number]")

_STRIP = "[]'\" "
_NULLS = {"", "nan", "None", "np.nan"}
_TRUE = {"true", "yes", "y"}
_FALSE = {"false", "no", "n"}


def _bare(value: object) -> str:
    return str(value).strip(_STRIP)


def _to_float(text: str) -> float:
    """DataBench keeps digits, '.' and '-' of a number and reads the rest as float."""
    return float("".join(c for c in text if c.isdigit() or c in ".-"))


def _cut2(x: float) -> int:
    return math.trunc(x * 100)


def _as_date(text: str) -> Any:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas warns when it guesses a format
        return pd.to_datetime(text).date()


def databench_match(value: object, truth: object, semantic: str) -> bool:
    """Whether ``value`` scores as ``truth`` under DataBench's rules (see the module)."""
    semantic = semantic.strip()
    if semantic not in SEMANTICS:
        raise ValueError(f"unknown answer type {semantic!r}; one of {', '.join(SEMANTICS)}")
    v, t = _bare(value), _bare(truth)
    if value is None or v in _NULLS or t in _NULLS:
        return (value is None or v in _NULLS) and t in _NULLS
    if semantic == "boolean":
        v, t = v.lower(), t.lower()
        return (v in _TRUE and t in _TRUE) or (v in _FALSE and t in _FALSE)
    if semantic == "category":
        if v == t:
            return True
        try:
            return bool(_as_date(v) == _as_date(t))
        except (ValueError, TypeError, OverflowError):
            return False
    if semantic == "number":
        try:
            return _cut2(_to_float(v)) == _cut2(_to_float(t))
        except ValueError:
            return False
    if semantic == "list[number]":
        try:
            vs = [_cut2(_to_float(x)) for x in str(value).strip("[]").split(",") if x.strip()]
            ts = [_cut2(_to_float(x)) for x in str(truth).strip("[]").split(",") if x.strip()]
        except ValueError:
            return False
        return len(vs) == len(ts) and set(vs) == set(ts)
    vl = [_bare(x) for x in str(value).strip("[]").split(",")]
    tl = [_bare(x) for x in str(truth).strip("[]").split(",")]
    vl = ["" if x in _NULLS else x for x in vl]
    tl = ["" if x in _NULLS else x for x in tl]
    if len(vl) != len(tl):
        return False
    try:
        return {_as_date(x) for x in vl} == {_as_date(x) for x in tl}
    except (ValueError, TypeError, OverflowError):
        return set(vl) == set(tl)


def as_databench(answer: object) -> str:
    """A typed answer as DataBench's one-line string form (lists as Python lists)."""
    if hasattr(answer, "tolist") and not isinstance(answer, str):
        answer = answer.tolist()  # numpy scalars and arrays, pandas Series and Index
    if isinstance(answer, tuple | set | frozenset):
        answer = list(answer)
    if isinstance(answer, bool):
        return str(answer)
    if isinstance(answer, list):
        return repr([as_databench(x) if isinstance(x, bool | float | int) else x for x in answer])
    if isinstance(answer, float) and answer.is_integer():
        return str(int(answer))
    return str(answer)


# A number as written: 3,690 and 1.5e3 and -0.25, not the digits inside a name
# (FG3M, 066_IBM_HR) or a range's second half (2012-13).
_NUMBER = re.compile(r"(?<![\w.\-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
_TAIL_NUMBER = re.compile(r"\(([^()]*\d[^()]*)\)\s*$")
_LEFT_OUT = re.compile(
    r"not applied|left out|could not (?:apply|use|answer|compute|place)|cannot (?:apply|answer)|"
    r"unused word|not used",
    re.IGNORECASE,
)


def _first_paragraph(text: str) -> str:
    return text.strip().split("\n\n")[0].strip()


def stated_numbers(text: str, question: str = "") -> list[float]:
    """The numbers a reply's first paragraph states, less those the question
    already said (a threshold, a year, the k of "top k") when others remain."""
    found = [float(m.group().replace(",", "")) for m in _NUMBER.finditer(text)]
    asked = {float(m.group().replace(",", "")) for m in _NUMBER.finditer(question)}
    fresh = [x for x in found if x not in asked]
    return fresh or found


def _list_items(text: str) -> list[str] | None:
    bracket = re.search(r"\[([^\[\]]*)\]", text)
    if bracket:
        return [_bare(x) for x in bracket.group(1).split(",") if _bare(x)]
    bullets = re.findall(r"^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$", text, re.MULTILINE)
    if bullets:
        return [b.strip().strip("*`").rstrip(".;,").strip() for b in bullets]
    para = _first_paragraph(text)
    if ":" in para:
        tail = para.split(":", 1)[1].strip().rstrip(".")
        # a comma before three digits is a thousands separator: "(5,140)"
        parts = re.split(r",(?!\d{3}(?!\d))\s*|\s+and\s+|;\s*", tail)
        return [p.strip().strip("*`'\"") for p in parts if p.strip()]
    return None


def _item_number(item: str) -> list[float]:
    """An item's number: the one in its closing brackets ("name (5,140)"), else all."""
    tail = _TAIL_NUMBER.search(item)
    return stated_numbers(tail.group(1)) if tail else stated_numbers(item)


def _names(sentence: str, value: str) -> bool:
    pattern = r"(?<![\w])" + re.escape(value) + r"(?![\w])"
    return re.search(pattern, sentence) is not None


def _category(text: str, truth: str, frame: pd.DataFrame | None) -> str | None:
    sentence = re.split(r"(?<=[.!?])\s+", _first_paragraph(text))[0]
    if not _names(sentence, truth):
        for m in re.finditer(r"\d{4}-\d{2}-\d{2}(?:[ T][\d:]+)?", sentence):
            if databench_match(m.group(), truth, "category"):
                return m.group()
        return None
    if frame is not None:
        for column in frame.columns:
            values = frame[column].dropna().astype(str)
            if truth not in set(values):
                continue
            others = {v for v in values.unique() if v != truth and len(v) > 1 and v not in truth}
            if any(_names(sentence, v) for v in others):
                return None  # it names several values of the column, not one
    return truth


def reply_value(
    text: str,
    semantic: str,
    *,
    question: str = "",
    truth: object = None,
    frame: pd.DataFrame | None = None,
) -> str | None:
    """The answer a reader takes from ``text``, in DataBench's string form, or None
    where the reply states none (see the module docstring for the rules)."""
    para = _first_paragraph(text)
    if semantic == "boolean":
        first = re.match(r"\W*([A-Za-z]+)", para)
        word = first.group(1).lower() if first else ""
        return word if word in _TRUE | _FALSE else None
    if semantic == "number":
        numbers = stated_numbers(para, question)
        return as_databench(numbers[0]) if numbers else None
    if semantic == "category":
        return None if truth is None else _category(para, _bare(truth), frame)
    items = _list_items(text)
    if semantic == "list[number]":
        if items is not None:
            numbers = [x for item in items for x in _item_number(item)]
        else:
            numbers = stated_numbers(para, question)
        return as_databench(numbers) if numbers or items == [] else None
    if items is None:  # "[]" is a list a reader takes, the empty one
        return None
    return as_databench([_TAIL_NUMBER.sub("", item).strip() for item in items])


def left_out(text: str) -> bool:
    """Whether the reply says what it left out of the question."""
    return _LEFT_OUT.search(text) is not None


def confident_wrong(text: str, truth: object, semantic: str, question: str = "") -> bool:
    """A number question whose reply states a number other than the truth and does
    not say what it left out."""
    if semantic not in ("number", "list[number]") or left_out(text):
        return False
    para = _first_paragraph(text)
    if semantic == "number":
        stated = [m.group() for m in _NUMBER.finditer(para)]
        asked = {float(m.group().replace(",", "")) for m in _NUMBER.finditer(question)}
        fresh = [x for x in stated if float(x.replace(",", "")) not in asked] or stated
        return bool(fresh) and not _rounds_to(fresh[0], truth)
    value = reply_value(text, semantic, question=question)
    return value is not None and not databench_match(value, truth, semantic)


def _rounds_to(written: str, truth: object) -> bool:
    """Whether a number as written is the truth, truncated or rounded to its decimals
    ("4,597.91" for 4597.9057)."""
    if databench_match(written, truth, "number"):
        return True
    try:
        value, exact = float(written.replace(",", "")), _to_float(str(truth))
    except ValueError:
        return False
    decimals = len(written.split(".")[1]) if "." in written else 0
    return abs(value - exact) <= 0.5 * 10**-decimals + 1e-9 * max(1.0, abs(exact))
