"""What the asking word asks for is what the answer states, or nothing is stated (issue
47, found on WikiTableQuestions' development tables): "where" asks for a place, "who
was the opponent" for the opponent, "which country" for a country, not a rank; and a
count of every row does not answer "how many were sunk?".

Tables are built here; truths are read off them with pandas.
"""

from __future__ import annotations

import pandas as pd

from agent_nb.data.answer import ask
from tests.data.tables import table


def test_where_is_answered_only_with_a_place() -> None:
    """The Competition of the last row answers "what", not "where"; a Venue (WordNet
    files a venue under location) or a column the question names by a place word
    ("where did he place": Place) does."""
    results = pd.DataFrame(
        {
            "Year": [2009, 2010, 2011, 2013],
            "Competition": ["European Cup", "Universiade", "World Championships", "Asian Games"],
            "Venue": ["Oslo, Norway", "Shenzhen, China", "Daegu, South Korea", "Incheon, Korea"],
            "Place": ["3rd", "1st", "5th", "2nd"],
        }
    )
    held = ask({"results": results}, "Where was the last competition held?")
    assert held.value is None
    assert "'where' asks for a place, and the answer states Competition" in held.sentence
    assert results.Competition.iloc[-1] not in held.sentence
    venue = ask({"results": results}, "Where was the last venue?")
    assert venue.value == results.Venue.iloc[-1]
    placed = ask({"results": results}, "Where did he place in the last competition?")
    assert placed.value == results.Place.iloc[-1]


def test_who_was_the_noun_of_a_column_of_names_asks_for_that_column() -> None:
    """ "Who was the last opponent?" where the planner reads the Championship (a label,
    as "who" asks) and the opponents repeat: the noun names Opponent in the final, so
    the Championship is no answer. A noun of a column of numbers orders the rows ("who
    was the pick after ...": the next Player)."""
    finals = pd.DataFrame(
        {
            "Outcome": ["Winner", "Runner-up", "Winner", "Winner"],
            "Date": ["12 May 1985", "3 June 1986", "9 Aug 1987", "1 Oct 1988"],
            "Championship": ["Geneva, Switzerland", "Lyon, France", "Basel, Switzerland", "Nice"],
            "Surface": ["Clay", "Carpet", "Hard", "Clay"],
            "Opponent in the final": ["Ann Smith", "Bea Jones", "Ann Smith", "Dana Lee"],
        }
    )
    for question in ("Who was the last opponent?", "Who was the opponent in the last tournament?"):
        answer = ask({"finals": finals}, question)
        assert answer.value is None, question
        assert "asks for its 'opponent'" in answer.sentence
    championship = ask({"finals": finals}, "What was the last championship?")
    assert championship.value == finals.Championship.iloc[-1]
    picks = pd.DataFrame(
        {"Pick": [1, 2, 3, 4], "Player": ["Moses Malone", "Randy Denton", "Al Jones", "Bo Ek"]}
    )
    after = ask({"picks": picks}, "Who was the pick after Moses Malone?")
    assert after.value == picks.Player[picks.Player.eq("Moses Malone").idxmax() + 1]


def test_which_country_is_not_answered_with_its_rank() -> None:
    """ "Which country rank last?": "rank" is placed (the Rank of the last row), but the
    question asks for a country, and a rank is a number."""
    skaters = pd.DataFrame(
        {
            "Rank": list(range(1, 9)),
            "Name": list("ABCDEFGH"),
            "Nation": ["China", "Japan", "Korea", "Italy", "Canada", "Norway", "Chile", "Poland"],
            "Time": [40.1, 40.2, 40.3, 40.5, 40.6, 40.7, 40.9, 41.0],
        }
    )
    for question in ("Which country rank last?", "What country ranks in first place?"):
        answer = ask({"skaters": skaters}, question)
        assert answer.value is None, question
        assert "asks for its 'country'" in answer.sentence
    last = ask({"skaters": skaters}, "Which nation is last?")
    assert last.value == skaters.Nation.iloc[-1]


def test_a_count_of_every_row_does_not_answer_for_a_word_some_cells_hold() -> None:
    """ "How many were sunk?" over a Fate that says "Sunk" in some rows: the count of
    every ship leaves the word out. A word every row's cell holds picks no rows."""
    ships = pd.DataFrame(
        {
            "Name": ["Avon", "Brent", "Clyde", "Dee", "Esk"],
            "Fate": [
                "Sunk by U-47, 1941",
                "Scrapped 1950",
                "Sunk 1942",
                "Sold 1947",
                "Scrapped 1960",
            ],
            "Details": [
                "Built: Leith",
                "Built: Hull",
                "Built: Leith",
                "Built: Govan",
                "Built: Hull",
            ],
        }
    )
    for question in ("How many were sunk?", "How many ships were scrapped?"):
        answer = ask({"ships": ships}, question)
        assert answer.value is None, question
        assert "Fate holds" in answer.sentence and str(len(ships)) not in answer.sentence
    assert ask({"ships": ships}, "How many ships are listed?").value == len(ships)
    assert ask({"ships": ships}, "How many ships were built?").value == len(ships)


