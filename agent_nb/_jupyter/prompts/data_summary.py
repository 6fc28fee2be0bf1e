"""Bounded summaries of notebook objects for ``%%agent --data VAR``.

A small local model has a context of a few thousand tokens and prefill costs
real time on CPU, so a DataFrame is never pasted whole: the summary holds the
parts that answer most questions (shape, dtypes, a few rows, ``describe()``)
and is cut to a token budget, dropping the least useful parts first.

Tokens are counted with the model's own tokenizer when the backend has one
(`Backend.count_text_tokens`; the MLX backend does), because a character
estimate is badly wrong for numeric tables: digits, signs and column padding
tokenise to about 1.8 characters each, so a table "budgeted" at 600 tokens by
four characters per token came out at 1,343. Backends without a local
tokenizer (an OpenAI-compatible server, the scripted fake) fall back to the
one estimate of `agent_nb._core.tokens`, which is then only approximate.

pandas and numpy are never imported here: an object can only be a DataFrame
if pandas is already in ``sys.modules``, so the check looks there.
"""

from __future__ import annotations

import functools
import reprlib
import sys
import warnings
from collections.abc import Callable
from typing import Any

from ..._core.tokens import CHARS_PER_TOKEN_CAP, estimate_text_tokens

__all__ = ["summarize"]

_TRUNCATED = "\n… (truncated to fit the token budget)"


def summarize(
    name: str,
    obj: Any,
    budget_tokens: int = 600,
    count_tokens: Callable[[str], int] | None = None,
) -> str:
    """A text summary of ``obj`` of at most ``budget_tokens`` tokens as
    ``count_tokens`` counts them (default: the estimate)."""
    budget = max(40, budget_tokens)
    count = count_tokens or estimate_text_tokens
    limit = budget * CHARS_PER_TOKEN_CAP  # no summary is longer than this many characters
    header = f"Data `{name}` ({_type_name(obj)}):\n"
    for attempt in _attempts(obj, limit):
        text = header + attempt()
        if len(text) <= limit and count(text) <= budget:
            return text
    return _cut_to(header + _plain_repr(obj, limit), budget, count)


def _type_name(obj: Any) -> str:
    cls = type(obj)
    module = cls.__module__.split(".")[0]
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _cut_to(text: str, budget: int, count: Callable[[str], int]) -> str:
    """The longest prefix (plus the truncation mark) that fits ``budget`` tokens."""
    if count(text) <= budget:
        return text
    low, high = 0, len(text)  # binary search: about a dozen tokenizer calls
    while low < high:
        middle = (low + high + 1) // 2
        if count(text[:middle] + _TRUNCATED) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low] + _TRUNCATED


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(_TRUNCATED))] + _TRUNCATED


def _attempts(obj: Any, limit: int) -> list[Callable[[], str]]:
    """Ever smaller renderings, most informative first."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(obj, pd.DataFrame):
        sizes = ((5, 20, True), (3, 12, True), (3, 8, False), (2, 5, False))
        return [functools.partial(_frame, obj, *size) for size in sizes]
    if pd is not None and isinstance(obj, pd.Series):
        return [functools.partial(_series, obj, 5, True), functools.partial(_series, obj, 3, False)]
    np = sys.modules.get("numpy")
    if np is not None and isinstance(obj, np.ndarray):
        return [functools.partial(_array, obj, 8), functools.partial(_array, obj, 3)]
    return [functools.partial(_plain_repr, obj, limit)]


def _frame(df: Any, rows: int, cols: int, stats: bool) -> str:
    ncols = df.shape[1]
    shown = df.iloc[:, :cols]
    more = f" (first {cols} of {ncols} shown)" if ncols > cols else ""
    dtypes = ", ".join(f"{c}: {t}" for c, t in shown.dtypes.items())
    parts = [
        f"shape: {df.shape[0]} rows x {ncols} columns",
        f"dtypes{more}: {dtypes}",
        f"head({rows}):\n{shown.head(rows).to_string(max_colwidth=30)}",
    ]
    if stats:
        numeric = shown.select_dtypes("number")
        if numeric.shape[1] and len(df):
            parts.append(f"describe():\n{numeric.describe().round(4).to_string()}")
    missing = int(df.isna().sum().sum()) if len(df) else 0
    if missing:
        parts.append(f"missing values: {missing}")
    return "\n".join(parts)


def _series(series: Any, rows: int, stats: bool) -> str:
    parts = [
        f"length: {len(series)}, dtype: {series.dtype}, name: {series.name!r}",
        f"head({rows}):\n{series.head(rows).to_string(max_rows=rows)}",
    ]
    if stats and len(series) and series.dtype.kind in "biuf":
        parts.append(f"describe():\n{series.describe().round(4).to_string()}")
    return "\n".join(parts)


def _array(arr: Any, items: int) -> str:
    import numpy as np  # already imported: the object is an ndarray

    parts = [f"shape: {arr.shape}, dtype: {arr.dtype}"]
    if arr.size and arr.dtype.kind in "biuf":
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            values = arr.astype(float, copy=False)
            parts.append(
                "stats: "
                f"min={np.nanmin(values):.6g} max={np.nanmax(values):.6g} "
                f"mean={np.nanmean(values):.6g} std={np.nanstd(values):.6g}"
            )
            nans = int(np.isnan(values).sum())
            if nans:
                parts.append(f"NaN values: {nans}")
    with np.printoptions(threshold=items * 2, edgeitems=items // 2 or 1, precision=4):
        parts.append(f"values: {np.array2string(arr, max_line_width=100)}")
    return "\n".join(parts)


def _plain_repr(obj: Any, limit: int) -> str:
    short = reprlib.Repr()
    short.maxstring = short.maxother = min(limit, 2000)
    short.maxlist = short.maxtuple = short.maxset = short.maxdict = 20
    try:
        text = short.repr(obj)
    except Exception as exc:  # a broken __repr__ must not stop the turn
        text = f"<repr failed: {type(exc).__name__}: {exc}>"
    return _cut(text, limit)
