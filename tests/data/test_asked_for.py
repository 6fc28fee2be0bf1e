"""A value is stated only for what the question asks (issue 47, found on WikiTableQuestions'
development tables): the operation a word asks for, the unit asked for, and a place
the rows are in.

Truths are computed here with pandas from palmerpenguins and vega_datasets' cars.
"""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask
from agent_nb.data.answer_form import form_faults
from agent_nb.data.query import Filter, Plan
from agent_nb.data.reading import read
from agent_nb.data.table import profile
from tests.data.tables import table


@pytest.fixture(scope="module")
def cars() -> pd.DataFrame:
    return table("cars")


@pytest.fixture(scope="module")
def penguins() -> pd.DataFrame:
    return table("penguins")


def test_a_count_answers_only_a_question_that_counts(cars: pd.DataFrame) -> None:
    """ "When was ...?" asks for a date, not for the number of rows that match, nor for
    one of several rows' dates."""
    when = ask({"cars": cars}, "When was the only car with 3 cylinders built?")
    assert when.value is None
    three = cars[cars.Cylinders == 3]
    # read as the year of the rows with 3 cylinders, which differ: none is "the only"
    assert f"the {len(three)} rows that match have {three.Year.nunique()} different" in (
        when.sentence
    )
    how_many = ask({"cars": cars}, "How many cars have 3 cylinders?")
    assert how_many.value == int((cars.Cylinders == 3).sum())


def test_a_mean_answers_only_a_question_that_averages(cars: pd.DataFrame) -> None:
    japan = cars[cars.Origin == "Japan"].Horsepower
    unasked = ask({"cars": cars}, "What is the horsepower of the Japanese cars?")
    assert unasked.value is None and "does not ask for a mean" in unasked.sentence
    assert f"{japan.mean():.2f}" not in unasked.sentence
    asked = ask({"cars": cars}, "What is the average horsepower of the Japanese cars?")
    assert asked.value == pytest.approx(japan.mean())


def test_a_place_the_rows_are_in_must_be_placed(cars: pd.DataFrame) -> None:
    """ "from Sweden": no value of the table is Sweden, so no count of every car."""
    answer = ask({"cars": cars}, "How many cars come from Sweden?")
    assert answer.value is None and "'sweden'" in answer.sentence
    assert str(len(cars)) not in answer.sentence


def test_the_unit_asked_for_is_the_answers_or_nothing_is_stated(penguins: pd.DataFrame) -> None:
    heaviest = penguins.body_mass_g.max()
    grams = ask({"penguins": penguins}, "What is the heaviest penguin weight in grams?")
    assert grams.value == heaviest
    kilograms = ask({"penguins": penguins}, "What is the heaviest penguin weight in kilograms?")
    assert kilograms.value is None and "'kilograms'" in kilograms.sentence
    assert f"{heaviest:g}" not in kilograms.sentence


def test_a_choice_between_named_values_is_answered_by_one_of_them_or_not_at_all(
    penguins: pd.DataFrame,
) -> None:
    """ "Which is heavier on average, Adelie or Gentoo?" asks for one of the two, not for
    the mean of both together; where the words say what to compare, the named values are
    ranked by it; where they do not, nothing is stated."""
    means = penguins.groupby("species").body_mass_g.mean()[["Adelie", "Gentoo"]]
    heavier = ask({"penguins": penguins}, "Which is heavier on average, Adelie or Gentoo?")
    assert heavier.value == means.idxmax()
    assert heavier.sentence.startswith(f"{means.idxmax()} has the highest mean body_mass_g")
    fewer = ask({"penguins": penguins}, "Which island has fewer penguins, Dream or Torgersen?")
    assert fewer.value == penguins.island.value_counts()[["Dream", "Torgersen"]].idxmin()
    both = penguins[penguins.species.isin(["Adelie", "Gentoo"])].body_mass_g.mean()
    held = ask({"penguins": penguins}, "Who lives on Dream or Biscoe island?")
    assert held.value is None and "which of Dream or Biscoe" in str(held.unplaced)
    assert f"{both:,.2f}" not in heavier.sentence
    # "of A and B, which ...": a choice too, where the question compares
    counts = penguins.species.value_counts()[["Adelie", "Gentoo"]]
    more = ask({"penguins": penguins}, "Of Adelie and Gentoo, which has more penguins?")
    assert more.value == counts.idxmax()
    # and no choice where it does not compare: what both named share
    both_on = ask({"penguins": penguins}, "Adelie and Chinstrap both live on which island?")
    assert not any(u.word == "and" for u in both_on.unplaced)


def test_an_operation_word_is_not_read_as_a_value() -> None:
    """ "total" asks to add up; the row labelled Total is not what "total" names."""
    medals = pd.DataFrame(
        {"Nation": ["Total", "Kenya", "Chad", "Peru", "Fiji"], "Gold": [10, 4, 3, 2, 1]}
    )
    answer = ask({"medals": medals}, "How many total nations are there?")
    assert answer.value is None  # not 1, the one row whose Nation is "Total"
    assert "'total' names an operation" in answer.unplaced[0].why


def test_a_looked_up_cell_is_stated_as_written() -> None:
    """A time read as seconds for the plan ("3:38:33") is stated as the table writes it."""
    races = pd.DataFrame(
        {"Year": [2003, 2004, 2005, 2006], "Time": ["3:41:02", "3:38:33", "3:45:10", "3:39:59"]}
    )
    answer = ask({"races": races}, "What was the time in 2004?")
    assert answer.value == "3:38:33"
    assert answer.sentence.startswith("3:38:33")


def test_distinct_values_of_one_row_are_not_a_count() -> None:
    """ "How many riders does the Skater model include?" is in the Skater row's Riders,
    not the number of distinct Riders values in one row (always 1)."""
    rides = pd.DataFrame(
        {
            "Model name": ["Skater", "Cruiser", "Sprint", "Glide", "Wave", "Loop"],
            "Riders": ["24 riders", "12 riders", "8 riders"] * 2,
        }
    )
    answer = ask({"rides": rides}, "How many riders does the Skater model include?")
    assert answer.value in (None, 24)  # the count of distinct values in one row is never 1
    assert answer.value is not None or "one row" in answer.unplaced[0].why


def test_the_only_one_is_stated_only_when_one_matches(penguins: pd.DataFrame) -> None:
    """Adelie penguins live on three islands: "the only island" has no answer here."""
    islands = penguins[penguins.species == "Adelie"].island.nunique()
    assert islands == 3
    answer = ask({"penguins": penguins}, "Name the only island where Adelie penguins live.")
    assert answer.value is None
    assert answer.unplaced[0].why == "the question says only one, and 3 match what was read"
    one = ask({"penguins": penguins}, "What is the only species on Torgersen?")
    assert one.value == "Adelie"


def test_the_operations_own_name_is_placed(penguins: pd.DataFrame) -> None:
    std = ask({"penguins": penguins}, "What is the standard deviation of the body mass?")
    assert std.value == pytest.approx(penguins.body_mass_g.std())


def test_the_amount_of_a_measure_is_the_measure(penguins: pd.DataFrame) -> None:
    """ "the total amount of body mass" is the body mass, as "the number of" is a count."""
    answer = ask(
        {"penguins": penguins}, "What is the total amount of body mass of the Gentoo penguins?"
    )
    assert answer.value == penguins[penguins.species == "Gentoo"].body_mass_g.sum()


def test_a_column_that_numbers_the_rows_has_no_total(penguins: pd.DataFrame) -> None:
    """A Rank of 1 to n down the table: "the total Rank" of some rows means nothing."""
    ranked = penguins.head(30).assign(Rank=range(1, 31))
    answer = ask({"penguins": ranked}, "What is the total Rank of the Adelie penguins?")
    assert answer.value is None
    assert answer.unplaced[-1].why == "Rank numbers the rows 1 to 30"
    lowest = ask({"penguins": ranked}, "What is the lowest Rank of the penguins on Biscoe?")
    assert lowest.value == ranked[ranked.island == "Biscoe"].Rank.min()


def test_a_column_that_numbers_each_groups_rows_has_no_total() -> None:
    """ "No." written "1.", "2." (read from text as numbers), counting the winners 1, 2, 3
    and the runners-up 1, 2 apart: "the total of winners" is not the sum of those
    numbers. A count column whose values happen to be small ("Gold") still adds up."""
    finals = pd.DataFrame({
        "Outcome": ["Runner-up", "Winner", "Winner", "Runner-up", "Winner", "Winner"],
        "No.": ["1.", "1.", "2.", "2.", "3.", "4."],
        "Year": [1973, 1974, 1974, 1975, 1976, 1977],
        "Gold": [2, 1, 3, 1, 1, 2],
    })  # fmt: skip
    answer = ask({"finals": finals}, "What is the total No. of the winners?")
    assert answer.value is None
    assert answer.unplaced[-1].why == "No. numbers the rows of each Outcome"
    gold = ask({"finals": finals}, "What is the total Gold of the winners?")
    assert gold.value == finals[finals.Outcome == "Winner"].Gold.sum()


def test_more_of_a_count_and_a_repeated_comparison(penguins: pd.DataFrame) -> None:
    """ "more penguins, Dream or Biscoe?" ranks the two by their rows; "at least 5000 g or
    more" says the applied comparison twice."""
    counts = penguins.island.value_counts()[["Dream", "Biscoe"]]
    more = ask({"penguins": penguins}, "Which island has more penguins, Dream or Biscoe?")
    assert more.value == counts.idxmax()
    twice = ask({"penguins": penguins}, "How many penguins weigh at least 5000 g or more?")
    assert twice.value == int((penguins.body_mass_g >= 5000).sum())


