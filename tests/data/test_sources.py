"""``--data`` on data where it lives: files, DuckDB, Ibis, a database URL, through the
real magic; profiles kept per source and marked stale; one-line errors; no password
anywhere a session keeps or shows."""

from __future__ import annotations

import os
import pathlib
from typing import Any

import numpy as np
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from agent_nb import TextMessage, get_runner
from agent_nb.data.engines.profile import SAMPLE, SourceTable, clear
from agent_nb.data.execute import run_plan
from agent_nb.data.profiles import profiled
from agent_nb.data.query import Plan
from agent_nb.data.result import PlanError
from agent_nb.data.sources import SourceError, source
from tests.fixtures_magics import magics, run, turns, usage_error

pytest.importorskip("ibis")


def sales(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "region": rng.choice(["East", "West", "North", "South"], n),
            "units": rng.integers(1, 20, n),
            "price": rng.uniform(5, 55, n).round(2),
            "date": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 900, n), "D"),
        }
    )


@pytest.fixture
def parquet(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pd.DataFrame]:
    clear()
    df = sales(2 * SAMPLE + 5_000)  # more rows than a profile reads
    path = tmp_path / "sales.parquet"
    df.to_parquet(path)
    return path, df


def ask(shell: InteractiveShell, data: str, question: str) -> Any:
    result, cap = run(shell, f"%%agent --once --data {data} -o reply\n{question}")
    assert result.success, cap.stderr
    return shell.user_ns["reply"], cap


def test_a_parquet_path_is_answered_where_it_lives(
    shell: InteractiveShell, parquet: tuple[pathlib.Path, pd.DataFrame]
) -> None:
    path, df = parquet
    shell.user_ns["path"] = path
    reply, cap = ask(shell, "path", "What is the total units?")
    assert reply.answer == int(df["units"].sum())
    assert f"a sample of {SAMPLE:,} rows" in cap.stdout  # the profile read a sample only
    table = profiled("path", source(path))
    assert isinstance(table, SourceTable) and len(table.df) <= SAMPLE < table.total == len(df)
    shell.user_ns["files"] = str(path.parent / "*.parquet")  # a glob, held in a variable
    reply, _ = ask(shell, "files", "Which region has the highest total units?")
    assert reply.answer == df.groupby("region")["units"].sum().idxmax()


def test_duckdb_and_ibis_tables(
    shell: InteractiveShell, parquet: tuple[pathlib.Path, pd.DataFrame]
) -> None:
    import duckdb
    import ibis

    path, df = parquet
    con = duckdb.connect()
    con.execute(f"CREATE TABLE sales AS SELECT * FROM read_parquet('{path}')")
    shell.user_ns.update(
        con=con,
        rel=con.sql("SELECT * FROM sales"),
        itab=ibis.duckdb.connect().read_parquet(str(path)),
    )
    east = df[df["region"] == "East"]["price"].mean()
    reply, _ = ask(shell, "rel", "What is the average price where region is East?")
    assert reply.answer == pytest.approx(east, rel=1e-9)
    reply, _ = ask(shell, "con --table sales", "What is the average price where region is East?")
    assert reply.answer == pytest.approx(east, rel=1e-9)
    reply, _ = ask(shell, "itab", "How many rows have region West?")
    assert reply.answer == int((df["region"] == "West").sum())


def test_the_row_cap_is_said(shell: InteractiveShell, tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"store": [f"s{i % 40:02d}" for i in range(4000)]})
    df["revenue"] = rng.uniform(1, 100, len(df))
    path = tmp_path / "stores.csv"
    df.to_csv(path, index=False)
    shell.user_ns["stores"] = path
    reply, cap = ask(shell, "stores", "What is the total revenue per store?")
    assert "show the first 10 of 40 groups" in cap.stdout
    assert len(reply.data) == 10


def test_a_profile_is_kept_until_the_file_changes(
    parquet: tuple[pathlib.Path, pd.DataFrame],
) -> None:
    path, _ = parquet
    first = profiled("sales", source(path))
    assert profiled("sales", source(path)).df is first.df  # kept: the same sample
    sales(1_000, seed=2).to_parquet(path)  # another size (and mtime)
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 10**9))
    again = profiled("sales", source(path))
    assert again.df is not first.df and again.total == 1_000


