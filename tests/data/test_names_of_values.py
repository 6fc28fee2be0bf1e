"""Values and measures named through the language (issue 47, found on WikiTableQuestions'
development tables): a country by its dictionary synonym ("the UK", "the U.S.",
"Holland"), a column of counts by a plural whose singular is its name ("penalties"
of Penalties), a standing told from a column that only mentions one ("Position
Angle" is an angle, whose higher is the larger), and "comes before" in the order the
table lists its rows.

Tables are built here; truths are read off them with pandas.
"""

from __future__ import annotations

import pandas as pd

from agent_nb.data.answer import ask

MEDALS = pd.DataFrame(
    {
        "Nation": [
            "United States (USA)",
            "France (FRA)",
            "United Kingdom (GBR)",
            "Poland (POL)",
            "Netherlands (NED)",
        ],
        "Gold": [5, 3, 2, 1, 4],
        "Total": [10, 6, 4, 7, 8],
    }
)


def _of(nation: str, column: str) -> int:
    return int(MEDALS.loc[MEDALS.Nation.str.startswith(nation), column].item())


def test_a_dictionary_synonym_names_a_value() -> None:
    """WordNet's synonyms name a row: "the UK" is the United Kingdom, "the US" and
    "U.S." the United States, "Holland" the Netherlands. "us" as a pronoun names no
    row: the gold of every row is counted."""
    asked = {
        "How many gold medals did the UK win?": _of("United Kingdom", "Gold"),
        "How many gold medals did the U.S. win?": _of("United States", "Gold"),
        "How many gold medals did Holland win?": _of("Netherlands", "Gold"),
        "What is the difference in total medals between the US and Poland?": abs(
            _of("United States", "Total") - _of("Poland", "Total")
        ),
    }
    for question, truth in asked.items():
        reply = ask({"df": MEDALS}, question)
        assert reply.value == truth, (question, reply.sentence)
    pronoun = ask({"df": MEDALS}, "How many gold medals did they give us?")
    assert pronoun.plan is not None and not pronoun.plan.filters, pronoun.sentence
    assert pronoun.value == MEDALS.Gold.sum()


def test_a_plural_names_a_column_of_counts_by_its_singular() -> None:
    """ "How many penalties did Germany get?" adds up Penalties (a part of a name is
    singular: "penalties" is no "penaltie"), not the rows."""
    race = pd.DataFrame(
        {
            "Name": ["Ann Berg", "Bea Holm", "Cai Wu", "Dee Roth", "Eve Lind"],
            "Nationality": ["Germany", "Norway", "Germany", "France", "Germany"],
            "Penalties (P+S)": [1, 2, 4, 0, 6],
        }
    )
    reply = ask({"df": race}, "How many penalties did Germany get?")
    truth = race.loc[race.Nationality == "Germany", "Penalties (P+S)"].sum()
    assert reply.value == truth, reply.sentence
    assert truth != (race.Nationality == "Germany").sum()  # the rows' count differs


def test_a_standing_is_told_by_the_word_that_heads_its_name() -> None:
    """A position angle is an angle: "the higher" is its larger number. A rank, and a
    line of a name headed by "positions" ("Peak chart positions" over "US"), is a
    standing: "the higher" is its smaller number."""
    stars = pd.DataFrame(
        {
            "Pair": ["AB", "CD", "Ca", "CE", "EF"],
            "Most Recent\nPosition Angle": [172, 347, 225, 333, 79],
        }
    )
    question = "Does Ca or CE have the higher position angle?"
    _chosen(stars, question, ("Ca", "CE"), "Most Recent\nPosition Angle", larger=True)
    charts = pd.DataFrame(
        {
            "Title": ["One", "Two", "Three", "Four", "Five"],
            "Peak chart positions\nUS": [13, 40, 2, 77, 25],
        }
    )
    question = "Which peaked higher in the US chart positions, One or Three?"
    _chosen(charts, question, ("One", "Three"), "Peak chart positions\nUS", larger=False)


def _chosen(
    frame: pd.DataFrame, question: str, pair: tuple[str, str], column: str, *, larger: bool
) -> None:
    """The reply names the one of ``pair`` (in the first column) with the larger (or the
    smaller) ``column``."""
    reply = ask({"df": frame}, question)
    label = frame.columns[0]
    both = frame[frame[label].isin(pair)]
    at = both[column].idxmax() if larger else both[column].idxmin()
    assert reply.value == both.loc[at, label], reply.sentence


def test_comes_before_follows_the_table_as_listed() -> None:
    """ "What team comes before Confey?" is the row above it as the table lists them,
    even where the table lists the newest year first (where "came before" is earlier
    in time: the row below)."""
    winners = pd.DataFrame(
        {
            "Team": ["Greystones", "Maynooth", "Fingal Ravens", "Confey", "Crettyard"],
            "County": ["Wicklow", "Kildare", "Dublin", "Kildare", "Laois"],
            "Year": [2011, 2009, 2007, 2006, 2005],
        }
    )
    listed = ask({"df": winners}, "What team comes before Confey?")
    at = winners.index[winners.Team == "Confey"][0]
    assert listed.value == winners.Team[at - 1], listed.sentence
    earlier = ask({"df": winners}, "Which team came before Confey?")
    assert earlier.value == winners.Team[at + 1], earlier.sentence