def test_how_many_values_meet_a_comparison_counts_rows(cars: pd.DataFrame) -> None:
    """ "how many cylinders were more than 6?" counts the cars whose Cylinders meet it; the
    total of those Cylinders answers another question and is never stated for it."""
    answer = ask({"cars": cars}, "How many cylinders were more than 6?")
    assert answer.plan.agg == "count"
    assert answer.value == int((cars.Cylinders > 6).sum())
    total = Plan(
        op="aggregate",
        agg="sum",
        measure="Cylinders",
        filters=(Filter(column="Cylinders", op=">", value=6),),
    )
    r = read(profile("cars", cars), "How many cylinders were more than 6?")
    [fault] = form_faults(r, total, set(), 108, 864)
    assert "counts the rows whose Cylinders meets the comparison" in fault.why


def test_a_count_of_the_one_row_a_name_picks_is_not_stated() -> None:
    """ "How many stations does Micoud have?" on a table with one row per place: the rows
    named Micoud are one, always, so a count of them answers nothing (the number asked
    for would be in the row). A count over a repeated value still answers."""
    places = pd.DataFrame(
        {
            "Quarter": ["Castries", "Micoud", "Vieux Fort", "Gros Islet", "Soufrière"],
            "Region": ["North", "South", "South", "North", "West"],
            "Population": [65656, 16284, 16284, 25210, 8472],
        }
    )
    one = ask({"df": places}, "How many stations does Micoud have?")
    assert one.value is None and "are one" in str(one.unplaced)
    assert ask({"df": places}, "How many quarters are in the South region?").value == 2
    # a name a few rows share still names the rows one by one
    ships = pd.DataFrame(
        {
            "Name": ["River-class", "River-class", *(f"Ship {i}" for i in range(18))],
            "Displacement": list(range(1000, 1020)),
        }
    )
    named = ask({"df": ships}, "How many tons does Ship 3 displace?")
    assert named.value != 1 and "are one" in str(named.unplaced)
    # two names of one row each: the count is the number of names the question gave
    both = ask({"df": places}, "How many stations do Micoud and Castries have?")
    assert both.value is None and "are 2, one each" in str(both.unplaced)


def test_a_count_of_no_row_holding_the_values_named_is_not_stated(
    penguins: pd.DataFrame,
) -> None:
    """ "How many Gentoo penguins live on Torgersen?": each value is in the table, and no row
    holds both; the question names them as its rows' values, so the reading has most likely
    joined what the question did not, and 0 is not stated. A bound no row meets is a
    count of 0 (truths from pandas)."""
    gentoo = penguins.species == "Gentoo"
    assert not (gentoo & (penguins.island == "Torgersen")).any() and gentoo.any()
    none = ask({"df": penguins}, "How many Gentoo penguins live on Torgersen island?")
    assert none.value is None
    assert "no row of df has island Torgersen and species Gentoo" in str(none.unplaced)
    heavy = ask({"df": penguins}, "How many penguins have a body mass over 9000 g?")
    assert heavy.value == int((penguins.body_mass_g > 9000).sum()) == 0


def test_rows_or_the_different_values_they_name() -> None:
    """ "how many opponents are listed?" counts 6 rows or 3 opponents: the words do not say
    which, so neither is stated; "how many different opponents" says it."""
    games = pd.DataFrame(
        {
            "Week": [1, 2, 3, 4, 5, 6],
            "Opponent": ["Bears", "Lions", "Bears", "Packers", "Lions", "Bears"],
        }
    )
    either = ask({"df": games}, "How many opponents are listed?")
    assert either.value is None and "6 rows or 3 different Opponent" in str(either.unplaced)
    assert ask({"df": games}, "How many different opponents are listed?").value == 3


def test_a_count_of_rows_counts_only_what_the_rows_are(
    penguins: pd.DataFrame, cars: pd.DataFrame
) -> None:
    """ "how many X" over all rows is the number of rows only where each row is one X: the
    table's name says so, or a column that tells the rows apart (here as the user's context
    describes it); a table named df says nothing."""
    named = ask({"penguins": penguins}, "How many penguins are there?")
    assert named.value == len(penguins)
    unnamed = ask({"df": penguins}, "How many penguins are there?")
    assert unnamed.value is None and unnamed.could_not_place == ("penguins",)
    assert str(len(penguins)) not in unnamed.sentence
    described = ask({"df": cars}, "How many cars are listed?", {"Name": "car model"})
    assert described.value == len(cars)
    assert ask({"df": cars}, "How many cars are listed?").value is None


def test_a_count_of_rows_is_not_a_count_of_what_a_column_holds() -> None:
    """ "the total number of wins" over a season's matches, whose Result column holds the
    wins: the number of rows (matches) answers another question."""
    games = pd.DataFrame(
        {
            "Date": pd.date_range("2024-01-06", periods=6, freq="7D"),
            "Opponent": ["Ajax", "Benfica", "Celtic", "Ajax", "Benfica", "Celtic"],
            "Wins": [1, 0, 1, 1, 0, 0],
        }
    )
    wins = int(games.Wins.sum())
    assert ask({"games": games}, "What is the total number of wins?").value == wins
    assert ask({"df": games}, "How many wins are there?").value == wins
    assert ask({"games": games}, "How many games are there?").value == len(games)


def test_yes_or_no_does_not_answer_a_choice(penguins: pd.DataFrame) -> None:
    # the choice is answered by the word that holds (never a bool), a plain test by a bool
    adelie = penguins[penguins.species == "Adelie"].body_mass_g.mean()
    choice = ask(
        {"penguins": penguins}, "Is the mean body mass of Adelie penguins more or less than 4000 g?"
    )
    assert choice.value == ("more" if adelie > 4000 else "less")
    plain = ask({"penguins": penguins}, "Is the mean body mass of Adelie penguins above 4000 g?")
    assert plain.value is bool(adelie > 4000)


def test_a_superlative_of_a_quality_does_not_rank_by_rows(penguins: pd.DataFrame) -> None:
    """ "the top island" ranks by some value of the island; only a word of quantity ("the
    most penguins", "the top 2" of a list) asks how many rows each island holds."""
    counts = penguins.island.value_counts()
    assert ask({"penguins": penguins}, "What is the top island?").value is None
    most = ask({"penguins": penguins}, "Which island has the most penguins?")
    assert most.value == counts.idxmax()
    top = ask({"penguins": penguins}, "List the top 2 islands.")
    assert top.value == list(counts.index[:2])


def test_a_value_that_picked_its_row_is_no_answer(penguins: pd.DataFrame) -> None:
    """ "the only song over 20 points" asks for the song: its points restate the
    comparison (a mean over one row is that row's value only where a name picked it),
    so the song is the answer; "the only island with a bill under 33 mm", the island."""
    songs = pd.DataFrame(
        {"Song": ["Alma", "Brisa", "Cielo", "Duna", "Eco"], "Points": [12, 31, 8, 17, 5]}
    )
    restated = ask({"songs": songs}, "What was the only song that got over 20 points?")
    assert restated.value == "Brisa" and "31" not in restated.sentence
    short = penguins[penguins.bill_length_mm < 33].island
    island = ask({"penguins": penguins}, "What is the only island with a bill length under 33 mm?")
    assert len(short) == 1 and island.value == short.iloc[0]
    looked_up = ask({"songs": songs}, "What is the number of points of Brisa?")
    assert looked_up.value == 31


def test_two_years_said_together_keep_either_and_set_apart_compare(
    penguins: pd.DataFrame,
) -> None:
    """A row holds one year: "in 2007 and 2008" keeps the rows of either; only a word that
    sets them apart ("than") asks for a difference, and "how many times" counts."""
    years = penguins.year.value_counts()
    both = ask({"penguins": penguins}, "How many penguins were recorded in 2007 and 2008?")
    assert both.value == int(years[2007] + years[2008])
    more = ask({"penguins": penguins}, "How many more penguins were recorded in 2009 than in 2007?")
    assert more.value == int(years[2009] - years[2007])
    times = ask({"penguins": penguins}, "How many times did Adelie penguins live on Dream?")
    adelie_dream = (penguins.species == "Adelie") & (penguins.island == "Dream")
    assert times.value == int(adelie_dream.sum())


def test_a_texts_length_answers_only_a_question_about_text() -> None:
    """ "the shortest tenure" is a duration, not the characters of "1983–1988"."""
    presidents = pd.DataFrame(
        {
            "President": ["Ann Lee", "Bo Chan", "Cy Diaz", "Di Eko"],
            "Tenure": ["1983–1988", "1988–1990", "1990–2001", "2001–2003"],
        }
    )
    answer = ask({"presidents": presidents}, "Who had the shortest tenure as president?")
    assert answer.value is None
    assert "length of Tenure" in {u.word for u in answer.unplaced}


def test_operating_closed_class_words_are_applied_or_block(penguins: pd.DataFrame) -> None:
    """ "since", "until" bound a year; "other than" excludes; a closed-class word that
    operates is never left out as changing nothing ("since 2008" was once the rows of 2008)."""
    since = ask({"penguins": penguins}, "How many penguins were recorded since 2008?")
    assert since.value == int((penguins.year >= 2008).sum())
    until = ask({"penguins": penguins}, "How many penguins were recorded until 2008?")
    assert until.value == int((penguins.year <= 2008).sum())
    other = ask({"penguins": penguins}, "How many penguins live on islands other than Dream?")
    assert other.value == int((penguins.island != "Dream").sum())
    unbound = ask({"penguins": penguins}, "How many penguins were recorded between the storms?")
    assert unbound.value is None and "between" in unbound.could_not_place


