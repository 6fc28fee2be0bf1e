"""The faults a new user met on tables nobody tuned for (issue 47): each computed right,
or answered with what was read and what could not be placed, never a guessed value.

Truths are computed here with pandas from the same real tables (palmerpenguins,
vega_datasets' cars); the answers come from the data agent (`ask`) and, where the
fault was met in a cell, from the real magic in a real IPython shell.
"""

from __future__ import annotations

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb.backends import ScriptedBackend
from agent_nb.data.answer import ask
from agent_nb.data.cells import name_without_details
from tests.data.tables import table
from tests.fixtures_magics import run


@pytest.fixture(scope="module")
def penguins() -> pd.DataFrame:
    return table("penguins")


@pytest.fixture(scope="module")
def cars() -> pd.DataFrame:
    return table("cars")


def test_the_change_in_a_count_over_the_years_is_the_count(penguins: pd.DataFrame) -> None:
    """Fault 2: "the number of penguins" changed, not the mean bill length."""
    answer = ask({"penguins": penguins}, "How did the number of penguins change over the years?")
    per_year = penguins.groupby("year").size()
    first, last = int(per_year.iloc[0]), int(per_year.iloc[-1])
    assert answer.plan.op == "trend" and answer.plan.measure is None
    assert answer.value == pytest.approx((last - first) / first * 100, abs=1e-3)
    assert f"({first})" in answer.sentence and f"({last})" in answer.sentence
    assert "bill" not in answer.sentence


def test_a_superlative_of_something_the_table_lacks_gets_no_value(
    penguins: pd.DataFrame,
) -> None:
    """Fault 4: "the longest name" on a table with no names measures nothing it has."""
    answer = ask({"penguins": penguins}, "Which penguin has the longest name?")
    assert answer.value is None and answer.kind == "none"
    assert "name" in answer.could_not_place
    assert "59.6" not in answer.sentence and "'name'" in answer.sentence.split("could not place")[1]


def test_rows_whose_tested_column_is_missing_are_said_not_counted_as_failing(
    penguins: pd.DataFrame,
) -> None:
    """Fault 5: two penguins have no weight; "all weigh at least 2500 g" is about the rest."""
    answer = ask({"penguins": penguins}, "Do all penguins weigh at least 2500 g?")
    known = penguins.body_mass_g.dropna()
    gaps = int(penguins.body_mass_g.isna().sum())
    assert gaps == 2
    assert answer.value is bool((known >= 2500).all())
    assert f"{gaps} more rows have no body_mass_g and are not counted" in answer.sentence


def test_the_share_of_a_subgroup_has_the_subgroup_as_its_base(penguins: pd.DataFrame) -> None:
    """Fault 7: the share of the Gentoo that weigh over 5000 g, not of all penguins."""
    answer = ask({"penguins": penguins}, "What percentage of Gentoo penguins weigh over 5000 g?")
    gentoo = penguins[penguins.species == "Gentoo"]
    truth = (gentoo.body_mass_g > 5000).sum() / len(gentoo) * 100
    assert answer.value == pytest.approx(truth)
    assert f"of {len(gentoo)})" in answer.sentence


@pytest.mark.parametrize(
    ("name", "question", "column", "measure", "how"),
    [
        ("cars", "the average horsepower per Origin", "Origin", "Horsepower", "mean"),
        ("penguins", "How many penguins per island?", "island", None, "size"),
        ("penguins", "What is the total body mass for each species?", "species", "body_mass_g",
         "sum"),
    ],
)  # fmt: skip
def test_per_x_gives_every_groups_value(
    name: str, question: str, column: str, measure: str | None, how: str
) -> None:
    """Fault 8: "per Origin" is a grouping: every group's value, not the top one."""
    df = table(name)
    answer = ask({name: df}, question)
    grouped = df.groupby(column)
    truth = grouped.size() if measure is None else getattr(grouped[measure], how)()
    assert answer.kind == "mapping"
    assert set(answer.value) == {str(k) for k in truth.index}
    for key, number in truth.items():
        assert answer.value[str(key)] == pytest.approx(float(number))


