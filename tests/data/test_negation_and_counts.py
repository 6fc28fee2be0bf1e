"""Negations and "the number of" read as the table means them (issue 47, found on
WikiTableQuestions' development tables; the tables here are written for the test,
each truth computed with pandas).

* "not A or B" keeps the rows that are neither, on every engine (the differential
  test runs `tests.data.questions`' "negation of several values" too);
* a negation word that begins a value ("Non-album single", "Never took office")
  is the value's own word, not a negation of it;
* "the number of starters" over a column of counts is that column added up (its
  largest for "the greatest number of"), not the number of rows; unless the word
  counted names the rows themselves ("the number of transactions", one
  transaction_id per row).
"""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask


@pytest.fixture(scope="module")
def singles() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Year": [2011, 2012, 2012, 2013, 2014, 2014],
            "Title": ["Rise", "Fall", "Echo", "Drift", "Glow", "Haze"],
            "Album": [
                "Non-album single",
                "First Light",
                "First Light",
                "Non-album single",
                "Second Wind",
                "Non-album single",
            ],
        }
    )


@pytest.fixture(scope="module")
def seasons() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Year": [2005, 2006, 2007, 2008, 2009, 2010, 2011],
            "Winner": ["Gale", "Brook", "Ash", "Cedar", "Dune", "Elm", "Fern"],
            "Starters": [14, 9, 12, 12, 8, 13, 10],
            "Wins": [0, 2, 1, 4, 2, 0, 1],
        }
    )


def test_not_a_or_b_keeps_the_rows_that_are_neither(singles: pd.DataFrame) -> None:
    answer = ask({"singles": singles}, "How many singles were not on First Light or Second Wind?")
    truth = int((~singles.Album.isin(["First Light", "Second Wind"])).sum())
    assert answer.value == truth
    assert "neither First Light nor Second Wind" in answer.sentence


def test_a_value_that_begins_with_a_negation_is_that_value(singles: pd.DataFrame) -> None:
    answer = ask({"singles": singles}, "How many non-album singles are there?")
    assert answer.value == int((singles.Album == "Non-album single").sum())
    assert answer.plan.filters[0].op == "="


def test_the_number_of_a_column_of_counts_adds_it_up(seasons: pd.DataFrame) -> None:
    one_year = ask({"seasons": seasons}, "What was the number of starters in 2008?")
    assert one_year.value == int(seasons.loc[seasons.Year == 2008, "Starters"].sum())
    since = ask({"seasons": seasons}, "What was the number of starters after 2008?")
    assert since.value == int(seasons.loc[seasons.Year > 2008, "Starters"].sum())
    assert since.plan.agg == "sum"


def test_the_greatest_number_of_a_column_of_counts_is_its_largest(
    seasons: pd.DataFrame,
) -> None:
    """Wins holds few distinct numbers (a category by its profile): still numbers."""
    answer = ask({"seasons": seasons}, "What was the greatest number of wins in a season?")
    assert answer.value == int(seasons.Wins.max())
    assert answer.plan.agg == "max"


def test_how_many_rows_is_still_a_count(seasons: pd.DataFrame) -> None:
    """The rows are counted where "how many" names them, not the counts column."""
    answer = ask({"seasons": seasons}, "How many years had more than 10 starters?")
    assert answer.value == int((seasons.Starters > 10).sum())


def test_the_number_of_the_rows_own_noun_counts_rows() -> None:
    """ "the number of transactions" with a transaction_id (one per row): the rows are
    counted, not transaction_qty added up."""
    sales = pd.DataFrame(
        {
            "transaction_id": range(1, 9),
            "transaction_qty": [2, 1, 3, 1, 2, 4, 1, 2],
            "Weekday": ["Sun", "Mon", "Sun", "Tue", "Sun", "Mon", "Wed", "Sun"],
        }
    )
    answer = ask({"sales": sales}, "What is the total number of transactions on a Sunday?")
    assert answer.value == int((sales.Weekday == "Sun").sum())


def test_outside_leaves_the_named_rows_out() -> None:
    """ "outside of Europe" is every other origin; "outside" with nothing it applies to
    is no count of every row."""
    from tests.data.tables import table

    cars = table("cars")
    outside = ask({"cars": cars}, "How many cars were made outside of Europe?")
    assert outside.value == int((cars.Origin != "Europe").sum())
    assert outside.plan.filters[0].op == "!="
    unknown = ask({"cars": cars}, "How many cars are built outside of the factory?")
    assert unknown.value is None
    assert str(len(cars)) not in unknown.sentence


