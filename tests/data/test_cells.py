"""Tables as they arrive: numbers held as text, footnotes; read for the plan, shown as written."""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask
from agent_nb.data.cells import clean_text, numeric_column, read_cell
from agent_nb.data.execute import run_plan
from agent_nb.data.query import Plan
from agent_nb.data.table import profile


@pytest.mark.parametrize(
    ("cell", "number", "unit"),
    [
        ("1,234", 1234, ""),
        ("17 years", 17, "year"),
        ("3rd", 3, "th"),
        ("$2.5M", 2_500_000, "$"),
        ("1.5 km", 1.5, "km"),
        ("−5", -5, ""),
        ("12%", 12, "%"),
        ("2.5 million", 2_500_000, ""),
        ("1,234[5]", 1234, ""),
        ("88 feet (27 m)", 88, "feet"),  # a trailing detail set aside, as the evaluator does
        ("2:03.45", 123.45, "time"),
        ("208 156", 208_156, ""),
    ],
)
def test_a_cell_read_as_a_number_with_its_unit(cell: str, number: float, unit: str) -> None:
    read = read_cell(cell)
    assert read.number == pytest.approx(number)
    assert read.unit == unit
    assert read.text == clean_text(cell)


@pytest.mark.parametrize("cell", ["1990–91", "W 27–21", "10 July 2013", "7 p.m.", "Italy", "—"])
def test_ranges_scores_dates_and_words_are_not_numbers(cell: str) -> None:
    assert read_cell(cell).number is None


def test_footnotes_are_removed_from_the_text() -> None:
    assert clean_text("Italy [3]") == "Italy"
    assert clean_text("Italy[a]") == "Italy"
    assert clean_text("Gold*") == "Gold"
    assert clean_text("[1]") == "[1]"  # nothing but a footnote stays what it is


def test_a_column_of_numbers_needs_one_unit() -> None:
    numbers, unit = numeric_column(pd.Series(["1.5 km", "3 km", "—", "12 km"])) or (None, "")
    assert list(numbers.dropna()) == [1.5, 3, 12] and unit == "km"
    assert numeric_column(pd.Series(["1.5 km", "300 m", "2 km"])) is None  # two units
    assert numeric_column(pd.Series(["007", "008", "010"])) is None  # codes
    assert numeric_column(pd.Series(["Italy", "5", "France"])) is None


def test_one_odd_cell_among_numbers_is_missing_and_two_keep_the_column_text() -> None:
    # a results table's second part writes "WIN" where the votes were: the column is
    # still the votes, and "the most votes" ranks the parties by them
    votes = ["324,135", "250,312", "24,810", "27,178", "2,708", "WIN", None]
    numbers, _ = numeric_column(pd.Series(votes)) or (None, "")
    assert numbers is not None and numbers.isna().sum() == 2 and numbers.max() == 324135
    assert numeric_column(pd.Series(["12", "7", "WIN", "9", "3", "LOSS"])) is None
    assert numeric_column(pd.Series(["12", "7", "WIN", "9"])) is None  # too few numbers
    codes = ["56654", "56324", "56656", "56643/56645", "56640", "56647", "56661", "70106"]
    assert numeric_column(pd.Series(codes)) is None  # a pair of numbers: codes, not one odd cell
    parties = pd.DataFrame(
        {
            "Party": ["Labor", "Liberal", "Nationals", "Independent", "Other", "Labor"],
            "Votes": ["324,135", "250,312", "24,810", "27,178", "2,708", "WIN"],
        }
    )
    answer = ask({"parties": parties}, "Which party received the least votes?")
    assert answer.value == "Other"
    assert "2708" in answer.sentence.replace(",", "")


