"""A noun names the column whose values are kinds of it (issue 47, found on
WikiTableQuestions' development tables): "which country" names a Nation or a
Nationality that holds Brazil and Chile, as WordNet files each of them under
country, though no word of the column's name is "country". A superlative before
a column of numbers asks for its extreme, not for one of its groups ("the most
bronze medals" is the most of Bronze, by country).

Tables are built here; truths are read off them with pandas.
"""

from __future__ import annotations

import pandas as pd

from agent_nb.data.answer import ask
from agent_nb.data.lexicon import kinds_of_values
from agent_nb.data.table import profile

MEDALS = pd.DataFrame(
    {
        "Rank": [1, 2, 3, 4, 5],
        "Nation": ["Brazil", "Argentina", "Uruguay", "Chile", "Peru"],
        "Gold": [9, 0, 0, 2, 1],
        "Bronze": [0, 1, 4, 3, 2],
    }
)
CLUBS = MEDALS.rename(columns={"Nation": "Club"}).assign(
    Club=["Boca Juniors", "River Plate", "Peñarol", "Colo-Colo", "Alianza"]
)


def test_the_kinds_a_columns_values_are() -> None:
    table = profile("df", MEDALS)
    assert "country" in kinds_of_values(table.columns["Nation"])
    # digits are no kind of thing the rows are; club names are no countries
    assert not kinds_of_values(profile("df", MEDALS.astype({"Rank": str})).columns["Rank"])
    assert "country" not in kinds_of_values(profile("df", CLUBS).columns["Club"])


def test_which_country_reads_the_column_of_countries() -> None:
    most_bronze = MEDALS.loc[MEDALS.Bronze.idxmax(), "Nation"]
    reply = ask({"df": MEDALS}, "Which country won the most bronze medals?")
    assert reply.value == most_bronze, reply.sentence
    assert reply.plan is not None and reply.plan.measure == "Bronze"
    first = ask({"df": MEDALS}, "What country came in first place?")
    assert first.value == MEDALS.Nation.iloc[0], first.sentence


def test_a_column_of_other_things_is_not_named_by_country() -> None:
    # the same question over clubs: no column holds countries, so none is stated
    reply = ask({"df": CLUBS}, "Which country won the most bronze medals?")
    assert reply.value is None, reply.sentence
    assert "country" in reply.sentence


def test_a_number_word_no_part_of_the_plan_applies_is_not_left_out() -> None:
    """ "name a country that had two athletes": "two" counts athletes per country, a
    condition the reading did not build; stated, the first row's name was no answer.
    A number written in words blocks as a number in digits does."""
    swimmers = pd.DataFrame(
        {
            "Name": ["Ann Lee", "Bo Chan", "Cy Moss", "Di Park", "Ed Hart"],
            "Nationality": ["Canada", "Japan", "Kenya", "Japan", "Poland"],
            "Time": [61.2, 61.9, 62.4, 62.8, 63.1],
        }
    )
    question = "Other than Canada, name a country that had two athletes representing them."
    reply = ask({"df": swimmers}, question)
    assert reply.value is None, reply.sentence
    assert "'two'" in reply.sentence
