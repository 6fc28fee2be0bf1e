"""Where the words leave a slot open, the model picks among this table's columns only."""

from __future__ import annotations

import pandas as pd

from agent_nb.backends import ScriptedBackend
from agent_nb.data.answer import ask
from agent_nb.data.choose import model_chooser


def _scores() -> pd.DataFrame:
    return pd.DataFrame({
        "player": ["ann", "bob", "cy"], "points": [3.0, 9.0, 5.0], "fouls": [4.0, 1.0, 2.0],
    })  # fmt: skip


def test_the_model_picks_under_an_enum_of_the_tables_columns() -> None:
    backend = ScriptedBackend()
    backend.enqueue('{"measure": "fouls"}')
    answer = ask({"games": _scores()}, "Who did best?", model_chooser(backend))
    schema = backend.requests[-1].response_schema
    assert schema is not None and schema["properties"]["measure"]["enum"] == ["points", "fouls"]
    assert answer.plan.op == "extreme" and answer.plan.measure == "fouls"
    assert answer.sentence == "ann has the highest fouls (4)."
    assert any("chosen by the model" in r for r in answer.reasons)


def test_an_unusable_choice_falls_back_to_the_first_candidate_and_says_so() -> None:
    backend = ScriptedBackend()
    backend.enqueue("__import__('os')")  # not JSON: never evaluated, just refused
    answer = ask({"games": _scores()}, "Who did best?", model_chooser(backend))
    assert answer.plan.measure == "points" and answer.result.names == ("bob",)
    assert any("no model asked" in r or "first of" in r for r in answer.reasons)


def test_a_named_column_needs_no_model() -> None:
    backend = ScriptedBackend()
    answer = ask({"games": _scores()}, "Who has the most points?", model_chooser(backend))
    assert backend.requests == [] and answer.result.names == ("bob",)
