"""Questions that offer two values and ask which one holds (issue 47, found on
WikiTableQuestions' development tables, none of whose questions is here).

"Was Big Bang 2 recorded in Japanese or Korean?" opens like a yes/no question, but
"yes" answers neither: it asks which of the two values offered the row it names
holds. "Which model is a diesel, the Tour or the Aspect?" asks which of two rows
meets the rest of the question. The answer is the one value offered that the rows
hold; where they hold both, or neither, nothing is stated. "Is there a diesel or
petrol car?" names no other row: whether either is there, not which.

Each truth is read off the frame built here, with pandas.
"""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask


@pytest.fixture(scope="module")
def models() -> pd.DataFrame:
    return pd.DataFrame({
        "Model": ["Tour", "Aspect", "Via", "Tour", "Sprint"],
        "Fuel": ["Diesel", "Petrol", "Diesel", "Petrol", "Electric"],
        "Year": [2001, 2002, 2003, 2004, 2005],
        "Language": ["Japanese", "Korean", "Japanese", "Korean", "English"],
    })  # fmt: skip


def _held(df: pd.DataFrame, column: str, offered: tuple[str, str], **named: object) -> set[str]:
    rows = df[df[column].isin(offered)]
    for name, value in named.items():
        rows = rows[rows[name] == value]
    return set(rows[column])


@pytest.mark.parametrize(
    ("question", "column", "offered", "named"),
    [
        ("Was the Via a diesel or petrol?", "Fuel", ("Diesel", "Petrol"), {"Model": "Via"}),
        ("Was the Aspect recorded in Japanese or Korean?", "Language", ("Japanese", "Korean"),
         {"Model": "Aspect"}),
        ("Which model is a diesel, the Tour or the Aspect?", "Model", ("Tour", "Aspect"),
         {"Fuel": "Diesel"}),
        ("Was the 2003 model the Tour or the Via?", "Model", ("Tour", "Via"), {"Year": 2003}),
    ],
)  # fmt: skip
def test_the_value_offered_that_the_named_rows_hold(
    models: pd.DataFrame,
    engine: str,
    question: str,
    column: str,
    offered: tuple[str, str],
    named: dict[str, object],
) -> None:
    (truth,) = _held(models, column, offered, **named)
    answer = ask({"models": models}, question)
    assert answer.value == truth
    assert answer.plan.op == "lookup" and answer.plan.group_by == column


@pytest.mark.parametrize(
    ("question", "both"),
    [
        ("Which model is a diesel, the Tour or the Via?", "both Tour and Via"),
        ("Was the Tour diesel or petrol?", "both Diesel and Petrol"),
    ],
)
def test_rows_that_hold_both_values_offered_state_neither(
    models: pd.DataFrame, question: str, both: str
) -> None:
    answer = ask({"models": models}, question)
    assert answer.value is None
    assert f"{both} fit the rest of the question" in answer.sentence


def test_values_offered_with_no_row_named_ask_whether_either_is_there(
    models: pd.DataFrame,
) -> None:
    """No other value names rows: the reading stays a yes/no question about both (which
    the answer does not state: "or" asks which of them)."""
    answer = ask({"models": models}, "Is there a diesel or petrol car?")
    assert answer.plan.op == "exists"
    assert answer.value is None


@pytest.fixture(scope="module")
def releases() -> pd.DataFrame:
    return pd.DataFrame({
        "Title": ["Atomic", "Last Dayz", "Merope", "Artamene"],
        "Year": [2001, 1999, 2005, 2003],
        "Label": ["Sony", "EMI", "Decca", "Decca"],
    })  # fmt: skip


@pytest.mark.parametrize(
    ("question", "early"),
    [
        ("Which was released earlier, Atomic or Last Dayz?", True),
        ("Which came first, Merope or Artamene?", True),
        ("Which was released later, Atomic or Last Dayz?", False),
    ],
)
def test_which_of_two_came_first_in_time_reads_the_years(
    releases: pd.DataFrame, engine: str, question: str, early: bool
) -> None:
    """In time, by the column of years, not by where the rows stand in the table."""
    offered = releases[releases.Title.isin(question.rstrip("?").split(", ")[1].split(" or "))]
    truth = offered.sort_values("Year", ascending=early).Title.iloc[0]
    assert ask({"releases": releases}, question).value == truth


def test_which_of_two_is_listed_first_reads_the_tables_order(
    releases: pd.DataFrame, engine: str
) -> None:
    """ "listed first" is the table's order, also where it holds years; with no column of
    years or dates, "came first" is the table's order too."""
    listed = ask({"releases": releases}, "Which is listed first, Artamene or Merope?")
    assert listed.value == "Merope"  # the third row, before the fourth; 2005 is no earlier
    untimed = releases.drop(columns="Year")
    assert ask({"releases": untimed}, "Which came first, Artamene or Merope?").value == "Merope"


def test_which_of_two_came_first_by_what_is_not_read_states_nothing(
    releases: pd.DataFrame,
) -> None:
    """By dates (which no extreme computes with), or by a column the question names
    ("eliminated first" of an Eliminated column), the table's order answers nothing."""
    dated = releases.drop(columns="Year").assign(
        Released=pd.to_datetime(["2001-05-01", "1999-02-01", "2005-03-03", "2003-01-01"])
    )
    assert ask({"releases": dated}, "Which came last, Merope or Artamene?").value is None
    show = pd.DataFrame({
        "Name": ["Viet Pham", "Nikki Dinki", "Emily Ellyn"],
        "Eliminated": ["Week 3", "Winner", "Week 1"],
    })  # fmt: skip
    assert ask({"show": show}, "Who was eliminated first, Nikki Dinki or Viet Pham?").value is None
