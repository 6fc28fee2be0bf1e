"""What ``--data`` names besides a DataFrame, opened as an Ibis table (`Source`).

* a path or glob of Parquet or CSV files (a `pathlib.Path`, or a string held in a
  variable): DuckDB reads it lazily, in place (a view, never loaded whole);
* a DuckDB connection and a table name (``--data con --table sales``), or a
  DuckDB relation;
* an Ibis table expression, on whatever backend the user connected;
* a database URL (SQLAlchemy's spelling, ``postgresql://user@host/db``) and a
  table name: ``--data "postgresql://..." --table sales`` or
  ``source("postgresql://...", table="sales")``; Ibis connects.

Credentials stay in the connection: a `Source` keeps only `redact`'s form of
a URL (no password), and every error names the host, never the password.
A source's ``stamp`` changes when its data changes (a file's size and mtime,
a table's row count), which is what marks a kept profile stale.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import pathlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any
from urllib.parse import urlsplit

from ..result import PlanError

__all__ = [
    "CONNECT_TIMEOUT", "FILE_KINDS", "Source", "SourceError",
    "engine_error", "frame_source", "is_source", "open_source", "redact",
]  # fmt: skip

CONNECT_TIMEOUT = 10  # seconds a database server has to answer
FILE_KINDS = (".parquet", ".pq", ".csv", ".tsv", ".csv.gz", ".tsv.gz")
# DuckDB's own CSV types less TIME: "1:23" is 1 minute 23 as pandas reads it (83 s,
# `cells.read_cell`), not 01:23:00; it stays text and `text_numbers` reads it.
_CSV_TYPES = ("BOOLEAN", "BIGINT", "DOUBLE", "DATE", "TIMESTAMP", "TIMESTAMPTZ", "VARCHAR")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_ALLOWED = (
    "a pandas DataFrame, a Parquet or CSV path or glob ('sales/*.parquet'), a DuckDB "
    "connection with --table NAME, a DuckDB relation, an Ibis table, or a database URL "
    "with --table NAME ('postgresql://user@host/db')"
)


#: The most distinct values of a column `Source.distinct` keeps.
DISTINCT = 10_000


class SourceError(ValueError):
    """A source that cannot be opened or read (one line; never a password)."""


@dataclasses.dataclass(frozen=True, eq=False)
class Source:
    """An Ibis table and how to say it; ``stamp()`` changes when the data changes."""

    label: str  # what replies and errors call it (a URL without its password)
    expr: Any  # the Ibis table
    stamp: Callable[[], Hashable]
    kind: str = "table"  # "files", "duckdb", "ibis", "database"
    key: Hashable = None  # the same data opened again has the same key (profiles kept)
    run: Callable[[Any], Any] | None = None  # how to run an expression, where not Ibis'
    # the row count and a sample of at most n rows from one pass, where counting alone
    # costs a scan (a CSV: `csv_sample`); None: the count, then a sample (`profile`)
    count_and_sample: Callable[[int], tuple[int, Any]] | None = None
    # a column's distinct values, read once (a DataFrame's copy never changes: a frame
    # changed in place is another source); None where there are more than `DISTINCT`
    seen: dict[str, tuple[Any, ...] | None] = dataclasses.field(default_factory=dict, repr=False)
    # the SQL a DataFrame's own connection compiled, by query (`_keep_compiled`)
    compiled: dict[Any, str] | None = dataclasses.field(default=None, repr=False)

    def distinct(self, column: str) -> tuple[Any, ...] | None:
        """``column``'s distinct values (not missing) where it has at most `DISTINCT` and
        the source's data cannot change under it (a DataFrame's copy); else None."""
        if self.kind != "frame":
            return None
        if column not in self.seen:
            t = self.expr
            values = t.filter(t[column].notnull()).select(v=t[column]).distinct()
            got = self.execute(values.limit(DISTINCT + 1))["v"]
            self.seen[column] = tuple(got) if len(got) <= DISTINCT else None
        return self.seen[column]

    def execute(self, expr: Any) -> Any:
        """``expr``'s result as a pandas DataFrame (a scalar's as one row)."""
        out = expr.execute() if self.run is None else self.run(expr)
        if not hasattr(out, "columns"):
            import pandas as pd

            out = pd.DataFrame({"value": [out]})
        return out


def redact(url: str) -> str:
    """``url`` without its password (``postgresql://ann:***@db:5432/shop``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<a database URL>"
    if parts.password is None:
        return url
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    user = parts.username or ""
    query = "?…" if parts.query else ""
    return f"{parts.scheme}://{user}:***@{host}{port}{parts.path}{query}"


def _host(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}{f':{parts.port}' if parts.port else ''}"


def _scrub(text: str, secret: str | None) -> str:
    if secret:
        text = text.replace(secret, "***")
    return re.sub(r"(://[^:/@\s]*:)[^@\s]*@", r"\1***@", text)


def is_source(value: object) -> bool:
    """Whether ``value`` is something `open_source` opens (checked without importing
    Ibis or DuckDB: a notebook that never used them holds none of their objects)."""
    if isinstance(value, pathlib.PurePath):
        return True
    if isinstance(value, str):
        return bool(_URL.match(value)) or _is_file_name(value)
    module = type(value).__module__
    return module.startswith(("duckdb", "_duckdb")) or (
        module.startswith("ibis") and type(value).__name__ == "Table"
    )


def _is_file_name(text: str) -> bool:
    return text.lower().endswith(FILE_KINDS) or any(c in text for c in "*?[")


def open_source(value: Any, *, table: str | None = None, name: str = "data") -> Source:
    """``value`` opened as a `Source` (see the module docstring); a `SourceError` in
    one line, saying what is allowed, for anything else."""
    if isinstance(value, Source):
        return value
    if isinstance(value, pathlib.PurePath) or (isinstance(value, str) and not _URL.match(value)):
        return _files(str(value))
    if isinstance(value, str):
        return _database(value, table)
    module, kind = type(value).__module__, type(value).__name__
    if module.startswith(("duckdb", "_duckdb")):
        return _duckdb(value, table, name)
    if module.startswith("ibis") and kind == "Table":
        return Source(f"the Ibis table {name}", value, _row_count(value), "ibis", value)
    raise SourceError(f"--data {name} is a {kind}; it must be {_ALLOWED}")


def _row_count(expr: Any) -> Callable[[], Hashable]:
    def stamp() -> Hashable:
        return int(expr.count().execute())

    return stamp


def _files(path: str) -> Source:
    import ibis

    pattern = os.path.expanduser(path)
    matched = sorted(glob.glob(pattern)) if any(c in pattern for c in "*?[") else [pattern]
    matched = [m for m in matched if os.path.isfile(m)]
    if not matched:
        raise SourceError(
            f"no file matches {path!r}: --data takes a Parquet or CSV file or glob "
            "(e.g. 'sales/*.parquet') that exists"
        )
    lower = [m.lower() for m in matched]
    if not all(m.endswith(FILE_KINDS) for m in lower):
        odd = next(m for m, lo in zip(matched, lower, strict=True) if not lo.endswith(FILE_KINDS))
        raise SourceError(f"{odd!r} is not a Parquet or CSV file ({', '.join(FILE_KINDS)})")
    con = ibis.duckdb.connect()
    con.raw_sql("SET enable_progress_bar = false")  # DuckDB's bar would print in the cell
    try:
        if all(m.endswith((".parquet", ".pq")) for m in lower):
            expr = con.read_parquet(matched)
        elif all(m.endswith((".csv", ".tsv", ".csv.gz", ".tsv.gz")) for m in lower):
            expr = con.read_csv(matched, auto_type_candidates=list(_CSV_TYPES))
        else:
            raise SourceError(f"{path!r} mixes Parquet and CSV files: name one kind")
    except SourceError:
        raise
    except Exception as exc:
        raise SourceError(f"DuckDB could not read {path!r}: {_first_line(exc)}") from None

    def stamp() -> Hashable:
        now = sorted(glob.glob(pattern)) if any(c in pattern for c in "*?[") else [pattern]
        return tuple(
            (m, os.stat(m).st_size, os.stat(m).st_mtime_ns) for m in now if os.path.isfile(m)
        )

    label = matched[0] if len(matched) == 1 else f"{path} ({len(matched)} files)"
    one_pass = None
    if not all(m.endswith((".parquet", ".pq")) for m in lower):  # Parquet counts from metadata
        from .csv_sample import count_and_sample

        one_pass = count_and_sample(expr, matched, lambda e: e.execute())
    return Source(label, expr, stamp, "files", tuple(matched), count_and_sample=one_pass)


def _duckdb(value: Any, table: str | None, name: str) -> Source:
    import ibis

    kind = type(value).__name__
    if "Relation" in kind:
        return _relation(value, name)
    if "Connection" not in kind:
        raise SourceError(f"--data {name} is a {kind}; it must be {_ALLOWED}")
    if not table:
        raise SourceError(
            f"--data {name} is a DuckDB connection: name its table with --table NAME "
            "(Python: source(con, table='sales'))"
        )
    # a cursor of its own: the same database, but none of the user's pending results
    con = ibis.duckdb.from_connection(value.cursor())
    expr = _table(con, table, "DuckDB")
    return Source(f"the DuckDB table {table}", expr, _row_count(expr), "duckdb", (id(value), table))


def _relation(rel: Any, name: str) -> Source:
    """A DuckDB relation: the plan's Ibis expression is compiled to DuckDB's SQL and run by
    the relation itself (`DuckDBPyRelation.query`), on the connection it came from."""
    import ibis

    view = f"agent_nb_{''.join(c if c.isalnum() else '_' for c in name)}"
    schema = ibis.Schema.from_pyarrow(rel.limit(0).to_arrow_table().schema)
    expr = ibis.table(schema, name=view)

    def run(query: Any) -> Any:
        return rel.query(view, str(ibis.to_sql(query, dialect="duckdb"))).df()

    def stamp() -> Hashable:
        return int(rel.query(view, f"SELECT count(*) FROM {view}").fetchall()[0][0])

    label = f"the DuckDB relation {name}"
    return Source(label, expr, stamp, "duckdb", rel.sql_query(), run)


def _table(con: Any, table: str, where: str) -> Any:
    try:
        names = con.list_tables()
    except Exception:  # a backend that cannot list: try the table itself
        names = None
    if names is not None and table not in names:
        shown = ", ".join(sorted(names)[:20]) or "none"
        raise SourceError(f"{where} has no table {table!r} (its tables: {shown})")
    return con.table(table)


def _database(url: str, table: str | None) -> Source:
    import ibis

    shown = redact(url)
    if not table:
        raise SourceError(f"a database URL needs the table to ask about: --table NAME ({shown})")
    parts = urlsplit(url)
    secret = parts.password
    # A server that does not answer fails in CONNECT_TIMEOUT seconds, not never.
    wait = {}
    if parts.scheme.startswith("postgres") and "connect_timeout" not in parts.query:
        wait = {"connect_timeout": CONNECT_TIMEOUT}
    try:
        con = ibis.connect(url, **wait)
    except Exception as exc:
        raise SourceError(
            f"could not connect to {_host(url)} ({parts.scheme}): "
            f"{_scrub(_first_line(exc), secret)}; check the host, the user and that the "
            "server is running"
        ) from None
    expr = _table(con, table, f"the database at {_host(url)}")
    return Source(f"{table} at {shown}", expr, _row_count(expr), "database", (shown, table))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def engine_error(source: Source, plan: Any, exc: BaseException) -> PlanError:
    """An engine's refusal of a compiled plan, in one line that names the source."""
    return PlanError(
        f"{plan.describe()}: {source.label} refused it: {_scrub(_first_line(exc), None)}"
    )


#: Compiled queries a DataFrame's connection keeps (`_keep_compiled`).
COMPILED_KEPT = 256


def _keep_compiled(con: Any) -> OrderedDict[Any, str]:
    """Let ``con`` (a DataFrame's own DuckDB connection) keep the SQL of the queries it
    compiled, by the query's structure (an Ibis node hashes and compares as a tree).

    Ibis compiles every query anew: 3-8 ms a question (more on a frame of many
    columns), a third to a half of what DuckDB's path costs beyond pandas'. A
    question asked again (a cell run again, the widget re-asking after a reload)
    runs the same queries: they skip the compile. Only this connection's bare
    queries are kept (no limit, no parameters), and its data never changes (a
    frame changed in place gets another connection), so a kept SQL never goes stale.
    """
    compile_anew = con.compile
    kept: OrderedDict[Any, str] = OrderedDict()

    def compile(expr: Any, /, *args: Any, **kwargs: Any) -> Any:
        if args or any(v is not None for v in kwargs.values()):
            return compile_anew(expr, *args, **kwargs)
        key = expr.op()
        sql = kept.get(key)
        if sql is None:
            sql = kept[key] = compile_anew(expr, **kwargs)
            if len(kept) > COMPILED_KEPT:
                kept.popitem(last=False)
        else:
            kept.move_to_end(key)
        return sql

    con.compile = compile
    return kept


def _execute_own(con: Any, expr: Any) -> Any:
    """``con.execute(expr)`` on a DataFrame's own connection, without Ibis' pre-execute
    hooks: they walk the query's whole tree three times (memtables to register, record
    batch readers, spatial functions) for about 3 ms a query, half of what DuckDB itself
    takes for a total per group over 10⁶ rows. This connection holds one table of its
    own and the compiled plans read nothing else (no memtable, no reader, no spatial
    type), so the walks find nothing. The rest is Ibis' own `execute`: the same SQL
    (compiled once, `_keep_compiled`), the same Arrow-to-pandas conversion and types."""
    import pandas as pd
    import pyarrow.types as pat
    from ibis.backends.duckdb.converter import DuckDBPandasData

    table_expr = expr.as_table()
    got = con.con.sql(con.compile(table_expr)).to_arrow_table()
    df = pd.DataFrame({
        name: col.to_pylist()
        if pat.is_nested(col.type) or pat.is_dictionary(col.type) or col.null_count
        else col.to_pandas()
        for name, col in zip(got.column_names, got.columns, strict=True)
    })  # fmt: skip
    return expr.__pandas_result__(DuckDBPandasData.convert_table(df, table_expr.schema()))


def frame_source(df: Any, name: str = "data", *, backend: Any = None, own: bool = False) -> Source:
    """A DataFrame as a source on ``backend`` (default: DuckDB in this process; ``own``: a
    DuckDB connection of its own, progress bar off, holding a copy of the frame), with its
    row order kept as the `filters.ROW` column (ties and "first" as pandas has them)."""
    import ibis

    from .filters import ROW

    rows = df.assign(**{ROW: range(len(df))}).reset_index(drop=True)
    if own:
        con = ibis.duckdb.connect()
        con.raw_sql("SET enable_progress_bar = false")
        handed = ibis.memtable(rows)
        con.execute(handed.limit(0))  # registers it (as Arrow), with Ibis' own types
        # a table of DuckDB's own, not the frame registered as Arrow: its scans run 2-3x
        # faster (10^6 rows: a store's total in 11 ms, not 26), and the Arrow copy it is
        # made from is dropped. (Ibis' `create_table` from a frame fails on this DuckDB:
        # its DROP VIEW is unnamed.)
        view = handed.get_name()
        con.raw_sql(f'CREATE TABLE frame AS SELECT * FROM "{view}"')
        con.raw_sql(f'DROP VIEW "{view}"')
        expr = con.table("frame")
        compiled = _keep_compiled(con)
        lock = threading.Lock()  # one connection, and turns compute on worker threads

        def run(e: Any) -> Any:
            with lock:
                return _execute_own(con, e)

        label = f"the DataFrame {name}"
        return Source(
            label, expr, _row_count(expr), "frame", (id(df), name), run, compiled=compiled
        )
    if backend is None:  # Ibis' default backend: DuckDB in this process, reading the frame
        expr = ibis.memtable(rows)
    else:
        expr = backend.create_table(f"agent_nb_{name}_{id(df):x}", rows)
    return Source(f"the DataFrame {name}", expr, _row_count(expr), "frame", (id(df), name))
