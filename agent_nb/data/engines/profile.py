"""The planner's `Table` for a source that lives in an engine, from limited queries.

`profile_source` asks the engine two things: how many rows there are (a
Parquet file's metadata, a database's count) and a sample of at most
`SAMPLE` rows (DuckDB's and PostgreSQL's block sampling where the table is
big, reading each block once at most; the first rows where an engine has no
sampling). A CSV file has no count but its rows: both come from one pass
over it (`csv_sample`), never a count and then a sample.

The pandas profiler (`table.profile`) then reads the sample for
each column's role, words and values, exactly as it reads a DataFrame, so a
question means the same over a file as over the frame it came from; a text
column the sample read as numbers ("$1,234") is cast in the engine too
(`text_numbers`), so the plan computes with the numbers the reading saw.

The result is a `SourceTable`: its ``df`` is that sample (what the reading
looks at), its ``source`` what the plan runs on (`execute.run_plan` sends
it to `compile.run_compiled`). Profiles are kept per source (its files, its
URL and table, its expression) while the source's ``stamp`` (a file's size
and mtime, a table's row count) stays the same; a change profiles anew.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import Any

from ..table import Table, profile
from .filters import ROW
from .sources import Source, SourceError
from .text_numbers import as_numbers, readings

__all__ = ["SAMPLE", "SourceTable", "clear", "profile_source"]

SAMPLE = 50_000
_KEPT = 16
_CACHE: OrderedDict[Hashable, tuple[Hashable, SourceTable]] = OrderedDict()
_LOCK = threading.Lock()


@dataclasses.dataclass(frozen=True)
class SourceTable(Table):
    """A `Table` whose ``df`` is a sample and whose plans run on ``source``."""

    source: Source | None = None
    total: int = 0  # the source's rows
    # text columns the engine reads as numbers, and how (`text_numbers.readings`)
    text_numbers: Mapping[str, str] = dataclasses.field(default_factory=dict)


def _sample(source: Source, total: int) -> Any:
    expr = source.expr
    if total > SAMPLE:
        try:  # block sampling: a fraction of the table's blocks, each read once at most
            fraction = min(1.0, 2 * SAMPLE / total)
            return source.execute(expr.sample(fraction, method="block").limit(SAMPLE))
        except Exception:  # an engine without sampling (or a view it cannot sample)
            pass
    return source.execute(expr.limit(SAMPLE))


def _build(name: str, source: Source, context: Mapping[str, Any] | None) -> SourceTable:
    import warnings

    try:
        with warnings.catch_warnings():  # Ibis' pandas warnings stay out of the cell
            warnings.simplefilter("ignore")
            if source.count_and_sample is not None:  # a CSV: counting alone is a scan
                total, sample = source.count_and_sample(SAMPLE)
            else:
                total = int(source.execute(source.expr.count()).iloc[0, 0])
                sample = _sample(source, total)
    except SourceError:
        raise
    except Exception as exc:
        from .sources import _first_line

        raise SourceError(f"could not read {source.label}: {_first_line(exc)}") from None
    sample = sample.drop(columns=[ROW], errors="ignore")
    if total == 0:
        raise ValueError(f"{name} is empty (0 rows, columns: {', '.join(sample.columns[:20])})")
    table = profile(name, sample, context)
    read = readings(sample, table, source.expr.schema())
    fields = {f.name: getattr(table, f.name) for f in dataclasses.fields(Table)}
    notes = table.notes
    if total > len(sample):
        notes = (*notes, f"roles and values read from a sample of {len(sample):,} rows")
    fields["notes"] = notes
    return SourceTable(**fields, source=source, total=total, text_numbers=read)


def _reading(table: SourceTable, source: Source) -> SourceTable:
    """``table`` running on ``source``, its text numbers cast (`text_numbers.as_numbers`)."""
    if table.text_numbers:
        source = dataclasses.replace(source, expr=as_numbers(source.expr, table.text_numbers))
    return dataclasses.replace(table, source=source)


def profile_source(
    name: str, source: Source, context: Mapping[str, Any] | None = None
) -> SourceTable:
    """The planner's table for ``source``, kept while its ``stamp`` stays (module docstring)."""
    key = (source.kind, source.key, name, repr(context))
    stamp = source.stamp()
    with _LOCK:
        kept = _CACHE.get(key)
        if kept is not None and kept[0] == stamp:
            _CACHE.move_to_end(key)
            return _reading(kept[1], source)
    table = _build(name, source, context)
    with _LOCK:
        _CACHE[key] = (stamp, table)
        while len(_CACHE) > _KEPT:
            _CACHE.popitem(last=False)
    return _reading(table, source)


def clear() -> None:
    """Forget every kept profile."""
    with _LOCK:
        _CACHE.clear()
