"""Times taken ("1:55.45", a Time in seconds): the fastest took the least time, a time
in the question is its seconds, and the answer is a time as the table writes it."""

from __future__ import annotations

import pandas as pd
import pytest

from agent_nb.data.answer import ask


def _swims() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Name": ["Delgado", "DeMont", "Favero", "Madruga", "Kasamoto"],
            "Time": ["1:55.45", "1:55.96", "1:57.08", "1:57.17", "2:01.30"],
            "Lane": [3, 4, 5, 6, 7],
        }
    )


def test_the_fastest_took_the_least_time() -> None:
    swims = _swims()
    assert ask({"df": swims}, "Who had the fastest time?").value == "Delgado"
    assert ask({"df": swims}, "Who was the slowest?").value == "Kasamoto"
    faster = ask({"df": swims}, "Who was faster, Favero or DeMont?")
    assert faster.value == "DeMont"
    assert ask({"df": swims}, "Who had the highest lane?").value == "Kasamoto"


def test_a_time_in_seconds_is_a_time_taken_too() -> None:
    runs = pd.DataFrame({"Athlete": ["A", "B", "C"], "Time": [54.2, 53.1, 55.0]})
    assert ask({"df": runs}, "Which athlete was the fastest?").value == "B"


def test_faster_and_slower_than_a_time() -> None:
    swims = _swims()
    faster = ask({"df": swims}, "How many swimmers swam faster than 1:56?")
    assert faster.value == 2
    assert faster.plan.filters[0].op == "<" and faster.plan.filters[0].value == 116
    # "slower than" is no "lower than": the comparison reads whole words
    slower = ask({"df": swims}, "How many swimmers were slower than 1:56?")
    assert slower.value == 3


def test_a_speed_column_is_read_as_a_speed() -> None:
    # where a column measures the speed itself, the fastest is its highest
    trains = pd.DataFrame({"Train": ["X", "Y", "Z"], "Speed (km/h)": [300, 431, 280]})
    assert ask({"df": trains}, "Which train is the fastest?").value == "Y"


def test_how_much_shorter_is_the_other_side_less_this_one() -> None:
    swims = _swims()
    shorter = ask({"df": swims}, "How much shorter was the time of DeMont than Favero?")
    assert shorter.value == pytest.approx(1.12)  # 1:57.08 - 1:55.96
    longer = ask({"df": swims}, "How much longer was the time of Favero than DeMont?")
    assert longer.value == pytest.approx(1.12)


def test_first_and_last_are_placed_only_by_a_plan_that_reads_that_end() -> None:
    """ "the first" / "the last" of the rows that match: a lookup reads one end of the
    table's order, and a word for the other end is not placed by it."""
    heats = pd.DataFrame(
        {
            "Heat": [1, 1, 2, 2, 3],
            "Name": ["Delgado", "DeMont", "Favero", "Madruga", "Kasamoto"],
            "Nation": ["Ecuador", "USA", "USA", "Brazil", "Japan"],
        }
    )
    first = ask({"df": heats}, "Who was the first swimmer from the USA listed?")
    assert first.value == "DeMont"
    last = ask({"df": heats}, "Who was the last swimmer from the USA listed?")
    assert last.value in (None, "Favero")  # never the first row's name for "last"


def test_how_long_reads_a_time_column_written_beside_gaps() -> None:
    """A race's Time/Retired holds the winner's time, then the others' gaps and reasons
    ("+5.2 secs", "+1 Lap", "Engine"): text, not numbers, but a column of times taken
    all the same. "How long did it take the winner?" reads its cell as written; a
    column named Time of other text is not read as one."""
    race = pd.DataFrame({
        "Driver": ["Fernando Alonso", "Kimi Räikkönen", "Jenson Button", "Mark Webber"],
        "Laps": [56, 56, 55, 30],
        "Time/Retired": ["1:31:33.736", "+5.2 secs", "+1 Lap", "Engine"],
    })  # fmt: skip
    answer = ask({"race": race}, "How long did it take Fernando Alonso to finish the race?")
    assert answer.value == "1:31:33.736"
    slots = race.assign(**{"Time/Retired": ["Morning", "Noon", "Evening", "Night"]})
    assert ask({"race": slots}, "How long did it take Fernando Alonso?").value is None