def test_counts_and_their_shares_in_one_column_are_not_one_measure() -> None:
    # a page's table gives each district's people, and on the row below their share
    districts = pd.DataFrame(
        {
            "District": ["Inland plain", "(Share in %)", "Highland", "(Share in %)"],
            "Population": ["1,282", "89.7%", "56", "3.9%"],
            "Area (km²)": ["837.27", "22.7%", "506.89", "13.7%"],
        }
    )
    assert numeric_column(districts["Population"]) is None
    answer = ask({"districts": districts}, "Which district has the highest population?")
    assert answer.value is None  # not "Inland plain" from 1,282 + 89.7 ranked with shares
    # such a column holds figures, not the rows' names: naming it is not naming the rows
    dense = districts.assign(Density=[1531, None, 110, None])
    area = "What is the combined area of the inland plain and the highland?"
    combined = ask({"districts": dense}, area)
    assert combined.value is None and "'area'" in combined.sentence  # not the densities' sum
    assert numeric_column(pd.Series(["12 km", "15", "8 km", "9 km", "11 km", "7 km"])) is not None


def _medals() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Nation": ["Italy [3]", "France[a]", "Spain", "Chile"],
            "Attendance": ["12,345", "9,870", "15,002", "—"],
            "Age": ["17 years", "21 years", "19 years", "18 years"],
        }
    )


def test_text_numbers_are_measured_and_shown_as_written() -> None:
    table = profile("df", _medals())
    assert table.columns["Attendance"].numeric and table.columns["Age"].numeric
    assert table.df["Attendance"].max() == 15_002
    assert table.written["Age"].tolist() == _medals()["Age"].tolist()
    result = run_plan(table, Plan(op="extreme", measure="Age", group_by="Nation"))
    assert result.value == "France[a]"
    assert result.frame["Age"].tolist() == [21]  # the number the sentence states
    assert result.shown["Age"].tolist() == ["21 years"]  # the cell as written


def test_a_question_over_text_numbers_and_footnoted_values() -> None:
    frame = _medals()
    assert ask({"df": frame}, "Which nation had the highest attendance?").value == "Spain"
    assert ask({"df": frame}, "What was the attendance of Italy?").value == 12_345
    assert frame["Attendance"].tolist()[0] == "12,345"  # the user's frame is unchanged


def test_a_mean_or_total_of_times_is_stated_as_a_time() -> None:
    # times written "m:ss.xx" are read as seconds for the plan; the answer is a time again
    swims = pd.DataFrame(
        {
            "Name": ["Delgado", "DeMont", "Favero", "Madruga"],
            "Time": ["1:55.45", "1:55.96", "1:57.08", "1:57.17"],
            "Race": ["2:03:45", "1:59:02", "2:10:00", "2:01:30"],
        }
    )
    assert ask({"df": swims}, "What is the average time?").value == "1:56.42"
    assert ask({"df": swims}, "What is the total time?").value == "7:45.66"
    assert ask({"df": swims}, "What is the highest race?").value == "2:10:00"
    assert ask({"df": swims}, "What is the average race?").value == "2:03:34"
    assert ask({"df": swims}, "How many times are under 1:56?").value == 2  # a count stays one
    # each group's time, and a group's, are times too (the table shown as well)
    each = ask({"df": swims}, "What is the time for each name?")
    assert each.value == {n: t for n, t in zip(swims.Name, swims.Time, strict=True)}
    assert "Madruga 1:57.17" in each.sentence and "1:57.17" in each.data.to_string()
    fastest = ask({"df": swims}, "Which name has the lowest average time?")
    assert fastest.value == "Delgado" and "(1:55.45)" in fastest.sentence


def test_a_closing_totals_row_is_left_out_with_a_note() -> None:
    medals = pd.DataFrame(
        {
            "Rank": ["1", "2", "3", "4", "Total"],
            "Nation": ["Italy", "France", "Spain", "Chile", ""],
            "Gold": [5, 3, 2, 1, 11],
            "Silver": ["1,002", "7", "1", "0", "1,010"],
        }
    )
    table = profile("df", medals)
    assert len(table.df) == 4 and len(table.written["Silver"]) == 4
    assert any("(Total) holds the totals" in note for note in table.notes)
    assert ask({"df": medals}, "How many nations are there?").value == 4
    plain = medals.iloc[:4].assign(Gold=[5, 3, 2, 9])  # a last row that sums nothing
    assert len(profile("df", plain).df) == 4
    # a row of data whose one column of two happens to add up (Silver 0 + 2 + 1 = 3)
    chance = pd.DataFrame(
        {
            "Nation": ["Chile", "Peru", "Bolivia", "Cuba"],
            "Gold": [5, 1, 0, 2],
            "Silver": [0, 2, 1, 3],
        }
    )
    assert len(profile("df", chance).df) == 4