def test_a_two_letter_word_is_placed_like_any_other() -> None:
    """ "UK drivers": a two-letter word names something; "end up" is no "up to"."""
    drivers = pd.DataFrame(
        {
            "Driver": ["Ann", "Bob", "Cid", "Dee"],
            "Nationality": ["United Kingdom", "France", "United Kingdom", "Italy"],
            "Points": [10, 8, 6, 1],
        }
    )
    uk = ask({"drivers": drivers}, "How many UK drivers are there?")
    assert uk.value is None and "uk" in uk.could_not_place
    total = ask({"drivers": drivers}, "If you added all the points up, what would the total be?")
    assert total.value == int(drivers.Points.sum())


def test_what_before_a_column_of_names_asks_for_a_name() -> None:
    """ "what artist scored the least points?" asks for an artist, as "which" does."""
    songs = pd.DataFrame(
        {"Artist": ["Ann", "Bob", "Cid", "Dee"], "Song": list("WXYZ"), "Points": [12, 4, 30, 9]}
    )
    named = ask({"songs": songs}, "What artist scored the least points?")
    assert named.value == "Bob"
    phrase = ask({"songs": songs}, "the artist with the most points")
    assert phrase.value == "Cid"
    assert ask({"songs": songs}, "What is the least number of points?").value == 4


def test_a_verb_that_asks_before_a_column_of_names_asks_for_a_name() -> None:
    """ "can you name a party other than X?" asks for a party, as "what party" does: the
    name of a member of another party answers another question."""
    members = pd.DataFrame(
        {
            "Name": ["Hakki Atun", "Ferdi Soyer", "Ahmet Kaya", "Irsen Kucuk"],
            "Party": ["National Unity", "Republican Turkish", "Democratic", "National Unity"],
        }
    )
    for question in (
        "can you name a party other than the national unity party?",
        "Name a party other than National Unity",
    ):
        answer = ask({"members": members}, question)
        assert answer.value in (None, "Republican Turkish", "Democratic")
        if answer.value is None:
            assert "'party'" in answer.sentence
    assert ask({"members": members}, "name a member of the democratic party").value in (
        None,
        "Ahmet Kaya",
    )


def test_please_before_list_still_asks_for_the_list_and_before_name_a_for_one() -> None:
    """ "please list the candidates that ..." asks for all of them, as "list the
    candidates" does; "please name a candidate ..." for one."""
    votes = pd.DataFrame(
        {
            "Candidate": ["O'Neill", "Brown", "Campbell", "Edie", "Thomson"],
            "Votes": [16004, 10655, 4235, 3253, 751],
        }
    )
    listed = "please list the candidates that received over one thousand votes."
    assert ask({"votes": votes}, listed).value == ["O'Neill", "Brown", "Campbell", "Edie"]
    one = ask({"votes": votes}, "please name a candidate with over one thousand votes")
    assert one.value in (None, "O'Neill", "Brown", "Campbell", "Edie")
    assert not isinstance(one.value, list)


@pytest.mark.parametrize(
    ("question", "op"),
    [
        ("How many players played no more than 13 innings?", "le"),
        ("How many players played not more than 13 innings?", "le"),
        ("How many players played no less than 13 innings?", "ge"),
    ],
)
def test_a_comparison_that_holds_its_own_negation(question: str, op: str) -> None:
    """ "no more than 13" is at most 13: its "no" is not a second negation."""
    innings = pd.DataFrame({"Player": ["A", "B", "C", "D"], "Innings": [10, 13, 15, 20]})
    truth = getattr(innings.Innings, op)(13).sum()
    assert ask({"innings": innings}, question).value == int(truth)


def test_a_word_of_a_name_in_the_table_must_be_applied() -> None:
    """ "brown or columbia?": each names one row by part of its name (Brown University);
    an answer over every row ("Cornell has the highest enrollment") leaves them out."""
    schools = pd.DataFrame(
        {
            "Institution": ["Brown University", "Columbia University", "Cornell University"],
            "Enrollment": [6316, 8868, 13931],
        }
    )
    answer = ask({"schools": schools}, "Which has a higher enrollment? Brown or Columbia?")
    assert answer.value in (None, "Columbia University")
    assert "Cornell" not in answer.sentence


def test_the_same_as_compares_values_not_whether_rows_exist() -> None:
    """ "is the population of A the same as B's?" is no test that rows of A or B exist."""
    places = pd.DataFrame({"Place": ["Brandfort", "Boipatong", "Ventersburg"], "Pop": [12, 22, 5]})
    answer = ask({"places": places}, "Is the population of Brandfort the same as Boipatong?")
    assert answer.value is None and "same" in answer.could_not_place


def test_can_you_name_asks_for_names(penguins: pd.DataFrame) -> None:
    """ "Can you name ...?" asks for names: no yes (a count of rows answers neither)."""
    answer = ask({"penguins": penguins}, "Can you name an island other than Dream?")
    assert answer.value is None and answer.plan.op != "exists"


def test_filtered_rows_do_not_count_what_a_column_of_amounts_holds() -> None:
    """ "How many votes were not won by Labor?" over a Votes column: the number of the
    other parties' rows is not a number of votes, even with a filter saying which rows;
    the total of Votes is. A count of rows whose noun names the filtered column itself
    ("how many parties' names start with L") still counts rows."""
    results = pd.DataFrame({
        "Party": ["Labor", "Liberal", "Greens", "Independent"],
        "Votes": [324135, 250312, 24810, 27178],
    })  # fmt: skip
    r = read(profile("results", results), "How many votes were not won by Labor?")
    others = Filter(column="Party", op="!=", value="Labor")
    rows = Plan(op="aggregate", agg="count", filters=(others,), words=(("rows", ("votes",)),))
    [fault] = form_faults(r, rows, set(), 3, 3)
    assert fault.word == "votes" and "Votes holds the number of votes" in fault.why
    answer = ask({"results": results}, "How many votes were not won by Labor?")
    assert answer.value == results[results.Party != "Labor"].Votes.sum()
    r = read(profile("results", results), "How many party names start with L?")
    starts = Filter(column="Party", op="startswith", value="L")
    named = Plan(op="aggregate", agg="count", filters=(starts,), words=(("rows", ("party",)),))
    assert form_faults(r, named, set(), 2, 2) == []


def test_how_many_is_not_answered_with_a_list(cars: pd.DataFrame) -> None:
    """ "How many cars are in the top 5 for horsepower?" asks for a number: the five cars
    answer another question ("which cars are in the top 5?")."""
    answer = ask({"cars": cars}, "How many cars are in the top 5 for horsepower?")
    assert answer.value is None
    assert "how many" in {u.word for u in answer.unplaced}
    which = ask({"cars": cars}, "Which 5 cars have the highest horsepower?")
    assert isinstance(which.value, list) and len(which.value) >= 5


def test_a_column_asked_for_by_name_is_not_the_rows() -> None:
    """ "the density of the last city" asks for a Density: a column of numbers, one per
    row, is not a name of the rows, and its bracketed unit need not be said. The
    City of the last row answers another question."""
    cities = pd.DataFrame({
        "City": ["Bergamo", "Treviglio", "Seriate", "Osio Sotto"],
        "Population\n(ab)": [121316, 29334, 25036, 12083],
        "Density\n(ab/km²)": [3044, 922, 3206, 1622],
    })  # fmt: skip
    answer = ask({"cities": cities}, "What is the density of the last city?")
    assert answer.value is None
    assert answer.could_not_place == ("density",)  # (two rules may say why: said once)


def test_which_kind_is_what_the_answer_names() -> None:
    """ "What election had the most total votes?" asks for an election: a Party is none
    (WordNet relates neither). "Which country ..." of a Nation column is answered
    (synonyms)."""
    results = pd.DataFrame({
        "Party": ["Democratic", "Republican", "Green", "Libertarian"],
        "Total votes": [431444, 398000, 12000, 9000],
    })  # fmt: skip
    election = ask({"results": results}, "What election had the most total votes?")
    assert election.value is None
    assert election.unplaced[-1].word == "election"
    party = ask({"results": results}, "Which party had the most total votes?")
    assert party.value == "Democratic"
    medals = pd.DataFrame({"Nation": ["Chile", "Peru", "Bolivia"], "Gold": [4, 9, 2]})
    assert ask({"medals": medals}, "Which country won the most gold?").value == "Peru"


def test_a_word_no_dictionary_knows_is_not_placed_as_harmless() -> None:
    """ "gurung" is no English word: a name no filter applies, so the count of every row
    is not stated. A slip of one letter ("postion") or two words run together
    ("airbase") is judged as the word it was meant to be."""
    reps = pd.DataFrame({
        "Name": ["Ram Thapa", "Sita Rai", "Hari Shrestha", "Gita Tamang"],
        "Party": ["NC", "UML", "NC", "Maoist"],
        "Position": [1, 2, 3, 4],
    })  # fmt: skip
    named = ask({"reps": reps}, "How many representatives have the last name gurung?")
    assert named.value is None
    assert "gurung" in {u.word for u in named.unplaced}
    first = ask({"reps": reps}, "Who is in the first postion?")
    assert first.value == "Ram Thapa"


def test_in_the_top_places_the_rows(cars: pd.DataFrame) -> None:
    """ "the last car in the top 10" asks for one car among the top ten: the ten cars
    answer "what are the top 10 cars?", which is answered."""
    one = ask({"cars": cars}, "What was the last car in the top 10 by horsepower?")
    assert one.value is None
    assert "top" in {u.word for u in one.unplaced}
    ten = ask({"cars": cars}, "What are the top 10 cars by horsepower?")
    assert isinstance(ten.value, list) and len(ten.value) >= 10


