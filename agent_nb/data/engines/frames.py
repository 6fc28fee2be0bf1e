"""A DataFrame's plans on DuckDB, the engine that answers files and databases too.

Every plan over a DataFrame runs on DuckDB (in this process, through Ibis):
one executor for DataFrames, files and database tables. The differential
test (``tests/data/test_engines.py``) shows pandas' hand-written operations
and the engines give the same `Result` for every plan of the suite, and on
WikiTableQuestions and DataBench the two give the same answer to every
question. The copy is a table of DuckDB's own (`sources.frame_source`), and on
10⁶ rows DuckDB is mostly faster than pandas: 0.45-1.03x pandas' time on the
five questions of `benchmarks/bench_data_scale.py --engines pandas,duckdb`
asked again (`sources.frame_source` keeps the SQL Ibis compiled, and runs it
without Ibis' walks of the query), 0.54-1.27x asked anew. The 1.27x is a total
per group over 7 groups of 10⁶ rows, 16 ms on pandas: compiling a new query
through Ibis costs 4-5 ms, which only SQL written without Ibis would save, and
that is the price of one executor for DataFrames, files and databases. Its
first question over a frame pays for the copy (about 0.1 s for 10⁶ rows of
two columns).

Pandas still runs four things, each for its reason:

* a frame of more than `WIDEST` columns: a question reads one or two of them,
  and copying them all into DuckDB costs seconds (10⁵ x 300: 2 s), while
  scanning the frame as Arrow, uncopied, sets up every column at each query
  (8 ms where a copy scans in 2) and the hand-over alone costs 0.4 s. Pandas
  answers such a frame without a copy: on `bench_data_scale.py`'s 10⁵ x 300
  frame, in 76 ms where DuckDB took 88-94 (and 0.56 s for the first question,
  not 0.78);
* a column of lists written as text (``"[Vegan, Vegetarian]"``): its items are
  read by pandas (`table_text.items_of`), which no engine does;
* a frame DuckDB cannot hold (`_handed`: Python integers past 64 bits);
* the small results the engine brings back are put into a `Result` by the
  pandas operations themselves (`compile.on_pandas`), so that wording, order
  and rounding cannot drift between the paths.

``AGENT_NB_DATA_ENGINE=pandas`` runs a DataFrame's plans on pandas alone (the
old path, kept for that comparison).

The frame is handed to DuckDB once per profiled table, with its row order as
a column, so ties and "first" fall as in pandas. The copy is kept by the
frame's content digest (`Table.key`, which `profiles.profiled` checks at every
question) and identity, for the last few frames asked about (`KEPT`), and
dropped with the frame: a frame changed in place gets a fresh copy, and a
frame the user deleted takes its copy with it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import threading
import weakref
from collections import OrderedDict
from typing import Any

from ..query import Plan
from ..result import Result
from ..table import Table

__all__ = ["ENV", "WIDEST", "engine_for_frames", "forget_compiled", "run_on_duckdb"]

ENV = "AGENT_NB_DATA_ENGINE"
WIDEST = 64  # columns past which a frame runs on pandas (see the module docstring)
KEPT = 4  # frames whose DuckDB copy is kept (each copy holds the frame's data once more)
_ON: OrderedDict[tuple[bytes, int], tuple[weakref.ref[Any], Any]] = OrderedDict()
_LOCK = threading.Lock()  # turns compute on worker threads


def engine_for_frames() -> str:
    """``duckdb`` (default) or ``pandas``: what runs a plan over a DataFrame."""
    chosen = os.environ.get(ENV, "duckdb").strip().lower() or "duckdb"
    if chosen not in ("pandas", "duckdb"):
        raise ValueError(f"{ENV} must be 'duckdb' or 'pandas', got {chosen!r}")
    return chosen


def _listy(table: Table, plan: Plan) -> bool:
    named = {plan.measure, plan.group_by, plan.group_by2, plan.time, plan.other}
    return any(table.columns[c].listy for c in named if c in table.columns)


def _handed(df: Any, name: str) -> Any:
    """``df`` as a source once DuckDB holds it, or None where DuckDB cannot hold one of
    its columns (an object column of Python integers past 64 bits, such as 21-digit
    barcodes; objects Arrow has no type for; Periods and Intervals, which Ibis has no
    type for): such a frame stays on pandas, which holds anything. Ibis reads the
    frame's types, and the first query hands the whole frame over (as Arrow): both are
    tried here, once per frame."""
    from .sources import frame_source

    try:
        source = frame_source(df, name, own=True)
        source.execute(source.expr.limit(0))
    except Exception:  # any type Ibis or DuckDB cannot take (Arrow's errors, a Period
        # or an Interval Ibis has no type for): pandas answers instead
        return None
    return source


def run_on_duckdb(table: Table, plan: Plan) -> Result | None:
    """``plan``'s result computed by DuckDB, or None where pandas must run it."""
    if table.df.shape[1] > WIDEST or _listy(table, plan):
        return None
    from .profile import SourceTable
    from .run import run_compiled

    source = _kept(table)
    if source is None:
        return None
    fields = {f.name: getattr(table, f.name) for f in dataclasses.fields(Table)}
    return run_compiled(SourceTable(**fields, source=source, total=len(table.df)), plan)


def _kept(table: Table) -> Any:
    """The DuckDB copy of ``table.df`` (`_handed`), made once per frame content."""
    df = table.df
    if table.key is None:  # not profiled through `profiles.profiled`: nothing vouches for it
        return _handed(df, table.name)
    at = (table.key, id(df))
    with _LOCK:
        kept = _ON.get(at)
        if kept is not None and kept[0]() is df:
            _ON.move_to_end(at)
            return kept[1]
    source = _handed(df, table.name)
    with _LOCK:
        _ON[at] = (weakref.ref(df, functools.partial(_forget, at)), source)
        while len(_ON) > KEPT:
            _ON.popitem(last=False)
    return source


def _forget(at: tuple[bytes, int], _: Any = None) -> None:
    with _LOCK:
        _ON.pop(at, None)


def forget_compiled() -> None:
    """Drop the SQL the kept copies compiled (a benchmark times a question asked anew)."""
    with _LOCK:
        sources = [source for _, source in _ON.values() if source is not None]
    for source in sources:
        if source.compiled is not None:
            source.compiled.clear()