def test_one_of_several_rows_that_differ_is_stated_only_when_one_is_asked_for() -> None:
    """ "Who produced the songs other than Intro?" matches rows with different producers:
    the first row's is one of them, and no word said which. "Name a producer ...", "the
    first ...", or rows that agree ("who produced Intro and Outro?") are answered."""
    songs = pd.DataFrame(
        {
            "#": [1, 2, 3, 4, 5],
            "Title": ["Intro", "Rise", "Fall", "Outro", "Echo"],
            "Producer": ["Kwame", "Kwame", "Will", "Kwame", "Dre"],
        }
    )
    others = songs[songs.Title != "Intro"]
    answer = ask({"songs": songs}, "Who produced the songs other than Intro?")
    assert answer.value is None
    assert f"the {len(others)} rows that match have {others.Producer.nunique()} different" in (
        answer.sentence
    )
    named = ask({"songs": songs}, "Name a producer of a song other than Intro.")
    assert named.value in set(others.Producer)
    first = ask({"songs": songs}, "Who produced the first song other than Intro?")
    assert first.value == others.Producer.iloc[0]
    both = ask({"songs": songs}, "Who produced Intro and Outro?")
    assert both.value == "Kwame"


def test_the_noun_a_superlative_or_only_heads_is_what_is_asked_for() -> None:
    """ "What is the highest city in terms of altitude?" asks for the city, not the
    altitude; "what is the highest altitude?" for the value. "What is the only ship
    built as a lightvessel?" asks for a ship, which a mean Yard no. is not."""
    cities = pd.DataFrame(
        {
            "City": ["Bergamo", "Albino", "Dalmine", "Seriate"],
            "Population": [120000, 18000, 23000, 25000],
            "Altitude (mslm)": [249, 342, 207, 247],
        }
    )
    highest = cities.City[cities["Altitude (mslm)"].idxmax()]
    city = ask({"cities": cities}, "What is the highest city in terms of altitude?")
    assert city.value == highest
    altitude = ask({"cities": cities}, "What is the highest altitude?")
    assert altitude.value == cities["Altitude (mslm)"].max()
    yard = pd.DataFrame(
        {
            "Name(s)": ["Avon", "Brent", "Clyde", "Dee"],
            "Yard no.": [101, 102, 107, 110],
            "Type (as built)": ["Cargo", "Cargo", "Lightvessel", "Tanker"],
        }
    )
    only = ask({"yard": yard}, "What is the only ship in this yard to be built as a lightvessel?")
    assert only.value is None
    assert "asks for its 'ship'" in only.sentence


def test_the_first_row_named_by_the_tables_own_noun_is_its_label() -> None:
    """ "What was the first car with 8 cylinders?" over a table named cars asks for a car
    by its name (the label column), as "which car" does; a noun that names nothing of
    the table ("the first model") still gets no answer."""
    cars = table("cars")
    eights = cars[cars.Cylinders == 8]
    first = ask({"cars": cars}, "What was the first car with 8 cylinders?")
    assert first.value == eights.Name.iloc[0]
    japan = cars[cars.Origin == "Japan"]
    last = ask({"cars": cars}, "What is the last car from Japan?")
    assert last.value == japan.Name.iloc[-1]
    assert ask({"cars": cars}, "What was the first model with 8 cylinders?").value is None


def test_a_number_before_the_noun_of_a_column_of_counts_picks_rows_of_a_small_table() -> None:
    """ "How many cars have 8 cylinders?" over four cars: too few rows to make Cylinders
    a category of values, so the number itself, before the noun that names the column,
    picks the rows (Cylinders = 8)."""
    cars = pd.DataFrame(
        {
            "Name": ["ford pinto", "chevrolet impala", "amc hornet", "buick skylark"],
            "Cylinders": [4, 8, 6, 8],
        }
    )
    eights = cars[cars.Cylinders == 8]
    assert ask({"cars": cars}, "How many cars have 8 cylinders?").value == len(eights)
    which = ask({"cars": cars}, "Which cars have 8 cylinders?")
    assert which.value == list(eights.Name)
    first = ask({"cars": cars}, "What was the first car with 8 cylinders?")
    assert first.value == eights.Name.iloc[0]
