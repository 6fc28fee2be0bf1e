"""Words that name a column or its rows through the language, not through the table's
own spelling (issue 47, found on WikiTableQuestions' development tables): a name cut
short ("Pos." is position), the number after a column's noun ("rank 3", "week 12"),
a person noun for a column of people's names, "what country" asking for a country
whatever number follows, and "more" between two named rows.

Tables are built here; truths are read off them with pandas.
"""

from __future__ import annotations

import pandas as pd

from agent_nb.data.answer import ask

RACE = pd.DataFrame(
    {
        "Pos.": [1, 2, 3, 4, 5, 6],
        "Team": ["Perkins", "Jackson", "Mobil", "Benson", "Caltex", "Castrol"],
        "Laps": [125, 125, 124, 123, 120, 100],
        "Qual.\nPos.": [2, 4, 6, 7, 1, 3],
    }
)


def test_a_name_cut_short_is_named_by_the_word_it_starts() -> None:
    """ "position" names Pos. (the dot says the name is cut), and "position 6" picks its
    row; "qualifying position" names the other column. A lower-case part of a longer name
    is no cut word: "percentage" is not the "per" of Miles_per_Gallon."""
    laps = ask({"df": RACE}, "How many laps for position 6?")
    assert laps.value == RACE.loc[RACE["Pos."] == 6, "Laps"].sum()
    gap = ask({"df": RACE}, "What was the difference in laps between position 1 and position 6?")
    by_pos = RACE.set_index("Pos.").Laps
    assert gap.value == abs(by_pos[1] - by_pos[6])
    qual = ask({"df": RACE}, "Which team had qualifying position 1?")
    assert qual.value == RACE.loc[RACE["Qual.\nPos."] == 1, "Team"].item()
    cars = pd.DataFrame(
        {
            "Name": ["a", "b", "c", "d", "e", "f"],
            "Miles_per_Gallon": [18.0, 31.0, 27.0, 35.0, 24.0, 33.0],
            "Cylinders": [8, 4, 4, 4, 6, 4],
            "Origin": ["USA", "Japan", "Japan", "Japan", "USA", "Europe"],
        }
    )
    share = ask({"cars": cars}, "What percentage of cars from Japan have 4 cylinders?")
    japan = cars[cars.Origin == "Japan"]
    assert share.value is not None
    assert abs(share.value - 100 * (japan.Cylinders == 4).mean()) < 0.01


def test_the_number_after_a_column_noun_picks_its_rows() -> None:
    """ "Rank 3", "ranked 3": the row whose Rank is 3; two of them, the difference of
    their values. A number no row holds picks nothing and is not stated."""
    swim = pd.DataFrame(
        {
            "Rank": [1, 2, 3, 4, 5],
            "Name": ["Ada Ray", "Bo Lin", "Cy Moss", "Di Park", "Ed Quinn"],
            "Nationality": ["Jamaica", "Japan", "Ireland", "Japan", "Fiji"],
            "Points": [88, 80, 71, 65, 60],
        }
    )
    by_rank = swim.set_index("Rank")
    for question in ("Who was rank 3?", "Who was ranked 3?"):
        assert ask({"df": swim}, question).value == by_rank.Name[3], question
    gap = ask({"df": swim}, "What is the difference in points between rank 1 and rank 3?")
    assert gap.value == by_rank.Points[1] - by_rank.Points[3]
    assert ask({"df": swim}, "Who was rank 9?").value is None


def test_what_noun_asks_for_that_noun_whatever_number_follows() -> None:
    """ "What country has the largest number of silver medals?" asks for a country (the
    nation with the most), not a number: "what" before a noun asks for it, as "which"
    does. "What number of nations ..." still asks for a number."""
    medals = pd.DataFrame(
        {
            "Rank": [1, 2, 3, 4],
            "Nation": ["Chile", "Venezuela", "Peru", "Bolivia"],
            "Gold": [5, 3, 2, 0],
            "Silver": [2, 4, 1, 3],
        }
    )
    top = ask({"df": medals}, "What country has the largest number of silver medals?")
    assert top.value == medals.loc[medals.Silver.idxmax(), "Nation"]
    silver = ask({"df": medals}, "What is the number of silver medals of Chile?")
    assert silver.value == medals.loc[medals.Nation == "Chile", "Silver"].item()


def test_a_person_noun_names_a_column_of_names_and_who_asks_for_a_person() -> None:
    """ "Which player", "which athlete" name the Name column (WordNet files both under
    person), and the row's name is looked up, not ranked by rows. "Who is the only
    person ..." answers with a column of people (Member), not the first column of names
    (a constituency's); "who" with no person noun, with the first (a team)."""
    swim = pd.DataFrame(
        {
            "Rank": [1, 2, 3, 4, 5],
            "Name": ["Ada Ray", "Bo Lin", "Cy Moss", "Di Park", "Ed Quinn"],
            "Nationality": ["Jamaica", "Japan", "Ireland", "Japan", "Fiji"],
        }
    )
    irish = swim.loc[swim.Nationality == "Ireland", "Name"].item()
    for question in ("Which player is from Ireland?", "Which athlete is from Ireland?"):
        answer = ask({"df": swim}, question)
        assert answer.value == irish, question
        assert f"{irish} is the Name where Nationality Ireland" in answer.sentence
    seats = pd.DataFrame(
        {
            "Constituency Name": ["Barkhola", "Sonai", "Dholai", "Udharbond"],
            "Constituency Number": [14, 15, 16, 17],
            "Member": ["Rumi Nath", "Anjan Dutta", "Girindra Mallik", "Ajit Singh"],
            "Party": ["BJP", "INC", "INC", "BJP"],
        }
    )
    person = ask({"df": seats}, "Who is the only person with the number 14?")
    assert person.value == seats.loc[seats["Constituency Number"] == 14, "Member"].item()
    # no person noun: the rows' own first label (a team, as "who" often asks for one)
    teams = pd.DataFrame(
        {
            "Team": ["Louisville", "Houston", "Georgia", "Kansas"],
            "Coach": ["Denny Crum", "Guy Lewis", "Hugh Durham", "Larry Brown"],
            "Finished": ["Champion", "Final Four", "Final Four", "Runner-up"],
        }
    )
    champion = ask({"df": teams}, "Who was the only champion?")
    assert champion.value == teams.loc[teams.Finished == "Champion", "Team"].item()


