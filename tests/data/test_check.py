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


def test_a_list_is_stated_as_a_list_of_exactly_its_items() -> None:
    """Faults of the embedded model's writer on DataBench: a bullet list that drops an
    item (the k "4" is not the item 4), items written as "are A and B", a large id
    with thousands separators (it crashed the turn)."""
    levels = pd.DataFrame({"JobLevel": [1, 1, 1, 1, 2, 2, 2, 3, 3, 4]})
    ref = ask({"df": levels}, "List the 4 most common JobLevels.").reference
    assert check_sentence("[1, 2, 3, 4] are the 4 most common JobLevel.", ref) is None
    assert check_sentence("The 4 most common JobLevels are:\n- 1\n- 2\n- 3\n- 4", ref) is None
    dropped = "The 4 most common JobLevels are:\n- Job 1: 1\n- Job 2: 2\n- Job 3: 3"
    assert "Job 1: 1" in (check_sentence(dropped, ref) or "")
    assert "did not list 4" in (check_sentence("The most common: 1, 2 and 3.", ref) or "")
    staff = pd.DataFrame({"Department": ["Sales", "R&D", "R&D", "HR"], "n": [5, 9, 8, 1]})
    ref = ask({"df": staff}, "List the 2 departments with the highest n.").reference
    why = check_sentence("The 2 departments with the highest n are R&D and R&D.", ref)
    assert why == "it did not state the answer as a list"
    ids = pd.DataFrame({"offering_id": [1164645, 643970, 281828, 12]})
    ref = ask({"df": ids}, "List the 2 largest offering IDs.").reference
    assert check_sentence("The 2 largest: 1,164,645 and 643,970.", ref) is None
    assert check_sentence("The 2 largest: 1,164,645 and 281,828.", ref) is not None


def test_an_empty_list_is_said_to_be_empty() -> None:
    """The writer called an empty answer "all the product_category names" (DataBench)."""
    sales = pd.DataFrame({"kind": ["tea", "cake"], "qty": [1, 2]})
    question = "What are the unique kind names in rows with qty > 5? If there are none, say so."
    ref = ask({"df": sales}, question).reference
    assert ref["answer"] == "[]"
    assert check_sentence("[] — no rows have qty over 5.", ref) is None
    assert check_sentence("No kind has a qty over 5: the list is empty.", ref) is None
    said = "The unique kind names in rows with qty > 5 are all the kind names."
    assert check_sentence(said, ref) == "it did not say the list is empty"
