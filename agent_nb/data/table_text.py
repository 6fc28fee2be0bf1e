"""Tables whose cells hold text that means more: numbers written as text, records, lists.

* `numbers_in_text`: a text column whose values are all numbers written as
  text ("6,00 US$", "1.234,5 €", "12%") is read as numbers (a decimal comma
  as a decimal point), with a note;
* `unnest`: a column of records (dicts, or their text ``{'service': 5.0}``)
  becomes one column per key (``ratings_service``), with a note; the text
  is read with `ast.literal_eval` (literals only, never evaluated as code);
* a column of lists (``[Vegetarian, Vegan]``) keeps its text; `list_items`
  gives its items, so a question naming "vegan" names the column, and
  `LIST_TEXT` tells the executor to count items, not whole lists. An empty
  list is a missing value.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .cells import counts_with_shares

__all__ = [
    "LIST_TEXT",
    "empty_lists_missing",
    "is_list_column",
    "items_of",
    "list_items",
    "lists_as_text",
    "numbers_in_text",
    "unnest",
]

LIST_TEXT = re.compile(r"^\[.*\]$", re.DOTALL)
_MONEY = re.compile(
    r"^\s*[$€£]?\s*-?\d{1,3}(?:[.,\s\xa0]?\d{3})*(?:[.,]\d+)?\s*(?:US\$|\$|€|£|%|EUR|USD)?\s*$"
)


def numbers_in_text(df: Any, notes: list[str]) -> Any:
    """Text columns whose values are all numbers written as text ("6,00 US$", "1.234,5 €")
    read as numbers, with a note; a decimal comma is read as a decimal point."""
    import pandas as pd

    changed: list[str] = []
    for column in df.columns:
        s = df[column]
        if not _textual(s):
            continue
        probe = s.head(400).dropna().head(200)
        if probe.empty or not all(isinstance(v, str) and _MONEY.match(v) for v in probe):
            continue
        if not any(re.search(r"[$€£%]|US\$|EUR|USD|,\d{1,2}\b", v) for v in probe):
            continue  # plain digit strings stay text (codes keep their leading zeros)
        shares = sum("%" in v for v in probe)
        if counts_with_shares(shares, len(probe) - shares):
            continue  # "1,282" and "89.7%" row by row
        clean = s.astype(str).str.replace(r"[^\d,.\-]", "", regex=True)
        comma = clean.str.contains(r",\d{1,2}$", regex=True).any()
        if comma:
            clean = clean.str.replace(".", "", regex=False).str.replace(",", ".", regex=False)
        else:
            clean = clean.str.replace(",", "", regex=False)
        if not changed:
            df = df.copy()
        df[column] = pd.to_numeric(clean, errors="coerce")
        changed.append(str(column))
    if changed:
        notes.append(f"numbers written as text read as numbers ({', '.join(changed[:5])})")
    return df


def _textual(series: Any) -> bool:
    import pandas as pd

    return pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series)


def _record(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        try:
            out = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return out if isinstance(out, dict) else None
    return None


def unnest(df: Any, notes: list[str]) -> Any:
    """Each column of records as one column per key (see the module docstring)."""
    import pandas as pd

    done = []
    for column in list(df.columns):
        s = df[column]
        if not _textual(s):
            continue
        probe = s.head(200).dropna().head(50)
        if probe.empty or not all(_record(v) is not None for v in probe):
            continue
        records = [(_record(v) or {}) if v is not None and v == v else {} for v in s]
        flat = pd.json_normalize(records, sep="_")
        flat.index = df.index
        flat.columns = [f"{column}_{k}" for k in flat.columns]
        flat = flat[[c for c in flat.columns if c not in df.columns]]
        at = list(df.columns).index(column)
        df = pd.concat([df.iloc[:, :at], flat, df.iloc[:, at + 1 :]], axis=1)
        done.append(str(column))
    if done:
        notes.append(f"records split into one column per key ({', '.join(done[:5])})")
    return df


def lists_as_text(df: Any, notes: list[str]) -> Any:
    """Columns holding Python lists (or tuples, sets, arrays) as lists written as text
    ("[Vegan, Vegetarian]"): a list cannot be hashed, so it could not be counted,
    grouped or named, and as text it is read as the list it is (`is_list_column`)."""
    import numpy as np

    kinds = (list, tuple, set, frozenset, np.ndarray)

    def written(v: Any) -> Any:
        return "[" + ", ".join(map(str, v)) + "]" if isinstance(v, kinds) else v

    done: list[str] = []
    for column in list(df.columns):
        if df[column].dtype != object:
            continue
        probe = df[column].head(200).dropna().head(50)
        if any(isinstance(v, kinds) for v in probe):
            if not done:
                df = df.copy()
            df[column] = df[column].map(written)
            done.append(str(column))
    if done:
        notes.append(f"lists read as their text ({', '.join(done[:5])})")
    return df


def empty_lists_missing(df: Any) -> Any:
    """An empty list (``[]``) in a list column is a missing value."""
    import numpy as np

    for column in df.columns:
        if is_list_column(df[column]) and (df[column] == "[]").any():
            df = df.copy() if df is not None else df
            df[column] = df[column].replace("[]", np.nan)
    return df


def is_list_column(series: Any) -> bool:
    """A column of lists: written as lists ("[Vegetarian, Vegan]"), or joined by commas
    or line breaks where the items stand alone in other rows too ("Songwriter,
    Lyricist" beside "Lyricist", in at least half of the joined cells): a question
    naming an item asks for the rows that hold it. Commas whose parts never stand alone
    ("Osaka, Japan", "Smith, John") join no list."""
    if not _textual(series):
        return False
    probe = series.head(200).dropna().head(50)
    if probe.empty or not all(isinstance(v, str) for v in probe):
        return False
    if all(LIST_TEXT.match(v) for v in probe):
        return True
    return _joined_list(series.dropna().head(500))


def _joined_list(cells: Any) -> bool:
    texts = [v.strip() for v in cells if isinstance(v, str)]
    joined = [t for t in texts if _JOINED.search(t)]
    if len(texts) < 5 or len(joined) * 5 < len(texts) or len(joined) == len(texts):
        return False  # a few rows list several; most (at least one) hold one item
    alone = {t.lower() for t in texts if not _JOINED.search(t)}

    def holds(cell: str) -> bool:
        # a comma joins a list where one item stands alone elsewhere; lines, where half
        # do ("England\n France"; not "Socket\n0.2 A/250 V\nPlug", a cell's own lines)
        items = [i.strip().lower() for i in _SPLIT.split(cell)]
        found = sum(i in alone for i in items)
        return found * 2 >= len(items) if "\n" in cell else found >= 1

    return sum(map(holds, joined)) * 2 >= len(joined)


#: What joins a list's items in a cell: a comma, or a line break (a page's cell of
#: countries one per line, "England\n France").
_JOINED = re.compile(r", |\n")
_SPLIT = re.compile(r",|\n")


def items_of(series: Any) -> Any:
    """A list column's items, one per row (exploded); empty lists dropped."""
    parts = series.dropna().astype(str).str.strip("[]").str.split(r",\s*|\n\s*", regex=True)
    items = parts.explode().str.strip().str.strip("'\"")
    return items[items != ""]


def list_items(series: Any, limit: int = 5_000) -> list[str]:
    """The distinct items of a list column (empty for any other column)."""
    if not is_list_column(series):
        return []
    return list(dict.fromkeys(items_of(series).head(limit * 4)))[:limit]
