"""A year names its row where each year has one (issue 47, found on WikiTableQuestions'
development tables; the tables are written here, each truth computed with pandas).

"How many games were awarded in 2014?" of a table with a row per year asks about that
row: the count of its one row (1) is not stated, as for a name that picks rows one by
one. A year with several rows is counted.
"""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask


@pytest.fixture(scope="module")
def hosts() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Year": [2010, 2011, 2012, 2013, 2014],
            "Host": ["Oslo", "Lyon", "Turin", "Graz", "Ghent"],
            "Games awarded": [3, 5, 2, 7, 8],
        }
    )


def test_the_count_of_a_years_one_row_is_not_stated(hosts: pd.DataFrame, engine: str) -> None:
    answer = ask({"df": hosts.drop(columns="Games awarded")}, "how many games were played in 2014?")
    assert answer.value is None
    assert "each row has its own Year" in answer.sentence


def test_a_year_of_several_rows_is_counted(engine: str) -> None:
    films = pd.DataFrame(
        {"Year": [1997, 1998, 1998, 1998, 1999], "Title": ["A", "B", "C", "D", "E"]}
    )
    answer = ask({"df": films}, "how many movies was she in in 1998?")
    assert answer.value == int((films["Year"] == 1998).sum())
