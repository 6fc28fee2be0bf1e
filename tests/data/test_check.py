"""The writer's sentence is held to the result: numbers as written, and names."""

from __future__ import annotations

import pandas as pd

from agent_nb.data.answer import ask
from agent_nb.data.evidence import check_sentence, checked_reply


def _cars() -> pd.DataFrame:
    return pd.DataFrame({
        "Origin": ["Japan", "Japan", "USA", "Europe", "USA"],
        "Miles_per_Gallon": [30.2, 30.7, 18.0, 25.0, 20.0],
    })  # fmt: skip


def test_numbers_must_match_as_rounded() -> None:
    ref = ask({"cars": _cars()}, "Which origin has the highest Miles_per_Gallon?").reference
    assert check_sentence("Japan has the highest mean Miles_per_Gallon (30.45).", ref) is None
    assert (
        check_sentence("Japan leads with 30.5 miles per gallon.", ref) is None
    )  # rounded as written
    assert check_sentence("Japan leads with about 30 mpg.", ref) is None
    assert "3.45" in (check_sentence("Japan leads with 3.45.", ref) or "")
    assert "none of the answer's numbers" in (check_sentence("Japan leads.", ref) or "")


def test_names_must_be_the_answers() -> None:
    ref = ask({"cars": _cars()}, "Which origin has the highest Miles_per_Gallon?").reference
    assert "did not name Japan" in (check_sentence("USA has 30.45.", ref) or "")
    assert "USA" in (check_sentence("Japan (30.45) beats USA.", ref) or "")


def test_a_failed_sentence_becomes_the_template_and_a_note() -> None:
    ref = ask({"cars": _cars()}, "Which origin has the highest Miles_per_Gallon?").reference
    replaced = checked_reply("Europe has 55,489.", ref)
    assert replaced is not None
    first, note = replaced.split("\n\n")
    assert first == "Japan has the highest mean Miles_per_Gallon (30.45)."
    assert note.startswith("*(the model's wording was replaced") and "\n" not in note
    assert checked_reply("Japan: 30.45 mpg on average.", ref) is None


def test_numbers_inside_names_and_the_template_are_not_wrong_numbers() -> None:
    df = pd.DataFrame({"Name": ["datsun 1200", "ford f250"], "Weight_in_lbs": [1613.0, 4732.0]})
    answer = ask({"cars": df}, "Which car is the lightest?")
    assert answer.sentence == "datsun 1200 has the lowest Weight_in_lbs (1613)."
    assert check_sentence(answer.sentence, answer.reference) is None
    assert check_sentence("The datsun 1200 weighs 1,613 lbs.", answer.reference) is None
    assert check_sentence("The datsun 1200 weighs 1,200 lbs.", answer.reference) is not None
