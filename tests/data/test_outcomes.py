"""Won and lost read off a column of results (issue 47, found on WikiTableQuestions'
development tables: "how many home games were won" counted every home game).

The season's table is written here the way such tables arrive (a mark before the
score: "W 24–10"); each truth is computed with pandas.
"""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask
from agent_nb.data.profiles import profiled
from agent_nb.data.reading_outcomes import outcome_column


@pytest.fixture(scope="module")
def season() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Week": range(1, 9),
            "Date": [f"September {d}" for d in (3, 10, 17, 24)]
            + [f"October {d}" for d in (1, 8, 15, 22)],
            "Opponent": ["Bears", "Lions", "Packers", "Vikings", "Rams", "Saints", "Jets", "Colts"],
            "Venue": ["Home", "Away", "Home", "Home", "Away", "Away", "Home", "Away"],
            "Result": [
                "W 24–10",
                "L 10–17",
                "W 31–3",
                "T 14–14",
                "L 7–21",
                "W 20–13",
                "L 3–9",
                "W 27–20",
            ],
        }
    )


def _won(df: pd.DataFrame) -> pd.Series:
    return df.Result.str.startswith("W")


def test_won_counts_the_rows_whose_result_is_a_win(season: pd.DataFrame) -> None:
    answer = ask({"season": season}, "How many home games were won?")
    assert answer.value == int((_won(season) & (season.Venue == "Home")).sum())
    assert answer.left_out == ()


def test_lost_and_tie_name_their_own_results(season: pd.DataFrame) -> None:
    lost = ask({"season": season}, "How many games did they lose?")
    assert lost.value == int(season.Result.str.startswith("L").sum())
    first = ask({"season": season}, "What was the date of the first loss?")
    assert first.value == season.Date[season.Result.str.startswith("L")].iloc[0]
    tie = ask({"season": season}, "Who was the opponent in the tie?")
    assert tie.value == season.Opponent[season.Result.str.startswith("T")].iloc[0]


def test_a_negated_outcome_is_not_read_as_that_outcome(season: pd.DataFrame) -> None:
    """ "did not win" is losses and ties: no filter on wins, and no count of every game."""
    answer = ask({"season": season}, "How many games did they not win?")
    assert answer.value is None and answer.data is None
    assert answer.sentence.startswith("No answer: I read the number of rows in season")
    assert "'they not win'" in answer.sentence


def test_a_column_of_results_is_found_by_its_cells(season: pd.DataFrame) -> None:
    found = outcome_column(profiled("season", season, None))
    assert found == ("Result", {"w": "w", "l": "l", "d": "t"})
    scores = season.assign(Result=season.Result.str.split(" ").str[1])  # "24–10": no marks
    assert outcome_column(profiled("scores", scores, None)) is None


def test_won_on_a_table_without_results_adds_no_filter() -> None:
    """ "How many gold medals did Brazil win": the medals are the count, no result column."""
    medals = pd.DataFrame(
        {
            "Nation": ["Brazil", "Chile", "Peru", "Bolivia", "Ecuador"],
            "Gold": [12, 5, 3, 1, 0],
            "Silver": [9, 7, 2, 2, 1],
        }
    )
    answer = ask({"medals": medals}, "How many gold medals did Brazil win?")
    assert answer.value == 12


def test_who_won_is_not_read_off_the_sides_own_results(season: pd.DataFrame) -> None:
    """ "Who won the first game?": the column says whether the table's own side won;
    the opponent of a win lost. No name is stated, and "won" is why."""
    answer = ask({"season": season}, "Who won the first game of the season?")
    assert answer.value is None
    assert answer.could_not_place == ("won",)
    assert "Result records the wins" in answer.sentence
    beaten = ask({"season": season}, "Who did they beat in the first game?")
    assert beaten.value == season.Opponent[_won(season)].iloc[0]


def test_a_result_written_out_as_a_word_is_filtered_on() -> None:
    # an actor's awards: each row a nomination, its Result "Won" or "Nominated"
    awards = pd.DataFrame(
        {
            "Year": [1999, 2001, 2003, 2005, 2008],
            "Award": ["Emmy Award", "Emmy Award", "Tony Award", "Emmy Award", "Tony Award"],
            "Result": ["Won", "Nominated", "Nominated", "Won", "Won"],
        }
    )
    truth = int((awards["Result"] == "Won").sum())
    assert ask({"df": awards}, "How many times did he win?").value == truth
    tony = ask({"df": awards}, "How many Tony Awards did he win?")
    assert tony.value == int(
        ((awards["Award"] == "Tony Award") & (awards["Result"] == "Won")).sum()
    )


def test_lost_is_not_placed_by_the_winners_column() -> None:
    # "lose to" reads the Loser column; a plan over Winner alone states no value
    bouts = pd.DataFrame(
        {
            "Winner": ["Mocho Cota", "Satanico", "Mocho Cota", "Chamaco Valaguez"],
            "Loser": ["Chamaco Valaguez", "Mocho Cota", "El Dandy", "Mocho Cota"],
            "Location": ["Cuernavaca", "Mexico City", "Puebla", "Tijuana"],
        }
    )
    reply = ask({"df": bouts}, "How many times did Mocho Cota lose to Chamaco Valaguez?")
    assert reply.value is None
    assert "Loser records the losses" in reply.sentence


def test_won_is_not_placed_beside_a_count_of_wins_the_plan_does_not_read() -> None:
    # "won more than 1,500 games" is of Wins, not of the games played
    teams = pd.DataFrame(
        {
            "Team": ["Bears", "Packers", "Giants", "Lions"],
            "Games": [1800, 1700, 1650, 1400],
            "Wins": [1600, 1450, 1510, 700],
        }
    )
    reply = ask({"df": teams}, "How many teams have won more than 1,500 games?")
    assert reply.value is None  # not 3, the count of Games over 1,500
    assert "Wins records the wins" in reply.sentence
