"""The other rows that share a named row's value (issue 47: a selection nested in
another, found on WikiTableQuestions' development tables; none of their questions
is here).

"Which nation won the same number of gold medals as Hungary?" reads Hungary's own
Gold off the table and keeps the other rows that hold it (`reading_same_row`). The
answer is their names; where several share it and one is asked for, or the name
picks no row, nothing is stated, and no other reading of the rewritten rows is
stated instead. Each truth is computed here with pandas.
"""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask


@pytest.fixture(scope="module")
def medals() -> pd.DataFrame:
    return pd.DataFrame({
        "Nation": ["Hungary", "Bulgaria", "Poland", "Peru", "Chile", "Cuba"],
        "Gold": [6, 6, 2, 1, 0, 0],
        "Silver": [1, 3, 2, 2, 2, 1],
        "Bronze": [4, 0, 1, 3, 1, 3],
    })  # fmt: skip


@pytest.fixture(scope="module")
def stadiums() -> pd.DataFrame:
    return pd.DataFrame({
        "Stadium": ["Windsor Park", "The Oval", "Hampden Park", "Seaview", "Ibrox"],
        "City": ["Belfast", "Belfast", "Glasgow", "Belfast", "Glasgow"],
        "Capacity": [18_434, 26_556, 51_866, 3_383, 50_817],
    })  # fmt: skip


def _others(df: pd.DataFrame, name_col: str, name: str, column: str) -> list[str]:
    own = df.loc[df[name_col] == name, column].iloc[0]
    return list(df.loc[(df[column] == own) & (df[name_col] != name), name_col])


def test_the_other_row_sharing_a_named_rows_number(medals: pd.DataFrame, engine: str) -> None:
    answer = ask({"medals": medals}, "Which nation won the same number of gold medals as Hungary?")
    assert answer.value == _others(medals, "Nation", "Hungary", "Gold") == ["Bulgaria"]
    assert "Hungary left out" in " ".join(answer.reasons + answer.notes)


def test_the_other_row_sharing_a_named_rows_text(stadiums: pd.DataFrame, engine: str) -> None:
    answer = ask({"stadiums": stadiums}, "Which stadium is in the same city as Hampden Park?")
    assert answer.value == _others(stadiums, "Stadium", "Hampden Park", "City") == ["Ibrox"]
    asked = "Which other stadiums are in the same city as Windsor Park?"
    others = ask({"stadiums": stadiums}, asked)
    assert others.value == _others(stadiums, "Stadium", "Windsor Park", "City")
    assert len(others.value) == 2


def test_several_rows_sharing_it_for_one_asked_state_nothing(medals: pd.DataFrame) -> None:
    """Two other nations share Peru's Silver of 2: "which nation" asks for one, and
    neither a list nor the total Silver of those rows answers it."""
    assert len(_others(medals, "Nation", "Peru", "Silver")) == 2
    answer = ask({"medals": medals}, "Which nation won the same number of silver medals as Peru?")
    assert answer.value is None


def test_a_name_that_picks_no_row_changes_nothing(medals: pd.DataFrame) -> None:
    answer = ask({"medals": medals}, "Which nation won the same number of gold medals as Italy?")
    assert answer.value is None


def test_two_rows_named_share_no_one_rows_value(medals: pd.DataFrame) -> None:
    """ "as Poland and Peru": the value is read off one named row, so two names state
    nothing, even where their values agree (Poland's and Peru's Silver are both 2)."""
    question = "Which nation won the same number of silver medals as Poland and Peru?"
    assert ask({"medals": medals}, question).value is None