def test_subtotal_rows_inside_a_table_are_left_out() -> None:
    """ "Total for Danish part:" inside the table, "Grand Total" at its end: rows that
    add up others, by their label and their numbers; a "Total Recall" row of data
    whose numbers add up nothing stays."""
    regions = pd.DataFrame(
        {
            "Region": [
                "Capital Region", "Remainder", "Total for Danish part:",
                "South Skåne", "West Skåne", "Total for Swedish part:",
                "Total Recall", "Grand Total",
            ],
            "Population": [
                "1,823,109", "608,036", "2,431,145", "683,886", "305,982", "989,868",
                "1,000", "3,422,013",
            ],
        }
    )  # fmt: skip
    table = profile("df", regions)
    assert list(table.df.Region) == [
        "Capital Region", "Remainder", "South Skåne", "West Skåne", "Total Recall"
    ]  # fmt: skip
    assert any("Grand Total" in note and "Total for Danish part:" in note for note in table.notes)
    answer = ask({"df": regions}, "Which regions have over one million in population?")
    assert answer.value == ["Capital Region"]


def test_a_totals_row_a_little_off_and_a_column_that_does_not_add_up() -> None:
    """A page's totals are often a little off (a census total 0.2 % above its provinces'
    sum), and a ratio column's total is no sum: the row is still the totals row."""
    provinces = pd.DataFrame(
        {
            "Province": ["Azua", "Bahoruco", "Barahona", "Dajabón", "Total"],
            "Area": ["2,531.77", "1,282.23", "1,739.38", "1,020.73", "6,574.11"],
            "Population": ["298,246", "111,269", "232,818", "87,274", "731,100"],
            "Density": ["118", "87", "134", "86", "111"],
        }
    )
    table = profile("df", provinces)
    assert len(table.df) == 4
    answer = ask({"df": provinces}, "How many provinces have a population over 100,000?")
    assert answer.value == 3  # not 4: the totals row is no province
    near = provinces.assign(Population=["298,246", "111,269", "232,818", "87,274", "740,000"])
    assert len(profile("df", near).df) == 4  # labelled "Total": 1.2 % off still adds up
    # unlabelled, a row 1.2 % off the sum in the one column that adds up is a row of data
    other = near.assign(Province=["Azua", "Bahoruco", "Barahona", "Dajabón", "Elías Piña"])
    assert len(profile("df", other).df) == 5


def test_a_labelled_totals_row_holds_sums_and_other_summaries() -> None:
    """ "Total" 53 bronze for 54 and 28 silver for 27 (a page's slips), "League total"
    with the season's highest, lowest and mean crowd beside its total: no rows of data."""
    medals = pd.DataFrame(
        {
            "Nation": ["Russia", "Bulgaria", "Belarus", "Ukraine", "Total"],
            "Gold": [17, 5, 3, 2, 27],
            "Silver": [5, 2, 4, 16, 28],
            "Bronze": [5, 3, 30, 16, 53],
        }
    )
    assert len(profile("df", medals).df) == 4
    crowds = pd.DataFrame(
        {
            "Team": ["Honda", "Tottori", "Kumamoto", "Ehime", "League total"],
            "Total": [13178, 12281, 10394, 9000, 44853],
            "High": [3305, 2124, 1378, 1500, 3305],
            "Low": [402, 401, 324, 300, 300],
            "Average": [879, 819, 693, 600, 747.75],
        }
    )
    table = profile("df", crowds)
    assert list(table.df.Team) == ["Honda", "Tottori", "Kumamoto", "Ehime"]
    assert ask({"df": crowds}, "Which team had the lowest low?").value == "Ehime"