def test_a_grouping_the_plan_does_not_apply_blocks_the_value(cars: pd.DataFrame) -> None:
    """A "per X" that names a column the plan does not group by is never a note."""
    answer = ask({"cars": cars}, "How many cars per manufacturer name length?")
    assert answer.value is None or isinstance(answer.value, dict)


@pytest.mark.parametrize(
    ("question", "origin", "extra"),
    [
        ("How many Japanese cars get more than 30 miles per gallon?", "Japan", 30),
        ("How many European cars are there?", "Europe", None),
    ],
)
def test_a_demonym_names_its_country(
    cars: pd.DataFrame, question: str, origin: str, extra: float | None
) -> None:
    """Fault 1: "Japanese" is Japan (WordNet's pertainym), never dropped."""
    answer = ask({"cars": cars}, question)
    rows = cars[cars.Origin == origin]
    if extra is not None:
        rows = rows[rows.Miles_per_Gallon > extra]
    assert answer.value == len(rows)
    assert f"Origin {origin}" in answer.sentence


def test_a_word_the_table_cannot_place_gets_no_number(
    cars: pd.DataFrame, penguins: pd.DataFrame
) -> None:
    """Fault 9: "European cars" is the mean weight of the European cars, never of every
    car with a note; on a table with no origin, no number at all."""
    answer = ask({"cars": cars}, "What is the average weight of European cars?")
    europe = cars[cars.Origin == "Europe"].Weight_in_lbs.mean()
    assert answer.value == pytest.approx(europe)
    answer = ask({"penguins": penguins}, "What is the average weight of European penguins?")
    assert answer.value is None and answer.could_not_place == ("european",)
    assert f"{penguins.body_mass_g.mean():,.2f}" not in answer.sentence
    assert answer.sentence.startswith("No answer: I read the mean body_mass_g in penguins")


def test_a_value_offered_beside_an_applied_one_blocks_the_count(penguins: pd.DataFrame) -> None:
    """ "Biscoe or Greenland": no island is Greenland, and counting Biscoe's penguins alone
    answers another question; the reply says what it read and what it could not place."""
    for question, word in (
        ("How many penguins live on Biscoe or Greenland?", "greenland"),
        ("How many penguins are Adelie or injured?", "injured"),
    ):
        answer = ask({"penguins": penguins}, question)
        assert answer.value is None, answer.sentence
        assert word in answer.could_not_place and "joined by 'or'" in answer.sentence
    both = ask({"penguins": penguins}, "How many penguins live on Biscoe or Dream?")
    assert both.value == int(penguins.island.isin(["Biscoe", "Dream"]).sum())


def test_a_kind_of_letter_is_no_text_to_match(cars: pd.DataFrame) -> None:
    """ "Names that begin with a vowel" is no name starting with the text "vowel" (0 rows,
    stated as a count): which letters it means is not read, so no number is stated; a
    quoted word or one letter is the text itself."""
    answer = ask({"cars": cars}, "How many cars have a name that begins with a vowel?")
    assert answer.value is None and answer.could_not_place == ("vowel",)
    letter = ask({"cars": cars}, "How many car names start with the letter a?")
    assert letter.value == int(cars.Name.str.lower().str.startswith("a").sum())


def test_a_model_sentence_about_another_quantity_is_replaced(penguins: pd.DataFrame) -> None:
    """Fault 3: "The penguins weigh 59.6 kg at most" for the longest bill states the
    right number about the wrong quantity: the check holds the quantity too."""
    from agent_nb.data.evidence import check_sentence

    answer = ask({"penguins": penguins}, "What's the longest bill?")
    assert answer.value == penguins.bill_length_mm.max()
    why = check_sentence("The penguins weigh 59.6 kg at most.", answer.reference)
    assert why is not None and "weigh" in why
    assert check_sentence("The longest bill is 59.6 mm.", answer.reference) is None


