"""Bad tables: one-line errors or a note, never a wrong fact; big tables answered right.

How fast a question on 10⁶ rows is planned and computed is measured by
``benchmarks/bench_data_scale.py`` (a timed assert here failed on a loaded machine)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from agent_nb.data.answer import ask
from agent_nb.data.insights import compute_insights


def test_empty_and_all_missing_tables_are_one_line_errors() -> None:
    with pytest.raises(ValueError, match=r"^t is empty \(0 rows, columns: a\)$"):
        ask({"t": pd.DataFrame({"a": []})}, "total a?")
    with pytest.raises(ValueError, match="no columns"):
        ask({"t": pd.DataFrame()}, "total a?")
    with pytest.raises(ValueError, match="every column is missing"):
        ask({"t": pd.DataFrame({"a": [np.nan, np.nan]})}, "total a?")


def test_an_all_nan_measure_has_no_highest_group_not_zero() -> None:
    df = pd.DataFrame({"g": ["a", "b", "a"], "y": [np.nan] * 3, "z": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="y has no values"):
        ask({"t": df}, "Which g has the highest total y?")
    text = compute_insights("t", df).text()
    assert "highest total y" not in text and "(0)" not in text


def test_inf_is_left_out_and_said() -> None:
    df = pd.DataFrame({"x": [1.0, np.inf, -np.inf, 3.0]})
    answer = ask({"t": df}, "What is the mean x?")
    assert answer.sentence == "2 is the mean x." and "infinite values" in answer.notes[0]
    text = compute_insights("t", df).text()
    assert "inf" not in text.replace("infinite", "") and "x: total 4, mean 2, from 1 to 3." in text


def test_no_numpy_warning_leaks() -> None:
    df = pd.DataFrame({"g": ["a", "a", "b"], "y": [np.nan, np.nan, 1.0], "t": [np.nan] * 3})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compute_insights("t", df)
        ask({"t": df}, "Which g has the highest mean y?")


def test_odd_column_names_are_repaired_and_said() -> None:
    dup = pd.DataFrame([[1, 2, 3]], columns=["a", "a", 5])
    answer = ask({"t": dup}, "How many rows?")
    assert any("duplicate column names" in n for n in answer.notes)
    assert any("non-string column names" in n for n in answer.notes)
    multi = pd.DataFrame(
        [[1.0, 2.0], [3.0, 5.0]],
        columns=pd.MultiIndex.from_tuples([("sales", "q1"), ("sales", "q2")]),
    )
    answer = ask({"t": multi}, "What is the total sales_q2?")
    assert (
        "flattened from a MultiIndex" in answer.notes[0]
        and answer.sentence == "7 is the total sales_q2."
    )


def test_a_question_naming_nothing_gets_the_columns() -> None:
    df = pd.DataFrame({"region": ["N", "S"], "revenue": [1.0, 2.0]})
    answer = ask({"t": df}, "Tell me a joke.")
    assert answer.plan.op == "columns" and "region, revenue" in answer.sentence


@pytest.mark.slow  # 10⁶ rows
def test_a_code_column_is_a_category_never_a_summed_measure() -> None:
    n = 1_000_000
    df = pd.DataFrame({"k": np.arange(n) % 7, "v": np.random.default_rng(0).random(n)})
    assert "total k" not in compute_insights("t", df).text()
    answer = ask({"t": df}, "Which k has the highest total v?")
    truth = df.groupby("k")["v"].sum()
    assert answer.result.names[0] == str(truth.idxmax())


@pytest.mark.slow  # 10⁶ rows
def test_a_million_rows_with_dates_and_labels_are_answered() -> None:
    n = 1_000_000
    rng = np.random.default_rng(1)
    df = pd.DataFrame({
        "date": pd.date_range("2000-01-01", periods=n, freq="h"),
        "store": rng.choice([f"s{i}" for i in range(500)], n),
        "region": rng.choice(["N", "S", "E", "W"], n),
        "sales": rng.random(n),
    })  # fmt: skip
    for question in ("How did sales change over time?", "What is the total sales in the N region?"):
        ask({"t": df}, question)
    answer = ask({"t": df}, "Which store has the most sales?")
    assert answer.result.names[0] == str(df.groupby("store")["sales"].sum().idxmax())


@pytest.mark.slow  # a 100,000 x 300 table
def test_a_wide_table_stays_within_budget() -> None:
    rng = np.random.default_rng(2)
    df = pd.DataFrame(rng.random((100_000, 300)), columns=[f"m{i}" for i in range(300)])
    df["g"] = rng.choice(list("abcdefgh"), 100_000)
    answer = ask({"w": df}, "Which g has the highest mean m250?")
    assert answer.result.names[0] == str(df.groupby("g")["m250"].mean().idxmax())
    assert len(answer.facts) < 200  # the prompt holds the result, never the table
    assert len(ask({"w": df}, "Hello?").facts) < 400  # the columns, cut at 20


@pytest.mark.parametrize(
    "column",
    [
        pytest.param([[1, 2], [3], [4, 5], []], id="lists"),
        pytest.param(pd.period_range("2020-01", periods=4, freq="M"), id="periods"),
        pytest.param(pd.interval_range(0, 4), id="intervals"),
        pytest.param([b"a", b"b", b"c", b"d"], id="bytes"),
        pytest.param(pd.array([True, None, False, True], dtype="boolean"), id="boolean-na"),
    ],
)
def test_a_column_of_any_pandas_type_beside_the_question_answers(column: object) -> None:
    # each failed the turn before (unhashable lists, an NA whose truth is ambiguous,
    # types Ibis has none for): a column the question does not name changes nothing
    df = pd.DataFrame({"g": ["a", "b", "a", "c"], "v": [1.0, 2.0, 3.0, 4.0], "x": column})
    answer = ask({"df": df}, "Which g has the highest total v?")
    assert answer.value == ["a", "c"]  # tied at 4.0


def test_a_column_of_python_lists_is_read_as_lists() -> None:
    dishes = pd.DataFrame(
        {
            "dish": ["soup", "salad", "stew", "cake"],
            "tags": [["vegan", "gluten free"], ["vegan"], [], ["gluten free"]],
            "price": [3, 4, 5, 6],
        }
    )
    assert ask({"dishes": dishes}, "How many dishes are vegan?").value == 2
    assert ask({"dishes": dishes}, "What is the total price of vegan dishes?").value == 7
