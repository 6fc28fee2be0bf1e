"""Data that lives elsewhere, as ``--data`` and ``ChatWidget(data=...)`` take it: the
data package's face for `engines.sources` (the notebook layer imports this module).

`source` opens a path or glob of Parquet/CSV files, a DuckDB connection and
table or relation, an Ibis table, or a database URL and table; `as_data` is
what the data agent does with each ``--data`` value (a DataFrame stays a
DataFrame).
"""

from __future__ import annotations

from typing import Any

from .engines.sources import Source, SourceError, is_source, open_source, redact

__all__ = ["Source", "SourceError", "as_data", "is_source", "is_url", "redact", "source"]


def source(value: Any, table: str | None = None, *, name: str | None = None) -> Source:
    """``value`` opened where it lives: ``source("sales/*.parquet")``,
    ``source("postgresql://reader@db/shop", table="sales")``, ``source(con, table="sales")``,
    ``source(relation)``, ``source(ibis_table)``. Pass it as ``data={"sales": ...}``.
    Raises `SourceError` (a ValueError) in one line: what is missing, what is allowed."""
    return open_source(value, table=table, name=name or table or "data")


def is_url(text: object) -> bool:
    """Whether ``text`` is a database URL (``scheme://...``), not a variable's name."""
    return isinstance(text, str) and "://" in text


def as_data(name: str, value: Any) -> Any:
    """A ``--data`` value as the data agent takes it: a DataFrame as it is, a source
    opened (``(url_or_connection, "table")`` names the table), else a TypeError that
    says what is allowed."""
    import sys

    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        return value
    if isinstance(value, Source):
        return value
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        return open_source(value[0], table=value[1], name=name)
    if is_source(value):
        return open_source(value, name=name)
    raise TypeError(
        f"data {name!r} must be a pandas DataFrame or a source, got {type(value).__name__}: "
        "a Parquet or CSV path or glob, a DuckDB relation, an Ibis table, or "
        "(connection or database URL, 'table'); wrap a Series with .to_frame(), or use "
        "--data-mode summary for other objects"
    )
