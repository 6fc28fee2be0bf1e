"""Runs of rows one after another in the table's order (issue 47: "how many consecutive
wins did they have?", "the longest winning streak"): the longest run of the rows the
filters match, on either engine, with the rows it spans in the sentence (the engines'
differential test, `test_engines`, runs the same runs on DuckDB, PostgreSQL and Spark).

Tables are built here; truths are counted off them with plain Python.
"""

from __future__ import annotations

import pandas as pd

from agent_nb.data.answer import ask
from agent_nb.data.row_order import longest_run

SEASON = pd.DataFrame(
    {
        "Week": range(1, 13),
        "Opponent": list("ABCDEFGHIJKL"),
        "Result": [
            "W 21-7",
            "W 14-3",
            "L 3-10",
            "W 7-0",
            "W 9-3",
            "W 20-17",
            "W 6-3",
            "L 0-7",
            "L 3-9",
            "W 10-3",
            "T 7-7",
            "W 24-0",
        ],
    }
)


def _longest(flags: list[bool]) -> tuple[int, int]:
    """(length, first row from 1) of the longest run of True, counted by hand."""
    best, start, run = 0, 0, 0
    for i, flag in enumerate(flags):
        run = run + 1 if flag else 0
        if run > best:
            best, start = run, i - run + 2
    return best, start


def test_longest_run_finds_the_first_of_the_longest() -> None:
    assert longest_run([]) == (0, -1, -1)
    assert longest_run([4]) == (1, 4, 4)
    assert longest_run([0, 1, 3, 4, 5, 9, 10, 11]) == (3, 3, 5)  # the earlier of two
    assert longest_run([2, 3, 7, 8, 9, 10]) == (4, 7, 10)


def test_consecutive_rows_are_the_longest_run_of_matching_rows(engine: str) -> None:
    """ "How many consecutive wins", "the longest winning streak", "the most consecutive
    losses", "how many games did they win in a row": the rows the words pick, counted
    while they follow one another; the sentence names the rows of the run."""
    wins = [r.startswith("W") for r in SEASON.Result]
    losses = [r.startswith("L") for r in SEASON.Result]
    n, first = _longest(wins)
    for question in (
        "How many consecutive wins did the team have?",
        "What is the longest winning streak?",
        "How many games did they win in a row?",
    ):
        answer = ask({"df": SEASON}, question)
        assert answer.value == n, question
        assert f"(rows {first} to {first + n - 1})" in answer.sentence
    lost = ask({"df": SEASON}, "What was the most consecutive losses?")
    assert lost.value == _longest(losses)[0]
    # no run asked: the number of wins, not the run
    assert ask({"df": SEASON}, "How many wins were there?").value == sum(wins)


def test_a_run_over_years_and_a_trend_over_them() -> None:
    """ "How many consecutive years did X win?": the years are the rows of the run, and
    placed by it. "How many consecutive years did the attendance increase?" asks for a
    trend's run, which no run of matching rows answers: nothing is stated."""
    winners = pd.DataFrame(
        {
            "Year": range(2001, 2011),
            "Winner": [
                "Ross",
                "Rath",
                "Rath",
                "Bray",
                "Rath",
                "Rath",
                "Rath",
                "Bray",
                "Ross",
                "Rath",
            ],
            "Attendance": [900, 950, 990, 1020, 1000, 1100, 1200, 1300, 1250, 1400],
        }
    )
    years = ask({"df": winners}, "How many consecutive years did Rath win?")
    assert years.value == _longest([w == "Rath" for w in winners.Winner])[0]
    assert "left out" not in years.sentence
    rising = ask({"df": winners}, "After 2003, how many consecutive years did attendance increase?")
    assert rising.value is None


def test_a_row_with_no_value_to_test_neither_counts_nor_breaks_a_run(engine: str) -> None:
    """A fight with no result between two losses: the losses are consecutive among the
    fights that have one, and the sentence says how many rows were passed over (issue
    47: a missing value is said, never silently counted as failing a condition)."""
    fights = pd.DataFrame(
        {
            "Opponent": ["Diaby", "Chacon", "Groenhart", "Tadiello", "Ngimbi", "Souwer"],
            "Result": ["Loss", None, "Loss", "Win", "Win", "Loss"],
        }
    )
    answer = ask({"df": fights}, "How many consecutive losses took place?")
    known = list(fights.Result.dropna())
    assert answer.value == _longest([r == "Loss" for r in known])[0] == 2
    assert "1 row with no Result is passed over" in answer.sentence
