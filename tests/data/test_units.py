"""Units from column names, context and questions, through real pint and the shipped lexicon."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent_nb.data.units import Unit, column_unit, context_units, convert, quantities
from agent_nb.errors import AgentError, UnitError


def _name(column: str) -> str | None:
    unit = column_unit(column)
    return None if unit is None else unit.name


@pytest.mark.parametrize(
    ("column", "unit"),
    [
        ("body_mass_g", "gram"),  # a lone letter, and "mass" is its dimension
        ("weight_g", "gram"),  # a gram is a weight unit to WordNet
        ("distance_km", "kilometer"),
        ("Weight (lbs)", "pound"),
        ("Weight_in_lbs", "pound"),
        ("Weight_in_kg", "kilogram"),
        ("duration_days", "day"),
        ("flipper_length_mm", "millimeter"),
        ("Miles_per_Gallon", "mile / gallon"),
        ("height_m", "meter"),  # height and length are both dimensions
        ("time_s", "second"),
        ("duration_h", "hour"),
        ("age_years", "year"),  # a year is a measure; age is a time period
        ("speed_kph", "kilometer_per_hour"),
        ("Speed (mph)", "mile_per_hour"),  # pint names [speed] = [length] / [time]
        ("Top speed (km/h)", "kilometer / hour"),
        ("Power (kW)", "kilowatt"),
        ("Core diameter (in)", "inch"),  # in brackets "in" is inches
        ("Yards", "yard"),
        ("temperature_c", "degree_Celsius"),  # pint's degC, as the name is a temperature
    ],
)
def test_a_column_name_states_its_unit(column: str, unit: str) -> None:
    assert _name(column) == unit


@pytest.mark.parametrize(
    "column",
    [
        "temp_c",  # "c" is the speed of light to pint, and "temp" a worker to WordNet
        "birth_year",  # a calendar year is a date, not an amount of time
        "model_year",
        "Year",
        "total_points",  # pint's typographic point is not what a score counts
        "temp_min",  # a minimum, not minutes
        "mass",  # pint reads milliarcseconds
        "pts",  # pint reads pints
        "salary_k",
        "cost_usd",  # pint has no currencies
        "island",
        "sex",
        # from WikiTableQuestions' headers, which nobody tuned for
        "Winner(s)",  # a plural, not seconds
        "College/Junior/Club Team (League)",  # a sports league, not three miles
        "Viewers (m)",  # millions
        "Rank in\n2011",  # not inches
        "Notable as",  # not attoseconds
        "3rd",  # not a rod
        "Rd",  # a road, not rutherfords
        "Hour",  # a time of day more often than an amount
        "Senate Members\nOn Election\nDay 2000",
        "Threads per inch",  # a count per inch, not inches
        "Refractive\nindex(es)\n589.3 nm",  # measured at a wavelength, not in nanometres
    ],
)
def test_a_name_that_does_not_state_a_unit_has_none(column: str) -> None:
    assert column_unit(column) is None


def test_the_users_context_gives_units() -> None:
    text = "body_mass_g is in kilograms here. temp_c is given in degrees Celsius; the rest has none"
    found = context_units(text, ["body_mass_g", "temp_c", "island"])
    assert found == {
        "body_mass_g": Unit("kilogram", "[mass]"),
        "temp_c": Unit("degree_Celsius", "[temperature]"),
    }
    assert context_units("distance (km) is the leg's length", ["distance"]) == {
        "distance": Unit("kilometer", "[length]")
    }


@pytest.mark.parametrize(
    ("question", "value", "unit", "text"),
    [
        ("How many penguins are heavier than 5 kg?", 5.0, "kilogram", "5 kg"),
        ("Which trips lasted longer than two weeks?", 2.0, "week", "two weeks"),
        ("How many cars get more than 30 miles per gallon?", 30.0, "mile / gallon",
         "30 miles per gallon"),
        ("Do all penguins weigh at least 2,500 g?", 2500.0, "gram", "2,500 g"),
        ("Is any bill longer than 1.5 metres?", 1.5, "meter", "1.5 metres"),
        ("Which days were above 30°C?", 30.0, "degree_Celsius", "30°C"),
        ("Who is over 5kg?", 5.0, "kilogram", "5kg"),
    ],
)  # fmt: skip
def test_a_question_states_quantities_with_their_span(
    question: str, value: float, unit: str, text: str
) -> None:
    (found,) = quantities(question)
    assert (found.value, found.unit.name) == (value, unit)
    start, end = found.span
    assert question[start:end] == text
    assert " ".join(found.words).replace(" ", "") == text.replace(" ", "")


@pytest.mark.parametrize(
    "question",
    [
        "Which 5 in the table are the largest?",  # "in" is no inch here
        "What are the top 10 cars?",
        "Who scored more than 20 points?",
        "What happened in 2008?",
        "Which film made 5m dollars?",  # 5m is five million (words.NUMBER)
        "the price of the 3 largest houses",
        "Who swam it in 1:53 mins?",  # a time, read elsewhere
        "attendance in the 1973-74 year",
        "How many games in the 1990s?",  # a decade, not seconds
        "Which team won the 1985 acc tournament?",  # no atto-cubic-centimetres
        "Who has one cd out?",  # a compact disc (or cadmium) before a candela
    ],
)
def test_a_number_without_a_unit_states_no_quantity(question: str) -> None:
    assert quantities(question) == []


def test_convert_across_units_and_refuses_other_dimensions() -> None:
    assert convert(5, "kg", "gram") == pytest.approx(5000)
    assert convert(2, Unit("week", "[time]"), "day") == pytest.approx(14)
    assert convert(30, "mile / gallon", "kilometer / liter") == pytest.approx(12.754, rel=1e-3)
    assert convert(100, "degC", "degF") == pytest.approx(212)
    with pytest.raises(UnitError, match=r"kilogram \(\[mass\]\) to meter \(\[length\]\)"):
        convert(5, "kg", "m")
    with pytest.raises(UnitError, match="no unit is called 'furlongz'") as info:
        convert(1, "furlongz", "m")
    assert isinstance(info.value, ValueError) and isinstance(info.value, AgentError)


def test_bad_input_says_what_is_allowed() -> None:
    with pytest.raises(TypeError, match="must be a str"):
        column_unit(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be a str"):
        quantities(None)  # type: ignore[arg-type]


def test_pint_is_loaded_only_when_a_unit_is_read() -> None:
    code = (
        "import sys, agent_nb, agent_nb.data.units as u\n"
        "assert 'pint' not in sys.modules\n"
        "u.quantities('how many are there?')\n"
        "assert 'pint' not in sys.modules, 'a question without a number loads no pint'\n"
        "assert u.quantities('over 5 kg')[0].unit.name == 'kilogram'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