def test_the_same_value_as_another_row_is_not_that_rows_own(penguins: pd.DataFrame) -> None:
    """ "Which island has the same ... as X?" asks for the other rows that share X's
    value: reading X's own value answers another question, so no value is stated; "the
    same year as 2008" names the value itself, and its rows are counted."""
    same = ask({"penguins": penguins}, "Which species has the same island as Chinstrap?")
    assert same.value is None
    assert any(u.word == "same" for u in same.unplaced)
    year = ask({"penguins": penguins}, "How many penguins have the same year as 2008?")
    assert year.value == int((penguins.year == 2008).sum())


def test_the_row_asked_for_is_what_the_answer_names() -> None:
    """ "what is the only province with ...", "tell me a province that ...": the noun
    names the rows' own column, so the answer must name a province; a total of another
    column answers another question. "which province ..." is answered by its name."""
    provinces = pd.DataFrame({
        "Province": ["Azua", "Barahona", "Dajabon", "Elias Pina"],
        "Capital": ["Azua", "Santa Cruz", "Dajabon", "Comendador"],
        "Population": [214311, 187105, 63955, 63879],
        "Density": [88.1, 113.5, 63.8, 27.2],
    })  # fmt: skip
    frames = {"df": provinces}
    only = ask(frames, "What is the only province with population density under 30?")
    assert only.value is None and {u.word for u in only.unplaced} == {"province"}
    assert f"{provinces[provinces.Density < 30].Population.sum():,}" not in only.sentence
    tell = ask(frames, "Tell me a province that did not have a population over 100,000.")
    assert tell.value == "Dajabon" and "the first of the 2 rows" in tell.sentence
    assert ask(frames, "Which province has a density under 30?").value == "Elias Pina"


def test_the_amounts_of_a_column_are_its_values() -> None:
    """ "the amounts of the lowest 3 incomes" asks for the incomes themselves, as "the
    amount of" does: the plural changes nothing."""
    incomes = pd.DataFrame({
        "Employee": list("abcdefg"),
        "MonthlyIncome": [5000, 2100, 3900, 2500, 7100, 2300, 4100],
    })  # fmt: skip
    for question in (
        "List the amounts of the lowest 3 monthly incomes.",
        "List the amount of the lowest 3 monthly incomes.",
    ):
        assert ask({"df": incomes}, question).value == [2100, 2300, 2500]


def test_a_word_two_rules_block_is_said_once_with_why(penguins: pd.DataFrame) -> None:
    """Two rules may keep one word from being placed ("island" names a column the answer
    does not use, and the question asks for an island): the reply names it once, with
    the first reason, so the reader knows what to reword."""
    question = "What is the only island with a mean bill length under 40 mm?"
    answer = ask({"penguins": penguins}, question)
    assert answer.value is None
    assert [u.word for u in answer.unplaced].count("island") == 2
    assert answer.could_not_place == ("island",)
    assert answer.sentence.count("'island'") == 1
    assert f"'island' ({answer.unplaced[0].why})" in answer.sentence


def test_who_is_not_answered_with_dates_written_as_text() -> None:
    """ "Who was the first ambassador?" over a column of appointment dates written as
    text: the dates are no one's name (a name with a detail in brackets is)."""
    envoys = pd.DataFrame(
        {
            "Appointment": ["Apr 10, 1947", "Jun 2, 1951", "Mar 9, 1956", "Oct 1, 1960"],
            "Envoy": ["Ann Lee (acting)", "Bo Park", "Cy Moss", "Di Hart"],
            "Title": ["Ambassador", "Ambassador", "Minister", "Ambassador"],
        }
    )
    r = read(profile("envoys", envoys), "Who was the first ambassador to be appointed?")
    ambassador = (Filter(column="Title", value="Ambassador"),)
    dates = Plan(op="lookup", group_by="Appointment", filters=ambassador)
    [fault] = form_faults(r, dates, set(), 3, "Apr 10, 1947")
    assert fault.word == "who" and "cells of Appointment are dates" in fault.why
    names = Plan(op="lookup", group_by="Envoy", filters=ambassador)
    assert form_faults(r, names, set(), 3, "Ann Lee (acting)") == []
    dated = ask({"envoys": envoys}, "Who was the first ambassador to be appointed?")
    assert dated.value is None and "'who' asks for a name" in dated.sentence


def test_on_the_chart_closes_a_question_that_asks_for_a_value(cars: pd.DataFrame) -> None:
    """ "What is the highest horsepower on the chart?" ends on the measure once the page
    the rows are on is set aside: the value, not the car that holds it."""
    answer = ask({"cars": cars}, "What is the highest horsepower on the chart?")
    assert answer.value == cars.Horsepower.max()


def test_which_date_is_a_day_not_its_month() -> None:
    weather = table("weather")
    answer = ask({"weather": weather}, "On which date was the temp_max highest?")
    hottest = pd.to_datetime(weather.date)[weather.temp_max == weather.temp_max.max()]
    assert answer.value in {d.strftime("%Y-%m-%d") for d in hottest}


def test_name_a_row_is_one_of_them_and_says_how_many(cars: pd.DataFrame) -> None:
    """ "Name a car ..." asks for one car, not the list; the answer says it is the first
    of several that match, not the only one."""
    strong = cars[cars.Horsepower > 200]
    one = ask({"cars": cars}, "Name a car with more than 200 horsepower.")
    assert one.value == strong.Name.iloc[0]
    assert one.left_out == ()  # "name" asks for the answer: no note says it was left out
    assert f"the first of the {len(strong)} rows where Horsepower over 200" in one.sentence
    every = ask({"cars": cars}, "Which cars have more than 200 horsepower?")
    assert every.value == list(strong.Name)


def test_a_column_named_in_one_word_as_it_is_written() -> None:
    """ "the highest average YearsAtCompany": the column's own name, written as one word,
    names all of it; a superlative's "high" does not pick JobLevel instead."""
    staff = pd.DataFrame(
        {
            "Department": ["Sales", "Sales", "R&D", "R&D", "HR", "HR"],
            "JobLevel": [1, 2, 4, 3, 1, 2],
            "YearsAtCompany": [12, 19, 3, 8, 5, 1],
        }
    )
    answer = ask({"staff": staff}, "Which department has the highest average YearsAtCompany?")
    assert answer.value == "Sales"
    assert answer.plan.measure == "YearsAtCompany"


@pytest.fixture
def sales_by_product() -> pd.DataFrame:
    """Transactions with ids, a month written twice (a number and its abbreviation)."""
    return pd.DataFrame(
        {
            "transaction_id": range(1, 9),
            "transaction_qty": [2, 1, 3, 1, 2, 1, 1, 2],
            "product_id": [32, 57, 59, 22, 87, 79, 77, 32],
            "unit_price": [3.0, 3.1, 4.5, 2.0, 3.0, 2.5, 3.75, 3.0],
            "Month": [1, 1, 1, 2, 2, 2, 3, 3],
            "Month_1": ["Jan", "Jan", "Jan", "Feb", "Feb", "Feb", "Mar", "Mar"],
        }
    )


def test_a_number_of_things_an_id_identifies_is_no_id(sales_by_product: pd.DataFrame) -> None:
    """ "more than 10 products", "the 3 largest amount of products": products counted,
    not product_id compared or ranked; "the 3 highest product ids" ranks the ids."""
    sales = sales_by_product
    sold = ask({"sales": sales}, "Is there a transaction where more than 10 products were sold?")
    assert sold.value is None  # not "yes" from product_id > 10
    largest = "List the 3 largest amounts of products bought in one transaction"
    assert ask({"sales": sales}, largest).value == [3, 2, 2]  # transaction_qty, not ids
    ids = ask({"sales": sales}, "List the 3 highest product ids")
    assert ids.value == [87, 79, 77]


def test_names_asked_of_a_column_of_numbers(sales_by_product: pd.DataFrame) -> None:
    """ "the month names" over a Month of 1, 2, 3: numbers are no names, so no value."""
    answer = ask({"sales": sales_by_product}, "What are the month names of the sales?")
    assert answer.value is None
    assert "Month holds numbers" in answer.sentence


def test_the_row_a_superlative_heads_is_not_its_value() -> None:
    """ "the most populated city", "the city with the highest population" ask for a
    city: the largest population (a number) answers another question."""
    towns = pd.DataFrame(
        {
            "Town": ["Ulaan", "Erdene", "Bayan", "Tsetserleg"],
            "Population (2005)": [12000, 17790, 3300, 9100],
        }
    )
    for question in ("the most populated city", "the city with the highest population"):
        answer = ask({"df": towns}, question)
        assert answer.value is None, question
        assert "it asks for the city" in answer.sentence
    town = ask({"df": towns}, "Which town has the highest population?")
    assert town.value == "Erdene"


def test_a_total_is_not_read_off_one_row() -> None:
    """ "the total design variations with vacuum brakes" asks for a total: the first
    matching row's code answers another question."""
    designs = pd.DataFrame(
        {
            "TOPS design code": ["08-0AV", "08-0BX", "08-0CA", "08-0DV", "08-0FA"],
            "Brakes": ["vacuum", "dual", "air", "vacuum", "air"],
        }
    )
    total = ask({"df": designs}, "what's the total design variations with vacuum brakes?")
    assert total.value is None and "'total' (it asks for a total" in total.sentence
    assert ask({"df": designs}, "how many designs have vacuum brakes?").value == 2


def test_a_superlative_no_part_of_the_plan_applies_blocks_the_value() -> None:
    """ "the highest percentage of popular vote before 1990" is no share of the rows."""
    votes = pd.DataFrame(
        {
            "Year of election": [1963, 1967, 1971, 1975, 1990, 1995],
            "% of popular vote": ["15.5%", "25.9%", "27.1%", "28.9%", "37.6%", "20.6%"],
        }
    )
    q = "before 1990 what was the highest percentage of popular vote?"
    answer = ask({"df": votes}, q)
    assert answer.value != pytest.approx(4 / 6 * 100)
    if answer.value is None:
        assert "'highest'" in answer.sentence
    else:  # the extreme itself, read from the text cells
        assert answer.value == pytest.approx(28.9)


