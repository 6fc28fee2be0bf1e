"""Numbers written as text in a file or a database, read as numbers by the engine.

The pandas profiler reads a text column of numbers ("1,234", "$5.2", "12%",
"3.5 km", "1.234,5 €") as numbers (`cells.numbers_as_written`,
`table_text.numbers_in_text`). A source's profile is read from a sample, so
the planner sees numbers there while the engine still holds text: summing it
would fail, or compare text. `readings` finds those columns (text in the
engine's schema, numbers in the profiled sample) and how they were written;
`as_numbers` adds to the source's Ibis table a typed cast for each: the
number is taken out with a regular expression and cast to ``float64`` (exact
for whole numbers below 2⁵³; a column the profile read as integers, "1,234",
is shown as integers in the groups' values, `compile.Engine.as_pandas`, as
pandas shows it: a sample cannot promise the unseen rows hold no "2.5"). The
patterns are constants of this module and the column names come from the
schema: no text of a question or a model becomes SQL.

What the engine reads, as `cells.read_cell` does: a sign, thousands separated
by commas or spaces, a currency sign before (``$``, ``€``, ``US$``...), a
scale word after ("2.5 million"; "k"/"m"/"bn" after a currency), then a unit,
a footnote or a note in brackets. A decimal comma ("1.234,5 €") is read where
the sample wrote one; a time ("1:23", "1:02:03.5") is its seconds. A cell it
cannot read is a missing value (as in pandas).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from .. import vocabulary

__all__ = ["as_numbers", "readings"]

_SIGNS = r"[$€£¥#~]"
_NUMBER = (
    r"^\s*(?:US\$|" + _SIGNS + r")?\s*([-+−–])?\s*(?:US\$|[$€£¥])?\s*"
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?: \d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"\s*(.*)$"
)
# what may follow the number (after a scale word): a unit, a footnote, a note in brackets
_REST = (
    r"^(?:[A-Za-zµ°%$€£¥][A-Za-zµ°²³%./]*\d?(?:\s[A-Za-z][A-Za-z.]*)?)?\s*"
    r"(?:\[[^\]]*\]|[*†‡§¶#]+|\([^()]*\))*\s*$"
)
_SCALE_WORDS: dict[str, float] = vocabulary.mapping("scale_words")  # `cells.SCALE_WORDS`
_SCALE_LETTERS = {"k": 1e3, "m": 1e6, "mn": 1e6, "mil": 1e6, "b": 1e9, "bn": 1e9}
_CURRENCIES = ("$", "€", "£", "¥")
_PLAIN = r"^-?\d+(?:\.\d+)?$"
#: How `readings` says a column writes its decimal point: a comma ("1.234,5") or a point.
_Decimal = Literal["comma", "point"]
_TIME = r"^([-+])?(\d{1,3}):([0-5]\d)(?::([0-5]\d))?(\.\d+)?$"  # `cells._TIME`


def readings(sample: Any, table: Any, schema: Any) -> dict[str, str]:
    """Each column that the engine holds as text and the profile read as numbers, with
    how it was written: ``cells:<unit>`` (`cells.read_cell`'s grammar), ``comma`` or
    ``point`` (`table_text.numbers_in_text`: a decimal comma or point), ``times``.
    ``sample`` is the engine's rows as they came, ``table`` the profiled `Table`."""
    import pandas as pd

    from ..cells import numeric_column

    out: dict[str, str] = {}
    for column in table.df.columns:
        name = str(column)
        if name not in schema or not schema[name].is_string():
            continue
        if not pd.api.types.is_numeric_dtype(table.df[column]):
            continue
        raw = sample[column] if column in sample.columns else None
        if raw is None:
            continue
        read = numeric_column(raw) if name in table.written else None
        if read is not None:
            out[name] = "times" if read[1] == "time" else f"cells:{read[1]}"
            continue
        clean = raw.dropna().astype(str).str.replace(r"[^\d,.\-]", "", regex=True)
        out[name] = "comma" if clean.str.contains(r",\d{1,2}$", regex=True).any() else "point"
    return out


def _cells(s: Any, unit: str) -> Any:
    import ibis

    sign = s.re_extract(_NUMBER, 1)
    digits = s.re_extract(_NUMBER, 2).re_replace(r"[, ]", "").nullif("")
    rest = s.re_extract(_NUMBER, 3).strip().lower()
    value = digits.cast("float64")
    value = ibis.ifelse(sign.isin(["-", "−", "–"]), -value, value)
    word = rest.re_extract(r"^([a-z]+)", 1)
    scales = dict(_SCALE_WORDS)
    if unit in _CURRENCIES:
        scales |= _SCALE_LETTERS
    scale = ibis.cases(*((word == w, k) for w, k in scales.items()), else_=1.0)
    after = ibis.ifelse(word.isin(list(scales)), rest.re_replace(r"^[a-z]+\s*", ""), rest)
    readable = after.re_search(_REST) & ~after.isin(["a.m.", "p.m.", "am", "pm"])
    return ibis.ifelse(readable, value * scale, ibis.null("float64"))


def _decimal(s: Any, comma: bool) -> Any:
    import ibis

    digits = s.re_replace(r"[^\d,.\-]", "")
    # "1.234,5": the point groups thousands, the comma is the decimal point
    point = digits.re_replace(r"\.", "").re_replace(",", ".")
    clean = point if comma else digits.re_replace(",", "")
    number = ibis.ifelse(clean.re_search(_PLAIN), clean, ibis.null("string"))
    return number.cast("float64")


def _seconds(s: Any) -> Any:
    """A time written as text ("1:23" is 83, "1:02:03" is 3723) as its seconds."""
    import ibis

    def part(group: int) -> Any:  # DuckDB gives '' for a group that did not take part
        return s.re_extract(_TIME, group).nullif("").cast("float64")

    first, second, third = part(2), part(3), part(4)
    whole = ibis.ifelse(third.isnull(), first * 60 + second, first * 3600 + second * 60 + third)
    seconds = whole + part(5).fill_null(0.0)
    return ibis.ifelse(s.re_extract(_TIME, 1) == "-", -seconds, seconds)


def as_numbers(expr: Any, read: Mapping[str, str]) -> Any:
    """``expr`` with each column of ``read`` (`readings`) cast to numbers (times stay text)."""
    casts: dict[str, Any] = {}
    for name, how in read.items():
        s = expr[name].strip()
        if how.startswith("cells:"):
            casts[name] = _cells(s, how.removeprefix("cells:"))
        elif how in get_args(_Decimal):
            casts[name] = _decimal(s, how == "comma")
        elif how == "times":
            casts[name] = _seconds(s)
    return expr.mutate(**casts) if casts else expr
