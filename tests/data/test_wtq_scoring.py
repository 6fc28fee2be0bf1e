"""WikiTableQuestions' evaluator rules (`tests/data/wtq_scoring.py`), on examples of each rule."""

from __future__ import annotations

import pytest

from tests.data.wtq_scoring import (
    DateValue,
    NumberValue,
    StringValue,
    answer_strings,
    check_denotation,
    normalize,
    target_canon,
    to_value,
    to_value_list,
    tsv_unescape_list,
    wtq_match,
)


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("Café", "cafe"),  # diacritics removed
        ("Rock ’n’ Roll", "rock 'n' roll"),  # smart quotes made plain
        ("1990–91", "1990-91"),  # an en dash made a hyphen
        ("Italy [3]", "italy"),  # a trailing citation
        ("Italy[a]", "italy"),
        ("Gold*†", "gold"),  # trailing marks
        ("Bangkok (Thailand)", "bangkok"),  # a trailing detail in parentheses
        ('"Hello"', "hello"),  # outer quotes
        ("Jr.", "jr"),  # a final period
        ("  New   York ", "new york"),  # spaces collapsed, lower case
        ("[1]", ""),  # a citation alone is removed
        ("(1)", "(1)"),  # parentheses at the start stay
    ],
)
def test_normalize(text: str, normal: str) -> None:
    assert normalize(text) == normal


def test_value_types() -> None:
    assert to_value("12") == NumberValue(12, "12")
    assert to_value("2.50") == NumberValue(2.5, "2.50")
    assert isinstance(to_value("12,467"), StringValue)  # the evaluator's float() refuses commas
    assert to_value("2004") == NumberValue(2004, "2004")
    assert to_value("2004-xx-xx") == NumberValue(2004, "2004-xx-xx")  # a year alone
    assert to_value("2004-05-xx") == DateValue((2004, 5, -1), "2004-05-xx")
    assert isinstance(to_value("2004-13-01"), StringValue)  # no month 13
    assert isinstance(to_value("nan"), StringValue)


def test_matches() -> None:
    assert to_value("3").match(to_value("3.0"))  # the same number
    assert not to_value("3").match(to_value("3.01"))
    assert to_value("2004-05-xx").match(to_value("2004-5-xx"))  # dates field by field
    assert to_value("Wolfe Tones").match(to_value("wolfe tones."))  # normalised text
    assert to_value("12,467").match(to_value("12,467"))  # a string matches its own text
    assert not to_value("12,467").match(to_value("12467"))


def test_denotation_is_a_set_of_the_same_size() -> None:
    target = to_value_list(["Italy", "France"])
    assert check_denotation(target, to_value_list(["france", "ITALY"]))
    assert not check_denotation(target, to_value_list(["Italy"]))
    assert not check_denotation(target, to_value_list(["Italy", "France", "Spain"]))
    assert check_denotation(to_value_list(["a", "a"]), to_value_list(["a"]))  # distinct values


def test_target_canon() -> None:
    assert target_canon("12,467") == "12467"
    assert target_canon("-1,234.5") == "-1234.5"
    assert target_canon("1,2") is None  # not thousands separators
    assert target_canon("Bangkok, Thailand") is None
    assert target_canon("October 13, 1968") == "1968-10-13"  # a date in words
    assert target_canon("13 Oct 1968") == "1968-10-13"
    assert target_canon("July 2002") == "2002-07-xx"
    assert wtq_match("1968-10-13", "October 13, 1968")
    assert not wtq_match("1968-10-14", "October 13, 1968")


def test_tsv_target_list() -> None:
    assert tsv_unescape_list(r"a|b\pc|d\\e|x\ny") == ["a", "b|c", "d\\e", "x\ny"]


@pytest.mark.parametrize(
    ("answer", "strings"),
    [
        (None, None),
        (4.0, ["4"]),
        (2.5, ["2.5"]),
        (True, ["yes"]),
        ("Bangkok", ["Bangkok"]),
        (["a", 3.0], ["a", "3"]),
        ({"x": 1, "y": 2}, ["1", "2"]),
    ],
)
def test_answer_strings(answer: object, strings: list[str] | None) -> None:
    assert answer_strings(answer) == strings


def test_wtq_match_on_typed_answers() -> None:
    assert wtq_match(2004, "2004")
    assert wtq_match(2004.0, "2004")
    assert wtq_match("Wolfe Tones [2]", "Wolfe Tones")
    assert wtq_match(["France", "Italy"], "Italy|France")
    assert not wtq_match(None, "2004")
    assert wtq_match(12467, "12,467")  # the tagged target's number (CoreNLP's canon)
    assert wtq_match("12,467", "12,467")  # or its own text
    assert not wtq_match(12467, "12,46")
    assert wtq_match(False, "no")
