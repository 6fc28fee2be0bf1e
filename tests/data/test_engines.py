"""The differential test: every plan the suite produces, on pandas and on each engine.

`tests.data.engine_plans.plans` collects the plans (the planner's first
candidates for every question of the question set and the phrasings, over
their real tables: 274 plans over 13 tables, every operation of the query
language). Each runs on pandas (the `execute` path) and on the same rows held
by an engine through Ibis: DuckDB in this process and the PostgreSQL server the
suite starts (`tests.fixtures_postgres`). Both must give the same `Result`:
the value (floats within 1e-7), the numbers in their roles, the labels and the
others in order, the chart, the row count and the result table; a plan pandas
refuses, the engine refuses too.
"""

from __future__ import annotations

import dataclasses
import signal
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from agent_nb.data.engines.filters import ROW
from agent_nb.data.engines.profile import SourceTable
from agent_nb.data.engines.sources import Source, frame_source
from agent_nb.data.execute import run_plan
from agent_nb.data.result import PlanError, Result
from agent_nb.data.table import Table
from tests.data.engine_plans import difference, plans, profiled

pytest.importorskip("ibis")


def _on(table: Table, backend: Any = None) -> SourceTable:
    fields = {f.name: getattr(table, f.name) for f in dataclasses.fields(Table)}
    source = frame_source(table.df, table.name) if backend is None else _upload(backend, table)
    return SourceTable(**fields, source=source, total=len(table.df))


def _upload(con: Any, table: Table) -> Source:
    """``table``'s rows (with their order, `ROW`) as a PostgreSQL table: Ibis creates it
    from the frame's schema and psycopg copies the rows in (Ibis' own insert cannot
    take column names such as ``sepal length (cm)``)."""
    import ibis
    import pandas as pd

    rows = table.df.assign(**{ROW: range(len(table.df))}).reset_index(drop=True)
    name = f"t_{table.name}_{uuid.uuid4().hex[:6]}"
    con.create_table(name, schema=ibis.memtable(rows).schema())
    columns = ", ".join('"' + c.replace('"', '""') + '"' for c in rows.columns)
    cells = rows.astype(object).where(rows.notna(), None)
    with con.con.cursor() as cur, cur.copy(f'COPY "{name}" ({columns}) FROM STDIN') as copy:
        for row in cells.itertuples(index=False):
            copy.write_row([v.item() if hasattr(v, "item") else v for v in row])
    con.con.commit()
    expr = con.table(name)
    assert isinstance(rows, pd.DataFrame)
    return Source(f"the PostgreSQL table {name}", expr, lambda: len(rows), "database", name)


def _run(table: Table, plan: Any) -> Result | PlanError:
    try:
        return run_plan(table, plan)
    except PlanError as exc:
        return exc


def _differences(engine: Any) -> list[str]:
    out = []
    for name, found in plans().items():
        pandas_table = profiled(name)
        engine_table = _on(pandas_table, engine)
        for plan in found:
            why = difference(_run(pandas_table, plan), _run(engine_table, plan))
            if why is not None:
                out.append(f"[{name}] {plan.describe()}: {why}")
    return out


def test_the_plans_cover_every_operation() -> None:
    ops = {p.op for found in plans().values() for p in found}
    assert len(ops) == 13 and sum(map(len, plans().values())) >= 250, ops


def test_duckdb_gives_what_pandas_gives() -> None:
    assert _differences(None) == []


@pytest.fixture(scope="module")
def postgres_backend(postgres: Any) -> Iterator[Any]:
    import ibis

    schema = "eng_" + uuid.uuid4().hex[:10]
    postgres.url(schema)  # creates the schema
    con = ibis.postgres.connect(
        host="127.0.0.1", port=postgres.port, user="agent", password="s3cret-pw",
        database="agent_nb", schema=schema,
    )  # fmt: skip
    yield con
    con.disconnect()