def test_classes_written_with_a_unit_stay_names() -> None:
    """ "74 kg" four times over names a weight class: asked about and answered as written."""
    lifts = pd.DataFrame(
        {
            "Weight Class": ["74 kg", "83 kg", "74 kg", "93 kg", "83 kg", "74 kg"],
            "Lifted": [200, 250, 180, 300, 240, 210],
        }
    )
    table = profile("df", lifts)
    assert "Weight Class" not in table.written and table.columns["Weight Class"].role == "category"
    assert ask({"df": lifts}, "What is the most common weight class?").value == "74 kg"


def test_a_value_named_without_its_accents() -> None:
    """A question is often typed without the table's accents: "ibv" names "ÍBV". A name
    the table does not hold ("Vidir": the table writes "Víðir", and ð is a letter of its
    own, no accent) is no verb that links the rows to the plan: nothing is stated."""
    league = pd.DataFrame(
        {
            "Team": ["FH", "Fylkir", "ÍBV", "Víðir", "Víkingur"],
            "Draw": [2, 6, 2, 3, 4],
            "Lost": [2, 3, 10, 7, 5],
        }
    )
    answer = ask({"df": league}, "How many draws did ibv have?")
    assert answer.value == 2 and not answer.left_out
    assert ask({"df": league}, "How many draws did vikingur have?").value == 4
    unknown = ask({"df": league}, "How many draws did Vidir have?")
    assert unknown.value is None and "vidir" in {u.word for u in unknown.unplaced}


def test_a_column_of_comma_joined_lists_is_read_as_lists() -> None:
    """ "Songwriter, Lyricist" beside "Lyricist" lists roles: "how many lyricist credits"
    counts the rows that hold the item. "Osaka, Japan" joins no list: its parts never
    stand alone."""
    credits = pd.DataFrame(
        {
            "Album": [f"Album {i}" for i in range(8)],
            "Role": [
                "Songwriter",
                "Songwriter, Lyricist",
                "Lyricist",
                "Producer, Songwriter",
                "Songwriter",
                "Songwriter, Lyricist",
                "Publishing",
                "Songwriter",
            ],
            "Label": ["Avex, Japan", "SM, Korea", "Avex, Japan", "Up-front, Japan",
                      "Pony, Japan", "SM, Korea", "Avex, Japan", "Up-front, Japan"],
        }
    )  # fmt: skip
    table = profile("df", credits)
    assert table.columns["Role"].listy and not table.columns["Label"].listy
    answer = ask({"df": credits}, "How many lyricist credits are there?")
    assert answer.value == 3  # the rows holding Lyricist, not the 1 whose role is it alone


def test_a_column_of_items_one_per_line_is_read_as_lists() -> None:
    """A page's cell lists a film's countries one per line ("England\n France"): "how
    many films are from England" counts the films England is among."""
    films = pd.DataFrame(
        {
            "Title": [f"Film {i}" for i in range(7)],
            "Country": ["United States", "England", "England\n France", "Iceland",
                        "England\n Ireland", "France", "United States"],
            "Director": ["A. B", "C. D", "E. F\nTemplate:G. H", "I. J", "K. L", "M. N", "O. P"],
        }
    )  # fmt: skip
    table = profile("df", films)
    assert table.columns["Country"].listy and not table.columns["Director"].listy
    assert ask({"df": films}, "How many films are from England?").value == 3
    assert ask({"df": films}, "How many films are from France?").value == 2


def test_the_rows_noun_does_not_name_a_value_of_another_word() -> None:
    """ "how many players are retired?": "players" counts the rows, and is no form of the
    status "Playing"."""
    squad = pd.DataFrame(
        {
            "Player": ["Ali", "Ben", "Cai", "Dov", "Eli", "Fay"],
            "Current status": ["Playing", "Retired", "Playing", "Retired", "Retired", "Playing"],
            "Caps": [10, 50, 45, 3, 60, 41],
        }
    )
    assert ask({"df": squad}, "How many players are currently retired?").value == 3
    assert ask({"df": squad}, "How many players have above 40 caps?").value == 4