def test_bad_sources_are_one_line_errors_and_keep_the_history(
    shell: InteractiveShell, parquet: tuple[pathlib.Path, pd.DataFrame]
) -> None:
    import duckdb

    path, _ = parquet
    shell.user_ns.update(path=path, gone=path.parent / "nope.parquet", con=duckdb.connect())
    result, cap = run(shell, "%%agent --data path\nWhat is the total units?")
    assert result.success, cap.stderr
    before = turns()
    for line, fragment in [
        ("--data gone", "no file matches"),
        ("--data con", "name its table with --table NAME"),
        ("--data con --table sales", "DuckDB has no table 'sales'"),
        ('--data "postgresql://u:pw@127.0.0.1:1/db"', "needs --table NAME"),
        ("--data path --table x", "--table goes with"),
    ]:
        result, cap = run(shell, f"%%agent {line}\nWhat is the total units?")
        usage_error(result, cap, fragment)
    assert turns() == before  # nothing recorded, nothing lost
    table = profiled("path", source(path))
    with pytest.raises(PlanError, match="region holds no numbers to compute with"):
        run_plan(table, Plan(op="aggregate", agg="sum", measure="region"))


def test_a_refused_connection_names_the_host_never_the_password() -> None:
    from tests.fixtures_postgres import free_port

    port = free_port()
    with pytest.raises(SourceError) as caught:
        source(f"postgresql://ann:hunter2-secret@127.0.0.1:{port}/shop", table="sales")
    text = str(caught.value)
    assert f"127.0.0.1:{port}" in text and "hunter2" not in text
    assert len(text.splitlines()) == 1


@pytest.mark.slow
def test_a_database_url_answers_and_its_password_is_kept_nowhere(
    shell: InteractiveShell, postgres: Any
) -> None:
    postgres.sql(
        "DROP TABLE IF EXISTS shop_sales; CREATE TABLE shop_sales (region text, units int);"
        "INSERT INTO shop_sales VALUES ('East', 3), ('West', 5), ('East', 4);"
    )
    url = postgres.url()
    secret = "s3cret-pw"
    assert secret in url
    reply, cap = ask(shell, f'"{url}" --table shop_sales', "What is the total units?")
    assert reply.answer == 12
    result, cap2 = run(shell, f'%%agent --data "{url}" --table nothing_here\nTotal units?')
    line = usage_error(result, cap2, "has no table 'nothing_here'")
    run(shell, f'%%agent --data "{url}" --table shop_sales\nWhich region has the most units?')
    with capture_output() as shown:
        shell.run_line_magic("agent", "trace")
        shell.run_line_magic("agent", "history")
        shell.run_line_magic("agent", "export default --format json")
        shell.run_line_magic("agent", "export default --format md")
    history = get_runner().get_or_create_session("default").history
    kept = " ".join(repr(e) for e in history if isinstance(e, TextMessage))
    for text in (cap.stdout, line, shown.stdout, kept, repr(reply)):
        assert secret not in text
    assert "127.0.0.1" not in kept  # the URL is not in the history either


def test_a_rewritten_file_marks_its_answer_stale(
    shell: InteractiveShell, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "small.csv"
    sales(200).to_csv(path, index=False)
    shell.user_ns["small"] = path
    ask(shell, "small", "What is the total units?")
    run(shell, "x = 1")
    assert magics(shell).staleness.stale() == {}
    sales(300, seed=3).to_csv(path, index=False)  # the same variable, another file content
    run(shell, "y = 2")
    assert magics(shell).staleness.stale() != {}


def test_a_chat_widget_answers_from_a_file(
    runner: Any, scripted: Any, open_widget: Any, tmp_path: pathlib.Path
) -> None:
    from tests.data.test_chart_stored import QUESTION, SENTENCE
    from tests.data.test_chart_stored import sales as regions
    from tests.jupyter.test_widget import send_and_wait, wait_for

    path = tmp_path / "regions.parquet"
    regions().to_parquet(path)
    w = open_widget("file-chat", runner=runner, data={"sales": path})
    scripted.enqueue(SENTENCE)  # true, where the wording is the model's
    send_and_wait(w, QUESTION)
    entries = wait_for(lambda: w.transcript if w.transcript[-1]["kind"] == "turn" else None)
    data = next(e for e in entries if e["kind"] == "data")
    assert data["text"] == SENTENCE and data["table"]["rows"][0] == ["North", 33.0]
    assert data["chart"]["mark"]["type"] == "bar"  # drawn from the aggregated result
    with pytest.raises(SourceError, match="no file matches"):
        open_widget("gone-chat", runner=runner, data={"sales": tmp_path / "gone.parquet"})


from tests.jupyter import test_widget as _widget_tests  # noqa: E402

recording_comms = _widget_tests.recording_comms
open_widget = _widget_tests.open_widget