@pytest.mark.slow
def test_postgresql_gives_what_pandas_gives(postgres_backend: Any) -> None:
    assert _differences(postgres_backend) == []


def _spark_table(spark: Any, con: Any, table: Table) -> SourceTable:
    """``table``'s rows as a Spark view (missing values as nulls, as pandas reads them:
    Spark keeps a float NaN apart from null), read through Ibis' Spark backend."""
    import ibis
    from ibis.backends.pyspark.datatypes import PySparkSchema

    rows = table.df.assign(**{ROW: range(len(table.df))}).reset_index(drop=True)
    schema = PySparkSchema.from_ibis(ibis.memtable(rows).schema())
    cells = rows.astype(object).where(rows.notna(), None)

    def plain(v: Any) -> Any:
        if hasattr(v, "to_pydatetime"):
            return v.to_pydatetime()
        return v.item() if hasattr(v, "item") else v

    data = [tuple(plain(v) for v in row) for row in cells.itertuples(index=False)]
    view = f"t_{table.name}"
    spark.createDataFrame(data, schema).createOrReplaceTempView(view)
    fields = {f.name: getattr(table, f.name) for f in dataclasses.fields(Table)}
    expr = con.table(view)
    source = Source(f"the Spark view {view}", expr, lambda: len(rows), "ibis", view)
    return SourceTable(**fields, source=source, total=len(rows))


@pytest.mark.slow
def test_spark_in_local_mode_gives_what_pandas_gives(tmp_path: Any) -> None:
    """The path to a cluster: one plan of each operation (penguins, with missing values;
    stocks, with dates) through Ibis' Spark backend on a local Spark (Debian's JDK)."""
    import shutil

    if shutil.which("java") is None:
        pytest.skip("no Java runtime: .ci/setup --test installs default-jdk-headless")
    pytest.importorskip("pyspark")
    import ibis
    from pyspark.sql import SparkSession

    # SparkContext installs a SIGINT handler that outlives spark.stop(): put the test
    # process's own back, or a later Ctrl-C test in this worker meets Spark's
    handler = signal.getsignal(signal.SIGINT)
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(tmp_path / "warehouse"))  # not the checkout
        .getOrCreate()
    )
    try:
        spark.sparkContext.setLogLevel("ERROR")
        con = ibis.pyspark.connect(spark)
        chosen: dict[str, tuple[str, Any]] = {}
        for name in ("penguins", "stocks"):
            for plan in plans()[name]:
                chosen.setdefault(plan.op, (name, plan))
        assert len(chosen) >= 12, sorted(chosen)
        tables = {name: _spark_table(spark, con, profiled(name)) for name in ("penguins", "stocks")}
        wrong = [
            f"[{name}] {plan.describe()}: {why}"
            for name, plan in chosen.values()
            if (why := difference(_run(profiled(name), plan), _run(tables[name], plan)))
        ]
        assert wrong == []
    finally:
        spark.stop()
        signal.signal(signal.SIGINT, handler)


def test_a_dataframe_runs_on_duckdb(monkeypatch: pytest.MonkeyPatch) -> None:
    """A DataFrame's plans run on DuckDB by default (the engine's copy of the frame is
    queried); ``AGENT_NB_DATA_ENGINE=pandas`` runs pandas' own operations, with the
    same answer."""
    from agent_nb.data.answer import ask
    from agent_nb.data.engines import sources

    frame = profiled("penguins").df
    question = "What is the average body mass of Gentoo penguins?"
    ran: list[str] = []
    execute = sources.Source.execute

    def counted(self: sources.Source, expr: object) -> object:
        ran.append(self.kind)
        return execute(self, expr)

    monkeypatch.setattr(sources.Source, "execute", counted)
    monkeypatch.delenv("AGENT_NB_DATA_ENGINE", raising=False)
    on_duckdb = ask({"penguins": frame}, question)
    assert ran and set(ran) == {"frame"}
    ran.clear()
    monkeypatch.setenv("AGENT_NB_DATA_ENGINE", "pandas")
    on_pandas = ask({"penguins": frame}, question)
    assert ran == []
    assert on_duckdb.value == pytest.approx(on_pandas.value, rel=1e-12)
    assert on_duckdb.sentence == on_pandas.sentence
    monkeypatch.setenv("AGENT_NB_DATA_ENGINE", "spark")
    with pytest.raises(ValueError, match="must be 'duckdb' or 'pandas'"):
        ask({"penguins": frame}, question)