def test_a_number_compared_with_a_column_its_noun_does_not_name() -> None:
    """ "at least 5 medals": the medals are counted, and Gold (the only column whose
    values span 5) is no count of medals: no value."""
    medals = pd.DataFrame(
        {
            "Nation": ["Chile", "Peru", "Bolivia", "Cuba"],
            "Gold": [5, 1, 0, 2],
            "Silver": [0, 2, 1, 3],
        }
    )
    unplaced = ask({"games": medals}, "How many nations got at least 5 medals?")
    assert unplaced.value is None
    assert "'medals'" in unplaced.sentence and "Gold" in unplaced.sentence
    named = ask({"games": medals}, "How many nations got at least 2 gold?")
    assert named.value == int((medals.Gold >= 2).sum())


def test_places_and_years_have_no_total() -> None:
    """A total of positions, of numbers that label the rows, or of years adds up
    nothing: no value; a count column named "No. of ..." still adds up."""
    results = pd.DataFrame(
        {
            "Position": [1, 2, 3, 3, 4, 5],
            "Yard no.": [100, 101, 103, 104, 105, 106],
            "Election": [1961, 1966, 1970, 1974, 1977, 1981],
            "No. of seats": [12, 7, 9, 4, 3, 1],
        }
    )
    for question in (
        "What is the total number of positions listed?",
        "What is the total of the yard numbers?",
        "What is the total of the elections?",
    ):
        answer = ask({"results": results}, question)
        assert answer.value is None, question
        assert "add up to nothing" in answer.sentence
    seats = ask({"results": results}, "What is the total number of seats?")
    assert seats.value == int(results["No. of seats"].sum())


def test_a_number_with_a_scale_word_is_one_number() -> None:
    """ "over one million", "10 million viewers" on a column in millions ("Viewers (m)",
    "Transfer fee (€ million)"): the stated number in the column's own scale."""
    shows = pd.DataFrame(
        {
            "Episode": ["a", "b", "c", "d", "e"],
            "Viewers (m)": [9.71, 11.83, 15.55, 9.92, 11.35],
            "Budget (USD millions)": [2.0, 3.5, 1.2, 8.0, 4.4],
            "Audience": [900_000, 1_200_000, 1_550_000, 990_000, 1_130_000],
        }
    )
    viewers = ask({"shows": shows}, "How many episodes had more than 10 million viewers?")
    assert viewers.value == int((shows["Viewers (m)"] > 10).sum())
    budget = ask({"shows": shows}, "How many episodes had a budget over 3 million?")
    assert budget.value == int((shows["Budget (USD millions)"] > 3).sum())
    audience = ask({"shows": shows}, "How many episodes had an audience over one million?")
    assert audience.value == int((shows.Audience > 1_000_000).sum())


def test_a_unit_letter_apart_from_its_number_is_a_unit() -> None:
    """ "4,500 m" is 4,500 metres; only "5m", written onto the number, scales it."""
    peaks = pd.DataFrame(
        {
            "Peak": ["Mont Blanc", "Monte Rosa", "Triglav", "Hochkönig", "Marmolada"],
            "Elevation (m)": [4810, 4634, 2864, 2941, 3343],
        }
    )
    high = ask({"peaks": peaks}, "How many peaks have an elevation over 4,500 m?")
    assert high.value == 2
    assert high.plan.filters[0].value == 4500


def test_how_many_total_of_a_measure_adds_it_up() -> None:
    """ "how many total votes did the Independent party have?" counts votes, which the
    Votes column holds: their sum; "how many total candidates" counts the rows."""
    ballots = pd.DataFrame({
        "Party": ["Labour", "Labour", "Independent", "Liberal", "Independent"],
        "Candidate": ["James Kinney", "James East", "Rice Sheppard", "Tom Ellis", "Ann Rowe"],
        "Votes": [5513, 4847, 3230, 4093, 2108],
    })  # fmt: skip
    independent = ballots[ballots.Party == "Independent"]
    votes = ask({"ballots": ballots}, "How many total votes did the Independent party have?")
    assert votes.value == independent.Votes.sum()
    rows = ask({"ballots": ballots}, "How many total candidates did the Independent party have?")
    assert rows.value == len(independent)
