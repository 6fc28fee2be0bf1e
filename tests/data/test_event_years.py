"""Years of an event ("Founded", "Built") read by time's order, and a column of numbers
in any order read as a measure, not as what names the rows."""

from __future__ import annotations

import pandas as pd

from agent_nb.data.answer import ask


def _colleges() -> pd.DataFrame:
    # listed in neither the order of founding nor that of altitude
    return pd.DataFrame(
        {
            "Institution": ["Yale", "Harvard", "Quinnipiac", "Brown", "Trinity"],
            "Founded": [1701, 1636, 1929, 1764, 1823],
            "Altitude (m)": [120, 40, 300, 10, 75],
        }
    )


def test_founded_first_and_last_are_the_earliest_and_latest_years() -> None:
    colleges = _colleges()
    assert ask({"df": colleges}, "Which institution was founded last?").value == "Quinnipiac"
    assert ask({"df": colleges}, "Which institution was founded first?").value == "Harvard"
    assert ask({"df": colleges}, "Which institution was founded earliest?").value == "Harvard"
    recent = ask({"df": colleges}, "Which institution was founded most recently?")
    assert recent.value == "Quinnipiac"


def test_a_year_column_keeps_the_tables_order() -> None:
    # a Year column is the table's own order: "the first year X won" reads its rows
    champions = ["Boston College", "Yale", "Yale", "Boston College"]
    wins = pd.DataFrame({"Year": [1950, 1954, 1957, 1960], "Champion": champions})
    assert ask({"df": wins}, "What was the first year Yale was champion?").value == 1954


def test_a_measure_named_beside_first_or_last_blocks_a_lookup() -> None:
    # Altitude, one number per row in no order, is no name of the rows: "first in
    # altitude" is not the first row, and no value is stated for it
    reply = ask({"df": _colleges()}, "Which institution ranks first in altitude?")
    assert reply.value is None
    assert "altitude" in reply.sentence.lower()


def test_first_and_last_place_of_a_contest_listed_in_the_order_of_its_draw() -> None:
    contest = pd.DataFrame(
        {
            "Draw": [1, 2, 3, 4, 5],
            "Artist": ["Manuela Bravo", "Teresa Silva", "Paulo de Carvalho", "Tonicha", "Duo"],
            "Place": ["3rd", "5th", "1st", "4th", "2nd"],
        }
    )
    assert ask({"df": contest}, "Which artist came in last place?").value == "Teresa Silva"
    assert ask({"df": contest}, "Who came in first place?").value == "Paulo de Carvalho"
    # the draw runs in the table's order: its first is the first row, as before
    assert ask({"df": contest}, "Who was drawn first?").value == "Manuela Bravo"