def test_a_frame_changed_in_place_gets_a_fresh_copy() -> None:
    """The DuckDB copy of a frame is kept across questions, and a change made in place
    (the same object, new values) is answered from the new values, not the copy."""
    import pandas as pd

    from agent_nb.data.answer import ask
    from agent_nb.data.profiles import profiled as kept_profile

    sales = pd.DataFrame({"region": ["East", "West", "East"], "units": [5, 2, 3]})
    question = "What is the total units in the East region?"
    assert ask({"sales": sales}, question).value == 8
    first = kept_profile("sales", sales)
    assert ask({"sales": sales}, question).value == 8
    sales.loc[0, "units"] = 10
    assert ask({"sales": sales}, question).value == 13
    assert kept_profile("sales", sales).key != first.key


def test_a_question_asked_again_reuses_its_compiled_queries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A frame's connection keeps the SQL it compiled: the same question asked again
    (a cell run again) compiles nothing, and gives the same answer; another question
    compiles its own queries."""
    import ibis.backends.duckdb
    import pandas as pd

    from agent_nb.data.answer import ask

    compiled: list[str] = []
    compile_anew = ibis.backends.duckdb.Backend.compile

    def counting(self: Any, expr: Any, /, *args: Any, **kwargs: Any) -> Any:
        sql = compile_anew(self, expr, *args, **kwargs)
        compiled.append(str(sql))
        return sql

    monkeypatch.setattr(ibis.backends.duckdb.Backend, "compile", counting)
    monkeypatch.delenv("AGENT_NB_DATA_ENGINE", raising=False)
    sales = pd.DataFrame({"store": ["a", "b", "a", "c"], "units": [5, 2, 3, 9]})
    question = "Which store has the highest total units?"
    assert ask({"sales_again": sales}, question).value == "c"
    first = len(compiled)
    assert first > 0
    assert ask({"sales_again": sales}, question).value == "c"
    assert len(compiled) == first
    assert ask({"sales_again": sales}, "What is the total units?").value == 19
    assert len(compiled) > first


def test_a_frame_copy_runs_queries_as_ibis_does() -> None:
    """A DataFrame's own connection runs a query without Ibis' pre-execute walks of the
    query (`sources._execute_own`): the frames it returns are Ibis' own, types and
    missing values included, for each kind of result (rows, groups, a scalar, a column)."""
    import pandas as pd

    df = pd.DataFrame({
        "name": ["a", None, "c", "a"],
        "n": [1, 2, 3, 4],
        "x": [0.5, None, 2.5, 1.0],
        "flag": [True, False, None, True],
        "day": pd.to_datetime(["2020-01-01", "2020-02-01", None, "2020-03-01"]),
    })  # fmt: skip
    source = frame_source(df, "kinds", own=True)
    assert source.run is not None
    t = source.expr
    queries = [
        t,
        t.filter(t.n > 1).select("name", "x", "day"),
        t.group_by("name").aggregate(total=t.x.sum(), rows=t.count()).order_by("name"),
        t.aggregate(m=t.x.mean(), d=t.day.max()),
        t.x.sum(),
        t.name,
    ]
    for query in queries:
        ours, ibis_own = source.run(query), query.execute()
        if isinstance(ibis_own, pd.DataFrame | pd.Series):
            assert type(ours) is type(ibis_own)
            if isinstance(ibis_own, pd.DataFrame):
                pd.testing.assert_frame_equal(ours, ibis_own)
            else:
                pd.testing.assert_series_equal(ours, ibis_own)
        else:
            assert ours == ibis_own


def test_a_frame_of_more_columns_than_duckdb_copies_is_answered_by_pandas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A frame of more than `frames.WIDEST` columns runs on pandas (no copy, nothing
    compiled) and gets pandas' answer; with one column fewer past the limit, DuckDB
    answers it."""
    import ibis.backends.duckdb
    import numpy as np
    import pandas as pd

    from agent_nb.data.answer import ask
    from agent_nb.data.engines.frames import WIDEST

    compiled: list[str] = []
    compile_anew = ibis.backends.duckdb.Backend.compile

    def counting(self: Any, expr: Any, /, *args: Any, **kwargs: Any) -> Any:
        compiled.append("sql")
        return compile_anew(self, expr, *args, **kwargs)

    monkeypatch.setattr(ibis.backends.duckdb.Backend, "compile", counting)
    rng = np.random.default_rng(5)
    values = rng.random((40, WIDEST))
    wide = pd.DataFrame(values, columns=[f"m{i}" for i in range(WIDEST)])
    wide["g"] = rng.choice(list("abc"), 40)  # WIDEST + 1 columns
    truth = wide.groupby("g")["m7"].mean().idxmax()
    question = "Which g has the highest mean m7?"
    monkeypatch.setenv("AGENT_NB_DATA_ENGINE", "duckdb")
    assert ask({"wide": wide}, question).value == truth
    assert compiled == []
    narrow = wide.drop(columns=["m0"])  # WIDEST columns: DuckDB's
    assert ask({"narrow": narrow}, question).value == truth
    assert compiled