def test_the_least_amount_of_a_thing_measures_that_thing() -> None:
    """ "the county where McCain had the least amount of votes": the superlative measures
    the votes, through "amount of"; an answer over McCain's share is to another question
    (the county with the lowest share is not the one with the fewest votes)."""
    counties = pd.DataFrame(
        {
            "County": ["Adair", "Worth", "St. Louis City", "Boone"],
            "McCain%": [60.1, 52.3, 15.6, 48.2],
            "McCain votes": [6100, 900, 24662, 30000],
        }
    )
    answer = ask({"df": counties}, "which county did mccain have the least amount of votes?")
    assert answer.value in ("Worth", None)
    if answer.value is None:
        assert "'votes'" in answer.sentence
    shares = pd.DataFrame({k: v for k, v in counties.items() if k != "McCain votes"})
    share = ask({"df": shares}, "which county did mccain have the least amount of votes?")
    assert share.value is None and "'votes'" in share.sentence  # not the lowest share's


def test_first_on_the_list_is_not_the_most_frequent() -> None:
    """ "what team is first on the list?" asks for the table's first row, not the team
    with the most rows."""
    picks = pd.DataFrame(
        {
            "Pick": [1, 2, 3, 4, 5, 6],
            "Player": ["Ildefonso", "Castillo", "Peek", "Encarnacion", "Seigle", "Reyes"],
            "PBA team": ["Shell", "Beermen", "Pop Cola", "Pop Cola", "Beermen", "Alaska"],
        }
    )
    answer = ask({"df": picks}, "what team is first on the list?")
    assert answer.value in (None, "Shell")


def test_a_letter_is_a_value_to_place() -> None:
    """ "the artist with the first letter k": the letter is what picks the row."""
    artists = pd.DataFrame(
        {"Artist": ["Mike Ruiz", "Kasia Nova", "Lena Orsk"], "Points": [10, 12, 7]}
    )
    answer = ask({"df": artists}, "the artist with the first letter k")
    assert answer.value in (None, "Kasia Nova")
    if answer.value is None:
        assert "'k'" in answer.sentence


def test_than_a_value_compares_with_its_row() -> None:
    """ "a higher population than Malaga" compares the other rows with Malaga's: Malaga
    itself is no answer."""
    provinces = pd.DataFrame(
        {
            "Province": ["Seville", "Málaga", "Cádiz", "Granada"],
            "Population": [1_900_000, 1_600_000, 1_200_000, 900_000],
        }
    )
    q = "which province is the only province with a higher population than malaga?"
    answer = ask({"df": provinces}, q)
    assert answer.value in (None, "Seville")
    if answer.value is None:
        assert "'than malaga'" in answer.sentence


def test_no_distinct_value_among_empty_cells_is_missing_not_none() -> None:
    """Three victories whose Aircraft cells are empty: "how many aircraft" is not 0."""
    claims = pd.DataFrame(
        {
            "Aircraft": ["Nieuport 17", None, None, None, "Hanriot"],
            "Result": ["Destroyed", "Forced to land", "Forced to land", "Forced to land", None],
        }
    )
    answer = ask({"df": claims}, "how many different aircraft were forced to land?")
    assert answer.value is None
    assert "have no Aircraft value: missing, not none" in answer.sentence


def test_what_was_the_last_noun_asks_for_that_noun() -> None:
    """ "what was the last year that ..." asks for a year: a figure of another column of
    that row is no answer."""
    cons = pd.DataFrame(
        {
            "Name": ["Project A-kon", "AnimeCon", "AnimeFEST"],
            "Earliest attendance figure known": [380, 2000, 105],
            "Country": ["USA", "USA", "USA"],
        }
    )
    q = "what was the last year that animefest had a known figure of attendance?"
    answer = ask({"df": cons}, q)
    assert answer.value is None and "'year'" in answer.sentence
    kind = ask({"df": cons}, "what is the last name listed?")
    assert kind.value == "AnimeFEST"


def test_what_is_the_least_measure_is_its_value() -> None:
    """ "what is the least population listed in the table?" ends on a participle, but the
    superlative's own noun is the measure: the value, not the place that holds it."""
    places = pd.DataFrame(
        {"Place": ["Verkeerdevlei", "Tweespruit", "Excelsior"], "Population": [151, 940, 2340]}
    )
    answer = ask({"df": places}, "what is the least population listed in the table?")
    assert answer.value == 151
    assert ask({"df": places}, "which place has the least population?").value == "Verkeerdevlei"


def test_the_1800s_is_a_century() -> None:
    """ "the 1800s" spans 1800 to 1899 (a decade is "the 1990s")."""
    locos = pd.DataFrame(
        {"Name": ["A", "B", "C", "D", "E"], "Year": [1864, 1877, 1899, 1903, 1995]}
    )
    assert ask({"df": locos}, "how many were built in the 1800s?").value == 3
    assert ask({"df": locos}, "how many were built in the 1990s?").value == 1
    # a column of years the verb names ("built" of Built) spans them as a Year does;
    # a number no filter applies is never placed as "the rows" (5 rows were stated)
    built = locos.rename(columns={"Year": "Built"})
    assert ask({"df": built}, "how many were built in the 1800s?").value == 3
    ends = locos.rename(columns={"Year": "Ends"})
    assert ask({"df": ends}, "how many were built in the 1800s?").value is None


def test_a_difference_of_a_measure_is_no_difference_of_counts() -> None:
    """ "the difference in tonnes between two classes" (one row each): 1 - 1 = 0 rows is
    no answer; "how many more ..." asks for the counts' difference."""
    ships = pd.DataFrame(
        {
            "Class": ["Malabar class", "UT507 class", "Osprey", "Osprey"],
            "Tonnage": ["1,100 t", "1,040 t", "800 t", "800 t"],
        }
    )
    q = "what is the difference in tonnes between the malabar class and the ut507 class?"
    answer = ask({"df": ships}, q)
    assert answer.value in (None, 60)
    more = ask({"df": ships}, "how many more osprey rows are there than malabar class rows?")
    assert more.value == 1


def test_an_order_is_stated_only_for_a_question_that_orders(cars: pd.DataFrame) -> None:
    """ "What many cylinders does an origin have?" holds no word that orders: the origin with
    the highest mean Cylinders answers "which origin has the most cylinders?", and is not
    stated for it. A superlative, "the top", or every group listed ("by origin") needs no
    such word of its own."""
    top = Plan(op="rank", agg="mean", measure="Cylinders", group_by="Origin")
    r = read(profile("cars", cars), "What many cylinders does an origin have?")
    faults = {u.word: u.why for u in form_faults(r, top, set(), len(cars), "USA")}
    assert "no word of the question" in faults["the highest Cylinders"]
    asked = read(profile("cars", cars), "Which origin has the most cylinders on average?")
    assert form_faults(asked, top, set(), len(cars), "USA") == []
    means = cars.groupby("Origin").Cylinders.mean()
    assert ask({"cars": cars}, "Which origin has the most cylinders on average?").value == (
        means.idxmax()
    )


def test_a_list_of_names_that_hold_commas_is_parted_by_semicolons() -> None:
    """ "Tokyo, Japan" and "Athens, Greece" tie: the reply's list keeps each name whole."""
    games = pd.DataFrame(
        {
            "Year": [1964, 1992, 2004, 2020, 1896, 2000, 1988],
            "Venue": ["Tokyo, Japan", "Barcelona, Spain", "Athens, Greece"] * 2 + ["Seoul"],
        }
    )
    answer = ask({"df": games}, "Which venues are listed the most?")
    assert sorted(answer.value) == ["Athens, Greece", "Barcelona, Spain", "Tokyo, Japan"]
    assert "[Tokyo, Japan; Barcelona, Spain; Athens, Greece]" in answer.sentence


def test_a_pole_does_not_name_its_opposite_column() -> None:
    """ "male" and "female" share a group of words (a column named sex is named by either),
    but "female" names the females column, not the males one: "how many male and female
    German speakers" is not the males alone."""
    speakers = pd.DataFrame(
        {
            "Language": ["Polish", "German", "Yiddish", "Russian"],
            "males": [216794, 17409, 24538, 2186],
            "females": [230891, 18522, 26677, 2335],
        }
    )
    both = ask({"df": speakers}, "How many male and female German speakers are there?")
    assert both.value is None and "it names the column females" in str(both.unplaced)
    female = ask({"df": speakers}, "How many female speakers of Polish are there?")
    assert female.value == 230891


def test_the_difference_of_two_named_rows_counts_is_not_stated() -> None:
    """ "how many more strokes were in the KLM Open than the Scottish Open?" on a table with
    one row per tournament: each count is 1, always, and their difference 0 answers
    nothing (the strokes are in the rows)."""
    golf = pd.DataFrame(
        {
            "Tournament": ["KLM Open", "Scottish Open", "Irish Open", "Dutch Masters"],
            "Winning score": [-14, -12, -9, -11],
        }
    )
    question = "How many more strokes were in the KLM Open than the Scottish Open?"
    answer = ask({"df": golf}, question)
    assert answer.value is None and "the rows named KLM Open are one" in str(answer.unplaced)
    # the reply says the whole reading, both counts
    read = "I read the difference of the number of rows where Tournament KLM Open and the"
    assert read in answer.sentence and "Tournament Scottish Open in df" in answer.sentence