def test_a_whole_segment_of_a_cell_names_its_rows() -> None:
    """ "How many races were held in Japan?": "Japan" is a whole segment of "Osaka,
    Japan" and "Tokyo, Japan", and no value of its own: the rows whose venue holds it.
    A word inside a segment ("Osa") names nothing."""
    meets = pd.DataFrame(
        {
            "Year": [2001, 2002, 2003, 2004, 2005, 2006],
            "Venue": [
                "Osaka, Japan",
                "Beijing, China",
                "Tokyo, Japan",
                "Paris, France",
                "Beijing, China",
                "Camp Randall Stadium • Madison, WI",
            ],
            "Position": ["1st", "3rd", "2nd", "1st", "5th", "4th"],
        }
    )
    japan = ask({"df": meets}, "How many races were held in Japan?")
    assert japan.value == meets.Venue.str.endswith(", Japan").sum(), japan.sentence
    beijing = ask({"df": meets}, "How many times was the venue in Beijing?")
    assert beijing.value == meets.Venue.str.startswith("Beijing").sum(), beijing.sentence
    stadium = ask({"df": meets}, "What year was the race at Camp Randall Stadium?")
    assert stadium.value == meets.Year[meets.Venue.str.startswith("Camp Randall")].item()
    part = ask({"df": meets}, "How many races were held in Osa?")
    assert part.value is None, part.sentence


def test_a_name_column_answers_which_of_any_kind() -> None:
    """ "Which lake has the greatest elevation?": a column called Name holds the rows'
    names, whatever the rows are. Not where another column's values are kinds of the
    noun in WordNet: "which country" beside a Nationality of countries is no athlete's
    name, and nothing is stated from the Name."""
    lakes = pd.DataFrame(
        {
            "Name": ["Lake Geneva", "Lake Constance", "Lac des Dix", "Lake Lucerne"],
            "Canton(s)": ["Geneva, Vaud", "Thurgau", "Valais", "Lucerne"],
            "Elevation m": [372, 395, 2365, 434],
        }
    )
    high = ask({"df": lakes}, "Which lake has the greatest elevation?")
    assert high.value == lakes.Name[lakes["Elevation m"].idxmax()], high.sentence
    athletes = pd.DataFrame(
        {
            "Name": ["Huang Qiuyan", "Sophie Pascoe", "Ann Berg", "Eve Lind"],
            "Nationality": ["China", "New Zealand", "Canada", "Kenya"],
            "Age": [24, 19, 31, 27],
        }
    )
    country = ask({"df": athletes}, "Which country came in first?")
    assert country.value not in set(athletes.Name), country.sentence


def test_a_row_labelled_as_totals_with_two_sums_is_no_row() -> None:
    """A "Total towns" row whose populations add up those above (a page's census total a
    few per cent off) is left out, though its density and its change in per cent are
    the whole's, worked out again, not sums: it is no town, and not the largest."""
    towns = pd.DataFrame(
        {
            "Name": ["Aberdeen", "Kindersley", "Wynyard", "Zealandia", "Total towns"],
            "Population (2011)": [599, 4678, 1767, 80, 6950],
            "Population (2006)": [527, 4412, 1744, 90, 6650],
            "Change (%)": [13.7, 6.0, 1.3, -11.1, 4.5],
            "Density (per km²)": [334.1, 420.5, 164.1, 57.9, 301.2],
        }
    )
    kept = towns.iloc[:-1]
    largest = ask({"df": towns}, "Which town has the largest population in 2011?")
    assert largest.value == kept.Name[kept["Population (2011)"].idxmax()], largest.sentence
    total = ask({"df": towns}, "What is the total population in 2011?")
    assert total.value == kept["Population (2011)"].sum(), total.sentence


def test_a_name_of_two_columns_is_read_in_the_column_named_elsewhere() -> None:
    """ "Which is taller, Nanga Parbat or Kangchenjunga?": Kangchenjunga is a Mountain
    and a Parent mountain; Nanga Parbat only a Mountain. Both are read as Mountains."""
    peaks = pd.DataFrame(
        {
            "Parent mountain": ["Mount Everest", "Dhaulagiri", "Kangchenjunga", "Mount Everest"],
            "Mountain": ["Kangchenjunga", "Nanga Parbat", "Jannu", "Makalu"],
            "Height (m)": [8586, 8126, 7711, 8485],
        }
    )
    taller = ask({"df": peaks}, "Which is taller, Nanga Parbat or Kangchenjunga?")
    pair = peaks[peaks.Mountain.isin(["Nanga Parbat", "Kangchenjunga"])]
    assert taller.value == pair.Mountain[pair["Height (m)"].idxmax()], taller.sentence


def test_this_noun_points_at_what_the_table_is_about() -> None:
    """ "How many games did this team play against Spain?": the table lists one team's
    games, and "this team" names no column or row of it; the games against Spain are
    counted. The same noun after another word ("the other team") stays unplaced, and
    nothing is stated."""
    games = pd.DataFrame(
        {
            "Date": ["1982-03-01", "1982-05-02", "1983-06-03", "1984-01-04", "1984-02-05"],
            "Opponent": ["Spain", "Italy", "Spain", "France", "Spain"],
            "Result": ["W 2-1", "L 0-1", "D 1-1", "W 3-0", "L 1-2"],
        }
    )
    spain = ask({"df": games}, "How many games did this team play against Spain?")
    assert spain.value == (games.Opponent == "Spain").sum(), spain.sentence
    other = ask({"df": games}, "How many games did the other team play against Spain?")
    assert other.value is None, other.sentence
