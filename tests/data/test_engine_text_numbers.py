"""Numbers written as text in a DuckDB file, a CSV file and a PostgreSQL table are read
as numbers where the data lives (`engines.text_numbers`), as pandas reads them in a
DataFrame: the same questions get the same answers on both paths."""

from __future__ import annotations

import pathlib
import uuid
from typing import Any

import numpy as np
import pandas as pd
import pytest

from agent_nb.data.answer import ask
from agent_nb.data.engines.profile import SourceTable, clear
from agent_nb.data.profiles import profiled
from agent_nb.data.sources import source

pytest.importorskip("ibis")

QUESTIONS = (
    "What is the total units?",
    "What is the total revenue?",
    "What is the average distance where region is East?",
    "Which region has the highest total revenue?",
    "What is the average margin?",
    "What is the total price_eu?",
    "What is the total lap?",
    "How many sales have revenue above 5000?",  # a filter compares the numbers
    "Which region has the highest average lap?",
    "What is the largest distance?",
    # whole numbers written as text are integers on every path: "1,720,220", not "1720220.0"
    "What is the total units by region?",
    "Which region has the highest total margin?",
)


def written(n: int = 2_000, seed: int = 0) -> pd.DataFrame:
    """Every column but ``region`` holds numbers written as text, each its own way."""
    rng = np.random.default_rng(seed)
    euros = rng.uniform(1, 9000, n).round(1)
    minutes, seconds = rng.integers(1, 9, n), rng.integers(0, 60, n)
    frame = pd.DataFrame({
        "region": rng.choice(["East", "West", "North"], n),
        "units": [f"{u:,}" for u in rng.integers(1, 5000, n)],  # "1,234"
        "revenue": [f"${r:,.2f}" for r in rng.uniform(1, 9000, n)],  # "$1,234.50"
        "distance": [f"{d:.1f} km" for d in rng.uniform(0.5, 40, n)],  # "3.5 km"
        "margin": [f"{p}%" for p in rng.integers(1, 99, n)],  # "12%"
        # "1.234,5 €": a decimal comma
        "price_eu": [f"{e:,.1f} €".translate(str.maketrans(",.", ".,")) for e in euros],
        "lap": [f"{m}:{s:02d}" for m, s in zip(minutes, seconds, strict=True)],  # "1:23"
    })  # fmt: skip
    frame.loc[::97, "revenue"] = "n/a"  # a placeholder is a missing value on both paths
    return frame


def same_answers(frame: pd.DataFrame, data: Any) -> None:
    for question in QUESTIONS:
        on_pandas = ask({"sales": frame}, question)
        where_it_lives = ask({"sales": data}, question)
        assert on_pandas.value is not None, question
        if isinstance(on_pandas.value, str):
            assert where_it_lives.value == on_pandas.value, question
        else:
            assert where_it_lives.value == pytest.approx(on_pandas.value, rel=1e-9), question
        assert where_it_lives.sentence == on_pandas.sentence, question
        # the result table reads the same too (integers where pandas has integers)
        assert on_pandas.result is not None and where_it_lives.result is not None
        shown, expected = where_it_lives.result.frame, on_pandas.result.frame
        assert shown.to_string() == expected.to_string(), question


def test_a_duckdb_file_with_numbers_written_as_text(tmp_path: pathlib.Path) -> None:
    import duckdb

    clear()
    frame = written()
    con = duckdb.connect(str(tmp_path / "shop.duckdb"))
    con.register("frame", frame)
    con.execute("CREATE TABLE sales AS SELECT * FROM frame")
    assert {t for (_, t, *_) in con.sql("DESCRIBE sales").fetchall()} == {"VARCHAR"}
    data = source(con, table="sales")
    same_answers(frame, data)
    table = profiled("sales", data)
    assert isinstance(table, SourceTable)
    assert table.text_numbers == {
        "units": "cells:", "revenue": "cells:$", "distance": "cells:km", "margin": "cells:%",
        "price_eu": "comma", "lap": "times",
    }  # fmt: skip
    # the cast is in the compiled expression: typed, no text of the question in it
    sql = str(table.source.expr.compile()) if table.source else ""
    assert "REGEXP_EXTRACT" in sql and "East" not in sql


def test_a_csv_file_with_numbers_written_as_text(tmp_path: pathlib.Path) -> None:
    clear()
    frame = written(seed=1)
    path = tmp_path / "shop.csv"
    frame.to_csv(path, index=False)
    same_answers(pd.read_csv(path, dtype=str, keep_default_na=False), source(path))


@pytest.mark.slow
def test_a_postgresql_table_with_numbers_written_as_text(postgres: Any) -> None:
    import ibis

    clear()
    frame = written(n=600, seed=2)
    url = postgres.url(f"text_numbers_{uuid.uuid4().hex[:8]}")  # a schema of its own
    con = ibis.connect(url)
    try:
        con.create_table("sales", frame)
    finally:
        con.disconnect()
    same_answers(frame, source(url, table="sales"))


def test_a_csv_keeps_its_dates_and_reads_a_duration_as_text(tmp_path: pathlib.Path) -> None:
    """DuckDB's CSV sniffing would read "12:30" as a time of day; it stays text (and
    `text_numbers` reads it as pandas does), while dates and stamps keep their types."""
    path = tmp_path / "laps.csv"
    path.write_text(
        "when,day,lap,speed\n"
        "2010-10-25 00:00:00+00:00,2010-10-25,12:30,1.5\n"
        "2011-10-25 00:00:00+00:00,2011-10-25,13:00,2\n"
    )
    schema = source(path).expr.schema()
    assert schema["when"].is_timestamp() and schema["day"].is_date()
    assert schema["lap"].is_string() and schema["speed"].is_floating()