def test_more_between_two_named_rows_asks_which_is_higher() -> None:
    """ "Who had more draws, A or B?" asks which of the two rows has the higher Draws
    ("fewer": the lower), as "which has the most" does; "did A have more than B?" is
    still a yes or no."""
    clubs = pd.DataFrame(
        {
            "Opponent": ["KF Laci", "KS Bylis", "KF Tirana", "KS Flamurtari"],
            "Played": [4, 4, 4, 4],
            "Draws": [2, 3, 0, 1],
        }
    )
    pair = clubs[clubs.Opponent.isin(["KF Laci", "KS Bylis"])].set_index("Opponent").Draws
    more = ask({"df": clubs}, "Who had more draws, KF Laci or KS Bylis?")
    assert more.value == pair.idxmax()
    fewer = ask({"df": clubs}, "Who had fewer draws, KF Laci or KS Bylis?")
    assert fewer.value == pair.idxmin()
    yes_no = ask({"df": clubs}, "Did KF Laci have more draws than KS Bylis?")
    assert yes_no.value is bool(pair["KF Laci"] > pair["KS Bylis"])


def test_a_later_reading_that_places_every_word_is_preferred() -> None:
    """ "Who was the last president from the Republican party?": the first reading (the
    president of the matching row) leaves "last" unplaced; the next one (the last
    matching row, in the table's order) places it, and is the answer."""
    presidents = pd.DataFrame(
        {
            "#": [1, 2, 3, 4, 5],
            "President": ["Nixon", "Ford", "Carter", "Reagan", "Bush"],
            "President's Party": ["Republican", "Republican", "Democratic"] + ["Republican"] * 2,
            "Years served": [6, 2, 4, 8, 4],
        }
    )
    last = ask({"df": presidents}, "Who was the last president from the Republican party?")
    republicans = presidents[presidents["President's Party"] == "Republican"]
    assert last.value == republicans.President.iloc[-1]
    assert "last row" in last.sentence


def test_a_person_noun_names_people_not_a_text_to_measure() -> None:
    """ "How long did Colin Clarke coach ...?": "coach" names the Name column as people,
    and "how long" is no length of the name's text (it was 12, the letters of "Colin
    Clarke"). "Born" is bear's form, and "more" and "lin" are names (Thomas More, Maya
    Lin) where no sense is a kind of person: no person noun."""
    coaches = pd.DataFrame(
        {
            "Name": ["Colin Clarke", "Alen Marcina", "Ted Eck"],
            "Club": ["Puerto Rico Islanders", "San Antonio Scorpions", "Islanders"],
            "Matches": [120, 64, 30],
        }
    )
    how_long = ask({"df": coaches}, "How long did Colin Clarke coach the Puerto Rico Islanders?")
    assert how_long.value is None
    assert "length of Name" not in how_long.sentence
    from agent_nb.data.word_classes import a_person

    assert a_person("coach") and a_person("players") and a_person("member")
    assert not any(map(a_person, ("born", "more", "lin")))  # Max Born, Thomas More, Maya Lin


def test_an_ordinal_before_a_column_noun_picks_its_rows() -> None:
    """ "The 10th week" is Week 10 (it was read as the number 1: "10th" is no "1" before
    "0th"), "the 9th position" Position 9, where the column holds that number."""
    from agent_nb.data.lexicon import numbers

    assert numbers("the 10th week and the 21st race") == []
    season = pd.DataFrame(
        {
            "Week": range(1, 13),
            "Opponent": list("ABCDEFGHIJKL"),
            "Team record": [f"{w}–0" for w in range(1, 13)],
        }
    )
    week = ask({"df": season}, "What was the team record during the 10th week of the season?")
    assert week.value == season.loc[season.Week == 10, "Team record"].item()
    swaras = pd.DataFrame(
        {
            "Position": range(1, 13),
            "Swara": [f"swara {i}" for i in range(1, 13)],
            "Short name": [
                "Sa",
                "Ri",
                "Ri",
                "Ga",
                "Ga",
                "Ma",
                "Ma",
                "Pa",
                "Dha",
                "Dha",
                "Ni",
                "Ni",
            ],
        }
    )
    ninth = ask({"df": swaras}, "What is the short name of the 9th position?")
    assert ninth.value == swaras.loc[swaras.Position == 9, "Short name"].item()