def test_first_places_shown_as_medals_are_the_top_places() -> None:
    """A results table whose Rank is empty in its first three rows (the page showed medal
    images) and runs on from 4: those rows hold places 1-3, and the top-ranked is row 1."""
    walk = pd.DataFrame(
        {
            "Rank": [None, None, None, 4, 5, 6, 7, None],
            "Athlete": ["Borchin", "Wang", "Kim", "Nava", "Tallent", "Linke", "Bonfim", "Sebei"],
            "Time": ["1:19:56", "1:20:00", "1:20:05", "1:20:20", "1:20:41", "1:21:00",
                     "1:21:20", "DQ"],
        }
    )  # fmt: skip
    table = profile("df", walk)
    assert table.df.Rank.tolist()[:4] == [1, 2, 3, 4]
    assert any("Rank (rows 1-3)" in note for note in table.notes)
    assert ask({"df": walk}, "Who is the top ranked athlete?").value == "Borchin"
    # a column that is empty at its start for another reason does not start at 4
    gaps = walk.assign(Rank=[None, None, None, 9, 5, 6, 7, None])
    assert profile("df", gaps).df.Rank.isna().sum() == 4


def test_rows_that_repeat_the_header_are_left_out() -> None:
    # a long table copied from a page shows its column names again down the table
    presidents = pd.DataFrame(
        {
            "Votes": ["1200", "3400", "2100", "Votes", "5300", "800"],
            "President": ["Washington", "Adams", "Jefferson", "President", "Madison", "Monroe"],
            "Party": ["None", "Federalist", "Dem.-Rep.", "Party", "Dem.-Rep.", "Dem.-Rep."],
        }
    )
    answer = ask({"presidents": presidents}, "How many rows are there?")
    assert answer.value == 5
    assert any("repeating the column names" in n for n in answer.notes)
    total = ask({"presidents": presidents}, "What is the total of votes?")
    assert total.value == 12800  # its own name no longer keeps it from being read as numbers


def test_rows_that_only_head_a_section_are_left_out_and_a_row_with_missing_data_stays() -> None:
    # a bracket copied from a page: "East" alone heads the East's teams, and is no team;
    # "Iona" has no figures yet, and is a team all the same
    seeds = pd.DataFrame(
        {
            "Region": ["West", "West", "West", "East", "East", "East", "East", "Iona"],
            "Seed": ["", "1", "2", "", "1", "2", "3", ""],
            "Team": ["", "Duke", "Utah", "", "Yale", "Navy", "Army", ""],
            "Coach": ["", "K", "M", "", "B", "C", "D", ""],
            "Score": ["", "W 81-65", "L 70-64", "", "W 72-69", "L 94-79", "L 77-59", ""],
        }
    ).replace("", None)
    answer = ask({"seeds": seeds}, "How many rows where Region is East?")
    assert answer.value == 3
    assert any("heading a section (West, East)" in n for n in answer.notes)
    assert ask({"seeds": seeds}, "How many rows are there?").value == 6
    two = ask({"seeds": seeds.iloc[:7]}, "How many rows where Region is East?")
    assert two.value == 3  # two heads among seven rows: still heads
    kept = ask({"seeds": seeds.iloc[[1, 2, 4, 5, 6, 7]]}, "How many rows are there?")
    assert kept.value == 6  # no section: "Iona" is in no other row, so it is a row
    assert not any("section" in n for n in kept.notes)


def test_a_value_named_without_its_bracketed_detail() -> None:
    # "Greece (details)", "Tom Boonen (BEL)": the page's link or a country code; two
    # values that share the name ("Smith (1)", "Smith (2)") are named by neither
    churches = pd.DataFrame(
        {
            "Jurisdiction": ["Alexandria (details)", "Greece (details)", "Smith (1)", "Smith (2)"],
            "Bishops": [41, 101, 7, 9],
            "Notes": ["Founded (see below)", "", "", "Filming (Releasing in 2014)"],
        }
    )
    assert ask({"df": churches}, "How many bishops does Greece have?").value == 101
    assert ask({"df": churches}, "How many bishops does Smith have?").value is None
    aliases = profile("df", churches).columns["Jurisdiction"].values
    assert aliases["greece"] == "Greece (details)" and "smith" not in aliases
    notes = profile("df", churches).columns["Notes"].values
    assert "filming" not in notes  # a note of four words in brackets is no name's detail