def test_a_frame_duckdb_cannot_hold_stays_on_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    """21-digit barcodes (Python integers past 64 bits, as DataBench's OpenFoodFacts
    holds them): Arrow refuses the column, so the frame's plans run on pandas, not
    fail with an OverflowError."""
    import pandas as pd

    from agent_nb.data.answer import ask

    frame = pd.DataFrame({
        "code": pd.Series([1522, 228820033805150006599, 4251, 77], dtype=object),
        "labels_en": ["Vegan", None, "Organic", "Vegan"],
    })  # fmt: skip
    question = "How many products have no labels?"
    monkeypatch.setenv("AGENT_NB_DATA_ENGINE", "pandas")
    on_pandas = ask({"products": frame}, question)
    monkeypatch.setenv("AGENT_NB_DATA_ENGINE", "duckdb")
    on_duckdb = ask({"products": frame}, question)
    assert on_pandas.value == on_duckdb.value == 1
    assert on_duckdb.sentence == on_pandas.sentence


def test_cells_read_from_text_are_stated_as_written_on_duckdb(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A time read as seconds for the plan ("3:38:33" is 13113) and an age read from
    "21 years" are stated as the frame writes them on DuckDB too: the engine's rows
    carry their position in the frame (`filters.ROW`), which finds the cell."""
    import pandas as pd

    from agent_nb.data.answer import ask

    races = pd.DataFrame({
        "Year": [2003, 2004, 2005, 2006],
        "Time": ["3:41:02", "3:38:33", "3:45:10", "3:39:59"],
        "Age": ["17 years", "21 years", "19 years", "18 years"],
    })  # fmt: skip
    questions = ("What was the time in 2004?", "Which year has the highest age?")
    monkeypatch.setenv("AGENT_NB_DATA_ENGINE", "pandas")
    on_pandas = [ask({"races": races}, q) for q in questions]
    monkeypatch.setenv("AGENT_NB_DATA_ENGINE", "duckdb")
    on_duckdb = [ask({"races": races}, q) for q in questions]
    assert on_duckdb[0].value == on_pandas[0].value == "3:38:33"
    for a, b in zip(on_pandas, on_duckdb, strict=True):
        assert b.sentence == a.sentence
        assert a.result is not None and b.result is not None
        assert b.result.shown.to_dict("records") == a.result.shown.to_dict("records")
