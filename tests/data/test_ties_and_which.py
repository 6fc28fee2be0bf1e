"""Two readings that used to name a winner the numbers do not pick (issue 47, found on
WikiTableQuestions' development tables): a "highest" whose top value is tied, and a
"which ..." or "who ..." answered with a number.

Truths are computed here with pandas from vega_datasets' cars; the answers come from
the data agent (`ask`), on the pandas path and on DuckDB through Ibis.
"""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask
from agent_nb.data.result import MAX_LIST
from tests.data.tables import table


@pytest.fixture(scope="module")
def cars() -> pd.DataFrame:
    return table("cars")


def test_a_tied_extreme_names_every_tied_row(cars: pd.DataFrame, engine: str) -> None:
    lowest = cars.Acceleration.min()
    truth = cars.loc[cars.Acceleration == lowest, "Name"].tolist()
    assert len(truth) > 1  # the table does tie here
    answer = ask({"cars": cars}, "Which car has the lowest acceleration?")
    assert answer.value == truth
    assert answer.sentence.startswith("[") and f"(tied at {lowest:g})" in answer.sentence


def test_a_tie_of_more_than_a_list_states_nothing_and_says_why(
    cars: pd.DataFrame, engine: str
) -> None:
    tied = int((cars.Cylinders == cars.Cylinders.max()).sum())
    assert tied > MAX_LIST
    answer = ask({"cars": cars}, "Who has the most cylinders?")
    assert answer.value is None and answer.kind == "none"
    assert answer.sentence.startswith("No single Name row has the highest Cylinders")
    assert f"more than {MAX_LIST} tie at {cars.Cylinders.max()}" in answer.sentence


def test_rows_that_tie_under_one_name_leave_no_tie(cars: pd.DataFrame, engine: str) -> None:
    """The tied rows share one Origin: that Origin is the one answer."""
    heaviest = cars.Weight_in_lbs.max()
    origins = cars.loc[cars.Weight_in_lbs == heaviest, "Origin"].unique().tolist()
    assert len(origins) == 1
    answer = ask({"cars": cars}, "What is the origin of the car with the highest weight?")
    assert answer.value == origins[0]


def test_every_group_tied_is_no_winner() -> None:
    teams = pd.DataFrame({"team": ["Ajax", "Benfica", "Celtic"], "city": ["a", "b", "c"]})
    answer = ask({"teams": teams}, "Which team has the most rows?")
    assert answer.value is None
    assert "all 3 tie at 1" in answer.sentence


def test_which_answered_with_a_number_of_the_measure_states_nothing(cars: pd.DataFrame) -> None:
    """ "which car has the fewest cylinders" is a car (the cars tied at the fewest), not
    the Cylinders value with the fewest rows: a superlative before a column of numbers
    asks for its extreme; "which origin" names the groups the answer ranks."""
    answer = ask({"cars": cars}, "Which car has the fewest cylinders?")
    fewest = cars.loc[cars.Cylinders == cars.Cylinders.min(), "Name"]
    assert answer.value == fewest.tolist(), answer.sentence
    rarest = cars.Cylinders.value_counts().idxmin()
    assert f"{rarest} has the" not in answer.sentence
    origin = ask({"cars": cars}, "Which origin has the most cars?")
    assert origin.value == cars.Origin.value_counts().idxmax()


def test_a_group_of_one_row_each_is_ranked_by_its_row_and_big_groups_by_their_mean(
    cars: pd.DataFrame, engine: str
) -> None:
    # Most of cars' names are one car each: "which name has the highest acceleration" is
    # the car with the highest, not the name whose cars average highest.
    by_row = cars.loc[cars.Acceleration.idxmax(), "Name"]
    by_mean = cars.groupby("Name").Acceleration.mean().idxmax()
    assert by_row != by_mean  # the two readings part here
    answer = ask({"cars": cars}, "Which name has the highest acceleration?")
    assert answer.value == by_row
    # Three origins of a hundred cars or more: a level is compared by its mean.
    means = cars.groupby("Origin").Miles_per_Gallon.mean()
    answer = ask({"cars": cars}, "Which origin has the highest Miles_per_Gallon?")
    assert answer.value == means.idxmax()
    assert f"({means.max():.4f})" in answer.sentence


def test_a_tie_in_how_many_rows_is_said_not_stated_for_one_asked(engine: str) -> None:
    """ "which album produced the most singles?" asks for one album; counted by rows, two
    tie. The rows stand for what is counted, so the tie is named and nothing is stated;
    asked in the plural, both are the answer, and a count with a single top is stated."""
    singles = pd.DataFrame({
        "Single": ["Hey", "Oh", "Ah", "Yo", "No", "Go", "So"],
        "Album": ["Pulse", "Pulse", "Zero", "Zero", "Echo", "Pulse", "Zero"],
        "Year": [1990, 1990, 1992, 1992, 1995, 1991, 1993],
    })  # fmt: skip
    counts = singles.Album.value_counts()
    tied = sorted(counts[counts == counts.max()].index)
    assert len(tied) == 2
    one = ask({"singles": singles}, "Which album produced the most singles?")
    assert one.value is None and not one.understood
    assert "2 tie for the most rows" in one.sentence
    assert all(name in one.sentence for name in tied)
    both = ask({"singles": singles}, "Which albums produced the most singles?")
    assert sorted(both.value) == tied
    fewest = counts.idxmin()
    assert (counts == counts.min()).sum() == 1
    assert ask({"singles": singles}, "Which album produced the fewest singles?").value == fewest


def test_does_a_or_b_have_more_asks_which_of_the_two(engine: str) -> None:
    """ "does Lake Bafa or Lake Yay have a bigger area?" opens as a yes/no question and
    asks which of the two: it was read as whether either is in the table."""
    lakes = pd.DataFrame(
        {
            "Name": ["Lake Van", "Lake Bafa", "Lake Yay", "Lake Tuz"],
            "Area (km2)": [3755, 60, 37, 1500],
        }
    )
    two = lakes[lakes["Name"].isin(["Lake Bafa", "Lake Yay"])].set_index("Name")["Area (km2)"]
    answer = ask({"df": lakes}, "does lake bafa or lake yay have a bigger area?")
    assert answer.value == two.idxmax()
    answer = ask({"df": lakes}, "did lake yay or lake bafa have less area?")
    assert answer.value == two.idxmin()
    answer = ask({"df": lakes}, "did the lake bafa or the lake yay have the highest area?")
    assert answer.value == two.idxmax()
    # with no comparative it stays a yes/no question about the rows
    answer = ask({"df": lakes}, "is lake bafa or lake yay in the table?")
    assert answer.value is None or isinstance(answer.value, bool)


def test_did_they_win_more_in_one_year_or_another_asks_which_year(engine: str) -> None:
    ties = pd.DataFrame(
        {
            "Year": [1990, 1992, 1992, 1992, 1996, 1996],
            "Opponent": ["Spain", "Italy", "Peru", "Chile", "Cuba", "Fiji"],
            "Result": ["Win", "Win", "Win", "Loss", "Win", "Loss"],
        }
    )
    wins = ties[ties["Result"] == "Win"].groupby("Year").size().loc[[1992, 1996]]
    answer = ask({"df": ties}, "did austria win more games in 1992 or 1996?")
    assert answer.value == wins.idxmax()