def test_a_number_word_or_an_end_is_never_the_rows_noun() -> None:
    """ "guests listed on episode two": "two" is a number to place, not the noun the rows
    are; "the last to appear" is a place in an order. Neither is left out as harmless."""
    guests = pd.DataFrame(
        {
            "Episode #": [1, 2, 3, 4, 5, 6],
            "Guest": ["Ann Lee", "Bo Chan", "Cy Dorn", "Di Ekel", "Ed Fox", "Flo Gray"],
            "Network": ["BBC", "ITV", "BBC", "BBC", "ITV", "BBC"],
        }
    )
    # "episode two" places the number: the rows whose Episode # is 2
    two = ask({"df": guests}, "What is the total number of guests listed on episode two?")
    assert two.value == int((guests["Episode #"] == 2).sum())
    assert "Episode # 2" in two.sentence
    # the first BBC guest (Ann Lee) was stated before, with "last" left out; the reading
    # that places "last" (the last BBC row, in the table's order) answers now
    last = ask({"df": guests}, "Who is the last to appear on BBC?")
    assert last.value == guests[guests.Network == "BBC"].Guest.iloc[-1] != "Ann Lee"
    assert "last row where Network BBC" in last.sentence
    assert ask({"df": guests}, "Who is the last to appear on the show?").value == "Flo Gray"


def test_an_adjective_that_pertains_to_a_column_word_is_placed_by_it() -> None:
    """ "the average unitary price": WordNet's "unitary" pertains to "unit", a word of the
    name of unit_price; the mean of unit_price answers it (the truth from pandas)."""
    sales = pd.DataFrame({"unit_price": [3.0, 3.1, 4.5, 2.45], "transaction_qty": [1, 2, 1, 3]})
    answer = ask({"df": sales}, "What is the average unitary price?")
    assert answer.value == pytest.approx(sales.unit_price.mean())


def test_a_count_of_rows_whose_noun_names_a_column_of_kinds_is_not_stated() -> None:
    """ "how many total sports had silver medals?" counted the rows (8 medals) with
    "sports" as their noun; the rows hold 4 sports. Where the two differ, neither is
    stated; "different" asks for the kinds, and a noun that names no column counts rows."""
    medals = pd.DataFrame(
        {
            "Medal": ["Silver"] * 8 + ["Gold"] * 2,
            "Name": ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo"],
            "Sport": [
                *("Boxing", "Boxing", "Shooting", "Shooting", "Rowing"),
                *("Rowing", "Rowing", "Judo", "Judo", "Boxing"),
            ],
        }
    )
    silver = medals[medals.Medal == "Silver"]
    total = ask({"df": medals}, "How many total sports had silver medals awarded?")
    assert total.value is None
    assert f"it counts {len(silver)} rows or {silver.Sport.nunique()} different Sport" in (
        total.sentence
    )
    different = ask({"df": medals}, "How many different sports had silver medals?")
    assert different.value == silver.Sport.nunique()
    assert ask({"df": medals}, "How many athletes had silver medals?").value == len(silver)


def test_a_noun_of_a_computation_is_never_the_rows() -> None:
    """ "when was the attendance difference the greatest" was read as the week with the
    highest attendance, "difference" left out as the noun the rows are. A noun of a
    computation is placed only by a plan that computes it: a range, or the difference
    between two weeks ("week 1 and week 12" name the rows of Week 1 and 12)."""
    games = pd.DataFrame(
        {
            "Week": list(range(1, 13)),
            "Record": [f"{(w + 1) // 2}–{w // 2}" for w in range(1, 13)],
            "Attendance": [
                *(50100, 47900, 61200, 55000, 58300, 49900),
                *(60200, 52000, 57400, 48800, 59100, 50013),
            ],
        }
    )
    answer = ask({"df": games}, "When was the attendance difference the greatest?")
    assert answer.value is None
    unplaced = answer.sentence.split("could not place", 1)[1].split(". ")[0]
    assert "'difference'" in unplaced
    weeks = games.set_index("Week").Attendance
    two = ask({"df": games}, "What was the difference in attendance from week 1 and week 12?")
    assert two.value == abs(weeks[1] - weeks[12])
    spread = ask({"df": games}, "What is the difference between the greatest and least attendance?")
    assert spread.value == games.Attendance.max() - games.Attendance.min()


def test_a_verb_whose_form_names_a_column_of_numbers_is_not_left_out() -> None:
    """ "the total number of races won" was the total of Races, "won" left out as a noun
    (the Korean currency). Its verb, win, names the column Wins, which the answer does
    not use: no value is stated. The wins themselves add up."""
    seasons = pd.DataFrame(
        {
            "Season": [2009, 2010, 2011, 2012],
            "Team": ["Andersen", "Juncos", "Juncos", "Andersen"],
            "Races": [13, 13, 12, 16],
            "Wins": [1, 7, 3, 4],
        }
    )
    won = ask({"df": seasons}, "What is the total number of races won by all teams combined?")
    assert won.value is None and "'won' (it names the column Wins" in won.sentence
    assert ask({"df": seasons}, "What is the total number of wins?").value == seasons.Wins.sum()
    assert ask({"df": seasons}, "What is the total number of races?").value == seasons.Races.sum()


def test_a_count_of_rows_is_no_count_of_a_unit() -> None:
    """ "how many points were scored versus Haiti?" over matches (no column of points)
    counted the matches. Points, like miles or dollars, are a unit of measurement in
    WordNet: no row is one point, so no count of rows is stated for them."""
    matches = pd.DataFrame(
        {
            "Date": ["1 May 2004", "9 May 2004", "3 June 2004", "7 June 2004"],
            "Opponent": ["Haiti", "Cuba", "Haiti", "Jamaica"],
            "Result": ["3–0", "1–1", "2–1", "0–2"],
        }
    )
    points = ask({"df": matches}, "How many points were scored versus Haiti?")
    assert points.value is None and "'points' (points measure an amount" in points.sentence
    played = ask({"df": matches}, "How many matches were played with Haiti?")
    assert played.value == int((matches.Opponent == "Haiti").sum())


def test_against_is_placed_by_the_value_it_introduces() -> None:
    """ "played against Haiti": the filter on Opponent places "against"; against a word
    the plan does not apply ("against the best team"), no value is stated."""
    matches = pd.DataFrame(
        {
            "Date": ["1 May 2004", "9 May 2004", "3 June 2004", "7 June 2004"],
            "Opponent": ["Haiti", "Cuba", "Haiti", "Jamaica"],
            "Result": ["3–0", "1–1", "2–1", "0–2"],
        }
    )
    truth = int((matches.Opponent == "Haiti").sum())
    against = ask({"df": matches}, "How many matches were played against Haiti?")
    assert against.value == truth and "against" not in against.note  # placed, not left out
    assert ask({"df": matches}, "How many matches were played versus Haiti?").value == truth
    assert ask({"df": matches}, "How many matches were played against the best team?").value is None


def test_a_choice_between_two_orders_is_answered_by_the_word_that_holds(
    penguins: pd.DataFrame, cars: pd.DataFrame
) -> None:
    """ "more or less", "higher or lower", "greater or smaller": the answer is the word
    the computed sides make true (truths from pandas), not yes or no; the sentence
    gives both sides."""
    gentoo = penguins[penguins.species == "Gentoo"].body_mass_g.mean()
    mass = ask(
        {"penguins": penguins},
        "Is the average body mass of Gentoo penguins more or less than 5000?",
    )
    assert mass.value == ("more" if gentoo > 5000 else "less")
    assert mass.sentence.startswith("More — " if gentoo > 5000 else "Less — ")
    adelie, gentoos = (penguins.species == "Adelie").sum(), (penguins.species == "Gentoo").sum()
    counts = ask(
        {"penguins": penguins}, "Are there more or fewer Adelie penguins than Gentoo penguins?"
    )
    assert counts.value == ("more" if adelie > gentoos else "fewer")
    assert counts.plan.test == (">" if adelie > gentoos else "<")  # the test that holds
    hp = cars.groupby("Origin").Horsepower.mean()
    question = "Is the mean horsepower of European cars higher or lower than that of Japanese cars?"
    assert ask({"cars": cars}, question).value == (
        "higher" if hp["Europe"] > hp["Japan"] else "lower"
    )


def test_a_typing_slip_is_judged_as_the_word_it_was_meant_to_be() -> None:
    """ "the year previos to Normandy" stated Normandy's own year, the slip excused as a
    verb; one letter away it is "previous", which orders, and no value is stated. A slip
    of a word that changes nothing ("aslo": also) still leaves the count stated."""
    games = pd.DataFrame(
        {
            "Year": [1992, 1994, 1996, 1998],
            "Title": ["Dune II", "Normandy: The Great Crusade", "Red Alert", "Tiberian Sun"],
        }
    )
    slip = ask({"df": games}, "the year previos to normandy: the great crusade")
    assert slip.value is None and "'previos' ('previous' compares or orders" in slip.sentence
    assert ask({"df": games}, "the year of normandy: the great crusade").value == 1994
    drivers = pd.DataFrame(
        {
            "Driver": ["Ann", "Bo", "Cy", "Di"],
            "Constructor": ["Brabham", "Lotus", "Brabham", "Brabham"],
        }
    )
    also = ask({"df": drivers}, "What number of drivers aslo had Brabham as their constructor?")
    assert also.value == int((drivers.Constructor == "Brabham").sum())


