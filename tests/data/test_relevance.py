"""Which fact answers a question: the 03 table, answers checked against pandas here."""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb import DataAgent
from agent_nb.data.insights import compute_insights
from agent_nb.data.relevance import answering, names, words
from tests.data.frames import sales_frame


def expected_answers(sales: pd.DataFrame) -> dict[str, str]:
    by_region = sales.groupby("region")["revenue"].sum()
    by_month = sales.groupby("month")["revenue"].sum()
    change = (by_month.iloc[-1] - by_month.iloc[0]) / by_month.iloc[0] * 100
    return {
        "Which region has the highest total revenue?": (
            f"By region, {by_region.idxmax()} has the highest total revenue "
            f"({by_region.max():,.0f})."
        ),
        "Which regions sold the least?": (
            f"By region, {by_region.idxmin()} has the lowest total revenue "
            f"({by_region.min():,.0f})."
        ),
        "Which month had the highest revenue?": (
            f"The highest total revenue was in {by_month.idxmax()} ({by_month.max():,.0f})."
        ),
        "How did revenue change over the months?": (
            f"Total revenue {'fell' if change < 0 else 'rose'} {abs(change):.0f}% "
            f"from {by_month.index[0]} to {by_month.index[-1]}."
        ),
        "What is the total revenue?": f"The total revenue is {sales.revenue.sum():,.0f}.",
        "What is the average unit_price?": f"The mean unit_price is {sales.unit_price.mean():.2f}.",
        "What is the average unit price?": f"The mean unit_price is {sales.unit_price.mean():.2f}.",
        "In one sentence: what does this table contain?": (
            "sales has 24 rows and 5 columns: month, region, units, unit_price, revenue."
        ),
    }


@pytest.mark.parametrize("question", list(expected_answers(sales_frame())))
def test_the_fact_that_answers_each_question(question: str) -> None:
    sales = sales_frame()
    found = answering([compute_insights("sales", sales)], question)
    assert found == ("sales", expected_answers(sales)[question])


def test_a_question_no_fact_bears_on_gets_the_headline_facts() -> None:
    sales = sales_frame()
    agent = DataAgent(data={"sales": sales})
    assert answering([compute_insights("sales", sales)], "Tell me a joke.") is None
    text = agent.insights_text("Tell me a joke.")
    by_region = sales.groupby("region")["revenue"].sum()
    assert f"By region, {by_region.idxmax()} has the highest total revenue" in text
    assert "Total revenue fell" in text and "unit_price: total" not in text


def test_focus_writes_the_shape_and_the_answer_and_focus_false_everything() -> None:
    sales = sales_frame()
    question = "Which region has the highest total revenue?"
    focused = DataAgent(data={"sales": sales}).insights_text(question)
    assert focused.splitlines() == [
        "Facts about sales (computed with pandas):",
        "- sales has 24 rows and 5 columns: month, region, units, unit_price, revenue.",
        f"- {expected_answers(sales)[question]}",
    ]
    everything = DataAgent(data={"sales": sales}, focus=False).insights_text(question)
    assert everything == DataAgent(data={"sales": sales}).insights_text()
    assert len(everything.splitlines()) > 10


def test_focus_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="focus must be True or False"):
        DataAgent(data={"sales": sales_frame()}, focus="yes")  # type: ignore[arg-type]


def test_the_answer_goes_with_the_table_it_came_from() -> None:
    sales = sales_frame()
    staff = pd.DataFrame({"team": ["a", "b", "b"], "people": [3, 5, 4]})
    agent = DataAgent(data={"sales": sales, "staff": staff})
    text = agent.insights_text("Which team has the most people?")
    sales_part, staff_part = text.split("\n\n")
    assert sales_part.splitlines()[1:] == [
        "- sales has 24 rows and 5 columns: month, region, units, unit_price, revenue."
    ]
    assert staff_part.splitlines()[-1] == "- By team, b has the highest total people (9)."


def test_words_are_plain_lower_case_tokens_with_singulars() -> None:
    assert words("Which REGIONS sold most? unit_price __import__('os')") >= {
        "which", "regions", "region", "sold", "most", "unit", "price", "import", "os",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("column", "question", "named"),
    [
        ("unit_price", "What is the average unit price?", 2),
        ("unit_price", "What is the average unit_price?", 2),
        ("Unit Price", "average unit prices", 2),
        ("units", "Which region sold the most units?", 1),
        ("units", "revenue per unit", 1),
        ("unit_price", "How many units?", 0),
        ("revenue", "Which region sold most?", 0),
        ("", "anything", 0),
    ],
)
def test_a_question_names_a_column_when_it_has_every_word_of_it(
    column: str, question: str, named: int
) -> None:
    assert names(column, words(question)) == named
