"""Capabilities of the word planner over small real tables, each checked against pandas.

Each test builds a small DataFrame, asks the real planner (`answer.ask`, no
model) and compares the typed answer with what pandas computes, so that a
rule holds for any table of that shape, not for one benchmark question.
"""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask

__all__: list[str] = []


@pytest.fixture(scope="module")
def players() -> pd.DataFrame:
    """A season of player statistics with short upper-case column names."""
    return pd.DataFrame(
        {
            "PLAYER_ID": [101, 102, 103, 104, 105, 106, 107, 108],
            "PLAYER": ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"],
            "TEAM": ["AAA", "BBB", "AAA", "CCC", "BBB", "AAA", "CCC", "DDD"],
            "GP": [82, 60, 75, 70, 81, 66, 79, 58],
            "AST": [300, 120, 450, 210, 330, 90, 150, 260],
            "REB": [500, 800, 300, 650, 420, 390, 710, 560],
            "PTS": [1500, 1200, 2100, 900, 1750, 1300, 1100, 1650],
        }
    )


def test_plural_abbreviation_and_function_words(players: pd.DataFrame) -> None:
    """PTS is spelled by "points" (singular "point"); "a single" spells no AST."""
    answer = ask({"df": players}, "List the top 3 total points achieved by a single player.")
    assert answer.value == sorted(players.PTS, reverse=True)[:3]


def test_threshold_on_the_named_unit_past_its_range(players: pd.DataFrame) -> None:
    """ "more than 3000 points": PTS, although no value reaches 3000 (another column's do)."""
    big = players.assign(MIN=[3100, 2900, 3300, 2000, 2500, 1800, 2600, 2200])
    answer = ask({"df": big}, "Is there any player who scored more than 3000 points?")
    assert answer.value is bool((big.PTS > 3000).any())


def test_which_names_the_group_over_by(players: pd.DataFrame) -> None:
    answer = ask({"df": players}, "Which team had the highest total points scored by its players?")
    assert answer.value == players.groupby("TEAM").PTS.sum().idxmax()


def test_the_rows_named_by_a_label_ranked_by_a_measure(players: pd.DataFrame) -> None:
    answer = ask({"df": players}, "List the 3 players with the least games played.")
    assert answer.value == list(players.nsmallest(3, "GP").PLAYER)


def test_group_totals_ranked_as_values() -> None:
    """ "the top 2 total lifts by weight class": the groups' sums (a synonym of the measure,
    "weight", still names the group column)."""
    lifts = pd.DataFrame(
        {
            "Lifter": ["a", "b", "c", "d", "e", "f"],
            "Weight Class": ["74 kg", "83 kg", "74 kg", "93 kg", "83 kg", "74 kg"],
            "Amount Lifted (kg)": [200, 250, 180, 300, 240, 210],
        }
    )
    answer = ask({"df": lifts}, "What are the top 2 total lifts by 'Weight Class'?")
    sums = lifts.groupby("Weight Class")["Amount Lifted (kg)"].sum()
    assert answer.value == sorted(sums, reverse=True)[:2]