def test_a_placeholder_is_never_the_answer() -> None:
    """ "which single had the highest chart position?" answered "-": the cell marks a
    missing value (the rows with no single), so no value is stated; the lowest, held
    by named singles, is."""
    singles = pd.DataFrame(
        {
            "Single": ["-", "Melting Pot", "The Banner Man", "-"],
            "UK Singles Chart": [26, 3, 3, 40],
            "Year": [1968, 1969, 1971, 1972],
        }
    )
    highest = ask({"df": singles}, "Which single had the highest UK singles chart position?")
    assert highest.value is None and "which marks a missing value" in highest.sentence
    lowest = singles[singles["UK Singles Chart"] == singles["UK Singles Chart"].min()]
    answer = ask({"df": singles}, "Which single had the lowest UK singles chart position?")
    assert answer.value == lowest.Single.tolist()


def test_which_after_a_clause_set_off_by_a_comma_asks_for_a_name() -> None:
    """ "Besides Merthyr Town, which other team had the highest capacity?" was answered
    with the capacity (8,800): "which" after the comma asks for the team, as it does
    at the start of the question."""
    grounds = pd.DataFrame(
        {
            "Team": ["Merthyr Town", "Paulton Rovers", "Bath City", "Frome Town"],
            "Capacity": [10000, 5000, 8800, 2000],
        }
    )
    others = grounds[grounds.Team != "Merthyr Town"]
    clause = "Besides Merthyr Town, which other team had the highest number of capacity?"
    answer = ask({"df": grounds}, clause)
    assert answer.value is None and "'which' asks for a row or a group" in answer.sentence
    plain = "Which team other than Merthyr Town had the highest capacity?"
    assert ask({"df": grounds}, plain).value == others.loc[others.Capacity.idxmax(), "Team"]


def test_a_verb_whose_doer_heads_another_column_is_not_left_out() -> None:
    """ "Who owned the last locomotive to be built?" stated the last row's Name, "owned"
    left out as a verb. Its doer (WordNet: owner) heads Original Owner, which the
    answer does not use; asked by that name, the owner is stated."""
    engines = pd.DataFrame(
        {
            "Year Built": [1882, 1883, 1886, 1890],
            "Name": ["Charles", "Gwynedd", "Velinheli", "Trangkil No.4"],
            "Original Owner": ["Penrhyn Quarry", "Penrhyn Quarry", "Dinorwic", "Trangkil Mill"],
        }
    )
    owned = ask({"df": engines}, "Who owned the last locomotive to be built?")
    assert owned.value is None and "'owned' (it asks about Original Owner" in owned.sentence
    owner = ask({"df": engines}, "Who was the original owner of the last locomotive?")
    assert owner.value == engines["Original Owner"].iloc[-1]
    # a placed value is the verb's doer: "play" asks nothing of the Player column
    games = pd.DataFrame(
        {
            "Date": ["June 22", "June 24", "June 26"],
            "Team": ["Detroit Tigers", "Detroit Tigers", "Boston Red Sox"],
            "Opponent": ["Boston Red Sox", "Cleveland Indians", "Detroit Tigers"],
            "Player": ["Kaline", "Horton", "Yastrzemski"],
        }
    )
    played = ask({"df": games}, "On what date did the Detroit Tigers play the Cleveland Indians?")
    met = games[(games.Team == "Detroit Tigers") & (games.Opponent == "Cleveland Indians")]
    assert played.value == met.Date.iloc[0]


def test_a_count_of_a_value_some_cells_hold_within_longer_text_is_not_stated() -> None:
    """ "How many times did she play herself?" where 3 roles are exactly Herself and 2
    more hold it within a longer cell: whether the whole cell or a part is meant is not
    said, so neither count is stated; the reply gives both. A row looked up by its
    exact name ("the film after Leap Year") is that row."""
    films = pd.DataFrame(
        {
            "Year": [2001, 2002, 2003, 2004, 2005, 2006, 2007],
            "Title": ["Leap Year", "Rush", "Leap Year Again", "Dawn", "Dusk", "Noon", "Eve"],
            "Role": [
                "Herself",
                "Anna",
                "Herself (voice)",
                "Herself",
                "Herself / Host",
                "Herself",
                "Mara",
            ],
        }
    )
    exact = int((films.Role == "Herself").sum())
    within = int(films.Role.str.contains("Herself").sum()) - exact
    count = ask({"films": films}, "In how many films is the role Herself?")
    assert count.value is None
    assert f"{exact} rows have Role exactly Herself, and {within} more" in count.sentence
    after = ask({"films": films}, "Which title comes after Leap Year?")
    assert after.value == films.Title[films.Title.eq("Leap Year").idxmax() + 1]
    anna = ask({"films": films}, "In how many films is the role Anna?")
    assert anna.value == int((films.Role == "Anna").sum())
    # where both readings answer the same, the answer is stated
    mara = ask({"films": films}, "Were there more Herself roles than Mara roles?")
    assert mara.value is True
    assert (films.Role == "Herself").sum() > (films.Role == "Mara").sum()


def test_a_total_of_a_column_no_word_names_is_not_stated_where_another_is_named() -> None:
    """ "What is the total amount of names listed?" on a table whose one column of
    numbers is a weight: the planner falls back on that column, but the question names
    another (Full Name), so its total answers nothing asked."""
    babies = pd.DataFrame(
        {
            "Full Name": ["Ada Obi", "Bola Eze", "Chi Nwosu", "Dayo Ade"],
            "Nickname": ["Ada", "Bola", "Chi", "Dayo"],
            "Weight at birth": [690, 760, 540, 820],
        }
    )
    names = ask({"babies": babies}, "What is the total amount of names listed?")
    assert names.value is None
    assert f"{babies['Weight at birth'].sum():,}" not in names.sentence
    weight = ask({"babies": babies}, "What is the total weight at birth?")
    assert weight.value == babies["Weight at birth"].sum()


def test_a_bound_is_not_read_as_the_extreme_it_names() -> None:
    """ "Which nations earned at least 5 silver medals?" asks for every nation over the
    bound: the "least" of "at least" asks for no extreme, so neither the nation with the
    fewest nor the one with the most is the answer. "The most" still asks for one."""
    medals = pd.DataFrame(
        {
            "Nation": ["Austria", "Canada", "Italy", "Norway", "Japan"],
            "Silver": [9, 7, 5, 2, 1],
            "Gold": [3, 4, 1, 6, 0],
        }
    )
    bound = ask({"medals": medals}, "Which nations earned at least 5 silver medals?")
    assert bound.value is None
    most = ask({"medals": medals}, "Which nation earned the most silver medals?")
    assert most.value == medals.Nation[medals.Silver.idxmax()]


def test_words_of_a_name_direct_nothing_and_a_rank_counts_from_its_top() -> None:
    """ "the difference between Lucchi's points and Max Biaggi's points" names no
    direction ("max" is a word of a name): its size; "a higher rank" on a Rank column
    is a smaller number, though the table starts at rank 5; "prior to 1993" is before
    it; "which countries won more than ..." asks for every one."""
    riders = pd.DataFrame(
        {
            "Rank": [5, 6, 20, 23, 32],
            "Rider": ["Ana Lobo", "Marcellino Lucchi", "Max Biaggi", "Tommy Haas", "Gil Simon"],
            "Points": [90, 85, 90, 60, 41],
            "Country": ["Italy", "Italy", "Spain", "Canada", "Peru"],
            "Year": [1990, 1991, 1993, 1995, 1996],
        }
    )
    points = riders.set_index("Rider").Points
    gap = ask(
        {"riders": riders},
        "What is the difference between Marcellino Lucchi's points and Max Biaggi's points?",
    )
    assert gap.value == abs(points["Marcellino Lucchi"] - points["Max Biaggi"])
    rank = riders.set_index("Rider").Rank
    higher = ask({"riders": riders}, "Did Gil Simon have a higher rank than Tommy Haas?")
    assert higher.value == bool(rank["Gil Simon"] < rank["Tommy Haas"])
    prior = ask({"riders": riders}, "Prior to 1993, how many riders were from Italy?")
    assert prior.value == int(((riders.Year < 1993) & (riders.Country == "Italy")).sum())
    which = ask({"riders": riders}, "Which riders scored more than 80 points?")
    assert which.value == riders.Rider[riders.Points > 80].tolist()


def test_when_is_answered_only_with_a_time() -> None:
    """ "When was his last competition?" asks for its year: the Competition of the last
    row ("World Championships") answers "what was", and is not stated; a year is."""
    results = pd.DataFrame(
        {
            "Year": [2009, 2011, 2013],
            "Competition": ["European Cup", "Universiade", "World Championships"],
            "Position": [3, 1, 5],
        }
    )
    when = ask({"results": results}, "When was his last competition?")
    assert when.value is None
    assert "'when' asks for a time" in str(when.unplaced)
    year = ask({"results": results}, "When did he compete at the Universiade?")
    assert year.value == results.Year[results.Competition.eq("Universiade").idxmax()]
    # a month is a whole word: "Mark" and "Mayor" name people, no time
    coaches = pd.DataFrame(
        {"Coach": ["Mark Lee", "Mayor Ruiz", "Decan Obi"], "Team": ["Ajax", "Roma", "Lyon"]}
    )
    named = ask({"coaches": coaches}, "When did Ajax hire its coach?")
    assert named.value is None and "holds none" in named.sentence, named.sentence


def test_what_the_rows_are_said_after_were_is_a_condition() -> None:
    """ "How many drafted players were quarterbacks?" where Position holds "QB": the
    plural noun after "were" says which players are counted, and no part of the plan
    applies it, so all the rows' count is not stated; "how many players were drafted?"
    is counted."""
    draft = pd.DataFrame(
        {
            "Round": [1, 1, 2, 3, 3],
            "Player": ["Al Bo", "Cy Do", "Ed Fo", "Gus Ho", "Ike Jo"],
            "Position": ["QB", "WR", "QB", "LB", "TE"],
        }
    )
    qb = ask({"draft": draft}, "How many drafted players were quarterbacks?")
    assert qb.value is None
    assert "'were quarterbacks' says what the rows are" in str(qb.unplaced)
    drafted = ask({"draft": draft}, "How many players were drafted?")
    assert drafted.value == len(draft)