def test_a_series_gets_a_plan_and_other_objects_say_nothing_was_computed(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    """Fault 10: a Series is a one-column table with a plan; an object that is no table
    gets the model's reply with a line saying it was not computed."""
    run(shell, "from palmerpenguins import load_penguins\nser = load_penguins().body_mass_g")
    result, cap = run(shell, "%%agent --data ser --once -o r\nWhat is the average?")
    assert result.error_in_exec is None, cap.stderr
    reply = shell.user_ns["r"]
    truth = shell.user_ns["ser"].mean()
    assert reply.answer == pytest.approx(truth)
    assert "body_mass_g" in reply.text and "not computed" not in cap.stdout
    assert backend.requests == []  # the computed sentence is the reply: no model call
    backend.enqueue("The mean is 34.5 kilograms.")
    run(shell, "import numpy as np\narr = np.array([1.0, 2.0, 4.0])")
    result, cap = run(shell, "%%agent --data arr --once -o r2\nWhat is the average?")
    assert result.error_in_exec is None, cap.stderr
    assert "not computed: --data arr (ndarray) is not a table" in cap.stdout
    assert shell.user_ns["r2"].answer is None


def test_a_data_answer_is_the_computed_sentence_at_once_or_the_models_when_asked(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    """Must have 6: the computed sentence is the reply (no model call); with
    ``--data-wording model`` the model words it and the check holds it to the result."""
    run(shell, "from palmerpenguins import load_penguins\np = load_penguins()")
    result, cap = run(shell, "%%agent --data p --once -o r\nWhat is the heaviest body mass?")
    assert result.error_in_exec is None, cap.stderr
    assert shell.user_ns["r"].text.startswith("6300 is the highest body_mass_g")
    assert backend.requests == []
    backend.enqueue("The heaviest penguin weighs 6,300 g.")
    line = "%%agent --data p --once --data-wording model -o r\nWhat is the heaviest body mass?"
    result, cap = run(shell, line)
    assert result.error_in_exec is None, cap.stderr
    assert shell.user_ns["r"].text.startswith("The heaviest penguin weighs 6,300 g")
    assert len(backend.requests) == 1


def test_a_reading_not_understood_shows_no_table_or_chart(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    """The plan it read is said, but its numbers answer another question: no result
    table, chart or attached data carries them to the reader."""
    run(shell, "from palmerpenguins import load_penguins\np = load_penguins()")
    line = "%%agent --data p --once -o r\nWhat is the average weight of European penguins?"
    result, cap = run(shell, line)
    assert result.error_in_exec is None, cap.stderr
    reply = shell.user_ns["r"]
    mean = shell.user_ns["p"].body_mass_g.mean()
    shown = cap.stdout + "".join(str(o.data) for o in cap.outputs)
    assert reply.text.startswith("No answer: I read the mean body_mass_g")
    assert "plan, not answered: aggregate mean body_mass_g" in cap.stdout
    for written in (f"{mean:,.2f}", f"{mean:.2f}", f"{mean:.4g}", f"{mean:,.4g}"):
        assert written not in shown
    assert reply.answer is None and reply.attachments["data"] is None
    assert reply.attachments["chart"] is None
    assert backend.requests == []


def test_a_count_of_rows_is_no_total_of_a_column_said_after_total() -> None:
    """ "how many total points were scored by players averaging over 4 assists" asks for
    points, which a column holds: the number of rows is not it, with "total" between."""
    players = pd.DataFrame(
        {
            "Player": ["Ann", "Bo", "Cy", "Di", "Ed"],
            "Points": [120, 98, 75, 60, 40],
            "Assists Per Game": [5.1, 4.2, 3.0, 2.5, 4.8],
        }
    )
    q = "How many total points were scored by players averaging over 4 assists per game?"
    answer = ask({"players": players}, q)
    assert answer.value is None and "points" in answer.could_not_place
    counted = ask({"players": players}, "How many players averaged over 4 assists per game?")
    assert counted.value == int((players["Assists Per Game"] > 4).sum())


def test_which_is_the_noun_asks_for_a_row_and_a_choice_for_one_of_its_values() -> None:
    """ "which is the only subdivision with a greater area than X?" names a row; a
    number (a count, a mean of the rows) answers another question, as does one for
    "which was not ..., A or B?" when "not" was read into the choice."""
    regions = pd.DataFrame(
        {
            "MAINLAND": ["Highland", "Argyll and Bute", "Fife", "Moray", "Angus"],
            "Area": [10000, 2712, 500, 900, 800],
        }
    )
    q = "Which is the only subdivision to have a greater area than Argyll and Bute?"
    answer = ask({"regions": regions}, q)
    assert answer.value is None and "subdivision" in answer.could_not_place
    named = "Which is the only mainland to have a greater area than Argyll and Bute?"
    assert ask({"regions": regions}, named).value == "Highland"
    assert ask({"regions": regions}, "Which is the largest area?").value == "Highland"
    choice = ask({"regions": regions}, "Which was not larger than 1000, Fife or Highland?")
    assert choice.value is None or choice.value in ("Fife", "Highland")
    # the values negated are no choice offered: the one row left is the answer
    titled = regions.assign(Title=["King", "Marquis", "Duke", "King", "Marquis"])
    assert ask({"regions": titled}, "Which mainland is not King or Marquis?").value == "Fife"


def test_a_noun_asked_for_is_not_answered_by_a_number_of_its_measure() -> None:
    """ "boat with the least tonnage" (no asking word) and "which was the last ship in
    service?" ask for a boat and a ship: the least Tonnage or the latest year names
    neither, so no value is stated unless it is the row's name."""
    ships = pd.DataFrame(
        {
            "Ship": ["SS Stancor", "SS Ava", "SS Baron", "SS Cora"],
            "Tonnage": [798, 5200, 3100, 1500],
            "In Service": [1950, 1971, 2007, 1988],
        }
    )
    boat = ask({"ships": ships}, "boat with the least tonnage that was attacked")
    assert boat.value is None and "boat" in boat.could_not_place
    last = ask({"ships": ships}, "Which was the last ship in service?")
    assert last.value in (None, "SS Baron")
    # a time noun asked for is answered by a time
    assert ask({"ships": ships}, "the year the last ship entered service").value == 2007
    assert ask({"ships": ships}, "the least tonnage").value == 798


def test_the_first_in_time_is_not_the_first_row_where_a_column_says_when() -> None:
    """ "which school was the first to be closed?" over a table not listed by Year Closed:
    the first row is no answer; the rest of the column's name ("closed") says the order
    is in time, so the reading either orders by that column or states nothing."""
    schools = pd.DataFrame(
        {
            "School Name": ["School 1", "School 2", "School 5", "School 35", "School 40"],
            "Year Closed": ["1976", "1961", "2002", "1930s", "c. 1950"],
        }
    )
    answer = ask({"schools": schools}, "Which school is the first school to have been closed?")
    assert answer.value in (None, "School 35")
    assert answer.value is not None or "closed" in answer.could_not_place
    listed = ask({"schools": schools}, "Which school is listed first?")
    assert listed.value == "School 1"
    # a count of days held says how long, not when: the last row is the last event
    reigns = pd.DataFrame(
        {"Days\nheld": ["311", "—", "580", "145"], "Event": ["A", "B", "C", "Live event"]}
    )
    assert ask({"reigns": reigns}, "What was the last event to be held?").value == "Live event"


def test_an_event_the_table_is_not_listed_in_the_order_of_is_no_first_row() -> None:
    """ "who was the first player born?" over a roster whose birth dates go back and forth:
    the first row is no answer (born is an event in time, and the table is not in the
    order of any column of years); a roster listed by birth, or "listed first", is, and
    so is one whose years run in order but for one cell out of place."""
    players = pd.DataFrame(
        {
            "Name": ["Ann Lee", "Bo Park", "Cy Diaz", "Di Wu", "Ed Roe", "Flo Ng"],
            "Date of birth": [
                "23 settembre 1981", "4 ottobre 1986", "9 febbraio 1979", "1990", "1977", "1984"
            ],
        }
    )  # fmt: skip
    born = ask({"players": players}, "Who was the first player born?")
    assert born.value is None and "born" in born.could_not_place
    assert ask({"players": players}, "Who is the first player listed?").value == "Ann Lee"
    in_order = players.assign(**{"Date of birth": ["1977", "1979", "1981", "2013", "1986", "1990"]})
    assert ask({"players": in_order}, "Who was the first player born?").value == "Ann Lee"
    # the row after a named one is the table's order, whatever the years
    assert ask({"players": players}, "Who was born after Bo Park?").value == "Cy Diaz"


def test_a_noun_asked_for_that_names_another_column_gets_no_value_of_this_one() -> None:
    """ "what year did the champions have a 3-0 record?" asks for a Year, not the Champion
    the filters matched: a noun the question asks for, a word of the name of a column
    the answer does not show, keeps a value of that column back."""
    champions = pd.DataFrame(
        {
            "Year": [1961, 1966, 1975, 1990],
            "Champion": ["Westbury", "Houston", "Lakewood", "Taipei"],
            "Record": ["2-1", "3-0", "3-0", "3-0"],
        }
    )
    year = ask(
        {"champions": champions}, "What year did the champions have a 3-0 record before 1970?"
    )
    assert year.value in (None, 1966)
    assert year.value is not None or "year" in year.could_not_place
    who = ask({"champions": champions}, "Which champion had a 3-0 record before 1970?")
    assert who.value == "Houston"
    # a time noun asked for is answered by a time, or not at all
    operettas = pd.DataFrame(
        {
            "Title": ["Die Fledermaus", "Der Zigeunerbaron", "Die verliebte Eskadron"],
            "Première date": ["5 April 1874", "24 October 1885", "12 May 1958"],
        }
    )
    year = ask({"operettas": operettas}, "What was the year of the last title?")
    assert year.value not in operettas.Title.tolist()
    assert year.value is not None or "year" in year.could_not_place
    # a Week column's number is the week asked for; "which has the same ..." names no noun
    games = pd.DataFrame({"Week": [1, 2, 3], "Attendance": [51000, 62000, 48000]})
    assert ask({"games": games}, "What week had the most attendance?").value == 2
    formats = pd.DataFrame(
        {
            "Product": ["AllegroGraph", "Jena"],
            "Input Format": ["RDF", "RDF, OWL"],
            "Output Format": ["RDF", "RDF"],
        }
    )
    both = ask({"formats": formats}, "What is the only input/output format for AllegroGraph?")
    assert both.value == "RDF"
    singles = pd.DataFrame(
        {
            "Single": ["Hold On", "You & Me", "Junkies"],
            "Release date": ["2 May 2005", "9 June 2006", "1 March 2007"],
        }
    )
    before = ask({"singles": singles}, 'What single release came before "Junkies"?')
    assert before.value == "You & Me"


def test_the_rows_under_a_closing_total_are_no_rows_of_the_table() -> None:
    """An election's table closes with its Total and, under it, "Registered
    voters/turnout": neither is a party, so neither is the last party or a count's row."""
    votes = pd.DataFrame(
        {
            "Party": [
                "Social Democrats",
                "Moderates",
                "Greens",
                "Total",
                "Registered voters/turnout",
            ],
            "Votes": ["1,827,497", "1,456,014", "236,699", "3,520,210", "6,603,129"],
        }
    )
    listed = ask({"votes": votes}, "Which party is listed last?")
    assert listed.value == "Greens"
    assert ask({"votes": votes}, "How many parties are there?").value == 3


def test_a_name_is_stated_without_the_lines_that_detail_it_in_its_cell() -> None:
    """A cell of a page's table holds a name over lines that detail it ("(Pater Patriae)",
    "Released: ..."): the answer states the name; a cell whose lines are a list of
    names is stated whole, and the table shown keeps every cell as written."""
    heads = pd.DataFrame(
        {
            "Name": ["Cosimo de' Medici\n(Pater Patriae)", "Piero I de' Medici", "Lorenzo"],
            "Drivers": ["Phil Ward\nJohn Goss", "Ann Lee", "Bo Park"],
            "From": [1434, 1464, 1469],
        }
    )
    first = ask({"heads": heads}, "Who was the first head?")
    assert first.value == "Cosimo de' Medici"
    assert first.sentence.startswith("Cosimo de' Medici is")
    assert "(Pater Patriae)" in first.result.shown.to_string()
    drivers = ask({"heads": heads}, "Who were the drivers of the first head?")
    assert drivers.value == "Phil Ward\nJohn Goss"
    # a cell of details alone is no name over its details
    assert name_without_details("Released: June 24, 2011\nLabel: Canibus") == (
        "Released: June 24, 2011\nLabel: Canibus"
    )


def test_a_name_is_stated_without_the_word_that_marks_where_the_game_was() -> None:
    """A schedule writes "at Detroit Waza" for an away game: the opponent is Detroit Waza.
    The mark is read off the column (a fifth of its cells at least), not off one cell:
    a column of names that happen to start with "At" keeps them."""
    games = pd.DataFrame(
        {
            "Week": [1, 2, 3, 4, 5],
            "Opponent": [
                "at Detroit Waza",
                "Cleveland Freeze",
                "at Cleveland Freeze",
                "Detroit Waza",
                "vs. Chicago Riot",
            ],
        }
    )
    assert ask({"games": games}, "Who was the first opponent?").value == "Detroit Waza"
    assert ask({"games": games}, "Who was the last opponent?").value == "Chicago Riot"
    bands = pd.DataFrame({"Band": ["At the Drive-In", "Blur", "Pulp", "Suede", "Oasis"]})
    assert ask({"bands": bands}, "Which band is listed first?").value == "At the Drive-In"


def test_a_superlative_of_the_measure_asks_for_its_value_not_a_rows_name() -> None:
    """ "what is the largest amount of seats?" asks for the number of seats; a party's
    name with the most seats answers "which party". "what is the highest city" asks for
    the city."""
    parties = pd.DataFrame(
        {
            "Party": ["Progressive Federal", "Conservative", "National", "New Republic"],
            "Seats": [34, 39, 94, 1],
        }
    )
    seats = ask({"parties": parties}, "What is the largest amount of seats listed?")
    assert seats.value in (None, 94)
    assert seats.value is not None or "seats" in seats.could_not_place
    assert ask({"parties": parties}, "Which party has the most seats?").value == "National"
    cities = pd.DataFrame({"City": ["Albino", "Bergamo", "Dalmine"], "Altitude": [342, 249, 207]})
    assert ask({"cities": cities}, "What is the highest city in altitude?").value == "Albino"
    # the phrase's head is its last noun: "the top grossing film" asks for a film
    films = pd.DataFrame({"Title": ["Hook", "Robin Hood", "Alien 3"], "Gross": [300, 390, 159]})
    assert ask({"films": films}, "What is the top grossing film?").value == "Robin Hood"


def test_how_many_is_not_answered_by_a_share() -> None:
    """ "how many nations share the seventh rank?" asks for a number of nations: "share"
    is the verb, and a share of the rows (50 %) answers another question; "how many
    percent of the nations ..." asks for the share."""
    medals = pd.DataFrame(
        {
            "Nation": ["Norway", "Italy", "Peru", "Chile", "Japan", "Togo"],
            "Rank": [1, 2, 7, 7, 7, 8],
        }
    )
    shared = ask({"medals": medals}, "How many nations share the seventh rank?")
    assert shared.value in (None, 3)
    percent = ask({"medals": medals}, "How many percent of the nations are ranked 7?")
    assert percent.value == pytest.approx(50)


def test_a_number_of_rows_asked_for_is_no_total_of_a_measure_no_word_names() -> None:
    """ "what is the total number of losses?" over a schedule with one column of numbers
    (Attendance) asks how many rows are losses: the total attendance of the lost games,
    a measure no word named, answers another question."""
    games = pd.DataFrame(
        {
            "Week": ["1", "2", "3", "4"],
            "Result": ["L 10-24", "W 21-7", "L 3-17", "W 14-10"],
            "Attendance": [45000, 48809, 51000, 60000],
        }
    )
    losses = ask({"games": games}, "What is the total number losses?")
    assert losses.value in (None, 2)
    assert losses.value is not None or "Attendance" in losses.unplaced[0].word
    sales = pd.DataFrame({"Region": ["Asia-Pacific", "Europe", "Asia-Pacific"], "Sales": [3, 4, 5]})
    assert ask({"sales": sales}, "How much did Asia-Pacific sell in total?").value == 8
    # the kinds counted by a noun that names them: "athletes" of Lifter Name
    lifts = pd.DataFrame(
        {
            "Lifter Name": ["Ann", "Bo", "Ann", "Cy", "Bo", "Ann"],
            "Best Squat": [90, 80, 95, 70, 85, 99],
        }
    )
    assert ask({"lifts": lifts}, "How many different athletes are there?").value == 3


def test_years_have_no_share_and_a_bracket_over_lines_details_a_name() -> None:
    """ "In how many years did the party have at least 10% of the votes?" is no share of
    the total of a column of years; a team's first line is its name where the lines
    under it are one bracket ("(Toronto Blueshirts (1917–18)\\n...)")."""
    elections = pd.DataFrame(
        {
            "Election": [1990, 1994, 1998, 2002, 2006],
            "Share of votes": [8.2, 10.4, 12.9, 9.7, 11.1],
        }
    )
    question = "In how many years did the party have at least 10.0% share of votes?"
    years = ask({"elections": elections}, question)
    assert years.plan.agg != "share" or years.value is None
    teams = pd.DataFrame(
        {
            "Team": [
                "Montreal Canadiens",
                "Toronto Maple Leafs\n(Toronto Blueshirts (1917–18)\nToronto Arenas (1918–19))",
                "Boston Bruins",
            ],
            "Seasons": [94, 94, 88],
        }
    )
    same = ask({"teams": teams}, "Which team played the same amount of seasons as the Canadiens?")
    assert same.value == ["Toronto Maple Leafs"]
    listed = "Phil Ward\n(John Goss (1966)\nRon Bell) and Joe Mohr"
    assert name_without_details(listed) == listed  # (more than one bracket: the whole)


def test_the_same_year_as_a_named_row_of_dates() -> None:
    """ "Which wrestlers have the same year listed for their date as Kodo Fuyuki?" over a
    column of dates: the named row's year, not a failed cell (a date is no filter value)."""
    title = pd.DataFrame(
        {
            "Wrestlers": ["Kodo Fuyuki", "Takashi Sasaki", "Gentaro", "Tetsuhiro Kuroda"],
            "Date": pd.to_datetime(["2002-02-04", "2002-06-09", "2003-01-12", "2002-11-30"]),
        }
    )
    question = "Which wrestlers have the same year listed for their date as Kodo Fuyuki?"
    same = ask({"title": title}, question)
    year = title.Date[title.Wrestlers == "Kodo Fuyuki"].dt.year.item()
    truth = title.Wrestlers[(title.Date.dt.year == year) & (title.Wrestlers != "Kodo Fuyuki")]
    assert same.value == truth.tolist() == ["Takashi Sasaki", "Tetsuhiro Kuroda"]