def test_a_yes_or_no_question_after_a_setting_of_time_is_answered_yes_or_no() -> None:
    """ "In 2002, did Rasnov have more than 10000 people?" asks yes or no, as "Did ..."
    does, and is not answered with Rasnov's population."""
    towns = pd.DataFrame(
        {
            "Name": ["Rasnov", "Brasov", "Zarnesti", "Codlea"],
            "Population (2002 census)": [15436, 284596, 26520, 24256],
            "Population (2007 estimation)": [16055, 277945, 25990, 24000],
        }
    )
    did = ask({"towns": towns}, "In 2002, did Rasnov have more than 10000 people?")
    assert did.value is True
    assert did.plan.op in ("exists", "compare")


def test_more_than_a_named_row_compares_with_that_rows_own_value() -> None:
    """ "How many countries received more bronze medals than Sweden?" compares each
    row's Bronze with Sweden's own, read off the table; "how many more ... than" is a
    difference, not a bound."""
    medals = pd.DataFrame(
        {
            "Nation": ["Norway", "Sweden", "Finland", "Chile", "Peru"],
            "Gold": [5, 3, 2, 1, 0],
            "Bronze": [6, 4, 5, 2, 7],
        }
    )
    sweden = medals.set_index("Nation").loc["Sweden"]
    more = ask({"medals": medals}, "How many countries received more bronze medals than Sweden?")
    assert more.value == int((medals.Bronze > sweden.Bronze).sum())
    assert f"Bronze > {sweden.Bronze}: {sweden.Bronze} is Sweden's own" in more.reasons
    fewer = ask({"medals": medals}, "Which nations won fewer gold medals than Sweden?")
    assert fewer.value == medals.Nation[medals.Gold < sweden.Gold].tolist()
    how_many_more = ask(
        {"medals": medals}, "How many more bronze medals did Norway win than Sweden?"
    )
    assert not any(f.column == "Bronze" and f.op == ">" for f in how_many_more.plan.filters)


def test_a_place_named_in_two_words_is_placed_or_nothing_is_stated() -> None:
    """ "from the United Kingdom" is one name: read word by word, "united" was a verb and
    "kingdom" the rows' noun, and the best rider of all was stated."""
    riders = pd.DataFrame({
        "Rider": ["Jack Milne", "Jack Parker", "Eric Langton", "Cordy Milne"],
        "Nation": ["United States", "United Kingdom", "United Kingdom", "United States"],
        "Total Points": [28, 21, 19, 23],
    })  # fmt: skip
    question = "Which rider from the United Kingdom had the most total points?"
    british = riders[riders.Nation == "United Kingdom"]
    truth = british.loc[british["Total Points"].idxmax(), "Rider"]
    assert ask({"riders": riders}, question).value == truth
    unplaced = ask({"riders": riders.drop(columns="Nation")}, question)
    assert unplaced.value is None
    assert "'united kingdom' says where the rows are" in unplaced.sentence


def test_numbers_that_label_the_rows_groups_have_no_total() -> None:
    """A draft's Round reads 1, 2, 4, 4, 5 ... down the table: a label of each pick's
    round, so "how many rounds" is not the total of the labels; "how many different
    rounds" counts them (a column of numbers has distinct values, not a mean)."""
    draft = pd.DataFrame({"Round": [1, 2, 4, 4, 5, 6, 7, 7], "Player": list("abcdefgh")})
    answer = ask({"draft": draft}, "How many rounds were there?")
    assert answer.value is None
    assert "Round numbers the rows' groups in order, 1 to 7" in answer.sentence
    distinct = ask({"draft": draft}, "How many different rounds were there?")
    assert distinct.value == draft.Round.nunique()
    scores = pd.DataFrame({"Team": list("abcd"), "Goals": [1, 2, 2, 3]})
    assert ask({"scores": scores}, "What is the total of the goals?").value == 8


def test_numbers_that_count_down_the_table_are_neither_added_nor_averaged() -> None:
    """A season's last games, numbered 75 to 82 down the table, label the rows: "how many
    games were lost" is no total of those labels, "the month with the fewest games" no
    mean of them, and "did A win more rounds than B" compares no mean of a Round that
    labels each round's two races. A measure that rises one by one under a plural
    name ("Goals" 2, 3, 4, 5) still adds up, and so does a Round asked about in
    "how many different"."""
    games = pd.DataFrame({
        "Game": [75, 76, 77, 78, 79, 80, 81, 82],
        "Month": ["April"] * 5 + ["May"] * 3,
        "Score": ["W 99-90", "L 90-99", "W 100-80", "L 88-95", "W 101-99", "W 98-97",
                  "L 80-90", "W 110-100"],
        "Goals": [2, 3, 4, 5, 6, 7, 8, 9],
    })  # fmt: skip
    lost = ask({"games": games}, "What is the total Game where the Score starts with L?")
    assert lost.value is None
    assert "Game numbers the rows 75 to 82" in lost.sentence
    months = ask({"games": games}, "Which month has the lowest average game?")
    assert months.value is None
    assert "Game numbers the rows 75 to 82" in months.sentence
    assert ask({"games": games}, "What is the total of the goals?").value == games.Goals.sum()
    races = pd.DataFrame({
        "Round": [1, 1, 2, 2, 3, 3, 4, 4],
        "Race": ["R1", "R2"] * 4,
        "Winner": ["Roche", "Roche", "Mertens", "Roche", "Pirovano", "Mertens", "Roche",
                   "Pirovano"],
    })  # fmt: skip
    rounds = ask({"races": races}, "Did Roche win more rounds than Pirovano?")
    assert rounds.value is None
    assert "Round numbers the rows" in rounds.sentence
    assert ask({"races": races}, "How many different rounds were there?").value == 4


def test_what_each_named_row_holds_is_not_their_total() -> None:
    """ "A and B each scored how many goals?" asks for each one's goals; "how many goals
    did A and B score in total?" asks for their sum."""
    scorers = pd.DataFrame({
        "Name": ["Zé Roberto", "Emerson", "Kaká", "Ronaldo"], "Goals": [6, 6, 3, 10],
    })  # fmt: skip
    each = ask({"scorers": scorers}, "Zé Roberto and Emerson each scored how many goals?")
    assert each.value is None and "'each' asks for what each named row holds" in each.sentence
    pair = scorers[scorers.Name.isin(["Zé Roberto", "Emerson"])]
    total = ask({"scorers": scorers}, "How many goals did Zé Roberto and Emerson score in total?")
    assert total.value == pair.Goals.sum()


def test_a_value_made_a_bound_by_or_lower_is_not_read_exactly() -> None:
    """ "15th or lower" is a bound on the places: the seasons placed exactly 15th answer
    another question; "4 or more" after a number is read as a bound."""
    seasons = pd.DataFrame({
        "Season": ["1986/87", "1987/88", "1988/89", "1989/90", "1990/91"],
        "Place": ["2nd", "15th", "15th", "17th", "4th"],
        "Wins": [20, 9, 8, 6, 18],
    })  # fmt: skip
    answer = ask({"seasons": seasons}, "How many years did they place 15th or lower?")
    assert answer.value is None and "'or lower' makes 15 a bound" in answer.sentence
    more = ask({"seasons": seasons}, "How many seasons had 9 or more wins?")
    assert more.value == int((seasons.Wins >= 9).sum())


def test_a_number_after_at_least_is_a_bound_even_where_its_column_is_text() -> None:
    """Attendances in round thousands that repeat are read as classes, and the column stays
    text (as weight classes do): "did not have at least 15,000" is then read as the rows
    whose cell is not "15,000", which answers another question, and nothing is stated.
    Where the column holds numbers, the bound is applied."""
    crowds = ["30,000", "15,000", "9,000", "15,000", "30,000", "9,000", "20,000", "25,000"] * 5
    games = pd.DataFrame({"Opponent": [f"Club {i}" for i in range(40)], "Attendance": crowds})
    question = "How many games did not have at least 15,000 in attendance?"
    classes = ask({"games": games}, question)
    assert classes.value is None
    assert "'at least' makes 15,000 a bound" in classes.sentence
    few = games.head(7)
    numbers = few.Attendance.str.replace(",", "").astype(int)
    assert ask({"games": few}, question).value == int((numbers < 15000).sum())


def test_the_year_asked_for_is_placed_by_a_column_of_years() -> None:
    """ "what year did the first model have its first flight?": First flight holds years,
    so the year asked for is its value; a column of other numbers places no year."""
    models = pd.DataFrame({
        "Model": ["A380", "A350", "A220"],
        "First flight": [2005, 2013, 2013],
        "Seats": [2005, 440, 160],
    })  # fmt: skip
    asked = "What year did the first model have its first flight?"
    assert ask({"models": models}, asked).value == models["First flight"].iloc[0]
    seats = ask({"models": models}, "What year did the first model have the most seats?")
    assert seats.value is None


def test_a_list_does_not_answer_a_total() -> None:
    """ "what is the total of the first two core diameters?" asks for one number: the two
    diameters are not it; "the two largest diameters" are."""
    wires = pd.DataFrame(
        {"Gauge": [10, 12, 14, 16], "Core diameter": [0.1019, 0.0808, 0.0641, 0.0508]}
    )
    total = ask({"wires": wires}, "What is the total of the two largest core diameters?")
    assert total.value is None and "'total' asks for one number" in total.sentence
    listed = ask({"wires": wires}, "What are the two largest core diameters?")
    assert listed.value == wires["Core diameter"].nlargest(2).tolist()
